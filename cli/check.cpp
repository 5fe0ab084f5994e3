#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "commands.h"
#include "io/io.h"
#include "io/textures.h"
#include "json.h"
#include "output.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/diff.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::vector<double> check_times(const Effect& fx) {
  if (!fx.check.times.empty()) return fx.check.times;
  const double d = fx.duration_s > 0 ? fx.duration_s : 1.0;
  return {d / 6, d / 2, 5 * d / 6};
}

int thread_count(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int run_check(const CheckArgs& args) {
  if (args.golden.empty()) throw Error("check needs --golden DIR");
  if (args.threshold && !(*args.threshold >= 0 && *args.threshold <= 1))
    throw Error("--threshold must be within [0, 1]");
  if (args.max_diff_pixels && *args.max_diff_pixels < 0)
    throw Error("--max-diff-pixels must not be negative");
  if (args.max_diff_ratio && !(*args.max_diff_ratio >= 0 && *args.max_diff_ratio <= 1))
    throw Error("--max-diff-ratio must be within [0, 1]");
  if (args.max_channel_diff && !(*args.max_channel_diff >= 0 && *args.max_channel_diff <= 255))
    throw Error("--max-channel-diff must be within 0..255");
  for (const auto& [option, dir] :
       {std::pair<const char*, std::string>{"--golden", args.golden}, {"--out", args.out}}) {
    std::error_code ec;
    if (!dir.empty() && fs::exists(dir, ec) && !fs::is_directory(dir, ec))
      throw Error(std::string(option) + " " + dir + " is not a directory");
  }
  fs::path out_dir = args.out;
  uint64_t checked = 0, failed = 0, updated = 0;
  auto failure_dir = [&]() -> fs::path {
    if (out_dir.empty()) {
      std::string tmpl = (fs::temp_directory_path() / "spritz-check-XXXXXX").string();
      if (!mkdtemp(tmpl.data()))
        throw Error("cannot create a results folder in " + fs::temp_directory_path().string());
      out_dir = tmpl;
      if (!args.json) std::fprintf(stderr, "spritz: writing failures to %s\n", out_dir.c_str());
    }
    return out_dir;
  };

  // Every effect is loaded before anything is drawn: a bad file fails the run
  // at once, and two files with one name (whose goldens would be the same
  // files, each --update overwriting the other's) are an error.
  std::vector<Effect> effects;
  std::unordered_map<std::string, std::string> path_of_name;
  for (const std::string& path : args.effects) {
    effects.push_back(load_effect_path(path));
    if (!args.quiet) print_warnings(effects.back().warnings);
    const std::string& name = effects.back().name;
    const auto [first, fresh] = path_of_name.emplace(name, path);
    std::error_code ec;
    if (!fresh && !fs::equivalent(first->second, path, ec))
      throw Error(first->second + " and " + path + " are both named \"" + name +
                  "\", so their goldens would be the same files (" +
                  (fs::path(args.golden) / name).string() + "/); rename one ([effect] name)");
  }

  for (size_t e = 0; e < effects.size(); ++e) {
    const std::string& path = args.effects[e];
    const Effect& fx = effects[e];
    const double threshold = args.threshold            ? *args.threshold
                             : fx.check.threshold >= 0 ? fx.check.threshold
                                                       : 0.1;
    const int64_t max_pixels =
        args.max_diff_pixels ? *args.max_diff_pixels : fx.check.max_diff_pixels;
    const double max_ratio = args.max_diff_ratio ? *args.max_diff_ratio : fx.check.max_diff_ratio;
    const int max_channel =
        args.max_channel_diff ? *args.max_channel_diff : fx.check.max_channel_diff;
    FrameRenderer renderer(
        fx, fx.canvas.width, fx.canvas.height, thread_count(args.threads),
        effect_textures(fx, canvas_view(fx.canvas, fx.canvas.width, fx.canvas.height).scale));
    renderer.set_draw_path(sprite_kernel());
    renderer.set_particle_limit(particle_limit(1, bytes_per_particle(fx), memory_budget()));
    std::vector<uint8_t> rgba;
    const std::vector<double> times = check_times(fx);
    for (size_t i = 1; i < times.size(); ++i)
      if (check_time_label(times[i]) == check_time_label(times[i - 1]))
        throw Error(path + ": the default check times (1/6, 1/2 and 5/6 of the " +
                    json_number(fx.duration_s) +
                    " s duration) would share golden names, which are kept to the millisecond; set "
                    "[check] times");
    // A golden for a time that is no longer checked (the times changed) is
    // never compared again; say so rather than let it linger unnoticed.
    if (!args.quiet) {
      std::unordered_set<std::string> labels;
      for (double t : times) labels.insert(check_time_label(t) + ".png");
      std::error_code ec;
      std::vector<std::string> stale;
      for (const auto& entry : fs::directory_iterator(fs::path(args.golden) / fx.name, ec))
        if (entry.path().extension() == ".png" && !labels.count(entry.path().filename().string()))
          stale.push_back(entry.path().string());
      std::sort(stale.begin(), stale.end());
      for (const std::string& g : stale)
        std::fprintf(
            stderr,
            "spritz check: warning: %s is not a check time of %s, so it is never compared; "
            "delete it if the times changed\n",
            g.c_str(), fx.name.c_str());
    }
    for (double t : times) {
      const std::string label = check_time_label(t);
      const fs::path golden = fs::path(args.golden) / fx.name / (label + ".png");
      const double clock = clock_at_time(fx, t);
      renderer.render(clock);
      renderer.encode(rgba);
      const int w = renderer.width(), h = renderer.height();
      ++checked;
      std::string status, detail;
      const char* tag = "ok";  // the text line's first column
      DiffResult r;
      bool ok = true;
      if (args.update) {
        // Only a golden whose pixels change is written, so an update after
        // a change shows which frames it moved (and leaves the others'
        // files, and their history, alone).
        std::error_code ec;
        const bool exists = fs::is_regular_file(golden, ec);
        bool same = false;
        if (exists) {
          try {
            const DecodedPng g = decode_png(read_file_to_replace(golden.string()), golden.string());
            same = g.width == w && g.height == h && g.rgba == rgba;
          } catch (const Error&) {
            same = false;  // unreadable: replace it
          }
        }
        if (same) {
          status = "ok";
          detail = "unchanged";
        } else {
          const auto png = encode_png(rgba.data(), w, h, frame_png_texts(fx, -1, t, clock, w, h));
          write_file_atomic(golden.string(), png.data(), png.size());
          ++updated;
          status = "updated";
          tag = exists ? "upd" : "new";
        }
      } else if (!fs::exists(golden)) {
        ok = false;
        status = "missing";
        detail = "no golden " + golden.string() + " (run with --update to create it)";
      } else {
        const DecodedPng g = decode_png(read_binary_file(golden.string()), golden.string());
        if (g.width != w || g.height != h) {
          ok = false;
          status = "size";
          detail = "golden is " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                   ", render is " + std::to_string(w) + "x" + std::to_string(h);
        } else {
          DiffOptions o;
          o.threshold = threshold;
          o.detect_antialiasing = args.antialiasing;
          o.want_image = true;
          r = diff_images(g.rgba.data(), rgba.data(), w, h, o);
          ok = r.within(max_pixels, max_ratio, max_channel);
          status = ok ? "ok" : "different";
          char buf[200];
          if (r.max_channel_diff == 0) {
            detail = "identical";
          } else {
            std::snprintf(buf, sizeof buf,
                          "%llu px differ (%.4g%%), max channel diff %d, PSNR %.2f dB",
                          static_cast<unsigned long long>(r.different), r.ratio() * 100,
                          r.max_channel_diff, r.psnr_db);
            detail = buf;
            if (r.worst_x >= 0) {
              std::snprintf(buf, sizeof buf, ", worst at (%d, %d)", r.worst_x, r.worst_y);
              detail += buf;
            }
          }
        }
      }
      std::string actual_path, diff_path;
      if (!ok) {
        ++failed;
        const fs::path dir = failure_dir();
        const std::string stem = fx.name + "_" + label;
        actual_path = (dir / (stem + ".actual.png")).string();
        const auto png = encode_png(rgba.data(), w, h, frame_png_texts(fx, -1, t, clock, w, h));
        write_file_atomic(actual_path, png.data(), png.size());
        if (!r.image.empty()) {
          diff_path = (dir / (stem + ".diff.png")).string();
          const auto dpng = encode_png(r.image.data(), w, h);
          write_file_atomic(diff_path, dpng.data(), dpng.size());
        }
      }
      if (args.json) {
        std::printf(
            "{\"type\":\"check\",\"effect\":%s,\"time\":%s,\"golden\":%s,\"status\":\"%s\","
            "\"different\":%llu,\"ratio\":%s,\"max_channel_diff\":%d,\"actual\":%s,\"diff\":%s}\n",
            json_string(fx.name).c_str(), json_number(t).c_str(),
            json_string(golden.string()).c_str(), status.c_str(),
            static_cast<unsigned long long>(r.different), json_number(r.ratio()).c_str(),
            r.max_channel_diff, actual_path.empty() ? "null" : json_string(actual_path).c_str(),
            diff_path.empty() ? "null" : json_string(diff_path).c_str());
      } else if (!ok) {
        std::fprintf(stderr, "FAIL %s @ %s: %s%s%s\n", fx.name.c_str(), label.c_str(),
                     detail.c_str(), actual_path.empty() ? "" : "; actual ", actual_path.c_str());
      } else if (!args.quiet) {
        std::fprintf(stderr, "%-4s %s @ %s%s%s\n", tag, fx.name.c_str(), label.c_str(),
                     detail.empty() ? "" : ": ", detail.c_str());
      }
    }
  }
  if (args.json) {
    std::printf("{\"type\":\"summary\",\"checked\":%llu,\"failed\":%llu,\"updated\":%llu}\n",
                static_cast<unsigned long long>(checked), static_cast<unsigned long long>(failed),
                static_cast<unsigned long long>(updated));
  } else if (!args.quiet || failed) {
    std::fprintf(stderr, "spritz check: %llu checked, %llu failed%s\n",
                 static_cast<unsigned long long>(checked), static_cast<unsigned long long>(failed),
                 args.update ? (", " + std::to_string(updated) +
                                (updated == 1 ? " golden" : " goldens") + " written")
                                   .c_str()
                             : "");
  }
  return failed ? kExitDifferent : kExitOk;
}

}  // namespace spritz
