#include "commands/render.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "commands/render_job.h"
#include "events.h"
#include "frames.h"
#include "io/exr.h"
#include "io/io.h"
#include "json.h"
#include "output.h"
#include "pipeline.h"
#include "progress.h"
#include "spritz/eval.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/motion_vector_encoding.h"
#include "spritz/raster/motion_vector_fit.h"
#include "spritz/raster/motion_vectors.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

namespace spritz {
namespace {

struct ReaderGone {};

}  // namespace

namespace {

struct Totals {
  uint64_t rendered = 0, skipped = 0, failed = 0, particles = 0;
  int width = 0, height = 0, threads = 0;
  uint64_t covered = 0;         // pixels touched by particles, over all frames
  bool out_of_space = false;    // a write met a full disk: the run stopped there
  uint64_t motion_clamped = 0;  // --motion-vectors: pixels beyond the scale, over all frames
  uint64_t dropped = 0;         // particles programs left NaN or infinite (model.md 11)
};

// One frame's result, from a worker to the report.
struct Slot {
  bool skipped = false;
  RenderItem item;
  std::string path;
  uint64_t particles = 0;
  uint64_t covered = 0;  // pixels the particles touched
  double ms = 0;
  std::string error;            // this frame could not be written; the run goes on...
  bool out_of_space = false;    // ...unless the disk is full: then no new frame starts
  std::exception_ptr fatal;     // rendering itself failed; the run stops here
  std::vector<uint8_t> rgba;    // raw output, written to stdout in order
  uint64_t motion_clamped = 0;  // --motion-vectors: pixels beyond the scale
  uint64_t dropped = 0;         // particles programs left NaN or infinite, not drawn
};

// What every frame of one effect's run shares: the options, the job and the
// textures.
struct FrameContext {
  const RenderArgs& args;
  const RenderRequest& request;
  EffectFiles& files;
  const Effect& fx;
  const RenderJob& job;
  std::mutex& texture_mutex;
  std::optional<TextureSet>& textures;  // loaded by the first frame that renders
};

// A worker's renderer for the job, made on its first frame (textures are
// loaded once and shared by every worker).
FrameRenderer& worker_renderer(const FrameContext& ctx, std::unique_ptr<FrameRenderer>& renderer) {
  if (renderer) return *renderer;
  TextureSet shared;
  {
    std::lock_guard<std::mutex> lock(ctx.texture_mutex);
    if (!ctx.textures)
      ctx.textures = ctx.files.textures(
          ctx.fx, canvas_view(ctx.fx.canvas, ctx.job.width, ctx.job.height).scale,
          ctx.job.plan.workers * ctx.job.plan.raster_threads);
    shared = *ctx.textures;
  }
  renderer = make_renderer(ctx.fx, ctx.job.width, ctx.job.height, ctx.job.plan.raster_threads,
                           canvas_view(ctx.fx.canvas, ctx.job.width, ctx.job.height),
                           std::move(shared), ctx.files.settings(), ctx.job.plan.workers);
  renderer->set_light_pass(ctx.request.pass);
  renderer->set_frame_rate(ctx.job.fps);
  return *renderer;
}

// Renders the slot's frame, encodes it and writes it atomically; a write
// that fails is the slot's error (and, on a full disk, stops the run). An
// 8-bit PNG is drawn, converted and encoded strip by strip (no whole frame
// in memory); the other formats encode a whole float frame.
void write_frame(const FrameContext& ctx, FrameRenderer& r, Slot& slot) {
  const bool whole = ctx.job.hdr || ctx.job.exr || ctx.job.depth == 16;
  // A frame that cannot be drawn stops the run (render_frame); one that
  // cannot be written is the slot's error. The 8-bit PNG is drawn while it
  // is written, so its drawing's failure is told apart and rethrown.
  std::exception_ptr draw_failed;
  if (whole) slot.particles = r.render(slot.item.clock);
  try {
    if (ctx.job.hdr) {
      const std::vector<uint8_t> bytes = encode_hdr(r.image());
      write_file_atomic(slot.path, bytes.data(), bytes.size());
    } else if (ctx.job.exr) {
      const std::vector<uint8_t> bytes = encode_exr(r.image(), ctx.files.settings().module_dir);
      write_file_atomic(slot.path, bytes.data(), bytes.size());
    } else if (ctx.job.depth == 16) {
      std::vector<uint16_t> px16;
      encode_rgba16(r.image(), ctx.fx.canvas.tonemap, ctx.fx.canvas.alpha, px16);
      const std::vector<uint8_t> png16 =
          encode_png16(px16.data(), ctx.job.width, ctx.job.height,
                       frame_png_texts(ctx.fx, slot.item.number, slot.item.time, slot.item.clock,
                                       ctx.job.width, ctx.job.height),
                       ctx.files.settings().png_mode);
      write_file_atomic(slot.path, png16.data(), png16.size());
    } else {
      // Each piece of the PNG goes to the file as soon as it and those
      // before it are encoded, by the strips' threads, while the others
      // still draw: no whole PNG is held, and the write overlaps the work.
      const std::vector<PngText> texts = frame_png_texts(ctx.fx, slot.item.number, slot.item.time,
                                                         slot.item.clock, r.width(), r.height());
      write_file_atomic_with(slot.path, [&](int fd) {
        int err = 0;
        try {
          slot.particles = r.render_png(
              slot.item.clock, texts,
              [fd](const uint8_t* data, size_t size) { return write_all(fd, data, size); }, err);
        } catch (...) {
          draw_failed = std::current_exception();
          throw;
        }
        return err;
      });
    }
  } catch (const WriteError& e) {
    if (draw_failed) std::rethrow_exception(draw_failed);
    slot.error = e.what();
    slot.out_of_space = e.out_of_space();
  } catch (const std::exception& e) {
    if (draw_failed) std::rethrow_exception(draw_failed);
    slot.error = e.what();
  }
}

}  // namespace

uint64_t render_frame_png(FrameRenderer& r, const Effect& fx, const RenderItem& item,
                          std::vector<std::vector<uint8_t>>& png) {
  return r.render_png(
      item.clock, frame_png_texts(fx, item.number, item.time, item.clock, r.width(), r.height()),
      png);
}

namespace {

// --motion-vectors: the frame's motion over one frame interval, in frame
// units, written beside it.
void write_motion(const FrameContext& ctx, Slot& slot) {
  const RenderRequest& rq = ctx.request;
  const int w = ctx.job.width, h = ctx.job.height;
  TextureSet textures;
  {
    std::lock_guard<std::mutex> lock(ctx.texture_mutex);
    textures = *ctx.textures;  // loaded by the frame's renderer
  }
  MotionField field;
  const MotionStep step{slot.item.clock, slot.item.clock + ctx.fx.time_scale / ctx.job.fps};
  MotionOptions opt;
  opt.dilate = rq.motion_dilate;
  opt.threads = ctx.job.plan.raster_threads;
  motion_field(ctx.fx, textures, canvas_view(ctx.fx.canvas, w, h), w, h, step, opt, field);
  std::vector<uint16_t> px;
  slot.motion_clamped = encode_motion(field, w, h, rq.motion_scale, *rq.motion, px);
  const std::vector<uint8_t> png =
      motion_png(px, w, h, rq.motion_depth, ctx.files.settings().png_mode);
  try {
    write_file_atomic(ctx.job.motion->format(slot.item.number), png.data(), png.size());
  } catch (const WriteError& e) {
    slot.error = e.what();
    slot.out_of_space = e.out_of_space();
  }
}

// Frame i of the job, on a worker: skipped (--skip-existing), or rendered and
// written (or kept as raw RGBA for stdout).
Slot render_frame(const FrameContext& ctx, uint64_t i, std::unique_ptr<FrameRenderer>& renderer) {
  Slot slot;
  const auto f0 = std::chrono::steady_clock::now();
  try {
    slot.item = ctx.job.item(ctx.fx, i);
    slot.path = ctx.job.raw ? std::string() : ctx.job.pattern.format(slot.item.number);
    // --skip-existing: writes are atomic, so an existing file is complete
    // unless the machine crashed before the disk had it; that is checked.
    slot.skipped = !ctx.job.raw && ctx.args.skip_existing &&
                   finished_frame(slot.path,
                                  ctx.job.hdr   ? ImageFormat::kHdr
                                  : ctx.job.exr ? ImageFormat::kExr
                                                : ImageFormat::kPng,
                                  ctx.files.settings().module_dir);
    if (!slot.skipped) {
      FrameRenderer& r = worker_renderer(ctx, renderer);
      if (ctx.job.raw)
        slot.particles = r.render_rgba8(slot.item.clock, slot.rgba);
      else
        write_frame(ctx, r, slot);
      slot.covered = r.covered_pixels();
      for (const EmitterFrame& ef : r.frame().emitters) slot.dropped += ef.stats.dropped;
      if (ctx.job.motion && slot.error.empty()) write_motion(ctx, slot);
    }
  } catch (...) {  // rendering failed, or a directory on the path cannot be searched
    slot.fatal = std::current_exception();
  }
  slot.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - f0).count();
  return slot;
}

// Reports frame `slot` in list order: its event, stdout's bytes for -o -,
// the totals, and a frame that could not be written (the run goes on).
void report_frame(const RenderArgs& args, Slot& slot, bool raw, const std::string& seed_json,
                  Totals& totals, Progress& progress) {
  if (slot.fatal) std::rethrow_exception(slot.fatal);
  const RenderItem& item = slot.item;
  totals.particles += slot.particles;  // 0 for a skipped frame
  totals.covered += slot.covered;
  totals.motion_clamped += slot.motion_clamped;
  totals.dropped += slot.dropped;
  std::string line;
  if (slot.skipped) {
    ++totals.skipped;
    if (args.json) line = events::frame_skipped(item.number, item.time, slot.path, seed_json);
  } else if (raw) {
    if (const int err = write_stdout(slot.rgba.data(), slot.rgba.size())) {
      if (err == EPIPE) throw ReaderGone{};
      throw Error("cannot write frames to stdout: " + describe_errno(err));
    }
    ++totals.rendered;
  } else if (slot.error.empty()) {
    ++totals.rendered;
    if (args.json)
      line = events::frame(item.number, item.time, item.clock, slot.path, seed_json, slot.particles,
                           slot.ms);
  } else {
    // A frame that cannot be written is reported and counted; the run goes
    // on (a farm wrapper reads the summary) and exits non-zero at the end.
    ++totals.failed;
    totals.out_of_space = totals.out_of_space || slot.out_of_space;
    if (args.json) line = events::frame_error(item.number, slot.error);
    progress.clear();
    std::fprintf(stderr, "spritz: frame %lld: %s\n", static_cast<long long>(item.number),
                 slot.error.c_str());
  }
  if (!line.empty()) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }
}

