// `spritz check` end to end: goldens, updates, reports for CI.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include "cli/cli_support.h"
#include "cli/run.h"
#include "effect_files.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"

namespace fs = std::filesystem;
using namespace spritz::test;

TEST_CASE("check: update then check passes and a changed effect fails with images", "[cli]") {
  const fs::path d = fresh_dir("check");
  write(d / "fx.toml",
        "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[check]\ntimes = [0.5]\n[[emitter]]\nrate = 20\nspeed = 10\nsize = 6\n");
  const Run missing = run_spritz("check fx.toml --golden g --out res", d);
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err, Catch::Contains("run with --update"));
  const Run update = run_spritz("check fx.toml --golden g --update", d);
  CHECK(update.code == 0);
  CHECK_THAT(update.err, Catch::Contains("1 checked, 0 failed, 1 golden written"));
  CHECK(fs::exists(d / "g/dot/0.500.png"));
  const Run pass = run_spritz("check fx.toml --golden g --threads 3", d);
  CHECK(pass.code == 0);
  CHECK_THAT(pass.err, Catch::Contains("ok   dot @ 0.500: identical\n"));
  CHECK_THAT(pass.err, Catch::Contains("1 checked, 0 failed"));
  write(d / "fx.toml",
        "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[check]\ntimes = [0.5]\n[[emitter]]\nrate = 20\nspeed = 10\nsize = 9\n");
  const Run fail = run_spritz("check fx.toml --golden g --out res", d);
  CHECK(fail.code == 1);
  CHECK_THAT(fail.err, Catch::Contains("FAIL dot @ 0.500"));
  CHECK_THAT(fail.err, Catch::Contains("px differ"));
  CHECK_THAT(fail.err, Catch::Contains(", worst at ("));
  CHECK_THAT(fail.err, !Catch::Contains("999"));
  CHECK(fs::exists(d / "res/dot_0.500.actual.png"));
  CHECK(fs::exists(d / "res/dot_0.500.diff.png"));
  // A generous tolerance on the command line lets it pass.
  CHECK(
      run_spritz("check fx.toml --golden g --max-diff-ratio 1 --max-diff-pixels 100000", d).code ==
      0);
  // A golden left from earlier check times is named, not silently skipped.
  fs::copy_file(d / "g/dot/0.500.png", d / "g/dot/0.750.png");
  const Run stale = run_spritz("check fx.toml --golden g --max-diff-ratio 1", d);
  CHECK(stale.code == 0);
  CHECK_THAT(stale.err,
             Catch::Contains(
                 "warning: g/dot/0.750.png is not a check time of dot, so it is never compared"));
  CHECK(run_spritz("check fx.toml --golden g --max-diff-ratio 1 -q", d).err.empty());
}

TEST_CASE("check: two check times never share one golden", "[cli]") {
  const fs::path d = fresh_dir("check_labels");
  // 0.5001 and 0.5004 are both 0.500.png: the second golden would replace
  // the first, and 0.5001 would then pass against 0.5004's image.
  write(d / "fx.toml",
        "[effect]\nname = \"dot\"\n[check]\ntimes = [0.5001, 0.5004]\n[[emitter]]\n");
  const Run same = run_spritz("check fx.toml --golden g --update", d);
  CHECK(same.code == 2);
  CHECK_THAT(same.err,
             Catch::Contains(
                 "fx.toml:4:18: check time 0.5004 and 0.5001 would share the golden 0.500.png"));
  // The default times of a 1 ms effect (1/6, 1/2 and 5/6 ms) would, too.
  write(d / "short.toml", "[effect]\nname = \"short\"\nduration = 0.001\n[[emitter]]\n");
  const Run short_fx = run_spritz("check short.toml --golden g --update", d);
  CHECK(short_fx.code == 2);
  CHECK_THAT(short_fx.err, Catch::Contains("would share golden names"));
  // Two files with one effect name would share a golden folder.
  fs::create_directories(d / "other");
  write(d / "ok.toml", "[effect]\nname = \"dot\"\n[[emitter]]\n");
  write(d / "other/ok.toml", "[effect]\nname = \"dot\"\n[[emitter]]\nrate = 50\n");
  const Run twins = run_spritz("check ok.toml other/ok.toml --golden g --update", d);
  CHECK(twins.code == 2);
  CHECK_THAT(twins.err, Catch::Contains("ok.toml and other/ok.toml are both named \"dot\""));
  // A file where a folder is expected is an error before anything is drawn.
  const Run golden_file = run_spritz("check ok.toml --golden ok.toml", d);
  CHECK(golden_file.code == 2);
  CHECK_THAT(golden_file.err, Catch::Contains("--golden ok.toml is not a directory"));
  const Run out_file = run_spritz("check ok.toml --golden g --out ok.toml", d);
  CHECK(out_file.code == 2);
  CHECK_THAT(out_file.err, Catch::Contains("--out ok.toml is not a directory"));
  CHECK_FALSE(fs::exists(d / "g"));
}

