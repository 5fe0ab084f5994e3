#include "spritz/shape.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "spritz/hash.h"

using namespace spritz;

namespace {
ShapeSample roll(const Shape& s, uint32_t i, Vec2 dir = {0, 1}) {
  const uint32_t st = particle_stream(3, i);
  return sample_shape(s, dir, unit(st, Channel::kShapeU), unit(st, Channel::kShapeV),
                      unit(st, Channel::kInOutCoin));
}
}  // namespace

TEST_CASE("a point emits from the origin along the emitter direction", "[shape]") {
  const ShapeSample s = roll(Shape{}, 1, {1, 0});
  CHECK(s.offset.x == 0);
  CHECK(s.offset.y == 0);
  CHECK(s.normal.x == 1);
}

TEST_CASE("a uniform disc sample has mean radius 2/3", "[shape]") {
  Shape disc;
  disc.kind = ShapeKind::kEllipse;
  disc.a = disc.b = 1;
  const int n = 200000;
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    const ShapeSample s = roll(disc, static_cast<uint32_t>(i));
    const double r = length(s.offset);
    REQUIRE(r <= 1.0 + 1e-12);
    sum += r;
  }
  CHECK(sum / n == Approx(2.0 / 3.0).margin(0.003));
}

TEST_CASE("an annulus stays between its radii and is uniform in area", "[shape]") {
  Shape ring;
  ring.kind = ShapeKind::kEllipse;
  ring.a = ring.b = 10;
  ring.inner = 0.5;
  const int n = 100000;
  int inside_mid = 0;
  const double mid = std::sqrt((25.0 + 100.0) / 2);  // halves the annulus' area
  for (int i = 0; i < n; ++i) {
    const double r = length(roll(ring, static_cast<uint32_t>(i)).offset);
    REQUIRE(r >= 5 - 1e-9);
    REQUIRE(r <= 10 + 1e-9);
    inside_mid += r < mid;
  }
  CHECK(inside_mid == Approx(n / 2).epsilon(0.02));
}

TEST_CASE("the ellipse normal is the gradient not the radius", "[shape]") {
  Shape e;
  e.kind = ShapeKind::kEllipse;
  e.style = ShapeStyle::kSurface;
  e.a = 4;
  e.b = 1;
  for (uint32_t i = 0; i < 1000; ++i) {
    const ShapeSample s = roll(e, i);
    CHECK(s.offset.x * s.offset.x / 16 + s.offset.y * s.offset.y == Approx(1));
    const Vec2 g{s.offset.x / 16, s.offset.y / 1};
    const double cross = g.x * s.normal.y - g.y * s.normal.x;
    CHECK(cross == Approx(0).margin(1e-9));
    CHECK(dot(g, s.normal) > 0);
    CHECK(length(s.normal) == Approx(1));
  }
}

TEST_CASE("box volume samples fill the box uniformly", "[shape]") {
  Shape box;
  box.kind = ShapeKind::kBox;
  box.a = 3;
  box.b = 1;
  const int n = 100000;
  int left = 0, top = 0;
  for (int i = 0; i < n; ++i) {
    const Vec2 p = roll(box, static_cast<uint32_t>(i)).offset;
    REQUIRE(std::abs(p.x) <= 3);
    REQUIRE(std::abs(p.y) <= 1);
    left += p.x < 0;
    top += p.y > 0;
  }
  CHECK(left == Approx(n / 2).epsilon(0.02));
  CHECK(top == Approx(n / 2).epsilon(0.02));
}

TEST_CASE("box surface density is equal per unit length on every side", "[shape]") {
  Shape box;
  box.kind = ShapeKind::kBox;
  box.style = ShapeStyle::kSurface;
  box.a = 4;  // width 8
  box.b = 1;  // height 2
  const int n = 200000;
  int top = 0, bottom = 0, left = 0, right = 0;
  for (int i = 0; i < n; ++i) {
    const Vec2 p = roll(box, static_cast<uint32_t>(i)).offset;
    const bool on_h = std::abs(std::abs(p.y) - 1) < 1e-9;
    const bool on_v = std::abs(std::abs(p.x) - 4) < 1e-9;
    REQUIRE((on_h || on_v));
    if (on_h)
      (p.y > 0 ? top : bottom)++;
    else
      (p.x > 0 ? right : left)++;
  }
  // Perimeter 20: top and bottom 8 each, left and right 2 each.
  CHECK(top / 8.0 == Approx(n / 20.0).epsilon(0.03));
  CHECK(bottom / 8.0 == Approx(n / 20.0).epsilon(0.03));
  CHECK(left / 2.0 == Approx(n / 20.0).epsilon(0.03));
  CHECK(right / 2.0 == Approx(n / 20.0).epsilon(0.03));
}

TEST_CASE("inward flips the normal and both tosses a coin", "[shape]") {
  Shape e;
  e.kind = ShapeKind::kEllipse;
  e.a = e.b = 5;
  Shape in = e;
  in.in_out = InOut::kInward;
  Shape both = e;
  both.in_out = InOut::kBoth;
  int flipped = 0;
  const int n = 20000;
  for (uint32_t i = 0; i < static_cast<uint32_t>(n); ++i) {
    const ShapeSample out = roll(e, i), inw = roll(in, i), b = roll(both, i);
    CHECK(inw.normal.x == -out.normal.x);
    CHECK(inw.normal.y == -out.normal.y);
    CHECK(inw.offset.x == out.offset.x);
    flipped += b.normal.x == inw.normal.x && b.normal.y == inw.normal.y;
  }
  CHECK(flipped == Approx(n / 2).epsilon(0.03));
  // A point's normal is the emitter direction, and inward negates it.
  Shape p;
  p.in_out = InOut::kInward;
  CHECK(roll(p, 1, {0, 1}).normal.y == -1);
}

TEST_CASE("a turned shape turns its places and the normals it gives, not the emitter direction",
          "[shape]") {
  const double deg = 30, rad = deg * 3.14159265358979323846 / 180;
  const auto turned = [&](Vec2 v) {
    return Vec2{v.x * std::cos(rad) - v.y * std::sin(rad),
                v.x * std::sin(rad) + v.y * std::cos(rad)};
  };
  Shape box;
  box.kind = ShapeKind::kBox;
  box.a = 40, box.b = 4;
  Shape ellipse = box;
  ellipse.kind = ShapeKind::kEllipse;
  for (const Shape& flat : {box, ellipse}) {
    Shape turn = flat;
    turn.rotation_deg = deg;
    for (uint32_t i = 0; i < 50; ++i) {
      const ShapeSample a = roll(flat, i), b = roll(turn, i);
      const Vec2 want = turned(a.offset);
      CHECK(b.offset.x == Approx(want.x).margin(1e-9));
      CHECK(b.offset.y == Approx(want.y).margin(1e-9));
      // A box leaves along the emitter direction; an ellipse along its
      // normal, which turns with it.
      const Vec2 n = flat.kind == ShapeKind::kBox ? a.normal : turned(a.normal);
      CHECK(b.normal.x == Approx(n.x).margin(1e-12));
      CHECK(b.normal.y == Approx(n.y).margin(1e-12));
    }
  }
}
