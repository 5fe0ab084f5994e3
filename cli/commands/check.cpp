#include "commands/check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "commands/check_report.h"
#include "events.h"
#include "frames.h"
#include "io/io.h"
#include "json.h"
#include "output.h"
#include "pipeline.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/diff.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

// The tolerances for one effect: the command line's, else its [check]
// values, else threshold 0.1, no differing pixel and no channel gate.
struct Tolerances {
  double threshold;
  int64_t max_pixels;
  double max_ratio;
  int max_channel;
};

Tolerances tolerances(const CheckArgs& args, const Effect& fx) {
  return {args.threshold            ? *args.threshold
          : fx.check.threshold >= 0 ? fx.check.threshold
                                    : 0.1,
          args.max_diff_pixels ? *args.max_diff_pixels : fx.check.max_diff_pixels,
          args.max_diff_ratio ? *args.max_diff_ratio : fx.check.max_diff_ratio,
          args.max_channel_diff ? *args.max_channel_diff : fx.check.max_channel_diff};
}

// One rendered check time, from a worker to the comparison.
struct CheckFrame {
  double time = 0, clock = 0;
  std::vector<uint8_t> rgba;
};

// What one check found, for its report line.
struct Outcome {
  bool ok = true;
  std::string status, detail;
  const char* tag = "ok";  // the text line's first column
  DiffResult diff;
};

struct Counts {
  uint64_t checked = 0, failed = 0, updated = 0;
};

// --update: only a golden whose pixels change is written, so an update after
// a change shows which frames it moved (and leaves the others' files, and
// their history, alone).
Outcome update_golden(const Effect& fx, const fs::path& golden, const CheckFrame& f, int w, int h,
                      Counts& counts) {
  Outcome o;
  std::error_code ec;
  const bool exists = fs::is_regular_file(golden, ec);
  bool same = false;
  if (exists) {
    try {
      const DecodedPng g = decode_png(read_file_to_replace(golden.string()), golden.string());
      same = g.width == w && g.height == h && g.rgba == f.rgba;
    } catch (const Error&) {
      same = false;  // unreadable: replace it
    }
  }
  if (same) {
    o.status = "ok";
    o.detail = "unchanged";
  } else {
    const auto png =
        encode_png(f.rgba.data(), w, h, frame_png_texts(fx, -1, f.time, f.clock, w, h));
    write_file_atomic(golden.string(), png.data(), png.size());
    ++counts.updated;
    o.status = "updated";
    o.tag = exists ? "upd" : "new";
  }
  return o;
}

// Compares a render with its golden by the diff rules and the tolerances.
Outcome compare_golden(const CheckArgs& args, const Tolerances& tol, const fs::path& golden,
                       const CheckFrame& f, int w, int h) {
  Outcome o;
  if (!fs::exists(golden)) {
    o.ok = false;
    o.status = "missing";
    o.detail = "no golden " + golden.string() + " (run with --update to create it)";
    return o;
  }
  const DecodedPng g = decode_png(read_binary_file(golden.string()), golden.string());
  if (g.width != w || g.height != h) {
    o.ok = false;
    o.status = "size";
    o.detail = "golden is " + std::to_string(g.width) + "x" + std::to_string(g.height) +
               ", render is " + std::to_string(w) + "x" + std::to_string(h);
    return o;
  }
  DiffOptions options;
  options.threshold = tol.threshold;
  options.detect_antialiasing = args.antialiasing;
  options.want_image = true;
  o.diff = diff_images(g.rgba.data(), f.rgba.data(), w, h, options);
  const DiffResult& r = o.diff;
  o.ok = r.within(tol.max_pixels, tol.max_ratio, tol.max_channel);
  o.status = o.ok ? "ok" : "different";
  if (r.max_channel_diff == 0) {
    o.detail = "identical";
    return o;
  }
  char buf[200];
  std::snprintf(buf, sizeof buf, "%llu px differ (%.4g%%), max channel diff %d, PSNR %.2f dB",
                static_cast<unsigned long long>(r.different), r.ratio() * 100, r.max_channel_diff,
                r.psnr_db);
  o.detail = buf;
  if (r.worst_x >= 0) {
    std::snprintf(buf, sizeof buf, ", worst at (%d, %d)", r.worst_x, r.worst_y);
    o.detail += buf;
  }
  return o;
}