TEST_CASE("check reports for CI: JUnit XML, GitHub annotations and stale goldens", "[cli]") {
  const fs::path d = fresh_dir("check_reports");
  const std::string fx =
      "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
      "[check]\ntimes = [0.25, 0.5]\n[[emitter]]\nrate = 20\nspeed = 10\n";
  write(d / "fx.toml", fx + "size = 6\n");
  REQUIRE(run_spritz("check fx.toml --golden g --update", d).code == 0);
  write(d / "fx.toml", fx + "size = 9\n");
  fs::copy_file(d / "g/dot/0.500.png", d / "g/dot/0.750.png");
  // JUnit: a suite for the effect, a case per time with the figures, and
  // with --fail-on-stale the stale golden as a failing case.
  const Run r = run_spritz_env("GITHUB_ACTIONS=true",
                               "check fx.toml --golden g --out res --junit out/report.xml "
                               "--fail-on-stale",
                               d);
  CHECK(r.code == 1);
  const std::string xml = read_text(d / "out/report.xml");
  CHECK_THAT(xml, Catch::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
  CHECK_THAT(xml, Catch::Contains("<testsuites name=\"spritz check\" tests=\"3\" failures=\"3\">"));
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"dot\" tests=\"3\" failures=\"3\">"));
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"spritz.check.dot\" name=\"dot @ 0.250\" "
                                  "file=\"fx.toml\">"));
  CHECK_THAT(xml, Catch::Contains("<failure type=\"different\" message=\""));
  CHECK_THAT(xml, Catch::Contains("px differ"));
  CHECK_THAT(xml, Catch::Contains("actual: res/dot_0.250.actual.png"));
  CHECK_THAT(xml, Catch::Contains("name=\"dot stale 0.750.png\""));
  CHECK_THAT(r.err, Catch::Contains("FAIL dot: stale golden: g/dot/0.750.png"));
  // One annotation per failure, on the [check] times line (line 7, column 9).
  CHECK(count_of(r.out, "::error file=fx.toml,line=7,col=9,title=spritz check%3A dot") == 3);
  CHECK_THAT(r.out, Catch::Contains("title=spritz check%3A dot @ 0.500::different: "));
  // Without [check] times the annotation points at [effect]; passing checks
  // are cases without failures; without the flag a stale golden warns only.
  write(d / "fx2.toml",
        "\n[effect]\nname = \"two\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[[emitter]]\nrate = 20\n");
  REQUIRE(run_spritz("check fx2.toml --golden g --update", d).code == 0);
  write(d / "fx2.toml",
        "\n[effect]\nname = \"two\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[[emitter]]\nrate = 20\nsize = 20\n");
  const Run two =
      run_spritz_env("GITHUB_ACTIONS=true", "check fx2.toml --golden g --junit j.xml", d);
  CHECK(two.code == 1);
  CHECK_THAT(two.out, Catch::Contains("::error file=fx2.toml,line=2,col=1,"));
  write(d / "fx2.toml",
        "\n[effect]\nname = \"two\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[[emitter]]\nrate = 20\n");
  const Run ok =
      run_spritz_env("GITHUB_ACTIONS=false", "check fx2.toml --golden g --junit j.xml", d);
  CHECK(ok.code == 0);
  CHECK(ok.out.empty());
  CHECK_THAT(read_text(d / "j.xml"), Catch::Contains("tests=\"3\" failures=\"0\""));
  CHECK_THAT(read_text(d / "j.xml"), Catch::Contains("name=\"two @ 0.167\" file=\"fx2.toml\"/>"));
  const Run warn = run_spritz("check fx.toml --golden g --max-diff-ratio 1 --junit w.xml", d);
  CHECK(warn.code == 0);
  CHECK_THAT(read_text(d / "w.xml"), Catch::Contains("failures=\"0\""));
}