// Renders the frames of one effect (one seed) to `output`.
void render_effect(const RenderArgs& args, const RenderRequest& request, EffectFiles& files,
                   const Effect& fx, const std::string& output, const std::optional<int64_t>& seed,
                   Totals& totals, Progress& progress, std::chrono::steady_clock::time_point t0,
                   uint64_t& done) {
  const RenderJob job = make_render_job(request, fx, output);
  totals.width = job.width;
  totals.height = job.height;
  totals.threads = job.threads;
  progress.add_total(job.end - job.begin);
  // The one check that touches the file system: the first output's folder.
  if (!job.raw && job.end > job.begin) {
    const std::string first = job.pattern.format(job.by_time ? 0 : job.frames.at(job.begin));
    ensure_output_dir(first);
    check_not_input(first);
  }
  const std::string seed_json = events::seed_field(seed.has_value(), seed.value_or(0));
  const FramePlan& plan = job.plan;
  const bool raw = job.raw;
  // Frame workers (cli/pipeline.h): each takes the next frame of the list,
  // renders it with its own FrameRenderer and encodes and writes it, so
  // rendering one frame overlaps encoding another and every core stays busy;
  // results are reported here in list order.
  std::mutex texture_mutex;
  std::optional<TextureSet> textures;  // loaded by the first frame that renders
  std::vector<std::unique_ptr<FrameRenderer>> renderers(static_cast<size_t>(plan.workers));
  const FrameContext context{args, request, files, fx, job, texture_mutex, textures};
  const std::function<Slot(uint64_t, int)> produce = [&](uint64_t i, int w) {
    return render_frame(context, i, renderers[static_cast<size_t>(w)]);
  };
  const std::function<bool(const Slot&)> halts = [](const Slot& slot) {
    return slot.fatal || slot.out_of_space;  // no new frames; those started are still reported
  };
  const std::function<void(uint64_t, Slot&)> consume = [&](uint64_t, Slot& slot) {
    report_frame(args, slot, raw, seed_json, totals, progress);
    ++done;
    progress.update(done,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  };
  run_ordered<Slot>(job.begin, job.end, plan.workers, 2 * static_cast<uint64_t>(plan.workers),
                    produce, halts, consume);
}

// ",\"peak_memory_mb\":N": this process's peak resident memory, from
// /proc/self/status (VmHWM, which unlike getrusage's maxrss does not count
// the memory of whatever process forked spritz before exec), so a render
// farm can size its jobs. Empty where /proc is not there.
std::string peak_memory_json() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return "";
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  std::fclose(f);
  if (kb < 0) return "";
  return ",\"peak_memory_mb\":" + json_number(std::round(static_cast<double>(kb) / 1024 * 10) / 10);
}