// A golden for a time that is no longer checked (the times changed) is
// never compared again; say so rather than let it linger unnoticed (a
// warning, or with --fail-on-stale a failure). Returns them, sorted.
std::vector<std::string> stale_goldens(const CheckArgs& args, const Effect& fx,
                                       const std::vector<double>& times) {
  std::unordered_set<std::string> labels;
  for (double t : times) labels.insert(check_time_label(t) + ".png");
  std::error_code ec;
  std::vector<std::string> stale;
  for (const auto& entry : fs::directory_iterator(fs::path(args.golden) / fx.name, ec))
    if (entry.path().extension() == ".png" && !labels.count(entry.path().filename().string()))
      stale.push_back(entry.path().string());
  std::sort(stale.begin(), stale.end());
  if (!args.quiet && !args.fail_on_stale)
    for (const std::string& g : stale)
      std::fprintf(stderr,
                   "spritz check: warning: %s is not a check time of %s, so it is never "
                   "compared; delete it if the times changed\n",
                   g.c_str(), fx.name.c_str());
  return stale;
}

std::string tolerance_words(const Tolerances& t) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "threshold %g, max differing pixels %lld, max ratio %g%s",
                t.threshold, static_cast<long long>(std::max<int64_t>(0, t.max_pixels)),
                std::max(0.0, t.max_ratio),
                t.max_channel >= 0 ? (", max channel diff " + std::to_string(t.max_channel)).c_str()
                                   : ", no channel gate");
  return buf;
}

// Where a failure of `fx` points: the line its check times are set on, else
// its [effect] table, else its first line.
SourceLoc check_location(const Effect& fx, const std::string& path) {
  if (fx.check.times_loc.line > 0) return fx.check.times_loc;
  if (fx.effect_loc.line > 0) return fx.effect_loc;
  return {path, 1, 1};
}

