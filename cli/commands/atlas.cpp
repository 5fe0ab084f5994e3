#include "commands/atlas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "commands/atlas_parts.h"
#include "events.h"
#include "frames.h"
#include "io/io.h"
#include "json.h"
#include "output.h"
#include "pipeline.h"
#include "spritz/eval.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/sheet.h"
#include "spritz/version.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

// The motion-vector sheet and what the metadata, --json and the log say of it.
struct BakedMotion {
  MotionSheet sheet;
  std::string json;     // meta.motionVectors
  std::string event;    // the --json line
  std::string message;  // the log lines
};

BakedMotion bake_motion(const Effect& fx, const TextureSet& textures, const View& view,
                        const SheetLayout& layout, const std::vector<uint8_t>& sheet_px,
                        const std::vector<MotionStep>& steps, const std::vector<int>& next_cell,
                        const AtlasArgs& args, const std::string& meta_path, double frame_rate,
                        int threads, const RunSettings& settings) {
  const MotionArgs& mv = args.motion;
  BakedMotion out;
  ColourSheet colour;
  colour.pixels = &sheet_px;
  colour.depth16 = args.depth == 16;
  colour.next_cell = next_cell;
  colour.pass = light_pass_from(args.pass);
  colour.frame_rate = frame_rate;
  out.sheet = make_motion_sheet(fx, textures, view, layout, steps, mv, threads, settings, &colour);
  std::optional<MotionCheck> check;
  if (mv.check || !mv.check_image.empty())
    check = check_motion_sheet(fx, textures, view, layout, colour, out.sheet, steps, mv, threads,
                               settings);
  const std::string figures =
      check
          ? ", \"check\": {\"inbetweens\": " + std::to_string(check->inbetweens) +
                ", \"crossfadePsnr\": " + json_number(std::round(check->crossfade_db * 100) / 100) +
                ", \"motionVectorPsnr\": " + json_number(std::round(check->motion_db * 100) / 100) +
                "}"
          : std::string();
  out.json = "{\"image\": " + json_string(sheet_relative_to_meta(mv.output, meta_path)) +
             ", \"encoding\": \"" + mv.encoding + "\", \"scale\": " + json_number(out.sheet.scale) +
             ", \"units\": \"cell\", \"depth\": " + std::to_string(mv.depth) +
             ", \"dilate\": " + json_number(mv.dilate) + ", \"fit\": \"" + mv.fit + "\"" + figures +
             "}";
  out.event = "{\"type\":\"motion_vectors\",\"path\":" + json_string(mv.output) +
              ",\"encoding\":\"" + mv.encoding + "\",\"scale\":" + json_number(out.sheet.scale) +
              ",\"clamped_pixels\":" + std::to_string(out.sheet.clamped) + ",\"fit\":\"" + mv.fit +
              "\"" +
              (mv.fit == "blend" ? ",\"fitted_pixels\":" + std::to_string(out.sheet.fitted)
                                 : std::string()) +
              (check ? ",\"inbetweens\":" + std::to_string(check->inbetweens) +
                           ",\"crossfade_psnr\":" + json_number(check->crossfade_db) +
                           ",\"motion_vector_psnr\":" + json_number(check->motion_db)
                     : std::string()) +
              "}\n";
  char line[512];
  std::snprintf(line, sizeof line, "spritz: motion vectors %s (%s, scale %g cells, %d-bit)\n",
                mv.output.c_str(), mv.encoding.c_str(), out.sheet.scale, mv.depth);
  out.message = line;
  if (mv.fit == "blend") {
    std::snprintf(line, sizeof line,
                  "spritz: motion vectors fitted to the blend: %llu pixels hold a motion seen "
                  "beside them, a passing particle's or none instead of their own\n",
                  static_cast<unsigned long long>(out.sheet.fitted));
    out.message += line;
  }
  if (out.sheet.clamped) {
    std::snprintf(line, sizeof line,
                  "spritz: warning: %llu pixels move farther than --mv-scale %g cells; their "
                  "vectors are clamped\n",
                  static_cast<unsigned long long>(out.sheet.clamped), out.sheet.scale);
    out.message += line;
  }
  if (check) {
    std::snprintf(line, sizeof line,
                  "spritz: mv-check: %d in-betweens against the exact render: crossfade %.2f dB, "
                  "motion vectors %.2f dB (%+.2f dB)\n",
                  check->inbetweens, check->crossfade_db, check->motion_db,
                  check->motion_db - check->crossfade_db);
    out.message += line;
    if (check->inbetweens == 0)
      out.message += "spritz: warning: mv-check had no pair of cells to blend\n";
  }
  return out;
}

