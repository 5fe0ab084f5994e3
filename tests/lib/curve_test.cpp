#include "spritz/curve.h"

#include <catch2/catch.hpp>

using namespace spritz;

TEST_CASE("a curve interpolates linearly between keypoints", "[curve]") {
  Curve c;
  c.count = 3;
  c.t = {0, 0.4, 1};
  c.value = {10, 22, 0};
  c.envelope = {0, 4, 0};
  CHECK(c.evaluate(0, 0) == 10);
  CHECK(c.evaluate(0.2, 0) == Approx(16));
  CHECK(c.evaluate(0.4, 0) == Approx(22));
  CHECK(c.evaluate(0.7, 0) == Approx(11));
  CHECK(c.evaluate(1, 0) == Approx(0));
  // Outside [0, 1] it holds the end values.
  CHECK(c.evaluate(-1, 0) == 10);
  CHECK(c.evaluate(2, 0) == 0);
  // The envelope is interpolated like the value and scaled by eps.
  CHECK(c.evaluate(0.4, 1) == Approx(26));
  CHECK(c.evaluate(0.4, -1) == Approx(18));
  CHECK(c.evaluate(0.2, 1) == Approx(18));
  CHECK(c.max_value() == Approx(26));
}

TEST_CASE("a constant curve ignores tau", "[curve]") {
  const Curve c = Curve::constant(7);
  CHECK(c.evaluate(0, 0) == 7);
  CHECK(c.evaluate(0.5, 1) == 7);
  CHECK_FALSE(c.has_envelope());
}

TEST_CASE("colour curves interpolate in sRGB and clamp the envelope", "[curve]") {
  ColorCurve c;
  c.count = 2;
  c.t = {0, 1};
  c.srgb = {Rgb{1, 0, 0}, Rgb{0, 0, 1}};
  c.envelope = {0, 0};
  const Rgb mid = c.evaluate(0.5, 0);
  CHECK(mid.r == Approx(0.5));
  CHECK(mid.g == 0);
  CHECK(mid.b == Approx(0.5));
  c.envelope = {0.5, 0.5};
  const Rgb hi = c.evaluate(0, 1);
  CHECK(hi.r == 1);  // clamped
  CHECK(hi.g == Approx(0.5));
}

TEST_CASE("a curve's slope is its segment's, envelope included, and 0 where held", "[curve]") {
  Curve c;
  c.count = 3;
  c.t = {0, 0.25, 1};
  c.value = {0, 10, 4};
  c.envelope = {0, 2, 2};
  CHECK(c.slope(0, 0) == 40);
  CHECK(c.slope(0.1, 0) == 40);
  CHECK(c.slope(0.1, 1) == 48);   // (10 + 2 - 0) / 0.25
  CHECK(c.slope(0.25, 0) == -8);  // a key starts the next segment
  CHECK(c.slope(0.5, -1) == -8);  // the envelope is flat there
  CHECK(c.slope(1, 0) == 0);      // held from the last key on
  CHECK(c.slope(1.5, 0) == 0);
  CHECK(Curve::constant(3).slope(0.5, 1) == 0);
  // The slope agrees with the curve's own differences.
  for (double tau : {0.05, 0.2, 0.3, 0.9})
    CHECK(c.slope(tau, 0.5) ==
          Approx((c.evaluate(tau + 1e-7, 0.5) - c.evaluate(tau - 1e-7, 0.5)) / 2e-7).epsilon(1e-6));
}

TEST_CASE("slope is taken from the right inside a curve and from below at its end", "[curve]") {
  Curve c;
  c.count = 3;
  c.t = {0, 0.5, 1};
  c.value = {0, 10, 40};
  c.envelope = {0, 2, 4};
  // Right-continuous inside: the segment [t_k, t_k+1) holding tau.
  CHECK(c.slope(0.25, 0) == 20);
  CHECK(c.slope(0.5, 0) == 60);
  CHECK(c.slope(0.5, 1) == 64);
  CHECK(c.slope(1.0, 0) == 0);  // held from the last key on
  // From below: the segment (t_k, t_k+1] holding tau, so at 1 the last one.
  CHECK(c.slope_from_below(0.5, 0) == 20);
  CHECK(c.slope_from_below(0.5, -1) == 16);
  CHECK(c.slope_from_below(1.0, 0) == 60);
  CHECK(c.slope_from_below(1.0, 1) == 64);
  CHECK(c.slope_from_below(0.0, 0) == 0);
  CHECK(c.slope_from_below(1.5, 0) == 0);
  CHECK(Curve::constant(3).slope_from_below(1, 0) == 0);
}