// The run's report: the --json summary, the line on stderr, and the
// warnings the totals call for.
void report_run(const RenderArgs& args, const RenderRequest& request, const Totals& totals,
                const std::string& name, const std::string& shown_pattern,
                std::chrono::steady_clock::time_point t0, DrawPath kernel) {
  const std::string& output = request.output;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double fps = seconds > 0 ? static_cast<double>(totals.rendered) / seconds : 0;
  if (args.json && output != "-") {
    events::RenderSummary summary;
    summary.rendered = totals.rendered;
    summary.skipped = totals.skipped;
    summary.failed = totals.failed;
    summary.particles = totals.particles;
    summary.seconds = seconds;
    summary.fps = fps;
    summary.width = totals.width;
    summary.height = totals.height;
    summary.threads = totals.threads;
    summary.kernel = draw_path_name(kernel);
    summary.out_of_space = totals.out_of_space;
    std::string extra = peak_memory_json();
    if (!args.motion.output.empty())
      extra += ",\"motion_vectors\":{\"pattern\":" + json_string(args.motion.output) +
               ",\"encoding\":\"" + args.motion.encoding +
               "\",\"scale\":" + json_number(request.motion_scale) +
               ",\"units\":\"frame\",\"clamped_pixels\":" + std::to_string(totals.motion_clamped) +
               "}";
    const std::string line = events::render_summary(summary, extra);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
  }
  if (!args.quiet && !args.json) {
    // The rate as frames per second, or seconds per frame when under one
    // a second ("0.0 fps" said nothing).
    char rate[48];
    if (totals.rendered == 0 || fps >= 1)
      std::snprintf(rate, sizeof rate, "%.1f fps", fps);
    else
      std::snprintf(rate, sizeof rate, "%.3g s per frame",
                    seconds / static_cast<double>(totals.rendered));
    std::fprintf(stderr, "spritz: %llu frame%s of %s (%dx%d) %s %s in %.2f s (%s)",
                 static_cast<unsigned long long>(totals.rendered), totals.rendered == 1 ? "" : "s",
                 name.c_str(), totals.width, totals.height, output == "-" ? "to" : "written to",
                 output == "-" ? "stdout" : shown_pattern.c_str(), seconds, rate);
    if (totals.skipped)
      std::fprintf(stderr, ", %llu skipped (already there)",
                   static_cast<unsigned long long>(totals.skipped));
    if (totals.failed)
      std::fprintf(stderr, ", %llu FAILED", static_cast<unsigned long long>(totals.failed));
    std::fprintf(stderr, "\n");
  }
  // Particles that never touch a pixel are most often placed in the wrong
  // frame of reference (y down, or the origin in a corner).
  if (totals.particles > 0 && totals.covered == 0 && !args.quiet)
    std::fprintf(stderr,
                 "spritz: warning: no particle touched the canvas (%llu particles over %llu "
                 "frames); positions are design px from the canvas centre, y up (inspect --time T "
                 "shows where they are)\n",
                 static_cast<unsigned long long>(totals.particles),
                 static_cast<unsigned long long>(totals.rendered + totals.failed));
  if (totals.motion_clamped && !args.quiet)
    std::fprintf(stderr,
                 "spritz: warning: %llu pixels moved farther than --mv-scale %g frames per frame; "
                 "their vectors are clamped (raise --mv-scale)\n",
                 static_cast<unsigned long long>(totals.motion_clamped), request.motion_scale);
  // A program's NaN never reaches a pixel (model.md 11.1); say once that
  // some particles were left out for it.
  if (totals.dropped && !args.quiet)
    std::fprintf(stderr,
                 "spritz: warning: programs left %llu particles NaN or infinite over the frames; "
                 "they were not drawn (inspect --time T --stats counts them per emitter)\n",
                 static_cast<unsigned long long>(totals.dropped));
  if (totals.out_of_space && !args.quiet)
    std::fprintf(
        stderr,
        "spritz: stopped: the disk is full, so every later frame would fail too; free some space, "
        "then run the same command with --skip-existing to render only what is missing\n");
}

}  // namespace