// One run of `spritz atlas`: the sheet's effects, layout and cells, then
// each step of baking it.
class AtlasRun {
 public:
  AtlasRun(const AtlasArgs& args, const RunSettings& settings)
      : args_(args), settings_(settings), files_(settings) {}

  // The options that need no effect, checked before anything is drawn; the
  // metadata's path.
  void check_options();
  // One effect, or with --seeds one per seed (a contact sheet of variants),
  // then the layout and the cells.
  void plan();
  // Framing: the canvas, or with --fit the smallest view holding every
  // particle of every chosen frame (cheap: evaluation only, no pixels).
  void frame_cells();
  // Every cell drawn and placed; the sheet's pixels and PNG, the loop seam.
  void bake();
  // Motion vectors, metadata and the files written; the report. Returns the
  // exit code.
  int finish();

 private:
  TextureSet textures_for(size_t e);
  std::vector<uint8_t> render_cells();
  int loop_seam(const std::vector<uint8_t>& first);
  std::optional<BakedMotion> bake_motion_sheet();
  int report(const std::optional<BakedMotion>& baked) const;

  const AtlasArgs& args_;
  const RunSettings& settings_;
  EffectFiles files_;
  std::string meta_path_;
  std::vector<Effect> effects_;
  SheetLayout layout_;
  CellSchedule schedule_;
  View view_;
  AlphaMode alpha_ = AlphaMode::kStraight;
  int threads_ = 1;
  std::mutex texture_mutex_;
  std::vector<std::optional<TextureSet>> textures_;
  std::vector<uint8_t> sheet_px_, png_;
  int seam_ = 0;
};

void AtlasRun::check_options() {
  const AtlasArgs& args = args_;
  // The options that need no effect, checked before anything is drawn.
  if (args.meta_format != "hash" && args.meta_format != "array" && args.meta_format != "aseprite")
    throw Error("--meta-format must be hash, array or aseprite, got '" + args.meta_format + "'");
  if (args.padding == 1)
    throw Error(
        "--padding 1 leaves room for only one of two neighbours' extruded edges, so a cell "
        "sampled bilinearly would mix in its neighbour; --padding 2 is the least that keeps "
        "cells apart (one extruded pixel on each side), or 0 packs cells edge to edge");
  if (args.direction != "forward" && args.direction != "pingpong")
    throw Error("--direction must be forward or pingpong, got '" + args.direction + "'");
  if (args.max_seam && !(*args.max_seam >= 0))
    throw Error("--max-seam must be 0 or more (a channel difference, 0..255)");
  output_format(args.output, /*hdr_ok=*/false, "-o");
  const MotionArgs& mv = args.motion;
  const bool motion = !mv.output.empty();
  if (motion || mv.check || !mv.check_image.empty()) check_motion_args(mv, /*atlas=*/true);
  if (motion && !args.seeds.empty())
    throw Error(
        "--motion-vectors needs cells that follow each other in time; a sheet of --seeds "
        "has one time");
  meta_path_ =
      !args.meta.empty() ? args.meta : (fs::path(args.output).replace_extension(".json")).string();
  {
    std::error_code ec;
    if (fs::path(meta_path_).lexically_normal() == fs::path(args.output).lexically_normal() ||
        fs::equivalent(meta_path_, args.output, ec))
      throw Error("the sheet (-o) and its metadata (--meta) would both be " + meta_path_ +
                  "; give the metadata another name");
  }
}

