#include "commands/render_job.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "io/outputs.h"
#include "json.h"
#include "motion_vectors.h"
#include "spritz/eval.h"
#include "spritz/raster/frame.h"

namespace spritz {
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

namespace {

// --size or --scale.
void parse_resolution(const RenderArgs& args, RenderRequest& r) {
  if (!args.size.empty() && args.scale) throw Error("use either --size or --scale, not both");
  if (!args.size.empty()) {
    int w = 0, h = 0;
    parse_size(args.size, &w, &h);
    r.size = {w, h};
  }
  if (args.scale) {
    const double k = *args.scale;
    if (!(k > 0) || !std::isfinite(k)) {
      char got[32];
      std::snprintf(got, sizeof got, "%g", k);
      throw Error(std::string("--scale must be a positive number, got ") + got);
    }
    r.scale = k;
  }
}

// --chunk-index and --chunk-count.
void parse_chunk(const RenderArgs& args, RenderRequest& r) {
  if (!args.chunk_index && !args.chunk_count) return;
  if (!args.chunk_index || !args.chunk_count)
    throw Error("--chunk-index and --chunk-count go together");
  if (*args.chunk_count < 1) throw Error("--chunk-count must be at least 1");
  if (*args.chunk_index < 0 || *args.chunk_index >= *args.chunk_count)
    throw Error("--chunk-index must be within [0, " + std::to_string(*args.chunk_count - 1) +
                "] (it is 0-based), got " + std::to_string(*args.chunk_index));
  r.chunk = {static_cast<uint64_t>(*args.chunk_index), static_cast<uint64_t>(*args.chunk_count)};
}

// -o, --depth and --motion-vectors.
void parse_outputs(const RenderArgs& args, RenderRequest& r) {
  r.output = args.output;
  r.raw = args.output == "-";
  if (!r.raw && !args.output.empty())
    r.format = output_format(OutputPattern(args.output).pattern(), /*hdr_ok=*/true, "-o");
  if (args.depth == 16 && (r.raw || r.format != ImageFormat::kPng))
    throw Error(std::string("--depth 16 is for PNG files; ") +
                (r.raw ? "raw RGBA on stdout (-o -) is 8-bit"
                       : std::string(r.format == ImageFormat::kHdr ? ".hdr" : ".exr") +
                             " is float already"));
  r.depth = args.depth;
  if (args.motion.output.empty()) return;
  check_motion_args(args.motion, /*atlas=*/false);
  if (r.raw) throw Error("--motion-vectors writes PNG files beside the frames; -o - has no files");
  r.motion = motion_encoding_from_name(args.motion.encoding);
  r.motion_output = args.motion.output;
  r.motion_scale = args.motion.scale.value_or(kRenderMotionScale);
  r.motion_dilate = args.motion.dilate;
  r.motion_depth = args.motion.depth;
}

}  // namespace

RenderRequest parse_render_request(const RenderArgs& args) {
  RenderRequest r;
  if (args.effect.seed && !args.seeds.empty())
    throw Error("use either --seed or --seeds, not both");
  if (args.seeds.empty()) {
    r.seeds = {args.effect.seed};
  } else {
    for (const uint32_t seed : parse_seeds(args.seeds, 1000000)) r.seeds.push_back(seed);
    if (r.seeds.size() > 1 && args.output != "-" && args.output.find("{seed}") == std::string::npos)
      throw Error("--seeds renders " + std::to_string(r.seeds.size()) +
                  " variants: put {seed} in the output pattern, e.g. -o out/fx_s{seed}_####.png");
  }
  r.times = args.times;
  if (!args.times.empty() && !args.frames.empty())
    throw Error("use either --frames or --time, not both");
  if (!args.frames.empty()) r.frames = parse_frames(args.frames);
  if (args.fps && (!(*args.fps > 0) || *args.fps > 10000))
    throw Error("--fps must be within (0, 10000]");
  r.fps = args.fps;
  parse_resolution(args, r);
  parse_chunk(args, r);
  parse_outputs(args, r);
  r.pass = light_pass_from(args.pass);
  r.threads = thread_count(args.threads);
  return r;
}

namespace {

// The output's size for `fx`: its canvas, or --size, or --scale times it.
std::pair<int, int> output_size(const RenderRequest& r, const Effect& fx) {
  if (r.size) return *r.size;
  if (!r.scale) return {fx.canvas.width, fx.canvas.height};
  const double k = *r.scale;
  const double w = std::round(fx.canvas.width * k), h = std::round(fx.canvas.height * k);
  if (!(w >= 1 && h >= 1 && w <= kMaxOutputSide && h <= kMaxOutputSide))
    throw Error("--scale " + json_number(k) + " gives a " + json_number(w) + "x" + json_number(h) +
                " canvas; each side must be within [1, " + std::to_string(kMaxOutputSide) + "]");
  return {static_cast<int>(w), static_cast<int>(h)};
}

}  // namespace

RenderJob make_render_job(const RenderRequest& r, const Effect& fx, const std::string& output) {
  RenderJob job;
  std::tie(job.width, job.height) = output_size(r, fx);
  job.fps =
      r.fps ? *r.fps : fx.fps;  // --fps checked by parse_render_request, the effect's by its load
  // The work list: explicit times, or frames (default: [0, duration * fps)).
  job.by_time = !r.times.empty();
  if (r.frames) {
    job.frames = *r.frames;
    check_frame_times(job.frames, job.fps);
  } else if (!job.by_time) {
    const double n = std::max(1.0, std::ceil(fx.duration_s * job.fps - 1e-9));
    job.frames.add({0, static_cast<int64_t>(n) - 1, 1});
  }
  job.times = r.times;
  job.total = job.by_time ? r.times.size() : job.frames.size();
  job.begin = 0;
  job.end = job.total;
  if (r.chunk)
    std::tie(job.begin, job.end) = chunk_slice(job.total, r.chunk->first, r.chunk->second);

  job.raw = output == "-";
  job.pattern = OutputPattern(output);
  const ImageFormat format =
      job.raw ? ImageFormat::kPng : output_format(job.pattern.pattern(), /*hdr_ok=*/true, "-o");
  job.hdr = format == ImageFormat::kHdr;
  job.exr = format == ImageFormat::kExr;
  if (!job.raw && job.total > 1 && !job.pattern.has_token())
    throw Error("-o " + job.pattern.pattern() + " names one file but " + std::to_string(job.total) +
                " frames are requested; add a frame token, e.g. -o " +
                with_frame_token(job.pattern.pattern()));
  job.depth = r.depth;
  if (r.motion) {
    const OutputPattern motion(replace_all(r.motion_output, "{seed}", std::to_string(fx.seed)));
    if (job.total > 1 && !motion.has_token())
      throw Error("--motion-vectors " + motion.pattern() + " names one file but " +
                  std::to_string(job.total) + " frames are requested; add a frame token, e.g. " +
                  with_frame_token(motion.pattern()));
    if (motion.pattern() == job.pattern.pattern())
      throw Error("--motion-vectors and -o are the same pattern; give the vectors another name");
    job.motion = motion;
  }
  job.threads = r.threads;
  job.plan = plan_frames(job.threads, job.end - job.begin, job.width, job.height, max_alive(fx),
                         fx.canvas.blur_samples > 1, bytes_per_particle(fx));
  return job;
}

RenderItem RenderJob::item(const Effect& fx, uint64_t i) const {
  RenderItem item;
  if (by_time) {
    item.number = static_cast<int64_t>(i);
    item.time = times[i];
    item.clock = clock_at_time(fx, item.time);
  } else {
    item.number = frames.at(i);
    item.time = static_cast<double>(item.number) / fps;
    item.clock = clock_at_frame(fx, item.number, fps);
  }
  return item;
}

}  // namespace spritz