int run_render(const RenderArgs& args, const RunSettings& settings) {
  const RenderRequest request = parse_render_request(args);
  EffectFiles files(settings);
  const std::string& output = request.output;
  Progress progress(!args.quiet && !args.json && isatty(STDERR_FILENO) && output != "-", 0);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t done = 0;
  Totals totals;
  std::string name, shown_pattern;
  try {
    for (const auto& seed : request.seeds) {
      EffectArgs ea = args.effect;
      ea.seed = seed;
      const Effect fx = files.load(ea);
      if (name.empty()) {
        name = fx.name;
        if (!args.quiet) print_warnings(fx.warnings);  // once, not once per seed
        // With --time, --fps only sets the frame interval a motion-blur
        // shutter spans: without blur it would be silently ignored.
        if (!args.quiet && !args.times.empty() && args.fps && fx.canvas.blur_samples <= 1)
          std::fprintf(
              stderr,
              "spritz: warning: --fps does nothing with --time (times are seconds) unless the "
              "effect has motion blur; for frame numbers use --frames\n");
      }
      std::string out = output.empty() ? "out/" + fx.name + "_####.png" : output;
      if (shown_pattern.empty()) shown_pattern = out;
      out = replace_all(out, "{seed}", std::to_string(fx.seed));
      render_effect(args, request, files, fx, out, seed, totals, progress, t0, done);
      if (totals.out_of_space) break;
    }
  } catch (const ReaderGone&) {
    progress.finish();
    return kExitError;  // the reader of stdout went away: stop quietly
  }
  progress.finish();
  report_run(args, request, totals, name, shown_pattern, t0, settings.kernel);
  return totals.failed ? kExitError : kExitOk;
}

}  // namespace spritz