void AtlasRun::plan() {
  const AtlasArgs& args = args_;
  std::vector<Effect>& effects = effects_;
  // A sheet loops: a cycling loop (an engine's import, model.md 4.5) is baked
  // as the seamless one (4.4) unless --set says otherwise.
  EffectArgs effect = args.effect;
  effect.sets.insert(effect.sets.begin(), "effect.seamless=true");
  if (!args.seeds.empty()) {
    if (args.effect.seed) throw Error("use either --seed or --seeds, not both");
    if (!args.frames.empty())
      throw Error("--seeds puts one seed per cell at --time; drop --frames");
    for (const uint32_t seed : parse_seeds(args.seeds, 65536)) {
      EffectArgs ea = effect;
      ea.seed = seed;
      effects.push_back(files_.load(ea));
    }
  } else {
    if (args.time)
      throw Error("--time goes with --seeds (cells are otherwise spread over the duration)");
    effects.push_back(files_.load(effect));
  }
  const Effect& fx = effects.front();
  if (!args.quiet) print_warnings(fx.warnings);
  check_not_input(args.output);
  check_not_input(meta_path_);
  const MotionArgs& mv = args.motion;
  if (!mv.output.empty()) {
    for (const std::string& other : {args.output, meta_path_})
      if (fs::path(mv.output).lexically_normal() == fs::path(other).lexically_normal())
        throw Error("--motion-vectors would overwrite " + other +
                    "; give the vectors another name");
    check_not_input(mv.output);
  }
  layout_ = atlas_layout(args, fx);
  schedule_ = schedule_cells(args, effects, layout_);
  alpha_ = args.premultiplied ? AlphaMode::kPremultiplied : fx.canvas.alpha;
  threads_ = thread_count(args.threads);
  textures_.resize(effects.size());
}

void AtlasRun::frame_cells() {
  const AtlasArgs& args = args_;
  const std::vector<Effect>& effects = effects_;
  const Effect& fx = effects.front();
  const std::vector<Cell>& cells = schedule_.cells;
  const double frame_s = schedule_.frame_s;
  const int cell_w = layout_.cell_w, cell_h = layout_.cell_h;
  Bounds bounds;
  Frame frame;
  frame.particle_limit = particle_limit(1, kBytesPerParticle, settings_.memory_budget);
  std::vector<double> clocks;  // with motion blur, every sample of a cell
  for (const Cell& c : cells) {
    // Memory first (evaluate refuses before evaluating), then work.
    if (window_size(effects[c.effect], c.clock) > frame.particle_limit)
      evaluate(effects[c.effect], c.clock, frame);
    shutter_clocks(effects[c.effect], c.clock, 1 / frame_s, clocks);
    check_frame_work(effects[c.effect], c.clock, clocks, settings_.work_limit, kWorkLimitHint);
    for (double clock : clocks) {
      evaluate(effects[c.effect], clock, frame);
      extend_bounds(frame, bounds);
    }
  }
  view_ = args.fit ? fit_view(bounds, fx.canvas, cell_w, cell_h, 1.0)
                   : canvas_view(fx.canvas, cell_w, cell_h);
  if (!args.fit && !bounds.empty) {
    const Bounds vis = visible_bounds(view_, cell_w, cell_h);
    if (bounds.x0 < vis.x0 || bounds.y0 < vis.y0 || bounds.x1 > vis.x1 || bounds.y1 > vis.y1) {
      std::fprintf(stderr,
                   "spritz: warning: particles reach x %.4g..%.4g, y %.4g..%.4g (design px) but a "
                   "cell shows x %.4g..%.4g, y %.4g..%.4g; they are clipped (--fit frames them)\n",
                   bounds.x0, bounds.x1, bounds.y0, bounds.y1, vis.x0, vis.x1, vis.y0, vis.y1);
    }
  }
}

TextureSet AtlasRun::textures_for(size_t e) {
  std::lock_guard<std::mutex> lock(texture_mutex_);
  if (!textures_[e]) textures_[e] = files_.textures(effects_[e], view_.scale, threads_);
  return *textures_[e];
}