TEST_CASE("check --report writes a static HTML report that Chromium opens from file://", "[cli]") {
  const fs::path d = fresh_dir("check_report");
  const std::string fx =
      "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
      "[check]\ntimes = [0.25, 0.5, 0.75]\n[[emitter]]\nrate = 20\nspeed = 10\n";
  write(d / "fx.toml", fx + "size = 6\n");
  REQUIRE(run_spritz("check fx.toml --golden g --update", d).code == 0);
  // Two frames change, one golden goes missing, one is stale.
  write(d / "fx.toml",
        fx + "size = 9\n[[emitter]]\nrate = 0\nbursts = [{ time = 0.7, count = 1 }]\n");
  fs::rename(d / "g/dot/0.750.png", d / "g/dot/0.900.png");
  const Run r = run_spritz("check fx.toml --golden g --out res --report rep", d);
  CHECK(r.code == 1);
  const std::string page = read_text(d / "rep/index.html");
  CHECK_THAT(page, Catch::StartsWith("<!doctype html>"));
  CHECK(count_of(page, "<section class=\"fail\"") == 2);
  CHECK_THAT(page, Catch::Contains("<img src=\"img/dot___0.250.expected.png\""));
  CHECK_THAT(page, Catch::Contains("<img src=\"img/dot___0.250.diff.png\""));
  CHECK_THAT(page, Catch::Contains("tolerances: threshold 0.1"));
  CHECK_THAT(page, Catch::Contains("fx.toml:7:9"));
  CHECK_THAT(page, Catch::Contains("<li>dot @ 0.750: g/dot/0.750.png</li>"));
  CHECK_THAT(page, Catch::Contains("<li>g/dot/0.900.png</li>"));
  CHECK(page.find(d.string()) == std::string::npos);  // every path relative to the report
  CHECK(fs::exists(d / "rep/img/dot___0.500.actual.png"));
  const fs::path browser = browser_tests();
  const std::string missing = browser_tests_missing();
  SPRITZ_SKIP_UNLESS(missing.empty(), missing);
  std::string out;
  const int rc = shell(
      "node '" + (browser / "report.mjs").string() + "' '" + (d / "rep").string() + "' 2 1 2>&1",
      &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Catch::Contains("all checks passed"));
}

TEST_CASE("check --update writes only the goldens whose pixels change", "[cli]") {
  const fs::path d = fresh_dir("check_update");
  const std::string fx =
      "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
      "[check]\ntimes = [0.25, 0.75]\n[[emitter]]\nrate = 20\nspeed = 10\n";
  write(d / "fx.toml", fx + "size = 6\n");
  const Run first = run_spritz("check fx.toml --golden g --update", d);
  CHECK(first.code == 0);
  CHECK_THAT(first.err, Catch::Contains("new  dot @ 0.250\n"));
  CHECK_THAT(first.err, Catch::Contains("2 goldens written"));
  const auto before = read_bytes(d / "g/dot/0.250.png");
  // A comment changes the effect's hash in the PNG's text, not its pixels:
  // nothing is written, so the goldens' files and history stay as they were.
  write(d / "fx.toml", "# a comment\n" + fx + "size = 6\n");
  const Run again = run_spritz("check fx.toml --golden g --update --json", d);
  CHECK(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains("\"status\":\"ok\""));
  CHECK_THAT(again.out, Catch::Contains("\"updated\":0}"));
  CHECK(read_bytes(d / "g/dot/0.250.png") == before);
  // A golden that no longer decodes, and a change that moves pixels, are written.
  write(d / "g/dot/0.750.png", "not a png");
  const Run repair = run_spritz("check fx.toml --golden g --update", d);
  CHECK(repair.code == 0);
  CHECK_THAT(repair.err, Catch::Contains("ok   dot @ 0.250: unchanged\n"));
  CHECK_THAT(repair.err, Catch::Contains("upd  dot @ 0.750\n"));
  CHECK_THAT(repair.err, Catch::Contains("1 golden written"));
  write(d / "fx.toml", fx + "size = 9\n");
  const Run changed = run_spritz("check fx.toml --golden g --update", d);
  CHECK_THAT(changed.err, Catch::Contains("upd  dot @ 0.250\n"));
  CHECK_THAT(changed.err, Catch::Contains("2 goldens written"));
  CHECK(read_bytes(d / "g/dot/0.250.png") != before);
  CHECK(run_spritz("check fx.toml --golden g", d).code == 0);
}
