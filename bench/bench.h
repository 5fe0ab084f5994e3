// What the benchmark's tables share (bench.cpp, bench_tables.cpp): the
// options, timing helpers, the JSON written, the sprite scenes' definitions
// and the Bench whose methods are the tables.
#pragma once

#include <libdeflate.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cairo_peer.h"
#include "machine.h"
#include "png_peers.h"
#include "scenes.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/png_writer.h"
#include "spritz/raster/raster.h"

namespace spritz::bench {

namespace fs = std::filesystem;

inline bool g_quick = false;
inline int g_texture = 32;  // the sprite scenes' texture side (--texture)

// Median seconds of f() over enough repetitions to fill `budget_s`.
// The fastest of repeated runs: noise on a shared machine only ever adds
// time, so the minimum is the steadiest estimate of what the code costs.
inline double best_seconds(const std::function<void()>& f, double budget_s = 0.6) {
  if (g_quick) budget_s /= 4;
  double best = 1e300;
  int runs = 0;
  const auto start = std::chrono::steady_clock::now();
  do {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ++runs;
  } while (
      (runs < 3 || std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
                       budget_s) &&
      runs < 200);
  return best;
}

// Several variants timed in turn (a, b, c, a, b, c, ...), each its fastest
// run, at least nine runs each (three with --quick): a burst of noise then
// hits all alike, which keeps their ratios honest. Each variant returns the
// seconds it took, so a peer can leave its own set-up out.
inline std::vector<double> best_seconds_alternating(const std::vector<std::function<double()>>& fs,
                                                    double budget_s = 3.0) {
  if (g_quick) budget_s /= 4;
  std::vector<double> best(fs.size(), 1e300);
  int runs = 0;
  const auto start = std::chrono::steady_clock::now();
  do {
    for (size_t i = 0; i < fs.size(); ++i) best[i] = std::min(best[i], fs[i]());
    ++runs;
  } while ((runs < (g_quick ? 3 : 9) ||
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
                budget_s) &&
           runs < 200);
  return best;
}

inline double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// An effect file of the source tree ("configs/smoke.toml"), its textures
// resolved beside it.
inline Effect load_source_effect(const std::string& relative) {
  const fs::path path = fs::path(SPRITZ_SOURCE_DIR) / relative;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    std::fprintf(stderr, "spritz_bench: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return load_effect(text, path.string(), path.parent_path().string());
}

inline std::string num(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

struct Json {
  std::string s = "{";
  bool first = true;
  void key(const std::string& k) {
    s += (first ? "\n  \"" : ",\n  \"") + k + "\": ";
    first = false;
  }
  void raw(const std::string& k, const std::string& v) { key(k), s += v; }
};

// Out of line, so that valgrind can count the instructions of this one call
// (--toggle-collect).
inline __attribute__((noinline)) void counted_frame(Rasterizer& r, const Frame& frame, Image& img) {
  r.render(frame, img);
}

inline long peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

struct Def {
  const char* name;
  const char* what;
  int w, h, count;
  double smin, smax;
};
inline const Def defs[] = {
    {"S1", "1,000 sprites of ~20 px at 512x512, half additive", 512, 512, 1000, 16, 24},
    {"S2", "20,000 rotated sprites of 8-64 px at 1920x1080", 1920, 1080, 20000, 8, 64},
    {"S3", "100,000 sprites of 8 px at 1920x1080", 1920, 1080, 100000, 8, 8},
};

// One run of the benchmark: its JSON, the default kernel and the CPUs it
// pins to; each table is a method, run in turn by main().
class Bench {
 public:
  Json json;
  DrawPath kernel = default_draw_path();
  std::vector<int> all_cpus, cpus;  // every allowed CPU; the two timed
  std::vector<double> cpu_ms;       // median S1 frame on each of `cpus`
  size_t fastest = 0;               // which of `cpus` drew S1 faster
  std::vector<int> fast_cpu, other_cpu, pair_cpus;

  void probe_cpus();
  void machine();
  void raster();
  void kernels();
  void sweep();
  void clock_independence();
  void collisions();
  void elementary();
  void programs();
  void png();
  void stages();
  void end_to_end();
  std::string raster_table(const char* filter, bool with_portable);
  // One scene's best times, s: one thread (on the CPU that drew it faster),
  // two threads alone and frame after frame, one thread on the other CPU,
  // Cairo on the one-thread CPU, and one thread on the CPU the probe found
  // faster; the one-thread CPU and the pixels covered.
  struct SceneTimes {
    double t1 = 0, t2 = 0, t_other = 0, t_again = 0, cairo = 0, t1_probe_cpu = 0;
    int one_thread_cpu = -1;
    uint64_t covered = 0;
  };
  SceneTimes time_scene(const Scene& s, Image& img);
};

}  // namespace spritz::bench
