// The benchmark's tables after the raster ones (bench.h): a frame's cost
// against the clock, collisions, PNG encoders, a still's stages and whole
// runs through the CLI.
#include "bench.h"

using namespace spritz;

namespace spritz::bench {
namespace {

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

}  // namespace

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

}  // namespace spritz::bench
