// Light passes (docs/rendering.md "Light passes"): the alpha-over share and
// the additive share of every particle, each occluded as in the whole image,
// sum back to it.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"

using namespace spritz;

TEST_CASE("the alpha and emissive passes composite back to the whole image", "[pass]") {
  // Alpha-over smoke, additive sparks and a half-and-half glow, over a
  // coloured background, drawn in one another's way; with ribbons too.
  const Effect fx = load_effect(R"(
[canvas]
size = [96, 96]
background = "#20304080"
[[emitter]]
name = "smoke"
rate = 40
lifetime = 2
speed = [10, 40]
spread = 180
size = [[0, 10], [1, 40]]
transparency = [[0, 0.2], [1, 1]]
color = "#808890"
[[emitter]]
name = "sparks"
rate = 60
lifetime = 1
speed = [40, 90]
spread = 180
size = 6
color = "#ffb040"
brightness = 2.5
light_emission = 1
[[emitter]]
name = "glow"
rate = 20
lifetime = 1.5
speed = 20
spread = 180
size = 24
color = "#40c0ff"
light_emission = 0.4
trail = { count = 6, length = 0.3, style = "ribbon" }
)",
                                "p.toml", ".");
  for (int threads : {1, 3}) {
    FrameRenderer all(fx, 96, 96, threads), alpha(fx, 96, 96, threads),
        emissive(fx, 96, 96, threads);
    alpha.set_light_pass(LightPass::kAlpha);
    emissive.set_light_pass(LightPass::kEmissive);
    for (double clock : {0.7, 1.9, 3.3}) {
      all.render(clock), alpha.render(clock), emissive.render(clock);
      const auto &a = all.image().rgba, &b = alpha.image().rgba, &e = emissive.image().rgba;
      REQUIRE(a.size() == b.size());
      double worst = 0;
      int lit = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        if (i % 4 == 3) {
          CHECK(b[i] == a[i]);  // the alpha pass has the whole image's coverage
          CHECK(e[i] == 0);     // the emissive pass is light alone
          continue;
        }
        // Float rounding of a few blends: relative to the light there.
        worst = std::max(worst, std::abs(double{b[i]} + e[i] - a[i]) / (1e-6 + std::abs(a[i])));
        lit += e[i] > 0.01f;
      }
      CHECK(worst < 1e-5);
      CHECK(lit > 50);  // the emissive pass does hold light
    }
  }
}

TEST_CASE("a program's EMISSION is the particle's own light_emission", "[pass]") {
  // The same sparks drawn by an additive emitter and by an alpha-over one
  // whose program makes every particle additive: the same bytes, in the
  // whole image and in each light pass.
  const std::string base = R"(
[canvas]
size = [64, 64]
background = "#203040"
[[emitter]]
rate = 50
lifetime = 1
speed = [20, 60]
spread = 180
size = 8
color = "#ffb040"
)";
  const Effect additive = load_effect(base + "light_emission = 1\n", "a.toml", ".");
  const Effect program = load_effect(
      base + "light_emission = 0\nprogram = \"void start() { EMISSION = 7.0; }\"\n", "b.toml", ".");
  const Effect over = load_effect(base + "light_emission = 0\n", "c.toml", ".");
  for (LightPass pass : {LightPass::kAll, LightPass::kAlpha, LightPass::kEmissive}) {
    FrameRenderer a(additive, 64, 64, 2), b(program, 64, 64, 2), c(over, 64, 64, 2);
    a.set_light_pass(pass), b.set_light_pass(pass), c.set_light_pass(pass);
    a.render(0.8), b.render(0.8), c.render(0.8);
    CHECK(a.image().rgba == b.image().rgba);  // 7 clamps to 1
    CHECK(a.image().rgba != c.image().rgba);  // and it does change the picture
  }
}
