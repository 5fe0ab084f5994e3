// spritz's benchmark suite: fixed scenes, figures as ratios measured in one
// run on this machine (never a timed test). Prints a table and writes JSON.
//   build/spritz_bench [--quick] [--out bench/results.json] [--texture N]
//   build/spritz_bench --once S1|S2|S3   (one frame, one thread: for valgrind)
#include "bench.h"

using namespace spritz;
using namespace spritz::bench;

namespace spritz::bench {

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

}  // namespace spritz::bench

namespace {

struct Options {
  std::string out = std::string(SPRITZ_SOURCE_DIR) + "/bench/results.json";
  const char* once = nullptr;
  bool elementary_only = false;  // table E1 alone, printed, no JSON written
  bool programs_only = false;    // table P1 alone, printed, no JSON written
};

// false after printing the usage.
bool parse_options(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick"))
      g_quick = true;
    else if (!std::strcmp(argv[i], "--out") && i + 1 < argc)
      o.out = argv[++i];
    else if (!std::strcmp(argv[i], "--once") && i + 1 < argc)
      o.once = argv[++i];
    else if (!std::strcmp(argv[i], "--texture") && i + 1 < argc)
      g_texture = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--elementary"))
      o.elementary_only = true;
    else if (!std::strcmp(argv[i], "--programs"))
      o.programs_only = true;
    else {
      std::fprintf(
          stderr,
          "usage: spritz_bench [--quick] [--out results.json] [--once S1|S2|S3] [--texture N] "
          "[--elementary] [--programs]\n");
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  const std::string& out = options.out;
  const char* once = options.once;
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
  if (options.elementary_only) {
    b.elementary();
    return 0;
  }
  if (options.programs_only) {
    b.programs();
    return 0;
  }
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
  b.elementary();
  b.programs();
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
