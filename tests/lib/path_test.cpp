// Emitter paths (model.md 9): keyframes interpolated linearly or smoothly,
// with their exact derivative for inherit_velocity.
#include "spritz/path.h"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using namespace spritz;

namespace {

Path make(std::vector<std::array<double, 3>> keys, bool smooth, double period = 0) {
  Path p;
  for (const auto& k : keys) {
    p.t.push_back(k[0]);
    p.p.push_back({k[1], k[2]});
  }
  p.smooth = smooth;
  p.set_period(period);
  return p;
}

}  // namespace

TEST_CASE("a linear path goes straight between keys and holds outside them", "[path]") {
  const Path p = make({{1, 0, 0}, {3, 10, -20}, {4, 10, 0}}, false);
  CHECK(p.at(1).x == 0);
  CHECK(p.at(3).x == 10);
  CHECK(p.at(3).y == -20);
  CHECK(p.at(2).x == 5);
  CHECK(p.at(2).y == -10);
  CHECK(p.at(3.5).y == -10);
  CHECK(p.at(-7).x == 0);  // held at the first key before it
  CHECK(p.at(99).y == 0);  // and at the last after it
  CHECK(p.velocity(2).x == 5);
  CHECK(p.velocity(2).y == -10);
  CHECK(p.velocity(3.5).y == 20);
  CHECK(p.velocity(0.5).x == 0);
  CHECK(p.velocity(4.5).y == 0);
  CHECK(p.at(std::nan("")).x == 0);  // never NaN out of a finite path
}

TEST_CASE("one key is a fixed offset", "[path]") {
  for (bool smooth : {false, true}) {
    const Path p = make({{2, 5, 6}}, smooth);
    CHECK(p.at(0).x == 5);
    CHECK(p.at(9).y == 6);
    CHECK(p.velocity(2).x == 0);
  }
}

TEST_CASE("a smooth path passes through its keys with a continuous, exact velocity", "[path]") {
  const Path p = make({{0, 0, 0}, {1, 10, 5}, {1.5, 12, -4}, {4, -3, 0}}, true);
  for (size_t k = 0; k < p.t.size(); ++k) {
    CHECK(p.at(p.t[k]).x == Approx(p.p[k].x).margin(1e-12));
    CHECK(p.at(p.t[k]).y == Approx(p.p[k].y).margin(1e-12));
  }
  // The velocity is the derivative of the position (central differences)...
  for (double c = 0.05; c < 3.95; c += 0.1) {
    const double h = 1e-6;
    const Vec2 d = (p.at(c + h) - p.at(c - h)) * (1 / (2 * h));
    CHECK(p.velocity(c).x == Approx(d.x).epsilon(1e-5).margin(1e-5));
    CHECK(p.velocity(c).y == Approx(d.y).epsilon(1e-5).margin(1e-5));
  }
  // ...and the same from both sides of an interior key: no kink.
  for (double key : {1.0, 1.5}) {
    const Vec2 before = p.velocity(std::nextafter(key, 0.0)), after = p.velocity(key);
    CHECK(before.x == Approx(after.x).epsilon(1e-9));
    CHECK(before.y == Approx(after.y).epsilon(1e-9));
  }
  // Two keys: the spline is the straight line.
  const Path two = make({{0, 0, 0}, {2, 8, 4}}, true);
  CHECK(two.at(0.5).x == Approx(2));
  CHECK(two.at(1.5).y == Approx(3));
}

TEST_CASE("a looped path repeats every period, and a closed smooth one has no corner", "[path]") {
  const Path p = make({{0, 70, 0}, {0.5, 0, 70}, {1, -70, 0}, {1.5, 0, -70}, {2, 70, 0}}, true, 2);
  for (double c : {0.1, 0.7, 1.9}) {
    CHECK(p.at(c + 2).x == Approx(p.at(c).x));
    CHECK(p.at(c - 6).y == Approx(p.at(c).y));
  }
  // At the seam the tangent is shared by both ends: moving up at (70, 0).
  const Vec2 end = p.velocity(std::nextafter(2.0, 0.0)), start = p.velocity(0);
  CHECK(end.x == Approx(start.x).margin(1e-9));
  CHECK(end.y == Approx(start.y).epsilon(1e-9));
  CHECK(start.y > 0);
  CHECK(std::abs(start.x) < 1e-9);
}
