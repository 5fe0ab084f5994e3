// `spritz diff` end to end: exit codes, limits and the diff image.
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

TEST_CASE("diff: exit codes, limits, size mismatch and the diff image", "[cli]") {
  const fs::path d = fresh_dir("diff");
  std::vector<uint8_t> px(4 * 4 * 4, 0);
  for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;
  const auto write_png = [&](const fs::path& p, const std::vector<uint8_t>& v, int w, int h) {
    const auto png = spritz::encode_png(v.data(), w, h);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  };
  write_png(d / "a.png", px, 4, 4);
  auto changed = px;
  changed[(2 * 4 + 1) * 4] = 255;
  changed[(3 * 4 + 3) * 4 + 1] = 255;
  write_png(d / "b.png", changed, 4, 4);
  write_png(d / "small.png", std::vector<uint8_t>(2 * 2 * 4, 255), 2, 2);

  CHECK(run_spritz("diff a.png a.png", d).code == 0);
  const Run r = run_spritz("diff a.png b.png -o out/d.png", d);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("2 of 16 pixels differ (12.5%)"));
  CHECK_THAT(r.out, Catch::Contains("max channel diff 255"));
  CHECK(fs::exists(d / "out/d.png"));
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 2", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 1", d).code == 1);
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 2 --max-diff-ratio 0.125", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 2 --max-diff-ratio 0.12", d).code == 1);
  const Run j = run_spritz("diff a.png b.png --json", d);
  CHECK_THAT(j.out, Catch::Contains("\"different\":2"));
  const Run m = run_spritz("diff a.png small.png", d);
  CHECK(m.code == 3);
  CHECK_THAT(m.err, Catch::Contains("a.png is 4x4 but small.png is 2x2"));
  CHECK(run_spritz("diff a.png nothing.png", d).code == 2);
  CHECK(run_spritz("diff a.png b.png --threshold 2", d).code == 2);
  // Limits out of range are usage errors (2), never a silent "different" (1):
  // a NaN ratio compared false with every count.
  for (const char* bad :
       {"--max-diff-ratio nan", "--max-diff-ratio -0.5", "--max-diff-ratio 1.5"}) {
    const Run r2 = run_spritz(std::string("diff a.png a.png ") + bad, d);
    CHECK(r2.code == 2);
    CHECK_THAT(r2.err, Catch::Contains("--max-diff-ratio must be within [0, 1]"));
  }
  const Run neg = run_spritz("diff a.png a.png --max-diff-pixels -5", d);
  CHECK(neg.code == 2);
  CHECK_THAT(neg.err, Catch::Contains("spritz: --max-diff-pixels must not be negative"));
}

// --max-channel-diff gates the largest channel difference whatever the
// perceptual threshold and pixel counts allow: 0 is an exact comparison.
TEST_CASE("diff and check: --max-channel-diff makes a comparison exact", "[cli]") {
  const fs::path d = fresh_dir("channel_gate");
  std::vector<uint8_t> px(8 * 8 * 4, 200);
  const auto write_png = [&](const fs::path& p, const std::vector<uint8_t>& v) {
    const auto png = spritz::encode_png(v.data(), 8, 8);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  };
  write_png(d / "a.png", px);
  px[(3 * 8 + 5) * 4 + 2] = 203;  // one blue channel 3 levels up: far under the YIQ threshold
  write_png(d / "b.png", px);
  CHECK(run_spritz("diff a.png b.png", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-channel-diff 3", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-channel-diff 2", d).code == 1);
  const Run exact =
      run_spritz("diff a.png b.png --max-channel-diff 0 --max-diff-pixels 99 --json", d);
  CHECK(exact.code == 1);
  CHECK_THAT(exact.out,
             Catch::Contains("\"max_channel_diff\":3,") && Catch::Contains("\"same\":false"));
  CHECK(run_spritz("diff a.png a.png --max-channel-diff 0", d).code == 0);
  for (const char* bad : {"-1", "256"}) {
    const Run r = run_spritz(std::string("diff a.png a.png --max-channel-diff ") + bad, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--max-channel-diff must be within 0..255"));
  }

  // check: the command line, else [check] max_channel_diff, else no gate.
  const std::string fx = kConfigs + "/sparks.toml";
  REQUIRE(run_spritz("check '" + fx + "' --golden g --update -q", d).code == 0);
  const fs::path golden = d / "g" / "sparks" / "0.333.png";
  spritz::DecodedPng g = spritz::decode_png(read_bytes(golden), golden.string());
  for (size_t i = 0; i < g.rgba.size(); i += 4)
    if (g.rgba[i + 3] > 0 && g.rgba[i] < 250) {
      g.rgba[i] += 2;  // one pixel's red channel 2 levels up
      break;
    }
  const auto png = spritz::encode_png(g.rgba.data(), g.width, g.height);
  std::ofstream(golden, std::ios::binary)
      .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  CHECK(run_spritz("check '" + fx + "' --golden g -q --out o", d).code == 0);
  const Run strict = run_spritz("check '" + fx + "' --golden g -q --out o --max-channel-diff 1", d);
  CHECK(strict.code == 1);
  CHECK_THAT(strict.err, Catch::Contains("max channel diff 2"));
  CHECK(run_spritz("check '" + fx + "' --golden g -q --out o --max-channel-diff 2", d).code == 0);
  // The same effect with [check] max_channel_diff = 1: the file's gate holds.
  fs::create_directories(d / "gated");
  std::ifstream in(fx);
  write(d / "gated" / "sparks.toml",
        std::string(std::istreambuf_iterator<char>(in), {}) + "\n[check]\nmax_channel_diff = 1\n");
  CHECK(run_spritz("check gated/sparks.toml --golden g -q --out o", d).code == 1);
  CHECK(run_spritz("check gated/sparks.toml --golden g -q --out o --max-channel-diff 2", d).code ==
        0);
  const std::string emitter = "[[emitter]]\nrate = 1\n";
  write(d / "gated.toml", emitter + "[check]\nmax_channel_diff = 0\n");
  CHECK(run_spritz("validate gated.toml", d).code == 0);
  write(d / "bad.toml", emitter + "[check]\nmax_channel_diff = 300\n");
  const Run bad = run_spritz("validate bad.toml", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("bad.toml:4:20: check.max_channel_diff") &&
                          Catch::Contains("within 0..255"));
}