// Cells are independent frames: each of up to --threads workers takes the
// next cell, renders it on one thread (or in strips, when there are fewer
// cells than threads), encodes it and places it. The sheet is the same
// bytes for any thread count. Returns the first cell in 8 bits, as drawn
// (what the loop seam compares).
std::vector<uint8_t> AtlasRun::render_cells() {
  const AtlasArgs& args = args_;
  const std::vector<Effect>& effects = effects_;
  const Effect& fx = effects.front();
  const std::vector<Cell>& cells = schedule_.cells;
  const double frame_s = schedule_.frame_s;
  const int cell_w = layout_.cell_w, cell_h = layout_.cell_h;
  uint64_t particles = 0;
  bool blur = false;
  size_t bytes_each = kBytesPerParticle;
  for (const Effect& e : effects) {
    particles = std::max(particles, max_alive(e));
    blur = blur || e.canvas.blur_samples > 1;
    bytes_each = std::max(bytes_each, bytes_per_particle(e));
  }
  const FramePlan plan =
      plan_frames(threads_, cells.size(), cell_w, cell_h, particles, blur, bytes_each);
  const int workers = plan.workers, raster_threads = plan.raster_threads;
  SheetBuilder builder(layout_);
  std::vector<uint8_t> first;
  // Cells through the shared frame pipeline (cli/pipeline.h): each worker
  // renders the next cell with its own renderer (made again when the cell's
  // effect changes, in a seed sweep) and encodes it; cells are placed in
  // order.
  struct WorkerState {
    std::unique_ptr<FrameRenderer> renderer;
    size_t effect = 0;
  };
  std::vector<WorkerState> state(static_cast<size_t>(workers));
  const std::function<std::vector<uint8_t>(uint64_t, int)> produce = [&](uint64_t i, int w) {
    WorkerState& ws = state[static_cast<size_t>(w)];
    const size_t e = cells[i].effect;
    if (!ws.renderer || ws.effect != e) {
      ws.renderer = make_renderer(effects[e], cell_w, cell_h, raster_threads, view_,
                                  textures_for(e), settings_, workers);
      ws.renderer->set_light_pass(light_pass_from(args.pass));
      ws.renderer->set_frame_rate(1 / frame_s);  // the motion-blur shutter spans a cell's interval
      ws.effect = e;
    }
    ws.renderer->render(cells[i].clock);
    std::vector<uint8_t> rgba;
    // The seam compares the first cell in 8 bits, as drawn; one worker writes it.
    if (args.depth == 8 || i == 0)
      encode_rgba8(ws.renderer->image(), fx.canvas.tonemap, alpha_, rgba);
    if (i == 0) first = rgba;
    // Straight alpha: fill the colour under alpha 0 so engines that filter or
    // mipmap the sheet get no dark halos. Alpha is untouched.
    if (args.depth == 16) {
      std::vector<uint16_t> rgba16;
      encode_rgba16(ws.renderer->image(), fx.canvas.tonemap, alpha_, rgba16);
      if (alpha_ == AlphaMode::kStraight) bleed_transparent_colour(rgba16, cell_w, cell_h);
      rgba.resize(rgba16.size() * 2);
      std::memcpy(rgba.data(), rgba16.data(), rgba.size());
      return rgba;
    }
    if (alpha_ == AlphaMode::kStraight) bleed_transparent_colour(rgba, cell_w, cell_h);
    return rgba;
  };
  const std::function<bool(const std::vector<uint8_t>&)> never = [](const auto&) { return false; };
  const std::function<void(uint64_t, std::vector<uint8_t>&)> place =
      [&](uint64_t i, std::vector<uint8_t>& rgba) { builder.place(static_cast<int>(i), rgba); };
  run_ordered<std::vector<uint8_t>>(0, cells.size(), workers, 2 * static_cast<uint64_t>(workers),
                                    produce, never, place);
  sheet_px_ = builder.finish();
  return first;
}

// The loop seam: the largest channel difference between the frame one step
// after the last cell and the first cell (0 for a true loop). Not defined
// for a sheet of seeds (0).
int AtlasRun::loop_seam(const std::vector<uint8_t>& first) {
  if (!args_.seeds.empty()) return 0;
  const Effect& fx = effects_.front();
  const std::unique_ptr<FrameRenderer> seam_renderer = make_renderer(
      fx, layout_.cell_w, layout_.cell_h, threads_, view_, textures_for(0), settings_);
  FrameRenderer& r = *seam_renderer;
  r.set_light_pass(light_pass_from(args_.pass));
  r.set_frame_rate(1 / schedule_.frame_s);
  r.render(schedule_.after.clock);
  std::vector<uint8_t> rgba;
  encode_rgba8(r.image(), fx.canvas.tonemap, alpha_, rgba);
  int seam = 0;
  for (size_t i = 0; i < rgba.size(); ++i) seam = std::max(seam, std::abs(rgba[i] - first[i]));
  return seam;
}

void AtlasRun::bake() {
  const std::vector<uint8_t> first = render_cells();
  seam_ = loop_seam(first);
  const Effect& fx = effects_.front();
  const Cell& c0 = schedule_.cells[0];
  const int sw = layout_.sheet_width(), sh = layout_.sheet_height();
  if (args_.depth == 16) {
    std::vector<uint16_t> sheet16(sheet_px_.size() / 2);
    std::memcpy(sheet16.data(), sheet_px_.data(), sheet_px_.size());
    png_ = encode_png16(sheet16.data(), sw, sh, frame_png_texts(fx, -1, c0.time, c0.clock, sw, sh),
                        settings_.png_mode);
  } else {
    png_ = encode_png(sheet_px_.data(), sw, sh, frame_png_texts(fx, -1, c0.time, c0.clock, sw, sh),
                      settings_.png_mode);
  }
}

