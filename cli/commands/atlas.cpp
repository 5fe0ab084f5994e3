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

constexpr int kMaxSheetSide = 16384;

struct Cell {
  int64_t number;  // frame number, index in the spread, or seed
  double time, clock;
  size_t effect = 0;  // index into the effects list (one per seed)
};

std::string pad_index(size_t i, size_t count) {
  const size_t width = std::max<size_t>(2, std::to_string(count - 1).size());
  std::string s = std::to_string(i);
  return std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

// The sheet's path as the metadata names it: relative to the JSON's folder,
// as TexturePacker's loaders resolve meta.image ("fire.png" beside it,
// "../sheets/fire.png" for --meta meta/fire.json -o sheets/fire.png).
// Whole-millisecond durations for `n` cells of `frame_s` seconds, whose sum is
// the whole run (n frame_s) rounded to the millisecond: cell i lasts
// round((i + 1) P / n) - round(i P / n) ms of P (62 and 63 alternating for
// 16 cells of a second), so engines that take integers keep the period.
std::vector<int64_t> whole_ms_durations(double frame_s, size_t n) {
  const double total_ms = std::round(frame_s * 1000 * static_cast<double>(n));
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const double a = std::round(total_ms * static_cast<double>(i) / static_cast<double>(n));
    const double b = std::round(total_ms * static_cast<double>(i + 1) / static_cast<double>(n));
    out[i] = static_cast<int64_t>(b - a);
  }
  return out;
}

std::string sheet_relative_to_meta(const std::string& sheet, const std::string& meta) {
  const fs::path sheet_abs = fs::absolute(sheet).lexically_normal();
  const fs::path rel =
      sheet_abs.lexically_relative(fs::absolute(meta).lexically_normal().parent_path());
  return (rel.empty() ? sheet_abs : rel).generic_string();
}

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

}  // namespace