// JUnit XML (the schema Jenkins, GitLab and GitHub's test reporters read):
// one suite per effect, one case per check time (and per stale golden when
// they fail the run), a failure's message holding its figures.
std::string junit_xml(const std::vector<CheckRecord>& records) {
  std::vector<std::string> effects;
  for (const CheckRecord& r : records)
    if (std::find(effects.begin(), effects.end(), r.effect) == effects.end())
      effects.push_back(r.effect);
  size_t failures = 0;
  for (const CheckRecord& r : records) failures += !r.ok;
  std::string x =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"spritz check\" "
      "tests=\"" +
      std::to_string(records.size()) + "\" failures=\"" + std::to_string(failures) + "\">\n";
  for (const std::string& e : effects) {
    size_t n = 0, f = 0;
    for (const CheckRecord& r : records)
      if (r.effect == e) ++n, f += !r.ok;
    x += "  <testsuite name=\"" + markup_escape(e) + "\" tests=\"" + std::to_string(n) +
         "\" failures=\"" + std::to_string(f) + "\">\n";
    for (const CheckRecord& r : records) {
      if (r.effect != e) continue;
      x += "    <testcase classname=\"spritz.check." + markup_escape(e) + "\" name=\"" +
           markup_escape(r.name) + "\" file=\"" + markup_escape(r.file) + "\"";
      if (r.ok) {
        x += "/>\n";
        continue;
      }
      x += ">\n      <failure type=\"" + markup_escape(r.status) + "\" message=\"" +
           markup_escape(r.detail) + "\">" + markup_escape(r.detail);
      if (!r.actual.empty()) x += "\nactual: " + markup_escape(r.actual);
      if (!r.diff.empty()) x += "\ndiff: " + markup_escape(r.diff);
      x += "</failure>\n    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  return x + "</testsuites>\n";
}

// A GitHub Actions workflow command's escaping: data, and properties.
std::string gh_escape(const std::string& s, bool property) {
  std::string out;
  for (const char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

// One ::error annotation per failure, on the effect file's check line.
void github_annotations(const std::vector<CheckRecord>& records, FILE* to) {
  for (const CheckRecord& r : records) {
    if (r.ok) continue;
    const std::string line = "::error file=" + gh_escape(r.where.file, true) +
                             ",line=" + std::to_string(std::max<uint32_t>(1, r.where.line)) +
                             (r.where.col ? ",col=" + std::to_string(r.where.col) : std::string()) +
                             ",title=" + gh_escape("spritz check: " + r.name, true) +
                             "::" + gh_escape(r.status + ": " + r.detail, false) + "\n";
    std::fputs(line.c_str(), to);
  }
}

// The check times of `fx`, refused when two would share a golden's name.
std::vector<double> effect_check_times(const std::string& path, const Effect& fx) {
  const std::vector<double> times = check_times(fx);
  for (size_t i = 1; i < times.size(); ++i)
    if (check_time_label(times[i]) == check_time_label(times[i - 1]))
      throw Error(path + ": the default check times (1/6, 1/2 and 5/6 of the " +
                  json_number(fx.duration_s) +
                  " s duration) would share golden names, which are kept to the millisecond; set "
                  "[check] times");
  return times;
}

}  // namespace

std::vector<double> check_times(const Effect& fx) {
  if (!fx.check.times.empty()) return fx.check.times;
  const double d = fx.duration_s > 0 ? fx.duration_s : 1.0;
  return {d / 6, d / 2, 5 * d / 6};
}

namespace {

// One run of `spritz check`: its effects checked in turn, what it found, and
// its reports.
class CheckRun {
 public:
  CheckRun(const CheckArgs& args, const RunSettings& settings)
      : args_(args), settings_(settings), files_(settings), out_dir_(args.out) {}

  // Loads every effect before anything is drawn: a bad file fails the run
  // at once, and two files with one name (whose goldens would be the same
  // files, each --update overwriting the other's) are an error.
  std::vector<Effect> load_effects();
  // Renders `fx` (from `path`) at its check times and compares or updates
  // its goldens.
  void check_effect(const Effect& fx, const std::string& path);
  // The JUnit and HTML reports, CI annotations and the summary; the exit code.
  int finish();

 private:
  void note_stale_goldens(const Effect& fx, const std::string& path,
                          const std::vector<double>& times, const SourceLoc& where);
  void check_frame(const Effect& fx, const std::string& path, const Tolerances& tol,
                   const SourceLoc& where, CheckFrame& f);
  // Where failures' images go: --out, or a temporary folder made on the first failure.
  fs::path failure_dir();

  const CheckArgs& args_;
  const RunSettings& settings_;
  EffectFiles files_;
  fs::path out_dir_;
  Counts counts_;
  std::vector<CheckRecord> records_;
  std::vector<std::string> stale_all_;  // every stale golden, for the report
};

void check_options(const CheckArgs& args) {
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
}

fs::path CheckRun::failure_dir() {
  if (out_dir_.empty()) {
    std::string tmpl = (fs::temp_directory_path() / "spritz-check-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw Error("cannot create a results folder in " + fs::temp_directory_path().string());
    out_dir_ = tmpl;
    if (!args_.json) std::fprintf(stderr, "spritz: writing failures to %s\n", out_dir_.c_str());
  }
  return out_dir_;
}

std::vector<Effect> CheckRun::load_effects() {
  std::vector<Effect> effects;
  std::unordered_map<std::string, std::string> path_of_name;
  for (const std::string& path : args_.effects) {
    effects.push_back(files_.load_path(path, {}, args_.from));
    if (!args_.quiet) print_warnings(effects.back().warnings);
    const std::string& name = effects.back().name;
    const auto [first, fresh] = path_of_name.emplace(name, path);
    std::error_code ec;
    if (!fresh && !fs::equivalent(first->second, path, ec))
      throw Error(first->second + " and " + path + " are both named \"" + name +
                  "\", so their goldens would be the same files (" +
                  (fs::path(args_.golden) / name).string() + "/); rename one ([effect] name)");
  }

  return effects;
}

void CheckRun::note_stale_goldens(const Effect& fx, const std::string& path,
                                  const std::vector<double>& times, const SourceLoc& where) {
  for (const std::string& g : stale_goldens(args_, fx, times)) {
    stale_all_.push_back(g);
    if (!args_.fail_on_stale) continue;
    ++counts_.failed;
    const std::string detail = g + " is not a check time of " + fx.name +
                               ", so it is never compared; delete it if the times changed";
    records_.push_back({fx.name, path, fx.name + " stale " + fs::path(g).filename().string(),
                        "stale", detail, "", "", false, where, g, ""});
    if (!args_.json)
      std::fprintf(stderr, "FAIL %s: stale golden: %s\n", fx.name.c_str(), detail.c_str());
  }
}

void CheckRun::check_frame(const Effect& fx, const std::string& path, const Tolerances& tol,
                           const SourceLoc& where, CheckFrame& f) {
  const int w = fx.canvas.width, h = fx.canvas.height;
  const std::string label = check_time_label(f.time);
  const fs::path golden = fs::path(args_.golden) / fx.name / (label + ".png");
  ++counts_.checked;
  const Outcome o = args_.update ? update_golden(fx, golden, f, w, h, counts_)
                                 : compare_golden(args_, tol, golden, f, w, h);
  std::string actual_path, diff_path;
  if (!o.ok) {
    ++counts_.failed;
    const fs::path dir = failure_dir();
    const std::string stem = fx.name + "_" + label;
    actual_path = (dir / (stem + ".actual.png")).string();
    const auto png =
        encode_png(f.rgba.data(), w, h, frame_png_texts(fx, -1, f.time, f.clock, w, h));
    write_file_atomic(actual_path, png.data(), png.size());
    if (!o.diff.image.empty()) {
      diff_path = (dir / (stem + ".diff.png")).string();
      const auto dpng = encode_png(o.diff.image.data(), w, h);
      write_file_atomic(diff_path, dpng.data(), dpng.size());
    }
  }
  records_.push_back({fx.name, path, fx.name + " @ " + label, o.status,
                      o.detail.empty() ? o.status : o.detail, actual_path, diff_path, o.ok, where,
                      golden.string(), tolerance_words(tol)});
  if (args_.json) {
    const std::string line =
        events::check(fx.name, f.time, golden.string(), o.status, o.diff.different, o.diff.ratio(),
                      o.diff.max_channel_diff, actual_path, diff_path);
    std::fwrite(line.data(), 1, line.size(), stdout);
  } else if (!o.ok) {
    std::fprintf(stderr, "FAIL %s @ %s: %s%s%s\n", fx.name.c_str(), label.c_str(), o.detail.c_str(),
                 actual_path.empty() ? "" : "; actual ", actual_path.c_str());
  } else if (!args_.quiet) {
    std::fprintf(stderr, "%-4s %s @ %s%s%s\n", o.tag, fx.name.c_str(), label.c_str(),
                 o.detail.empty() ? "" : ": ", o.detail.c_str());
  }
}

void CheckRun::check_effect(const Effect& fx, const std::string& path) {
  const Tolerances tol = tolerances(args_, fx);
  const std::vector<double> times = effect_check_times(path, fx);
  const SourceLoc where = check_location(fx, path);
  note_stale_goldens(fx, path, times, where);
  const int w = fx.canvas.width, h = fx.canvas.height;
  // The check times through the shared frame pipeline (cli/pipeline.h):
  // rendered on workers, compared and reported in order. The output does
  // not depend on the thread count.
  const int threads = thread_count(args_.threads);
  const FramePlan plan = plan_frames(threads, times.size(), w, h, max_alive(fx),
                                     fx.canvas.blur_samples > 1, bytes_per_particle(fx));
  const View view = canvas_view(fx.canvas, w, h);
  const TextureSet textures = files_.textures(fx, view.scale, threads);
  std::vector<std::unique_ptr<FrameRenderer>> renderers(static_cast<size_t>(plan.workers));
  const std::function<CheckFrame(uint64_t, int)> render = [&](uint64_t i, int worker) {
    std::unique_ptr<FrameRenderer>& r = renderers[static_cast<size_t>(worker)];
    if (!r) {
      r = make_renderer(fx, w, h, plan.raster_threads, view, textures, settings_, plan.workers);
    }
    CheckFrame f;
    f.time = times[i];
    f.clock = clock_at_time(fx, f.time);
    r->render(f.clock);
    r->encode(f.rgba);
    return f;
  };
  const std::function<bool(const CheckFrame&)> never = [](const CheckFrame&) { return false; };
  const std::function<void(uint64_t, CheckFrame&)> check_one = [&](uint64_t, CheckFrame& f) {
    check_frame(fx, path, tol, where, f);
  };
  run_ordered<CheckFrame>(0, times.size(), plan.workers, 2 * static_cast<uint64_t>(plan.workers),
                          render, never, check_one);
}

int CheckRun::finish() {
  if (!args_.junit.empty()) {
    const std::string xml = junit_xml(records_);
    write_file_atomic(args_.junit, xml.data(), xml.size());
  }
  if (!args_.report.empty()) write_check_report(args_.report, records_, stale_all_);
  if (settings_.github_actions) github_annotations(records_, args_.json ? stderr : stdout);
  if (args_.json) {
    const std::string line =
        events::check_summary(counts_.checked, counts_.failed, counts_.updated);
    std::fwrite(line.data(), 1, line.size(), stdout);
  } else if (!args_.quiet || counts_.failed) {
    std::fprintf(stderr, "spritz check: %llu checked, %llu failed%s\n",
                 static_cast<unsigned long long>(counts_.checked),
                 static_cast<unsigned long long>(counts_.failed),
                 args_.update ? (", " + std::to_string(counts_.updated) +
                                 (counts_.updated == 1 ? " golden" : " goldens") + " written")
                                    .c_str()
                              : "");
  }
  return counts_.failed ? kExitDifferent : kExitOk;
}

}  // namespace

int run_check(const CheckArgs& args, const RunSettings& settings) {
  check_options(args);
  CheckRun run(args, settings);
  const std::vector<Effect> effects = run.load_effects();
  for (size_t e = 0; e < effects.size(); ++e) run.check_effect(effects[e], args.effects[e]);
  return run.finish();
}

}  // namespace spritz

namespace spritz {

Command add_check_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<CheckArgs>();
  CheckArgs& a = *args;
  CLI::App* c = app.add_subcommand(
      "check", "Render each effect's check times and compare with golden images");
  c->add_option("effects", a.effects, "Effect files")->required();
  c->add_option("--golden", a.golden, "Golden image folder (DIR/<effect>/<time>.png)")->required();
  c->add_flag("--update", a.update, "(Re)write the goldens instead of comparing");
  add_from_option(c, a.from, run);
  c->add_option("--out", a.out,
                "Where failures write <name>.actual.png and <name>.diff.png (default: a new "
                "temporary folder)");
  c->add_option_function<double>(
      "--threshold", [&a](double v) { a.threshold = v; },
      "YIQ threshold, 0..1 (default: the effect's [check] or 0.1)");
  c->add_option_function<int64_t>(
      "--max-diff-pixels", [&a](int64_t v) { a.max_diff_pixels = v; },
      "Differing pixels allowed (default: [check] or 0)");
  c->add_option_function<double>(
      "--max-diff-ratio", [&a](double v) { a.max_diff_ratio = v; },
      "Ratio allowed (default: [check] or 0)");
  c->add_option_function<int>(
      "--max-channel-diff", [&a](int v) { a.max_channel_diff = v; },
      "Largest channel difference allowed, 0..255 (default: [check] or no gate; 0: exact)");
  c->add_flag("--aa", a.antialiasing, "Ignore anti-aliased pixels");
  c->add_option("--threads", a.threads, "Threads (output is identical for any count)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--junit", a.junit,
                "Write a JUnit XML report: one test case per effect and time (CI test reporters)");
  c->add_option("--report", a.report,
                "Write a static HTML report into DIR (index.html, img/): failures with expected, "
                "actual and diff images, missing and stale goldens");
  c->add_flag("--fail-on-stale", a.fail_on_stale,
              "A golden that no check time uses fails the run (else a warning)");
  c->add_flag("--json", a.json, "NDJSON: one object per check, then a summary");
  c->add_flag("-q,--quiet", a.quiet, "Print only failures");
  c->footer(
      "Examples:\n  spritz check configs/*.toml --golden golden\n"
      "  spritz check configs/fire.toml --golden golden --update\n"
      "  spritz check configs/*.toml --golden golden --junit report.xml --fail-on-stale\n"
      "On GitHub Actions (GITHUB_ACTIONS=true) each failure is also an ::error annotation on the "
      "effect file.\n"
      "Exit codes: 0 all match, 1 a difference or a missing golden, 2 usage, config or I/O error.");
  const SettingsUse use{/*kernel=*/true, /*memory=*/true, /*work=*/true, /*textures=*/true};
  return {c, use, [args](const RunSettings& settings) { return run_check(*args, settings); }};
}

}  // namespace spritz
