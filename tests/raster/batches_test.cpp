// Frames too large to hold (Frame::defer_above, Rasterizer::render_batches):
// drawn in batches as they are evaluated, with the whole frame's bytes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"

using namespace spritz;

namespace {

// A held emitter under, a deferred stream of about 300,000 2-px sprites
// (additive and alpha-over alike, so the order of blends shows in the
// bytes), a deferred stream of rotating textured sprites that spans many
// strips, and a held emitter with a trail on top.
const char* kEffect = R"(
[effect]
name = "many"
seed = 5
duration = 4

[canvas]
size = [200, 150]
background = "#101820"

[[emitter]]
rate = 40
lifetime = 2
speed = [10, 30]
size = 12
color = "#ff8040"

[[emitter]]
rate = 300000
max_particles = 400000
lifetime = [0.5, 1.5]
speed = [5, 90]
spread = 180
drag = 0.5
size = { start = [1, 3], end = [1, 3] }
color = { start = "#ffd27f", end = "#3f6fff" }
transparency = { start = 0.2, end = 1.0 }
light_emission = 0.5
texture = "builtin:soft"

[[emitter]]
rate = 90000
max_particles = 200000
lifetime = 1
speed = [20, 60]
spread = 180
size = { start = [4, 24], end = [4, 24] }
rotation = [0, 360]
rotation_speed = [-90, 90]
color = "#80ff80"
transparency = 0.9
texture = "builtin:spark"

[[emitter]]
rate = 20
lifetime = 1
speed = 40
size = 6
color = "#ffffff"
trail = { count = 4, length = 0.2 }
)";

}  // namespace

TEST_CASE("a frame too large to hold is drawn in batches with the whole frame's bytes",
          "[raster][batches]") {
  const Effect fx = load_effect(kEffect, "many.toml", ".");
  const double clock = 2.0;
  REQUIRE(deferrable(fx.emitters[1], clock));
  REQUIRE_FALSE(deferrable(fx.emitters[3], clock));  // trail ghosts are added after
  const int w = 200, h = 150;
  std::vector<uint8_t> reference;
  uint64_t reference_alive = 0;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    FrameRenderer r(fx, w, h, threads);
    std::vector<uint8_t> png, whole;
    const uint64_t alive = r.render_png(clock, {}, png);
    // The two big streams were deferred, in more than one batch.
    CHECK(r.frame().emitters[0].deferred.empty());
    CHECK(r.frame().emitters[1].particles.size() == 0);
    CHECK(r.frame().emitters[1].deferred.size() > Rasterizer::kBatchSlots / 4096);
    CHECK_FALSE(r.frame().emitters[2].deferred.empty());
    CHECK(r.frame().emitters[3].deferred.empty());
    EmitterStats batched = r.frame().emitters[1].stats;
    CHECK(batched.alive > 250000);
    // render() holds every particle: the same pixels, counts and PNG.
    CHECK(r.render(clock) == alive);
    CHECK(r.frame().emitters[1].deferred.empty());
    CHECK(r.frame().emitters[1].particles.size() == batched.alive);
    CHECK(r.frame().emitters[1].stats.visited == batched.visited);
    CHECK(r.frame().emitters[1].stats.window == batched.window);
    r.encode(whole);
    CHECK(png == encode_png(whole.data(), w, h, {}));
    if (reference.empty()) reference = png, reference_alive = alive;
    CHECK(png == reference);
    CHECK(alive == reference_alive);
  }
}

TEST_CASE("strips no batch reaches are the background's, encoded once", "[raster][batches]") {
  // 150,000 dots in a band near the top of a tall frame: most strips are
  // the background alone, which the PNG writer encodes once and repeats.
  const Effect fx = load_effect(R"(
[effect]
duration = 4
[canvas]
size = [120, 600]
background = "#203040"
[[emitter]]
position = [0, 250]
rate = 100000
max_particles = 200000
lifetime = [1, 2]
speed = [0, 20]
spread = 180
size = 2
color = "#ffe0a0"
)",
                                "band.toml", ".");
  const double clock = 3.0;
  std::vector<uint8_t> reference;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    FrameRenderer r(fx, 120, 600, threads);
    std::vector<uint8_t> png, twice, whole;
    const uint64_t alive = r.render_png(clock, {}, png);
    CHECK_FALSE(r.frame().emitters[0].deferred.empty());
    CHECK(r.render_png(clock, {}, twice) == alive);  // background strips from the first frame
    CHECK(twice == png);
    CHECK(r.render(clock) == alive);
    r.encode(whole);
    CHECK(png == encode_png(whole.data(), 120, 600, {}));
    if (reference.empty()) reference = png;
    CHECK(png == reference);
  }
}

TEST_CASE("deferred particles do not count against the memory limit", "[raster][batches]") {
  const Effect fx = load_effect(kEffect, "many.toml", ".");
  const double clock = 2.0;
  // The held emitters' particles and ghosts, well under the limit below.
  const uint64_t held = held_window_size(fx, clock, defer_above(200, 150));
  CHECK(held < 1000);
  CHECK(window_size(fx, clock) > 300000);
  FrameRenderer r(fx, 200, 150, 2);
  r.set_particle_limit(1000);
  std::vector<uint8_t> png;
  CHECK(r.render_png(clock, {}, png) > 300000);
  // A whole image holds them all: refused before evaluating, with figures.
  CHECK_THROWS_WITH(r.render(clock), Catch::Contains("more than the 1000 that this machine"));
}

TEST_CASE("only emitters whose particles come out in draw order are deferred", "[batches]") {
  const auto one = [](const std::string& extra, const std::string& effect = "") {
    return load_effect(
        "[effect]\nduration = 4\n" + effect + "\n[[emitter]]\nname = \"a\"\nlifetime = 1\n" + extra,
        "t.toml", ".");
  };
  CHECK(deferrable(one("rate = 100").emitters[0], 2));
  const Effect newest = one("rate = 100\ndraw_order = \"newest_first\"");
  CHECK_FALSE(deferrable(newest.emitters[0], 2));
  const Effect trail = one("rate = 100\ntrail = { count = 2, length = 0.1 }");
  CHECK_FALSE(deferrable(trail.emitters[0], 2));
  const Effect burst = one("rate = 100\nbursts = [{ time = 0, count = 10 }]");
  CHECK_FALSE(deferrable(burst.emitters[0], 2));
  const Effect keyed = one("rate = [[0, 10], [1, 100]]");
  CHECK_FALSE(deferrable(keyed.emitters[0], 2));
  const Effect sub =
      one("rate = 100\n[[emitter]]\nname = \"b\"\nlifetime = 1\nsub = { parent = \"a\", on = "
          "\"death\" }");
  CHECK(deferrable(sub.emitters[0], 2));
  CHECK_FALSE(deferrable(sub.emitters[1], 2));
  // A looped effect's keys wrap: deferred while the births rise strictly.
  const Effect looped = one("rate = 100", "loop = true");
  CHECK(deferrable(looped.emitters[0], 1e6));
  CHECK_FALSE(deferrable(looped.emitters[0], 1e14));
}