int run_atlas(const AtlasArgs& args, const RunSettings& settings) {
  EffectFiles files(settings);
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
  const std::string meta_path =
      !args.meta.empty() ? args.meta : (fs::path(args.output).replace_extension(".json")).string();
  {
    std::error_code ec;
    if (fs::path(meta_path).lexically_normal() == fs::path(args.output).lexically_normal() ||
        fs::equivalent(meta_path, args.output, ec))
      throw Error("the sheet (-o) and its metadata (--meta) would both be " + meta_path +
                  "; give the metadata another name");
  }

  // One effect, or with --seeds one per seed (a contact sheet of variants).
  std::vector<Effect> effects;
  if (!args.seeds.empty()) {
    if (args.effect.seed) throw Error("use either --seed or --seeds, not both");
    if (!args.frames.empty())
      throw Error("--seeds puts one seed per cell at --time; drop --frames");
    for (const uint32_t seed : parse_seeds(args.seeds, 65536)) {
      EffectArgs ea = args.effect;
      ea.seed = seed;
      effects.push_back(files.load(ea));
    }
  } else {
    if (args.time)
      throw Error("--time goes with --seeds (cells are otherwise spread over the duration)");
    effects.push_back(files.load(args.effect));
  }
  const Effect& fx = effects.front();
  if (!args.quiet) print_warnings(fx.warnings);
  check_not_input(args.output);
  check_not_input(meta_path);
  if (motion) {
    for (const std::string& other : {args.output, meta_path})
      if (fs::path(mv.output).lexically_normal() == fs::path(other).lexically_normal())
        throw Error("--motion-vectors would overwrite " + other +
                    "; give the vectors another name");
    check_not_input(mv.output);
  }

  // Grid and cell size: a preset, a fixed sheet the grid divides, or a cell size.
  int cols = 4, rows = 4;
  std::string grid = args.grid, sheet = args.sheet;
  if (!args.preset.empty()) {
    if (args.preset != "roblox-2x2" && args.preset != "roblox-4x4" && args.preset != "roblox-8x8")
      throw Error("--preset must be roblox-2x2, roblox-4x4 or roblox-8x8, got '" + args.preset +
                  "'");
    if (!grid.empty() || !sheet.empty() || !args.cell.empty())
      throw Error("--preset sets the grid and the sheet size; drop --grid, --sheet and --cell");
    grid = args.preset.substr(7);
    sheet = "1024x1024";
  }
  if (!grid.empty()) parse_pair(grid, "--grid", 256, &cols, &rows);
  if (args.padding < 0 || args.padding > 1024) throw Error("--padding must be within [0, 1024]");
  int cell_w = fx.canvas.width, cell_h = fx.canvas.height;
  if (!sheet.empty()) {
    if (!args.cell.empty()) throw Error("use either --sheet or --cell, not both");
    int sw, sh;
    parse_pair(sheet, "--sheet", kMaxSheetSide, &sw, &sh);
    const int free_w = sw - (cols + 1) * args.padding, free_h = sh - (rows + 1) * args.padding;
    if (free_w < cols || free_h < rows || free_w % cols || free_h % rows)
      throw Error("a " + std::to_string(cols) + "x" + std::to_string(rows) + " grid with padding " +
                  std::to_string(args.padding) + " does not divide a " + sheet +
                  " sheet into whole cells");
    cell_w = free_w / cols;
    cell_h = free_h / rows;
  } else if (!args.cell.empty()) {
    parse_pair(args.cell, "--cell", kMaxSheetSide, &cell_w, &cell_h);
  }
  SheetLayout layout;
  layout.cols = cols;
  layout.rows = rows;
  layout.cell_w = cell_w;
  layout.cell_h = cell_h;
  layout.padding = args.padding;
  layout.power_of_two = args.pot;
  layout.bytes_per_pixel = args.depth == 16 ? 8 : 4;
  if (static_cast<int64_t>(layout.grid_width()) > kMaxSheetSide ||
      static_cast<int64_t>(layout.grid_height()) > kMaxSheetSide ||
      layout.sheet_width() > kMaxSheetSide || layout.sheet_height() > kMaxSheetSide) {
    throw Error("the sheet would be " + std::to_string(layout.sheet_width()) + "x" +
                std::to_string(layout.sheet_height()) + ", over the limit of " +
                std::to_string(kMaxSheetSide) + " per side; use a smaller --cell or --grid");
  }
  const size_t capacity = static_cast<size_t>(cols) * static_cast<size_t>(rows);

  // The frames: a list at fps, or C*R times spread evenly over the duration
  // (one period for a looped effect, so the last cell flows into the first).
  const double fps = args.fps ? *args.fps : fx.fps;
  if (!(fps > 0) || fps > 10000) throw Error("--fps must be within (0, 10000]");
  std::vector<Cell> cells;
  Cell after{0, 0, 0};  // the frame one step after the last cell, for the seam figure
  double frame_s;
  if (effects.size() > 1 || !args.seeds.empty()) {
    if (effects.size() > capacity)
      throw Error(std::to_string(effects.size()) + " seeds do not fit a " + std::to_string(cols) +
                  "x" + std::to_string(rows) + " grid of " + std::to_string(capacity) + " cells");
    const double t = args.time ? *args.time : fx.duration_s / 2;
    if (!std::isfinite(t) || std::abs(t) > kMaxTimeS)
      throw Error("--time must be finite, within ±1e9 s");
    for (size_t e = 0; e < effects.size(); ++e)
      cells.push_back({effects[e].seed, t, clock_at_time(effects[e], t), e});
    after = cells.front();
    frame_s = 1 / fps;
  } else if (!args.frames.empty()) {
    const FrameList list = parse_frames(args.frames);
    if (list.size() > capacity)
      throw Error(std::to_string(list.size()) + " frames do not fit a " + std::to_string(cols) +
                  "x" + std::to_string(rows) + " grid of " + std::to_string(capacity) + " cells");
    check_frame_times(list, fps);
    for (uint64_t i = 0; i < list.size(); ++i) {
      const int64_t f = list.at(i);
      cells.push_back({f, f / fps, clock_at_frame(fx, f, fps)});
    }
    const int64_t step = list.size() >= 2 ? list.at(list.size() - 1) - list.at(list.size() - 2) : 1;
    const int64_t next = list.at(list.size() - 1) + step;
    after = {next, next / fps, clock_at_frame(fx, next, fps)};
    frame_s = 1 / fps;
  } else {
    const double span = fx.duration_s > 0 ? fx.duration_s : 1.0;
    frame_s = span / static_cast<double>(capacity);
    for (size_t i = 0; i <= capacity; ++i) {
      const double t = span * static_cast<double>(i) / static_cast<double>(capacity);
      const Cell c{static_cast<int64_t>(i), t, clock_at_time(fx, t)};
      if (i < capacity)
        cells.push_back(c);
      else
        after = c;
    }
  }

  // Framing: the canvas, or with --fit the smallest view holding every
  // particle of every chosen frame (cheap: evaluation only, no pixels).
  Bounds bounds;
  Frame frame;
  frame.particle_limit = particle_limit(1, kBytesPerParticle, settings.memory_budget);
  std::vector<double> clocks;  // with motion blur, every sample of a cell
  for (const Cell& c : cells) {
    // Memory first (evaluate refuses before evaluating), then work.
    if (window_size(effects[c.effect], c.clock) > frame.particle_limit)
      evaluate(effects[c.effect], c.clock, frame);
    shutter_clocks(effects[c.effect], c.clock, 1 / frame_s, clocks);
    check_frame_work(effects[c.effect], c.clock, clocks, settings.work_limit, kWorkLimitHint);
    for (double clock : clocks) {
      evaluate(effects[c.effect], clock, frame);
      extend_bounds(frame, bounds);
    }
  }
  const View view = args.fit ? fit_view(bounds, fx.canvas, cell_w, cell_h, 1.0)
                             : canvas_view(fx.canvas, cell_w, cell_h);
  if (!args.fit && !bounds.empty) {
    const Bounds vis = visible_bounds(view, cell_w, cell_h);
    if (bounds.x0 < vis.x0 || bounds.y0 < vis.y0 || bounds.x1 > vis.x1 || bounds.y1 > vis.y1) {
      std::fprintf(stderr,
                   "spritz: warning: particles reach x %.4g..%.4g, y %.4g..%.4g (design px) but a "
                   "cell shows x %.4g..%.4g, y %.4g..%.4g; they are clipped (--fit frames them)\n",
                   bounds.x0, bounds.x1, bounds.y0, bounds.y1, vis.x0, vis.x1, vis.y0, vis.y1);
    }
  }

  const AlphaMode alpha = args.premultiplied ? AlphaMode::kPremultiplied : fx.canvas.alpha;
  // Cells are independent frames: each of up to --threads workers takes the
  // next cell, renders it on one thread (or in strips, when there are fewer
  // cells than threads), encodes it and places it. The sheet is the same
  // bytes for any thread count.
  const int threads = thread_count(args.threads);
  uint64_t particles = 0;
  bool blur = false;
  size_t bytes_each = kBytesPerParticle;
  for (const Effect& e : effects) {
    particles = std::max(particles, max_alive(e));
    blur = blur || e.canvas.blur_samples > 1;
    bytes_each = std::max(bytes_each, bytes_per_particle(e));
  }
  const FramePlan plan =
      plan_frames(threads, cells.size(), cell_w, cell_h, particles, blur, bytes_each);
  const int workers = plan.workers, raster_threads = plan.raster_threads;
  std::mutex texture_mutex;
  std::vector<std::optional<TextureSet>> textures(effects.size());
  auto textures_for = [&](size_t e) {
    std::lock_guard<std::mutex> lock(texture_mutex);
    if (!textures[e]) textures[e] = files.textures(effects[e], view.scale, threads);
    return *textures[e];
  };
  SheetBuilder builder(layout);
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
      ws.renderer = make_renderer(effects[e], cell_w, cell_h, raster_threads, view, textures_for(e),
                                  settings, workers);
      ws.renderer->set_light_pass(light_pass_from(args.pass));
      ws.renderer->set_frame_rate(1 / frame_s);  // the motion-blur shutter spans a cell's interval
      ws.effect = e;
    }
    ws.renderer->render(cells[i].clock);
    std::vector<uint8_t> rgba;
    // The seam compares the first cell in 8 bits, as drawn; one worker writes it.
    if (args.depth == 8 || i == 0)
      encode_rgba8(ws.renderer->image(), fx.canvas.tonemap, alpha, rgba);
    if (i == 0) first = rgba;
    // Straight alpha: fill the colour under alpha 0 so engines that filter or
    // mipmap the sheet get no dark halos. Alpha is untouched.
    if (args.depth == 16) {
      std::vector<uint16_t> rgba16;
      encode_rgba16(ws.renderer->image(), fx.canvas.tonemap, alpha, rgba16);
      if (alpha == AlphaMode::kStraight) bleed_transparent_colour(rgba16, cell_w, cell_h);
      rgba.resize(rgba16.size() * 2);
      std::memcpy(rgba.data(), rgba16.data(), rgba.size());
      return rgba;
    }
    if (alpha == AlphaMode::kStraight) bleed_transparent_colour(rgba, cell_w, cell_h);
    return rgba;
  };
  const std::function<bool(const std::vector<uint8_t>&)> never = [](const auto&) { return false; };
  const std::function<void(uint64_t, std::vector<uint8_t>&)> place =
      [&](uint64_t i, std::vector<uint8_t>& rgba) { builder.place(static_cast<int>(i), rgba); };
  run_ordered<std::vector<uint8_t>>(0, cells.size(), workers, 2 * static_cast<uint64_t>(workers),
                                    produce, never, place);
  // The loop seam: the largest channel difference between the frame one step
  // after the last cell and the first cell (0 for a true loop).
  // (Not defined for a sheet of seeds.)
  const bool sweep = !args.seeds.empty();
  int seam = 0;
  if (!sweep) {
    const std::unique_ptr<FrameRenderer> seam_renderer =
        make_renderer(effects[0], cell_w, cell_h, threads, view, textures_for(0), settings);
    FrameRenderer& r = *seam_renderer;
    r.set_light_pass(light_pass_from(args.pass));
    r.set_frame_rate(1 / frame_s);
    r.render(after.clock);
    std::vector<uint8_t> rgba;
    encode_rgba8(r.image(), fx.canvas.tonemap, alpha, rgba);
    for (size_t i = 0; i < rgba.size(); ++i) seam = std::max(seam, std::abs(rgba[i] - first[i]));
  }

  const std::vector<uint8_t> sheet_px = builder.finish();
  const int sw = layout.sheet_width(), sh = layout.sheet_height();
  std::vector<uint8_t> png;
  if (args.depth == 16) {
    std::vector<uint16_t> sheet16(sheet_px.size() / 2);
    std::memcpy(sheet16.data(), sheet_px.data(), sheet_px.size());
    png = encode_png16(sheet16.data(), sw, sh,
                       frame_png_texts(fx, -1, cells[0].time, cells[0].clock, sw, sh),
                       settings.png_mode);
  } else {
    png = encode_png(sheet_px.data(), sw, sh,
                     frame_png_texts(fx, -1, cells[0].time, cells[0].clock, sw, sh),
                     settings.png_mode);
  }

  // Motion vectors: each cell's step to the cell after it (the frame after
  // the sheet for the last), on the sheet's layout.
  std::optional<BakedMotion> baked;
  if (motion) {
    std::vector<MotionStep> steps;
    std::vector<int> next_cell;
    for (size_t i = 0; i < cells.size(); ++i) {
      const double next_time = i + 1 < cells.size() ? cells[i + 1].time : after.time;
      steps.push_back(
          {cells[i].clock, cells[i].clock + fx.time_scale * (next_time - cells[i].time)});
      // The last cell flows into the first when the frame after it is the first.
      next_cell.push_back(i + 1 < cells.size()            ? static_cast<int>(i + 1)
                          : seam == 0 && cells.size() > 1 ? 0
                                                          : -1);
    }
    baked = bake_motion(fx, textures_for(0), view, layout, sheet_px, steps, next_cell, args,
                        meta_path, 1 / frame_s, threads, settings);
  }

  // Metadata: TexturePacker's JSON (hash or array), which Phaser and PixiJS
  // load directly, plus a grid block for engines that only know grids.
  // Aseprite's own form keys frames "0".."N-1" (Phaser's createFromAseprite
  // looks them up so); TexturePacker's hash and array forms name them.
  const bool aseprite = args.meta_format == "aseprite";
  const bool hash = args.meta_format == "hash" || aseprite;
  const std::vector<int64_t> durations = whole_ms_durations(frame_s, cells.size());
  std::vector<std::string> names;
  for (size_t i = 0; i < cells.size(); ++i)
    names.push_back(aseprite ? std::to_string(i)
                    : sweep  ? fx.name + "_seed" + std::to_string(cells[i].number)
                             : fx.name + "_" + pad_index(i, cells.size()));
  std::string j = "{\n  \"frames\": ";
  j += hash ? "{\n" : "[\n";
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string& name = names[i];
    const int x = layout.cell_x(static_cast<int>(i)), y = layout.cell_y(static_cast<int>(i));
    j += hash ? "    " + json_string(name) + ": {"
              : "    {\"filename\": " + json_string(name) + ", ";
    j += "\"frame\": {\"x\": " + std::to_string(x) + ", \"y\": " + std::to_string(y) +
         ", \"w\": " + std::to_string(cell_w) + ", \"h\": " + std::to_string(cell_h) +
         "}, \"rotated\": false, \"trimmed\": false, \"spriteSourceSize\": {\"x\": 0, \"y\": 0, "
         "\"w\": " +
         std::to_string(cell_w) + ", \"h\": " + std::to_string(cell_h) +
         "}, \"sourceSize\": {\"w\": " + std::to_string(cell_w) +
         ", \"h\": " + std::to_string(cell_h) + "}, \"duration\": " + std::to_string(durations[i]) +
         ", \"time\": " + json_number(cells[i].time) + "}";
    j += i + 1 < cells.size() ? ",\n" : "\n";
  }
  j += hash ? "  },\n" : "  ],\n";
  // PixiJS's Spritesheet plays `animations` (a tag's frame names in order).
  j += "  \"animations\": {" + json_string(fx.name) + ": [";
  for (size_t i = 0; i < names.size(); ++i) j += (i ? ", " : "") + json_string(names[i]);
  j += "]},\n";
  j += "  \"meta\": {\n";
  j += "    \"app\": \"spritz\",\n    \"version\": \"" SPRITZ_VERSION "\",\n";
  j += "    \"image\": " + json_string(sheet_relative_to_meta(args.output, meta_path)) + ",\n";
  j += std::string("    \"format\": \"") + (args.depth == 16 ? "RGBA16161616" : "RGBA8888") +
       "\",\n";
  j += "    \"size\": {\"w\": " + std::to_string(sw) + ", \"h\": " + std::to_string(sh) + "},\n";
  j += "    \"scale\": \"1\",\n";
  j += "    \"premultipliedAlpha\": " +
       std::string(alpha == AlphaMode::kPremultiplied ? "true" : "false") + ",\n";
  j += "    \"frameTags\": [{\"name\": " + json_string(fx.name) +
       ", \"from\": 0, \"to\": " + std::to_string(cells.size() - 1) + ", \"direction\": \"" +
       args.direction + "\"}],\n";
  j += "    \"grid\": {\"columns\": " + std::to_string(cols) +
       ", \"rows\": " + std::to_string(rows) + ", \"frameWidth\": " + std::to_string(cell_w) +
       ", \"frameHeight\": " + std::to_string(cell_h) +
       ", \"padding\": " + std::to_string(args.padding) +
       ", \"count\": " + std::to_string(cells.size()) + ", \"fps\": " + json_number(1 / frame_s) +
       ", \"loop\": " + (fx.loop ? "true" : "false") + "},\n";
  j += "    \"spritz\": {\"effect\": " + json_string(fx.name) +
       ", \"seed\": " + std::to_string(fx.seed) + ", \"effect_hash\": \"" + hex64(fx.content_hash) +
       "\", \"loop_seam\": " + (sweep ? std::string("null") : std::to_string(seam)) +
       (sweep ? ", \"seeds\": " + json_string(args.seeds) : std::string()) + "}" +
       (baked ? ",\n    \"motionVectors\": " + baked->json : std::string()) + "\n";
  j += "  }\n}\n";

  write_file_atomic(args.output, png.data(), png.size());
  if (baked) write_file_atomic(mv.output, baked->sheet.png.data(), baked->sheet.png.size());
  write_file_atomic(meta_path, j.data(), j.size());

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
