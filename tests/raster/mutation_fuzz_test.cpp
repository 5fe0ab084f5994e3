// Bad input never crashes: thousands of deterministic mutations of the
// bundled effects go through the loader, and whatever loads is evaluated and
// drawn. Every outcome must be a clean load or a spritz::Error, and no pixel
// may be NaN or infinite.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

using namespace spritz;

namespace {

// Replacement tokens that stress the loader's rules.
const char* const kTokens[] = {"-1",
                               "0",
                               "1e308",
                               "-1e308",
                               "nan",
                               "inf",
                               "-inf",
                               "1e-320",
                               "\"x\"",
                               "[]",
                               "[[0, 1]]",
                               "[1, 2, 3]",
                               "{}",
                               "true",
                               "99999999999",
                               "0.5",
                               "[0, 0]",
                               "\"#zzz\"",
                               "[[0, 1], [0, 2]]",
                               "-0.0",
                               "4294967296",
                               "\"builtin:nope\""};

std::string mutate(const std::string& text, uint32_t seed) {
  std::string s = text;
  const uint32_t st = particle_stream(seed, 1);
  const int edits = 1 + static_cast<int>(unit_raw(st, 0) * 3);
  for (int e = 0; e < edits; ++e) {
    const double u = unit_raw(st, static_cast<uint32_t>(1 + 3 * e));
    const size_t at = static_cast<size_t>(unit_raw(st, static_cast<uint32_t>(2 + 3 * e)) *
                                          static_cast<double>(s.size()));
    const double pick = unit_raw(st, static_cast<uint32_t>(3 + 3 * e));
    if (u < 0.4) {
      // Replace the value after the '=' on this line with a hostile token.
      const size_t eq = s.find('=', at);
      if (eq == std::string::npos) continue;
      const size_t nl = s.find('\n', eq);
      const char* token = kTokens[static_cast<size_t>(pick * (sizeof kTokens / sizeof *kTokens))];
      s.replace(eq + 1, (nl == std::string::npos ? s.size() : nl) - eq - 1,
                std::string(" ") + token);
    } else if (u < 0.7) {
      if (at < s.size()) s.erase(at, 1 + static_cast<size_t>(pick * 8));
    } else {
      const char chars[] = "[]{}=\",.#-0123456789\n ";
      s.insert(at, 1, chars[static_cast<size_t>(pick * (sizeof chars - 1))]);
    }
  }
  return s;
}

}  // namespace

TEST_CASE("mutated effect files load cleanly or fail with an Error, and never draw NaN", "[fuzz]") {
  namespace fs = std::filesystem;
  const fs::path configs = fs::path(SPRITZ_SOURCE_DIR) / "configs";
  std::vector<fs::path> paths;  // sorted, so case i mutates the same effect on every machine
  for (const auto& entry : fs::directory_iterator(configs))
    if (entry.path().extension() == ".toml") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> sources;
  for (const fs::path& p : paths) {
    std::ifstream in(p);
    sources.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  REQUIRE(!sources.empty());
  int loaded = 0, refused = 0;
  Frame frame;
  Image image;
  // SPRITZ_FUZZ_CASES=100000 runs a longer search by hand; CI runs 3000.
  const char* cases_env = std::getenv("SPRITZ_FUZZ_CASES");
  const uint32_t cases =
      cases_env ? static_cast<uint32_t>(std::strtoul(cases_env, nullptr, 10)) : 3000;
  for (uint32_t i = 0; i < cases; ++i) {
    const std::string text = mutate(sources[i % sources.size()], i);
    INFO("case " << i << ", a mutation of a bundled effect:\n" << text);
    Effect fx;
    try {
      fx = load_effect(text, "fuzz.toml", configs.string());  // bundled textures resolve
    } catch (const Error& e) {
      ++refused;
      REQUIRE(std::string(e.what()).size() > 0);
      continue;
    }
    ++loaded;
    TextureSet tex;
    try {
      tex = load_textures(fx, 0.25);
    } catch (const Error&) {
      continue;
    }
    // A small canvas keeps it fast; the view scales the design canvas down.
    Rasterizer r(fx, tex, 48, 48, 2);
    const uint64_t bound = max_alive(fx);
    for (double t : {0.0, 0.7, 1e6}) {
      evaluate(fx, clock_at_time(fx, t), frame);
      r.render(frame, image);
      for (float v : image.rgba) REQUIRE(std::isfinite(v));
      uint64_t alive = 0;
      for (const EmitterFrame& ef : frame.emitters) alive += ef.particles.size();
      REQUIRE(alive <= bound);                                  // the bound that sizes memory holds
      REQUIRE(alive <= window_size(fx, clock_at_time(fx, t)));  // and the one that refuses a frame
    }
  }
  INFO("loaded " << loaded << ", refused " << refused);
  CHECK(loaded > 100);
  CHECK(refused > 100);
}
