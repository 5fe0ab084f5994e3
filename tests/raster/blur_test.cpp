// Motion blur (docs/rendering.md): a frame is the mean of its shutter
// samples, each an ordinary closed-form evaluation.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"

using namespace spritz;

namespace {

const char* kMoving = R"(
[effect]
seed = 5
[canvas]
size = [64, 64]
background = "#20304080"
motion_blur = { samples = 3, shutter = 1 }
[[emitter]]
rate = 40
lifetime = 1
speed = [150, 300]
spread = 180
rotation_speed = [-720, 720]
size = 6
squash = 2
light_emission = 0.5
)";

// The mean of plain frames at the blur's sample clocks, in sample order:
// what a blurred frame must be, bit for bit.
Image mean_of_samples(const Effect& blurred, double clock, double fps) {
  Effect plain = blurred;
  plain.canvas.blur_samples = 1;
  FrameRenderer r(plain, plain.canvas.width, plain.canvas.height, 1);
  std::vector<double> clocks;
  shutter_clocks(blurred, clock, fps, clocks);
  Image sum;
  const float n = static_cast<float>(clocks.size());
  for (size_t k = 0; k < clocks.size(); ++k) {
    r.render(clocks[k]);
    if (k == 0) {
      sum = r.image();
      for (float& v : sum.rgba) v = v / n;
    } else {
      for (size_t i = 0; i < sum.rgba.size(); ++i) sum.rgba[i] += r.image().rgba[i] / n;
    }
  }
  return sum;
}

bool same_bytes(const Image& a, const Image& b) {
  return a.rgba.size() == b.rgba.size() &&
         std::memcmp(a.rgba.data(), b.rgba.data(), a.rgba.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("a blurred frame is the mean of its samples' frames", "[blur]") {
  const Effect fx = load_effect(kMoving, "t.toml", ".");
  FrameRenderer blurred(fx, 64, 64, 1);
  const double clock = clock_at_time(fx, 0.8);
  blurred.render(clock);
  CHECK(same_bytes(blurred.image(), mean_of_samples(fx, clock, fx.fps)));

  // The shutter spans the frame interval it is given.
  blurred.set_frame_rate(12);
  blurred.render(clock);
  const Image slow = blurred.image();
  CHECK(same_bytes(slow, mean_of_samples(fx, clock, 12)));
  CHECK_FALSE(same_bytes(slow, mean_of_samples(fx, clock, fx.fps)));

  // And it is visible: moving particles smear.
  Effect sharp_fx = fx;
  sharp_fx.canvas.blur_samples = 1;
  FrameRenderer sharp(sharp_fx, 64, 64, 1);
  sharp.render(clock);
  int changed = 0;
  for (size_t i = 0; i < slow.rgba.size(); ++i)
    changed += std::abs(slow.rgba[i] - sharp.image().rgba[i]) > 1e-3f;
  CHECK(changed > 200);
}

TEST_CASE("a blurred frame is the same bytes on any thread count", "[blur]") {
  const Effect fx = load_effect(kMoving, "t.toml", ".");
  FrameRenderer one(fx, 64, 64, 1), three(fx, 64, 64, 3);
  for (double t : {0.3, 1.7}) {
    one.render(clock_at_time(fx, t));
    three.render(clock_at_time(fx, t));
    CHECK(same_bytes(one.image(), three.image()));
  }
}

TEST_CASE("blur leaves what does not move as it was", "[blur]") {
  // Still particles of constant size and colour: every sample is the same
  // image, and their mean is that image to within float rounding.
  const char* still = R"(
[canvas]
size = [48, 48]
background = "#102030ff"
motion_blur = { samples = 7, shutter = 1 }
[[emitter]]
rate = 10
lifetime = 100
speed = 0
shape = { kind = "box", size = [30, 30] }
size = 9
color = "#ff8040"
)";
  const Effect fx = load_effect(still, "t.toml", ".");
  Effect plain_fx = fx;
  plain_fx.canvas.blur_samples = 1;
  FrameRenderer blurred(fx, 48, 48, 1), plain(plain_fx, 48, 48, 1);
  const double clock = clock_at_time(fx, 50.05);  // no birth within the shutter
  CHECK(blurred.render(clock) == plain.render(clock));
  for (size_t i = 0; i < plain.image().rgba.size(); ++i)
    REQUIRE(blurred.image().rgba[i] == Approx(plain.image().rgba[i]).epsilon(1e-6).margin(1e-7));
  std::vector<uint8_t> a, b;
  blurred.encode(a);
  plain.encode(b);
  CHECK(a == b);
}

TEST_CASE("blur counts the pixels of every sample", "[blur]") {
  const Effect fx = load_effect(kMoving, "t.toml", ".");
  Effect plain_fx = fx;
  plain_fx.canvas.blur_samples = 1;
  FrameRenderer blurred(fx, 64, 64, 1), plain(plain_fx, 64, 64, 1);
  const double clock = clock_at_time(fx, 0.8);
  blurred.render(clock);
  std::vector<double> clocks;
  shutter_clocks(fx, clock, fx.fps, clocks);
  uint64_t covered = 0, most = 0;
  for (double c : clocks) {
    most = std::max(most, plain.render(c));
    covered += plain.covered_pixels();
  }
  CHECK(blurred.covered_pixels() == covered);
  CHECK(blurred.render(clock) == most);
}
