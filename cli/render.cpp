#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <unistd.h>

#include "commands.h"
#include "encode.h"
#include "eval.h"
#include "frame.h"
#include "frames.h"
#include "io.h"
#include "json.h"
#include "output.h"
#include "png.h"
#include "raster.h"
#include "texture.h"

namespace spritz {
namespace {

constexpr int kMaxSide = 16384;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One entry of the work list: a frame number, or an explicit time.
struct Item {
  int64_t number = 0;
  double time = 0;
  double clock = 0;
};

class Progress {
 public:
  Progress(bool enabled, uint64_t total) : enabled_(enabled), total_(total) {}
  void update(uint64_t done, double elapsed_s) {
    if (!enabled_) return;
    const double fps = elapsed_s > 0 ? static_cast<double>(done) / elapsed_s : 0;
    const double eta = fps > 0 ? static_cast<double>(total_ - done) / fps : 0;
    constexpr int kBar = 24;
    const int filled = total_ ? static_cast<int>(kBar * done / total_) : kBar;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kBar, '.');
    std::fprintf(stderr, "\r[%s] %llu/%llu frames  %.1f fps  ETA %.1fs ", bar.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                 fps, eta);
    std::fflush(stderr);
  }
  void finish() {
    if (enabled_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  uint64_t total_;
};

}  // namespace

void parse_size(const std::string& text, int* width, int* height) {
  unsigned long long w = 0, h = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%llux%llu%c", &w, &h, &extra) != 2)
    throw Error("--size expects WIDTHxHEIGHT (e.g. 512x512), got '" + text + "'");
  if (w < 1 || h < 1 || w > kMaxSide || h > kMaxSide)
    throw Error("--size " + text + ": each side must be within [1, " + std::to_string(kMaxSide) + "]");
  *width = static_cast<int>(w);
  *height = static_cast<int>(h);
}

int run_render(const RenderArgs& args) {
  const Effect fx = load_effect_arg(args.effect);

  // Resolution: the design canvas, or --size / --scale (the effect scales with it).
  int width = fx.canvas.width, height = fx.canvas.height;
  if (!args.size.empty() && args.scale) throw Error("use either --size or --scale, not both");
  if (!args.size.empty()) parse_size(args.size, &width, &height);
  if (args.scale) {
    const double k = *args.scale;
    const double w = std::round(fx.canvas.width * k), h = std::round(fx.canvas.height * k);
    if (!(k > 0) || !(w >= 1 && h >= 1 && w <= kMaxSide && h <= kMaxSide))
      throw Error("--scale " + json_number(k) + " gives a " + json_number(w) + "x" +
                  json_number(h) + " canvas; each side must be within [1, " +
                  std::to_string(kMaxSide) + "]");
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
    } else {
      const double n = std::max(1.0, std::ceil(fx.duration_s * fps - 1e-9));
      frames.add({0, static_cast<int64_t>(n) - 1, 1});
    }
  }
  for (double t : args.times)
    if (!std::isfinite(t) || std::abs(t) > 1e9) throw Error("--time values must be finite, within ±1e9");
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
  const uint64_t count = end - begin;

  const bool raw = args.output == "-";
  const OutputPattern pattern(args.output.empty() ? "out/" + fx.name + "_####.png" : args.output);
  if (!raw && total > 1 && !pattern.has_token()) {
    throw Error("-o " + pattern.pattern() + " names one file but " + std::to_string(total) +
                " frames are requested; add a frame token, e.g. -o " +
                (ends_with(pattern.pattern(), ".png")
                     ? pattern.pattern().substr(0, pattern.pattern().size() - 4) + "_####.png"
                     : pattern.pattern() + "_####.png"));
  }
  const bool hdr = !raw && ends_with(pattern.pattern(), ".hdr");
  if (!raw && count > 0) ensure_output_dir(pattern.format(by_time ? 0 : frames.at(begin)));

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const int threads = args.threads > 0 ? args.threads : static_cast<int>(cores);
  FrameRenderer renderer(fx, width, height, threads);
  std::vector<uint8_t> rgba;
  Progress progress(!args.quiet && !args.json && isatty(STDERR_FILENO), count);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t done = 0, particles_total = 0;
  for (uint64_t i = begin; i < end; ++i) {
    const auto f0 = std::chrono::steady_clock::now();
    Item item;
    if (by_time) {
      item.number = static_cast<int64_t>(i);
      item.time = args.times[i];
      item.clock = clock_at_time(fx, item.time);
    } else {
      item.number = frames.at(i);
      item.time = static_cast<double>(item.number) / fps;
      item.clock = clock_at_frame(fx, item.number, fps);
    }
    const uint64_t particles = renderer.render(item.clock);
    particles_total += particles;

    std::string path;
    if (raw) {
      renderer.encode(rgba);
      if (!write_stdout(rgba.data(), rgba.size())) return kExitError;  // reader went away
    } else {
      path = pattern.format(item.number);
      if (hdr) {
        const std::vector<uint8_t> bytes = encode_hdr(renderer.image());
        write_file_atomic(path, bytes.data(), bytes.size());
      } else {
        renderer.encode(rgba);
        const std::vector<uint8_t> png = encode_png(
            rgba.data(), width, height,
            frame_png_texts(fx, item.number, item.time, item.clock, width, height));
        write_file_atomic(path, png.data(), png.size());
      }
    }
    ++done;
    const auto now = std::chrono::steady_clock::now();
    if (args.json) {
      const double ms = std::chrono::duration<double, std::milli>(now - f0).count();
      std::string line = "{\"type\":\"frame\",\"frame\":" + std::to_string(item.number) +
                         ",\"time\":" + json_number(item.time) + ",\"clock\":" +
                         json_number(item.clock) + ",\"path\":" +
                         (raw ? std::string("null") : json_string(path)) + ",\"particles\":" +
                         std::to_string(particles) + ",\"ms\":" + json_number(ms) + "}\n";
      if (!raw) std::fwrite(line.data(), 1, line.size(), stdout);
    }
    progress.update(done, std::chrono::duration<double>(now - t0).count());
  }
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (args.json && !raw) {
    std::printf(
        "{\"type\":\"summary\",\"frames\":%llu,\"rendered\":%llu,\"skipped\":0,\"failed\":0,"
        "\"seconds\":%s,\"fps\":%s,\"particles\":%llu,\"width\":%d,\"height\":%d,\"threads\":%d}\n",
        static_cast<unsigned long long>(done), static_cast<unsigned long long>(done),
        json_number(seconds).c_str(), json_number(seconds > 0 ? done / seconds : 0).c_str(),
        static_cast<unsigned long long>(particles_total), width, height, threads);
    std::fflush(stdout);
  }
  if (!args.quiet && !args.json) {
    std::fprintf(stderr, "spritz: %llu frame%s of %s (%dx%d) %s %s in %.2f s (%.1f fps)\n",
                 static_cast<unsigned long long>(done), done == 1 ? "" : "s", fx.name.c_str(),
                 width, height, raw ? "to" : "written to", raw ? "stdout" : pattern.pattern().c_str(),
                 seconds, seconds > 0 ? done / seconds : 0.0);
  }
  return kExitOk;
}

}  // namespace spritz