// Motion vectors: each cell's step to the cell after it (the frame after
// the sheet for the last), on the sheet's layout.
std::optional<BakedMotion> AtlasRun::bake_motion_sheet() {
  if (args_.motion.output.empty()) return std::nullopt;
  const Effect& fx = effects_.front();
  const std::vector<Cell>& cells = schedule_.cells;
  std::vector<MotionStep> steps;
  std::vector<int> next_cell;
  for (size_t i = 0; i < cells.size(); ++i) {
    const double next_time = i + 1 < cells.size() ? cells[i + 1].time : schedule_.after.time;
    steps.push_back({cells[i].clock, cells[i].clock + fx.time_scale * (next_time - cells[i].time)});
    // The last cell flows into the first when the frame after it is the first.
    next_cell.push_back(i + 1 < cells.size()             ? static_cast<int>(i + 1)
                        : seam_ == 0 && cells.size() > 1 ? 0
                                                         : -1);
  }
  return bake_motion(fx, textures_for(0), view_, layout_, sheet_px_, steps, next_cell, args_,
                     meta_path_, 1 / schedule_.frame_s, threads_, settings_);
}

int AtlasRun::finish() {
  const std::optional<BakedMotion> baked = bake_motion_sheet();
  AtlasMeta meta;
  meta.fx = &effects_.front();
  meta.layout = &layout_;
  meta.schedule = &schedule_;
  meta.meta_path = meta_path_;
  meta.alpha = alpha_;
  meta.sweep = !args_.seeds.empty();
  meta.seam = seam_;
  if (baked) meta.motion_json = baked->json;
  const std::string j = atlas_metadata(args_, meta);
  write_file_atomic(args_.output, png_.data(), png_.size());
  if (baked)
    write_file_atomic(args_.motion.output, baked->sheet.png.data(), baked->sheet.png.size());
  write_file_atomic(meta_path_, j.data(), j.size());
  return report(baked);
}

// The --json events or the lines on stderr; exit 1 when the seam is over --max-seam.
int AtlasRun::report(const std::optional<BakedMotion>& baked) const {
  const AtlasArgs& args = args_;
  const Effect& fx = effects_.front();
  const std::vector<Cell>& cells = schedule_.cells;
  const std::string& meta_path = meta_path_;
  const int cols = layout_.cols, rows = layout_.rows, cell_w = layout_.cell_w,
            cell_h = layout_.cell_h;
  const int sw = layout_.sheet_width(), sh = layout_.sheet_height();
  const bool sweep = !args.seeds.empty();
  const int seam = seam_;
  const bool seam_fail = !sweep && args.max_seam && seam > *args.max_seam;
  if (args.json) {
    const std::string line = events::atlas(args.output, meta_path, sw, sh, cols, rows, cells.size(),
                                           cell_w, cell_h, seam, !seam_fail);
    std::fwrite(line.data(), 1, line.size(), stdout);
    if (baked) std::fwrite(baked->event.data(), 1, baked->event.size(), stdout);
  } else if (!args.quiet) {
    if (baked) std::fputs(baked->message.c_str(), stderr);
    if (sweep) {
      std::fprintf(stderr,
                   "spritz: %s (%dx%d, seeds %s at t = %g in %dx%d cells of %dx%d) and %s\n",
                   args.output.c_str(), sw, sh, args.seeds.c_str(), cells[0].time, cols, rows,
                   cell_w, cell_h, meta_path.c_str());
    } else {
      std::fprintf(
          stderr,
          "spritz: %s (%dx%d, %zu frame%s in %dx%d cells of %dx%d) and %s; loop seam %d%s\n",
          args.output.c_str(), sw, sh, cells.size(), cells.size() == 1 ? "" : "s", cols, rows,
          cell_w, cell_h, meta_path.c_str(), seam, fx.loop ? "" : " (not a looped effect)");
    }
  }
  if (seam_fail) {
    std::fprintf(stderr, "spritz: loop seam %d is over --max-seam %g\n", seam, *args.max_seam);
    return kExitDifferent;
  }
  return kExitOk;
}

}  // namespace

