// spritz's benchmark suite: fixed scenes, figures as ratios measured in one
// run on this machine (never a timed test). Prints a table and writes JSON.
//   build/spritz_bench [--quick] [--out bench/results.json] [--texture N]
//   build/spritz_bench --once S1|S2|S3   (one frame, one thread: for valgrind)
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

using namespace spritz;
using namespace spritz::bench;
namespace fs = std::filesystem;

namespace {

bool g_quick = false;
int g_texture = 32;  // the sprite scenes' texture side (--texture)

// Median seconds of f() over enough repetitions to fill `budget_s`.
// The fastest of repeated runs: noise on a shared machine only ever adds
// time, so the minimum is the steadiest estimate of what the code costs.
double best_seconds(const std::function<void()>& f, double budget_s = 0.6) {
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
std::vector<double> best_seconds_alternating(const std::vector<std::function<double()>>& fs,
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

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// An effect file of the source tree ("configs/smoke.toml"), its textures
// resolved beside it.
Effect load_source_effect(const std::string& relative) {
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

std::string num(double v, int digits = 3) {
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
__attribute__((noinline)) void counted_frame(Rasterizer& r, const Frame& frame, Image& img) {
  r.render(frame, img);
}

long peak_rss_kb() {
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
const Def defs[] = {
    {"S1", "1,000 sprites of ~20 px at 512x512, half additive", 512, 512, 1000, 16, 24},
    {"S2", "20,000 rotated sprites of 8-64 px at 1920x1080", 1920, 1080, 20000, 8, 64},
    {"S3", "100,000 sprites of 8 px at 1920x1080", 1920, 1080, 100000, 8, 8},
};

// The fast PNG encoder's two halves on a frame's RGBA8 rows, piece by
// piece (kPngPieceRows rows each, summed): the filter, then the Huffman
// coding with the Adler-32, s.
std::pair<double, double> time_pieces(const std::vector<uint8_t>& rgba, int w, int h) {
  std::vector<uint8_t> filtered, piece;
  const size_t piece_bytes = static_cast<size_t>(w) * 4 * kPngPieceRows;
  const int pieces = (h + kPngPieceRows - 1) / kPngPieceRows;
  const auto rows_of = [&](int k) { return std::min(kPngPieceRows, h - k * kPngPieceRows); };
  const double new_filter = best_seconds([&] {
    for (int k = 0; k < pieces; ++k)
      filter_png_piece(rgba.data() + static_cast<size_t>(k) * piece_bytes, w, rows_of(k), filtered);
  });
  std::vector<std::vector<uint8_t>> filtered_pieces(static_cast<size_t>(pieces));
  for (int k = 0; k < pieces; ++k)
    filter_png_piece(rgba.data() + static_cast<size_t>(k) * piece_bytes, w, rows_of(k),
                     filtered_pieces[static_cast<size_t>(k)]);
  const double new_deflate = best_seconds([&] {
    for (const auto& fp : filtered_pieces) {
      deflate_png_filtered(fp.data(), fp.size(), piece);
      (void)libdeflate_adler32(1, fp.data(), fp.size());
    }
  });
  return {new_filter, new_deflate};
}

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

}  // namespace

void Bench::probe_cpus() {
  // --- The machine, CPU by CPU -----------------------------------------------
  // On a virtual machine the CPUs need not be alike: a vCPU whose physical
  // core also runs another tenant's busy thread gets less of it, and the
  // share changes from minute to minute. Each CPU renders S1's frame in
  // turn; single-thread figures below run on the faster one, and the
  // two-thread runs on the two timed here.
  all_cpus = allowed_cpus();
  cpus = all_cpus;
  if (cpus.size() > 2) cpus.resize(2);
  if (cpus.size() == 2) {
    const Scene s = make_scene(defs[0].name, defs[0].what, defs[0].w, defs[0].h, defs[0].count,
                               defs[0].smin, defs[0].smax, 0.5, 7, g_texture);
    Rasterizer r(s.fx, s.textures, s.width, s.height, 1);
    Image img;
    std::vector<std::vector<double>> times(2);
    for (int round = 0; round < (g_quick ? 16 : 48); ++round)
      for (size_t i = 0; i < 2; ++i) {
        pin_thread({cpus[i]});
        r.render(s.frame, img);  // once to bring the image to this CPU
        times[i].push_back(seconds_of([&] { r.render(s.frame, img); }));
      }
    pin_thread(all_cpus);
    for (auto& t : times) {
      std::nth_element(t.begin(), t.begin() + static_cast<long>(t.size() / 2), t.end());
      cpu_ms.push_back(t[t.size() / 2] * 1e3);
    }
  }
  fastest = cpu_ms.size() == 2 && cpu_ms[1] < cpu_ms[0] ? 1 : 0;
  // Empty lists where the CPUs are unknown: nothing is pinned then.
  fast_cpu = cpus.empty() ? std::vector<int>{} : std::vector<int>{cpus[fastest]};
  other_cpu = cpus.size() == 2 ? std::vector<int>{cpus[1 - fastest]} : std::vector<int>{};
  pair_cpus = cpus;
}

void Bench::machine() {
  // Everything single-threaded from here on runs on the fastest CPU.
  pin_thread(fast_cpu);
  {
    const MachineRate m = measure_machine(g_quick ? 0.1 : 0.3);
    std::printf(
        "machine: %s%s%.2f GHz (dependent imul chain); per cycle, 256-bit adds %.2f, vperm2f128 "
        "%.2f",
        m.cpu.c_str(), m.cpu.empty() ? "" : ", ", m.ghz, m.vector_adds, m.vector_shuffles);
    if (m.vector512_adds > 0) std::printf(", 512-bit adds %.2f", m.vector512_adds);
    std::printf("\n");
    std::string cpus_json;
    if (cpu_ms.size() == 2) {
      std::printf(
          "CPUs: S1's frame (median) %.3f ms on CPU %d, %.3f ms on CPU %d; one-thread runs on CPU "
          "%d (the scene tables time both)\n",
          cpu_ms[0], cpus[0], cpu_ms[1], cpus[1], cpus[fastest]);
      const double balance = cpu_ms[fastest] / cpu_ms[1 - fastest];
      if (balance < 0.9)
        std::printf(
            "note: CPU %d is %.0f%% slower than CPU %d now (on a virtual machine: load on the "
            "host); the 2T speedup is against both CPUs' own one-thread times\n",
            cpus[1 - fastest], 100 * (1 / balance - 1), cpus[fastest]);
      cpus_json = ", \"cpus\": [{\"cpu\": " + std::to_string(cpus[0]) +
                  ", \"s1_median_ms\": " + num(cpu_ms[0], 4) +
                  "}, {\"cpu\": " + std::to_string(cpus[1]) +
                  ", \"s1_median_ms\": " + num(cpu_ms[1], 4) +
                  "}], \"one_thread_cpu\": " + std::to_string(cpus[fastest]);
    }
    std::printf("\n");
    std::string cpu_json;
    for (char c : m.cpu)
      if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) cpu_json += c;
    json.raw("machine", "{\"cpu\": \"" + cpu_json + "\", \"ghz\": " + num(m.ghz, 3) +
                            ", \"vector_adds_per_cycle\": " + num(m.vector_adds, 3) +
                            ", \"vector_shuffles_per_cycle\": " + num(m.vector_shuffles, 3) +
                            ", \"vector512_adds_per_cycle\": " + num(m.vector512_adds, 3) +
                            cpus_json + "}");
  }
}

// One scene timed: one thread on each CPU, two threads on both (alone and
// frame after frame), and the Cairo peer on each CPU, taking turns so a
// slow spell of the host hits all alike.
Bench::SceneTimes Bench::time_scene(const Scene& s, Image& img) {
  SceneTimes st;
  // One thread on each CPU, two threads on both: each variant pins the
  // main thread before its turn (the pool's worker keeps the pair it
  // was started with), and each has its own image and sprites.
  Rasterizer r1(s.fx, s.textures, s.width, s.height, 1),
      r1_other(s.fx, s.textures, s.width, s.height, 1);
  std::unique_ptr<Rasterizer> r2;
  pin_thread(pair_cpus);  // the pool's worker starts with the pair
  r2 = std::make_unique<Rasterizer>(s.fx, s.textures, s.width, s.height, 2);
  pin_thread(fast_cpu);
  Image img2, img_other;
  r1.render(s.frame, img);
  st.covered = r1.stats().covered_pixels;
  // Cairo takes its turn among them, so a slow spell of the host
  // hits all alike and the ratios stay honest; its time is its own
  // drawing (cairo_draw leaves out making the surfaces).
  std::vector<std::function<double()>> variants = {
      [&] {
        pin_thread(fast_cpu);
        return seconds_of([&] { r1.render(s.frame, img); });
      },
      [&] {
        pin_thread(pair_cpus);
        return seconds_of([&] { r2->render(s.frame, img2); });
      },
      [&] {
        // While the others take their turns the pool's worker sleeps,
        // and waking it is part of the frame above (tens of
        // microseconds on a VM). Here a frame follows a frame, as in
        // a sequence drawn in strips: only the second is timed.
        pin_thread(pair_cpus);
        r2->render(s.frame, img2);
        return seconds_of([&] { r2->render(s.frame, img2); });
      }};
  if (!other_cpu.empty())
    variants.push_back([&] {
      pin_thread(other_cpu);
      return seconds_of([&] { r1_other.render(s.frame, img_other); });
    });
  // Cairo on each CPU, as spritz's one thread.
  const size_t cairo_at = variants.size();
  if (cairo_available()) {
    variants.push_back([&] {
      pin_thread(fast_cpu);
      return cairo_draw(s);
    });
    if (!other_cpu.empty())
      variants.push_back([&] {
        pin_thread(other_cpu);
        return cairo_draw(s);
      });
  }
  for (const auto& v : variants) v();  // first frames allocate images and bins
  const std::vector<double> best = best_seconds_alternating(variants);
  pin_thread(fast_cpu);
  st.t1 = best[0], st.t2 = best[1];
  st.t_again = best[2];
  st.t_other = other_cpu.empty() ? 0 : best[3];
  st.cairo = cairo_available() ? best[cairo_at] : 0;
  double cairo_other = cairo_available() && !other_cpu.empty() ? best[cairo_at + 1] : 0;
  // The one-thread figures come from the CPU that drew this scene
  // faster: the host can slow either CPU for minutes at a time,
  // including the one the probe above found faster, and both were
  // timed in the same rounds. Cairo's is from the same CPU.
  st.t1_probe_cpu = st.t1;
  if (st.t_other > 0 && st.t_other < st.t1) {
    std::swap(st.t1, st.t_other);
    std::swap(st.cairo, cairo_other);
    st.one_thread_cpu = cpus[1 - fastest];
  } else {
    st.one_thread_cpu = cpus.empty() ? -1 : cpus[fastest];
  }
  return st;
}

std::string Bench::raster_table(const char* filter, bool with_portable) {
  std::printf("%-4s %-52s %6s %9s %9s %9s %10s %8s %9s %9s %10s %8s %8s\n", "", "scene", "Mpx",
              "ns/px 1T", "other CPU", "ns/px 2T", "2T alone", "2T again", "Msprite/s", "portable",
              "x portable", "cairo", "x cairo");
  std::string scenes_json = "[";
  for (const Def& d : defs) {
    const Scene s =
        make_scene(d.name, d.what, d.w, d.h, d.count, d.smin, d.smax, 0.5, 7, g_texture, filter);
    Image img;
    const SceneTimes st = time_scene(s, img);
    double t[3] = {0, st.t1, st.t2};
    double t_other = st.t_other, t_again = st.t_again, cairo = st.cairo;
    const double t1_probe_cpu = st.t1_probe_cpu;
    const int one_thread_cpu = st.one_thread_cpu;
    const uint64_t covered = st.covered;
    // The same scene through the portable kernel (four channels at once, no
    // AVX), for the SIMD speedup measured in this run.
    double portable = 0;
    if (with_portable) {
      Rasterizer r(s.fx, s.textures, s.width, s.height, 1);
      r.set_draw_path(DrawPath::kPortable);
      r.render(s.frame, img);
      portable = best_seconds([&] { r.render(s.frame, img); });
    }
    const double ns1 = t[1] * 1e9 / static_cast<double>(covered),
                 ns2 = t[2] * 1e9 / static_cast<double>(covered);
    const double sprites_per_s = d.count / t[2];
    // Two threads against one: against the two CPUs' own one-thread
    // times together (their harmonic mean), which is the plain ratio when
    // the CPUs are alike and stays fair when one is slower.
    const double t1_pair = t_other > 0 ? 2 / (1 / t[1] + 1 / t_other) : t[1];
    const double speedup = t1_pair / t[2], speedup_again = t1_pair / t_again;
    const double ns_portable = portable * 1e9 / static_cast<double>(covered);
    std::printf("%-4s %-52s %6.2f %9.2f %9s %9.2f %10.2f %8.2f %9.2f %9s %10s %8s %8s\n", d.name,
                d.what, static_cast<double>(covered) / 1e6, ns1,
                t_other > 0 ? num(t_other * 1e9 / static_cast<double>(covered)).c_str() : "-", ns2,
                speedup, speedup_again, sprites_per_s / 1e6,
                portable ? num(ns_portable).c_str() : "-",
                portable ? num(portable / t1_probe_cpu).c_str() : "-",
                cairo ? (num(cairo * 1e9 / static_cast<double>(covered)) + "ns").c_str() : "-",
                cairo ? num(cairo / t[1]).c_str() : "-");
    scenes_json +=
        std::string(scenes_json.size() > 1 ? "," : "") + "\n    {\"scene\": \"" + d.name +
        "\", \"what\": \"" + d.what + "\", \"filter\": \"" + filter +
        "\", \"sprites\": " + std::to_string(d.count) +
        ", \"covered_pixels\": " + std::to_string(covered) +
        ", \"one_thread_cpu\": " + std::to_string(one_thread_cpu) +
        ", \"ms_1_thread\": " + num(t[1] * 1e3, 5) + ", \"ms_2_threads\": " + num(t[2] * 1e3, 5) +
        ", \"ns_per_pixel_1_thread\": " + num(ns1, 4) +
        ", \"ns_per_pixel_2_threads\": " + num(ns2, 4) +
        (t_other > 0 ? ", \"ms_1_thread_other_cpu\": " + num(t_other * 1e3, 5) : std::string()) +
        ", \"thread_speedup\": " + num(speedup, 4) +
        ", \"thread_speedup_vs_fastest_cpu\": " + num(t[1] / t[2], 4) +
        ", \"ms_2_threads_frame_after_frame\": " + num(t_again * 1e3, 5) +
        ", \"thread_speedup_frame_after_frame\": " + num(speedup_again, 4) +
        ", \"sprites_per_second_2_threads\": " + num(sprites_per_s, 4) +
        (portable ? ", \"portable_ns_per_pixel_1_thread\": " + num(ns_portable, 4) +
                        ", \"speedup_vs_portable_1_thread\": " + num(portable / t1_probe_cpu, 4)
                  : std::string()) +
        (cairo ? ", \"cairo_ms\": " + num(cairo * 1e3, 5) + ", \"cairo_ns_per_pixel\": " +
                     num(cairo * 1e9 / static_cast<double>(covered), 4) +
                     ", \"speedup_vs_cairo_1_thread\": " + num(cairo / t[1], 4)
               : std::string()) +
        "}";
  }
  return scenes_json + "\n  ]";
}

void Bench::raster() {
  // --- Raster scenes S1..S3 -------------------------------------------------
  // Each scene with spritz's default filter (trilinear: two mip levels), and
  // again with the Cairo peer's own filter (bilinear from the full-size
  // texture), so the ratio is also measured filter for filter.
  json.raw("raster", raster_table("trilinear", true));
  std::printf(
      "1T: on the CPU that drew the scene faster (both timed in the same rounds; Cairo on the same "
      "CPU)\n2T alone, 2T again: two threads against both CPUs' one-thread times; alone: a frame "
      "after a pause\n(the pool's worker asleep), as when one frame is drawn; again: the frame "
      "right after another, as in a sequence\n");
  std::printf(
      "\nthe same sprites with filter = \"bilinear\" (the full-size texture only, as the Cairo "
      "peer samples it)\n");
  json.raw("raster_bilinear", raster_table("bilinear", false));
}

void Bench::kernels() {
  // --- The vector kernels against each other ---------------------------------
  // Where the CPU runs more than one (AVX2 and AVX-512), each scene through
  // each, alternating in one process on one thread, so the figure behind
  // the default choice is measured on this machine in this run.
  std::vector<DrawPath> simd;
  for (DrawPath p : {DrawPath::kAvx2, DrawPath::kAvx512})
    if (draw_path_available(p)) simd.push_back(p);
  if (simd.size() > 1) {
    std::printf(
        "\nsprite kernels alternating in one process (1 thread, default filter), ns per covered "
        "pixel\n");
    std::string kernels = "[";
    for (const Def& d : defs) {
      const Scene s =
          make_scene(d.name, d.what, d.w, d.h, d.count, d.smin, d.smax, 0.5, 7, g_texture);
      std::vector<std::unique_ptr<Rasterizer>> r;
      std::vector<Image> img(simd.size());
      std::vector<std::function<double()>> variants;
      for (size_t i = 0; i < simd.size(); ++i) {
        r.push_back(std::make_unique<Rasterizer>(s.fx, s.textures, s.width, s.height, 1));
        r[i]->set_draw_path(simd[i]);
        r[i]->render(s.frame, img[i]);
        variants.push_back([&, i] { return seconds_of([&] { r[i]->render(s.frame, img[i]); }); });
      }
      const std::vector<double> best = best_seconds_alternating(variants);
      const double covered = static_cast<double>(r[0]->stats().covered_pixels);
      std::printf("%-4s", d.name);
      kernels +=
          std::string(kernels.size() > 1 ? "," : "") + "\n    {\"scene\": \"" + d.name + "\"";
      for (size_t i = 0; i < simd.size(); ++i) {
        std::printf("  %s %6.2f", draw_path_name(simd[i]), best[i] * 1e9 / covered);
        kernels += std::string(", \"") + draw_path_name(simd[i]) +
                   "_ns_per_pixel\": " + num(best[i] * 1e9 / covered, 4);
      }
      std::printf("   (%s: %.3fx the time of %s)\n", draw_path_name(simd.back()),
                  best.back() / best[0], draw_path_name(simd[0]));
      kernels += "}";
    }
    json.raw("kernels", kernels + "\n  ]");
  }
}

void Bench::sweep() {
  // --- Size sweep: ns/px against sprite size (for the chart) ---------------
  std::string sweep = "[";
  std::printf(
      "\nns per covered pixel by sprite size (1 thread, 1920x1080, rotated, half additive)\n");
  for (double size : {2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0}) {
    const int count = static_cast<int>(std::min(200000.0, 4e6 / (size * size)));
    const Scene s = make_scene("sweep", "", 1920, 1080, count, size, size, 0.5, 11, g_texture);
    Image img;
    Rasterizer r(s.fx, s.textures, s.width, s.height, 1);
    r.render(s.frame, img);
    const uint64_t covered = r.stats().covered_pixels;
    const double t = best_seconds([&] { r.render(s.frame, img); }, 0.3);
    const double cairo = cairo_available() ? best_seconds([&] { cairo_draw(s); }, 0.3) : 0;
    std::printf(
        "  %6.0f px: spritz %6.2f ns/px%s\n", size, t * 1e9 / static_cast<double>(covered),
        cairo ? ("   cairo " + num(cairo * 1e9 / static_cast<double>(covered)) + " ns/px").c_str()
              : "");
    sweep +=
        std::string(sweep.size() > 1 ? ", " : "") + "{\"size\": " + num(size) +
        ", \"spritz_ns\": " + num(t * 1e9 / static_cast<double>(covered), 4) +
        (cairo ? ", \"cairo_ns\": " + num(cairo * 1e9 / static_cast<double>(covered), 4) : "") +
        "}";
  }
  json.raw("size_sweep", sweep + "]");
}

void Bench::clock_independence() {
  // --- S4: the cost of a frame does not depend on the clock ---------------
  {
    const Effect fx = load_effect(
        "[[emitter]]\nrate = 2000\nmax_particles = 10000\nlifetime = [1, 2]\nspeed = [20, "
        "80]\nspread = 180\n"
        "size = [[0, 4, 1], [1, 8]]\ntransparency = [[0, 0], [1, 1]]\ncolor = [[0, \"#ffffff\"], "
        "[1, \"#ff0000\"]]\n",
        "S4", ".");
    Frame f, g;
    const std::vector<double> best =
        best_seconds_alternating({[&] { return seconds_of([&] { evaluate(fx, 10.0, f); }); },
                                  [&] { return seconds_of([&] { evaluate(fx, 10000.0, g); }); }},
                                 0.8);
    const double a = best[0], b = best[1];
    const uint64_t alive = f.emitters[0].particles.size();
    std::printf(
        "\nS4  steady stream (%llu alive): evaluate at clock 10 %.3f ms, at clock 10000 %.3f ms, "
        "ratio %.3f\n",
        static_cast<unsigned long long>(alive), a * 1e3, b * 1e3, b / a);
    json.raw("S4", "{\"alive\": " + std::to_string(alive) + ", \"ms_clock_10\": " +
                       num(a * 1e3, 4) + ", \"ms_clock_10000\": " + num(b * 1e3, 4) +
                       ", \"ratio\": " + num(b / a, 4) + "}");
  }
}

void Bench::collisions() {
  // --- S6: 100,000 bouncing particles against the same without colliders ---
  {
    // Sparks thrown up and out over 2 s lives onto a floor, two walls and a
    // round obstacle; the same effect without the colliders is the base.
    const std::string base =
        "[canvas]\nsize = [512, 512]\n[[emitter]]\nrate = 50000\nmax_particles = 200000\n"
        "lifetime = [1.5, 2.5]\nspeed = [100, 400]\nspread = 60\nacceleration = [0, -400]\n"
        "drag = 0.2\nsize = 2\nlight_emission = 1\n";
    const std::string colliders =
        "collision = { restitution = 0.6, friction = 0.1, max_bounces = 8 }\n"
        "colliders = [{ kind = \"line\", point = [0, -200], normal = [0, 1] },\n"
        "  { kind = \"line\", point = [-240, 0], normal = [1, 0] },\n"
        "  { kind = \"line\", point = [240, 0], normal = [-1, 0] },\n"
        "  { kind = \"circle\", center = [80, -120], radius = 50 }]\n";
    const Effect plain = load_effect(base, "S6", "."),
                 bouncing = load_effect(base + colliders, "S6", ".");
    Frame f, g;
    const double clock = 10;
    const std::vector<double> best = best_seconds_alternating(
        {[&] { return seconds_of([&] { evaluate(plain, clock, f); }); },
         [&] { return seconds_of([&] { evaluate(bouncing, clock, g); }); }},
        g_quick ? 2.0 : 6.0);
    const double n = static_cast<double>(g.emitters[0].particles.size());
    double impacts = 0;
    for (const Particle& p : g.emitters[0].particles) impacts += p.impacts;
    std::printf(
        "\nS6  %.0f bouncing particles (%.2f impacts each on average): evaluate %.1f ms "
        "(%.2f M particles/s) against %.1f ms without colliders (%.2f M particles/s), ratio "
        "%.2f\n",
        n, impacts / n, best[1] * 1e3, n / best[1] / 1e6, best[0] * 1e3,
        static_cast<double>(f.emitters[0].particles.size()) / best[0] / 1e6, best[1] / best[0]);
    json.raw("S6", "{\"particles\": " + num(n, 7) + ", \"impacts_each\": " + num(impacts / n, 3) +
                       ", \"ms_with_colliders\": " + num(best[1] * 1e3, 4) + ", \"ms_without\": " +
                       num(best[0] * 1e3, 4) + ", \"ratio\": " + num(best[1] / best[0], 4) + "}");
  }
}

void Bench::png() {
  // --- PNG encoders on real frames ------------------------------------------
  {
    std::vector<std::vector<uint8_t>> frames;
    for (const char* name : {"campfire", "sparks", "smoke", "snow"}) {
      const Effect fx = load_source_effect(std::string("configs/") + name + ".toml");
      FrameRenderer r(fx, 512, 512, 2);
      r.render(clock_at_time(fx, 0.7));
      std::vector<uint8_t> rgba;
      r.encode(rgba);
      frames.push_back(rgba);
    }
    const double raw_mb = 512.0 * 512 * 4 * static_cast<double>(frames.size()) / 1e6;
    struct Encoder {
      std::string name;
      std::function<std::vector<uint8_t>(const std::vector<uint8_t>&)> encode;
    };
    std::vector<Encoder> encoders = {
        {"spritz (own encoder, default)",
         [](const std::vector<uint8_t>& px) { return encode_png(px.data(), 512, 512); }},
        {"spritz before (stb, Paeth, libdeflate 1)",
         [](const std::vector<uint8_t>& px) { return previous_fast_png(px.data(), 512, 512); }},
        {"spritz --png small (libdeflate 9, adaptive)",
         [](const std::vector<uint8_t>& px) {
           return encode_png(px.data(), 512, 512, {}, PngMode::kSmall);
         }},
        {"stb_image_write default",
         [](const std::vector<uint8_t>& px) { return stb_default_png(px.data(), 512, 512); }},
    };
    if (libpng_available())
      encoders.push_back({"libpng level 6", [](const std::vector<uint8_t>& px) {
                            return libpng_png(px.data(), 512, 512, 6);
                          }});
    std::printf("\nPNG encoding, 4 bundled-effect frames of 512x512 (%.1f MB raw), one thread\n",
                raw_mb);
    std::string pj = "[";
    double libpng_bytes = 0;
    std::vector<std::pair<double, double>> figures;
    for (const Encoder& e : encoders) {
      size_t bytes = 0;
      const double t = best_seconds([&] {
        bytes = 0;
        for (const auto& f : frames) bytes += e.encode(f).size();
      });
      figures.push_back({raw_mb / t, static_cast<double>(bytes)});
      if (e.name.rfind("libpng", 0) == 0) libpng_bytes = static_cast<double>(bytes);
    }
    for (size_t i = 0; i < encoders.size(); ++i) {
      const double vs = libpng_bytes > 0 ? figures[i].second / libpng_bytes : 0;
      std::printf("  %-44s %8.1f MB/s  %8.0f KB  %s\n", encoders[i].name.c_str(), figures[i].first,
                  figures[i].second / 1024,
                  libpng_bytes > 0 ? (num(vs) + "x libpng-6 size").c_str() : "");
      pj += std::string(i ? ", " : "") + "{\"encoder\": \"" + encoders[i].name +
            "\", \"mb_per_s\": " + num(figures[i].first, 4) +
            ", \"bytes\": " + num(figures[i].second, 8) +
            (libpng_bytes > 0 ? ", \"size_vs_libpng6\": " + num(vs, 4) : "") + "}";
    }
    json.raw("png", pj + "]");
  }
}

void Bench::stages() {
  // --- Stages: where a 1080p still's time goes, before and after streaming --
  {
    const Effect fx = load_source_effect("bench/scenes/still_20k.toml");
    const int w = 1920, h = 1080;
    const double clock = clock_at_time(fx, 1.0);
    const TextureSet textures = load_textures(fx, canvas_view(fx.canvas, w, h).scale);
    Rasterizer raster(fx, textures, w, h, 1);
    Frame frame;
    Image image;
    std::vector<uint8_t> rgba, filtered, z;
    const std::string out_file = (fs::temp_directory_path() / "spritz_bench_stage.png").string();
    const auto write_out = [&](const std::vector<uint8_t>& bytes) {
      FILE* o = std::fopen(out_file.c_str(), "wb");
      std::fwrite(bytes.data(), 1, bytes.size(), o);
      std::fclose(o);
    };
    // Before (up to 5391d38): the whole float frame, the whole 8-bit frame,
    // stb's Paeth rows and copies, libdeflate level 1, one thread.
    const double eval = best_seconds([&] { evaluate(fx, clock, frame); });
    const double draw_whole = best_seconds([&] { raster.render(frame, image); });
    const double convert =
        best_seconds([&] { encode_rgba8(image, fx.canvas.tonemap, fx.canvas.alpha, rgba); });
    std::vector<uint8_t> old_png;
    const double stb_total = best_seconds([&] { old_png = previous_fast_png(rgba.data(), w, h); });
    filter_png_piece(rgba.data(), w, h, filtered);
    libdeflate_compressor* c1 = libdeflate_alloc_compressor(1);
    z.resize(libdeflate_zlib_compress_bound(c1, filtered.size()));
    const double old_deflate = best_seconds([&] {
      libdeflate_zlib_compress(c1, filtered.data(), filtered.size(), z.data(), z.size());
    });
    libdeflate_free_compressor(c1);
    const double old_write = best_seconds([&] { write_out(old_png); });
    // After: strip by strip (the same operations per strip, summed), the
    // filter and the Huffman coding of spritz's own encoder.
    const double draw_strips =
        best_seconds([&] { raster.render_strips(frame, [](int, Image&) {}); });
    const auto [new_filter, new_deflate] = time_pieces(rgba, w, h);
    const std::vector<uint8_t> new_png = encode_png(rgba.data(), w, h);
    const double new_write = best_seconds([&] { write_out(new_png); });
    std::remove(out_file.c_str());
    const double old_filter = std::max(0.0, stb_total - old_deflate);
    std::printf(
        "\nStages of the 1080p still (bench/scenes/still_20k.toml, 20,000 sprites), one thread, "
        "ms\n"
        "  %-8s %9s %9s %9s %9s %9s %9s %9s\n"
        "  %-8s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n"
        "  %-8s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f\n",
        "", "evaluate", "draw", "convert", "filter", "deflate", "write", "total", "before",
        eval * 1e3, draw_whole * 1e3, convert * 1e3, old_filter * 1e3, old_deflate * 1e3,
        old_write * 1e3, (eval + draw_whole + convert + old_filter + old_deflate + old_write) * 1e3,
        "after", eval * 1e3, draw_strips * 1e3, convert * 1e3, new_filter * 1e3, new_deflate * 1e3,
        new_write * 1e3,
        (eval + draw_strips + convert + new_filter + new_deflate + new_write) * 1e3);
    const auto stage_json = [&](double d, double fl, double de, double wr) {
      return "{\"evaluate\": " + num(eval * 1e3, 4) + ", \"draw\": " + num(d * 1e3, 4) +
             ", \"convert\": " + num(convert * 1e3, 4) + ", \"filter\": " + num(fl * 1e3, 4) +
             ", \"deflate\": " + num(de * 1e3, 4) + ", \"write\": " + num(wr * 1e3, 4) + "}";
    };
    json.raw("stages_ms",
             "{\"before\": " + stage_json(draw_whole, old_filter, old_deflate, old_write) +
                 ", \"after\": " + stage_json(draw_strips, new_filter, new_deflate, new_write) +
                 ", \"png_bytes_before\": " + std::to_string(old_png.size()) +
                 ", \"png_bytes_after\": " + std::to_string(new_png.size()) + "}");
  }
}

void Bench::end_to_end() {
  // --- S5: 1,000 frames end to end through the CLI --------------------------
  {
    struct Run {
      double wall = 0, cpu = 0, peak_mb = 0;
      uint64_t bytes = 0;
      int rc = -1;
    };
    auto run_frames = [](int frames) {
      Run r;
      // A folder of this run's own, so two benchmarks never share one.
      std::string tmpl = (fs::temp_directory_path() / "spritz_bench_s5.XXXXXX").string();
      if (!mkdtemp(tmpl.data())) return r;
      const fs::path dir = tmpl;
      const std::string cmd = std::string("'") + SPRITZ_BINARY + "' render '" + SPRITZ_SOURCE_DIR +
                              "/configs/campfire.toml' --size 512x512 -f 0-" +
                              std::to_string(frames - 1) + " -o '" + dir.string() +
                              "/f_####.png' --json --threads 2";
      rusage before{}, after{};
      getrusage(RUSAGE_CHILDREN, &before);
      const auto t0 = std::chrono::steady_clock::now();
      // spritz reports its own peak memory in the summary (VmHWM): getrusage's
      // maxrss for a child would count this benchmark's own memory, which the
      // child shares between fork and exec.
      std::string events;
      if (FILE* p = popen(cmd.c_str(), "r")) {
        char buf[4096];
        size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) events.append(buf, n);
        r.rc = pclose(p);
      }
      r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      getrusage(RUSAGE_CHILDREN, &after);
      if (const size_t at = events.rfind("\"peak_memory_mb\":"); at != std::string::npos)
        r.peak_mb = std::atof(events.c_str() + at + 17);
      r.cpu = static_cast<double>((after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
                                  (after.ru_stime.tv_sec - before.ru_stime.tv_sec)) +
              1e-6 * static_cast<double>((after.ru_utime.tv_usec - before.ru_utime.tv_usec) +
                                         (after.ru_stime.tv_usec - before.ru_stime.tv_usec));
      for (const auto& e : fs::directory_iterator(dir)) r.bytes += e.file_size();
      fs::remove_all(dir);
      return r;
    };
    // The child inherits this thread's CPUs: all of them.
    pin_thread(all_cpus);
    // A short run first: peak memory must not grow with the frame count.
    const Run shortrun = run_frames(100);
    const int frames = g_quick ? 200 : 1000;
    const Run r = run_frames(frames);
    std::printf(
        "\nS5  %d frames of campfire at 512x512 to PNG, 2 threads: %.2f s, %.1f frames/s, CPU %.2f "
        "cores busy, "
        "peak memory %.1f MB (%.1f MB for 100 frames), %.1f KB/frame%s\n",
        frames, r.wall, frames / r.wall, r.cpu / r.wall, r.peak_mb, shortrun.peak_mb,
        static_cast<double>(r.bytes) / 1024.0 / frames,
        r.rc || shortrun.rc ? " [spritz FAILED]" : "");
    json.raw("S5",
             "{\"frames\": " + std::to_string(frames) + ", \"seconds\": " + num(r.wall, 4) +
                 ", \"frames_per_second\": " + num(frames / r.wall, 4) + ", \"cores_busy\": " +
                 num(r.cpu / r.wall, 3) + ", \"peak_rss_mb\": " + num(r.peak_mb, 4) +
                 ", \"peak_rss_mb_100_frames\": " + num(shortrun.peak_mb, 4) +
                 ", \"bytes_per_frame\": " + num(static_cast<double>(r.bytes) / frames, 6) + "}");
  }
}

int main(int argc, char** argv) {
  std::string out = std::string(SPRITZ_SOURCE_DIR) + "/bench/results.json";
  const char* once = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      g_quick = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc)
      out = argv[++i];
    else if (!std::strcmp(argv[i], "--once") && i + 1 < argc)
      once = argv[++i];
    else if (!std::strcmp(argv[i], "--texture") && i + 1 < argc)
      g_texture = std::atoi(argv[++i]);
    else {
      std::fprintf(
          stderr,
          "usage: spritz_bench [--quick] [--out results.json] [--once S1|S2|S3] [--texture N]\n");
      return 2;
    }
  }
  if (g_texture < 1 || g_texture > 1024) {
    std::fprintf(stderr, "spritz_bench: --texture takes a side of 1 to 1024 texels\n");
    return 2;
  }
  if (once) {
    // One frame of one scene on one thread, for counting instructions.
    // valgrind --tool=callgrind --collect-atstart=no
    // --toggle-collect='*counted_frame*' build/spritz_bench --once S2 counts
    // the second frame only, as a benchmark run repeats it.
    for (const Def& d : defs)
      if (!std::strcmp(once, d.name)) {
        const Scene s =
            make_scene(d.name, d.what, d.w, d.h, d.count, d.smin, d.smax, 0.5, 7, g_texture);
        Rasterizer r(s.fx, s.textures, s.width, s.height, 1);
        Image img;
        r.render(s.frame, img);  // the first frame also allocates the image and the bins
        counted_frame(r, s.frame, img);
        std::printf("%s: %d sprites, %llu covered pixels, %s sprite kernel\n", d.name, d.count,
                    static_cast<unsigned long long>(r.stats().covered_pixels),
                    draw_path_name(r.draw_path()));
        return 0;
      }
    std::fprintf(stderr, "spritz_bench: --once takes S1, S2 or S3, not %s\n", once);
    return 2;
  }
  Bench b;
  Json& json = b.json;
  const DrawPath kernel = b.kernel;
  std::printf(
      "spritz benchmark (%u hardware threads, %s sprite kernel, %dx%d sprite texture)%s\n\n",
      std::thread::hardware_concurrency(), draw_path_name(kernel), g_texture, g_texture,
      g_quick ? " [quick]" : "");
  json.raw("draw_path", std::string("\"") + draw_path_name(kernel) + "\"");
  json.raw("texture_side", std::to_string(g_texture));
  b.probe_cpus();
  b.machine();
  b.raster();
  b.kernels();
  b.sweep();
  b.clock_independence();
  b.collisions();
  b.png();
  b.stages();
  b.end_to_end();

  json.raw("bench_peak_rss_mb", num(static_cast<double>(peak_rss_kb()) / 1024.0, 4));
  json.raw("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  json.s += "\n}\n";
  FILE* f = std::fopen(out.c_str(), "w");
  if (f) {
    std::fputs(json.s.c_str(), f);
    std::fclose(f);
    std::printf("\nwrote %s\n", out.c_str());
  }
  return 0;
}