namespace spritz {

Command add_render_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<RenderArgs>();
  RenderArgs& a = *args;
  CLI::App* r = app.add_subcommand("render", "Render frames to PNG files (or raw RGBA to stdout)");
  r->add_option("effect", a.effect.effect,
                "Effect file (TOML); '-' reads stdin; none renders the bundled default");
  r->add_option("-f,--frames", a.frames,
                "Frames: N, A-B, A-BxS, comma-separated; negative = absolute");
  r->add_option_function<double>(
      "--fps", [&a](double v) { a.fps = v; }, "Frames per second (default: the effect's fps)");
  // Split and parsed by parse_times (CLI11's delimiter drops empty items).
  r->add_option("--time", a.time_args,
                "Explicit times in seconds instead of frames (comma-separated, or repeat --time)")
      ->type_name("T[,T...]")
      ->allow_extra_args(false);
  r->add_option("-o,--output", a.output,
                "Output pattern with #### or %04d for the frame number; '-' writes raw RGBA8 to "
                "stdout; '.hdr' writes Radiance HDR, '.exr' OpenEXR (half float, linear light, "
                "alpha) (default: out/<name>_####.png)");
  r->add_option("--size", a.size, "Render at WIDTHxHEIGHT (the effect scales with it)");
  r->add_option_function<double>(
      "--scale", [&a](double v) { a.scale = v; }, "Render at K times the canvas size");
  r->add_option("--threads", a.threads,
                "Threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  r->add_option_function<int64_t>(
      "--chunk-index", [&a](int64_t v) { a.chunk_index = v; },
      "Render slice I (0-based) of --chunk-count slices");
  r->add_option_function<int64_t>(
      "--chunk-count", [&a](int64_t v) { a.chunk_count = v; },
      "Number of contiguous slices of the frame list");
  r->add_option("--seeds", a.seeds,
                "Render one variant per seed (N, A-B, A-BxS); put {seed} in -o");
  r->add_flag("--skip-existing", a.skip_existing,
              "Do not re-render frames whose file exists (resume a batch)");
  add_png_option(r, run,
                 "PNG encoding: fast (default: spritz's own encoder, over 1 GB/s per thread) or "
                 "small (libdeflate 9, adaptive filters: about 12% smaller, about 20x slower)");
  r->add_option("--depth", a.depth,
                "PNG bits per channel: 8 (default) or 16 (same tone map, no banding)")
      ->check(CLI::IsMember({8, 16}));
  r->add_option("--pass", a.pass,
                "Light to draw: all (default), alpha (alpha-over share, with the background) or "
                "emissive (additive share alone); alpha + emissive = all")
      ->check(CLI::IsMember({"all", "alpha", "emissive"}));
  add_motion_options(r, a.motion, false);
  r->add_flag("--json", a.json, "NDJSON events on stdout: one per frame, then a summary");
  r->add_flag("-q,--quiet", a.quiet, "Print nothing but errors");
  add_effect_options(r, a.effect, run);
  r->footer(
      "Examples:\n"
      "  spritz render\n"
      "  spritz render configs/sparks.toml -f 0-59 -o out/sparks_####.png --threads 2\n"
      "  spritz render configs/sparks.toml --seeds 1-8 -f 0-29 -o out/s{seed}/f_####.png\n"
      "  spritz render fire.toml --chunk-index 2 --chunk-count 8 --skip-existing --json\n"
      "  spritz render fire.toml --time 0.5,1,1.5 -o still_%02d.png --scale 2\n"
      "  spritz render fire.toml -o - | ffmpeg -f rawvideo -pix_fmt rgba -s 256x256 -framerate 30 "
      "-i - fire.mp4");
  const SettingsUse use{/*kernel=*/true, /*memory=*/true, /*work=*/true, /*textures=*/true};
  return {r, use, [args](const RunSettings& settings) {
            args->times = parse_times(args->time_args);
            return run_render(*args, settings);
          }};
}

}  // namespace spritz