int run_atlas(const AtlasArgs& args, const RunSettings& settings) {
  AtlasRun run(args, settings);
  run.check_options();
  run.plan();
  run.frame_cells();
  run.bake();
  return run.finish();
}

}  // namespace spritz

namespace spritz {

Command add_atlas_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<AtlasArgs>();
  AtlasArgs& a = *args;
  CLI::App* at = app.add_subcommand("atlas", "Bake a flipbook sheet PNG and its JSON metadata");
  at->add_option("effect", a.effect.effect, "Effect file (TOML); '-' reads stdin")->required();
  at->add_option("-o,--output", a.output, "Sheet PNG (default sheet.png)");
  at->add_option("--meta", a.meta, "Metadata JSON (default: the sheet's name with .json)");
  at->add_option("--meta-format", a.meta_format,
                 "JSON form: TexturePacker hash (default) or array, or aseprite");
  at->add_option("--grid", a.grid,
                 "Columns x rows, cells left to right, top to bottom (default 4x4)");
  at->add_option("--cell", a.cell, "Cell size WxH (default: the canvas size)");
  at->add_option("--sheet", a.sheet, "Fixed sheet size WxH that the grid divides into cells");
  at->add_option("--preset", a.preset, "roblox-2x2, roblox-4x4 or roblox-8x8: a 1024x1024 sheet");
  at->add_option("-f,--frames", a.frames,
                 "Frames at --fps instead of an even spread over the duration");
  at->add_option_function<double>(
      "--fps", [&a](double v) { a.fps = v; },
      "Frames per second for --frames (default: the effect's)");
  at->add_option("--padding", a.padding,
                 "Pixels between cells, filled by extruding each cell's edge");
  at->add_flag("--pot", a.pot, "Round the sheet up to powers of two");
  at->add_flag("--fit", a.fit, "Frame every particle of every chosen frame, centred in the cells");
  at->add_flag("--premultiplied", a.premultiplied, "Premultiplied alpha (default: canvas.alpha)");
  at->add_option("--direction", a.direction, "Animation tag direction: forward or pingpong");
  at->add_option("--seeds", a.seeds, "Contact sheet: one cell per seed (N, A-B, A-BxS) at --time");
  at->add_option_function<double>(
      "--time", [&a](double v) { a.time = v; },
      "With --seeds: the time of every cell (default: half the duration)");
  at->add_option_function<double>(
      "--max-seam", [&a](double v) { a.max_seam = v; },
      "Fail (exit 1) when the loop seam is larger");
  at->add_option("--threads", a.threads, "Threads (output is identical for any count)")
      ->check(CLI::Range(1, 1024));
  add_png_option(at, run, "PNG encoding: fast (default) or small");
  at->add_option("--depth", a.depth, "The sheet's bits per channel: 8 (default) or 16")
      ->check(CLI::IsMember({8, 16}));
  at->add_option("--pass", a.pass, "Light to draw: all (default), alpha or emissive")
      ->check(CLI::IsMember({"all", "alpha", "emissive"}));
  add_motion_options(at, a.motion, true);
  at->add_flag("--json", a.json, "One JSON object on stdout");
  at->add_flag("-q,--quiet", a.quiet, "Print only errors");
  add_effect_options(at, a.effect, run);
  at->footer(
      "Examples:\n  spritz atlas configs/fire_loop.toml -o fire.png --grid 4x4 --max-seam 0\n"
      "  spritz atlas configs/explosion.toml --preset roblox-8x8 --fit -o explosion.png\n"
      "  spritz atlas configs/sparks.toml --cell 128x128 --padding 2 --pot --meta-format array\n"
      "  spritz atlas configs/confetti.toml --seeds 1-16 --time 0.8 --cell 128x128 -o "
      "variants.png\n"
      "  spritz atlas configs/comets.toml --cell 128x128 -o comets.png --motion-vectors "
      "comets_mv.png --mv-check\n"
      "  spritz atlas configs/torch.toml -o torch.png --motion-vectors torch_mv.png --mv-fit "
      "blend");
  const SettingsUse use{/*kernel=*/true, /*memory=*/true, /*work=*/true, /*textures=*/true};
  return {at, use, [args](const RunSettings& settings) { return run_atlas(*args, settings); }};
}

}  // namespace spritz
