#include "commands/render_job.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "io/outputs.h"
#include "json.h"
#include "spritz/eval.h"
#include "spritz/raster/frame.h"

namespace spritz {
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

RenderJob make_render_job(const RenderArgs& args, const Effect& fx, const std::string& output) {
  RenderJob job;
  // Resolution: the design canvas, or --size / --scale (the effect scales with it).
  int width = fx.canvas.width, height = fx.canvas.height;
  if (!args.size.empty() && args.scale) throw Error("use either --size or --scale, not both");
  if (!args.size.empty()) parse_size(args.size, &width, &height);
  if (args.scale) {
    const double k = *args.scale;
    const double w = std::round(fx.canvas.width * k), h = std::round(fx.canvas.height * k);
    if (!(k > 0) || !std::isfinite(k)) {
      char got[32];
      std::snprintf(got, sizeof got, "%g", k);
      throw Error(std::string("--scale must be a positive number, got ") + got);
    }
    if (!(w >= 1 && h >= 1 && w <= kMaxOutputSide && h <= kMaxOutputSide))
      throw Error("--scale " + json_number(k) + " gives a " + json_number(w) + "x" +
                  json_number(h) + " canvas; each side must be within [1, " +
                  std::to_string(kMaxOutputSide) + "]");
    width = static_cast<int>(w);
    height = static_cast<int>(h);
  }

  const double fps = args.fps ? *args.fps : fx.fps;
  if (!(fps > 0) || fps > 10000) throw Error("--fps must be within (0, 10000]");

  // The work list: explicit times, or frames (default: [0, duration * fps)).
  FrameList frames;
  const bool by_time = !args.times.empty();
  if (by_time && !args.frames.empty()) throw Error("use either --frames or --time, not both");
  if (!by_time) {
    if (!args.frames.empty()) {
      frames = parse_frames(args.frames);
      check_frame_times(frames, fps);
    } else {
      const double n = std::max(1.0, std::ceil(fx.duration_s * fps - 1e-9));
      frames.add({0, static_cast<int64_t>(n) - 1, 1});
    }
  }
  const uint64_t total = by_time ? args.times.size() : frames.size();

  uint64_t begin = 0, end = total;
  if (args.chunk_index || args.chunk_count) {
    if (!args.chunk_index || !args.chunk_count)
      throw Error("--chunk-index and --chunk-count go together");
    if (*args.chunk_count < 1) throw Error("--chunk-count must be at least 1");
    if (*args.chunk_index < 0 || *args.chunk_index >= *args.chunk_count)
      throw Error("--chunk-index must be within [0, " + std::to_string(*args.chunk_count - 1) +
                  "] (it is 0-based), got " + std::to_string(*args.chunk_index));
    std::tie(begin, end) = chunk_slice(total, static_cast<uint64_t>(*args.chunk_index),
                                       static_cast<uint64_t>(*args.chunk_count));
  }

  const bool raw = output == "-";
  const OutputPattern pattern(output);
  const ImageFormat format =
      raw ? ImageFormat::kPng : output_format(pattern.pattern(), /*hdr_ok=*/true, "-o");
  const bool hdr = format == ImageFormat::kHdr, exr = format == ImageFormat::kExr;
  if (!raw && total > 1 && !pattern.has_token()) {
    throw Error("-o " + pattern.pattern() + " names one file but " + std::to_string(total) +
                " frames are requested; add a frame token, e.g. -o " +
                with_frame_token(pattern.pattern()));
  }
  job.width = width;
  job.height = height;
  job.fps = fps;
  job.by_time = by_time;
  job.frames = frames;
  job.times = args.times;
  job.total = total;
  job.begin = begin;
  job.end = end;
  job.pattern = pattern;
  job.raw = raw;
  job.hdr = hdr;
  job.exr = exr;
  if (args.depth == 16 && (raw || hdr || exr))
    throw Error(std::string("--depth 16 is for PNG files; ") +
                (raw ? "raw RGBA on stdout (-o -) is 8-bit"
                     : std::string(hdr ? ".hdr" : ".exr") + " is float already"));
  job.depth = args.depth;
  if (!args.motion.output.empty()) {
    check_motion_args(args.motion, /*atlas=*/false);
    if (raw) throw Error("--motion-vectors writes PNG files beside the frames; -o - has no files");
    const OutputPattern motion(replace_all(args.motion.output, "{seed}", std::to_string(fx.seed)));
    if (total > 1 && !motion.has_token())
      throw Error("--motion-vectors " + motion.pattern() + " names one file but " +
                  std::to_string(total) + " frames are requested; add a frame token, e.g. " +
                  with_frame_token(motion.pattern()));
    if (motion.pattern() == pattern.pattern())
      throw Error("--motion-vectors and -o are the same pattern; give the vectors another name");
    job.motion = motion;
  }
  job.threads = thread_count(args.threads);
  job.plan = plan_frames(job.threads, end - begin, width, height, max_alive(fx),
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
