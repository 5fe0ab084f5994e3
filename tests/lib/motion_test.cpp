#include "spritz/motion.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace spritz;

TEST_CASE("free fall equals v0 t + a t^2 / 2", "[motion]") {
  const Vec2 p0{3, 4}, v0{10, 20}, a{0, -98};
  for (double t : {0.0, 0.1, 1.0, 2.5}) {
    const MotionState m = move_particle(p0, v0, a, 0, t);
    CHECK(m.position.x == Approx(3 + 10 * t));
    CHECK(m.position.y == Approx(4 + 20 * t - 49 * t * t));
    CHECK(m.velocity.y == Approx(20 - 98 * t));
  }
}

TEST_CASE("drag decays velocity exponentially toward a / k", "[motion]") {
  const Vec2 v0{100, 0}, a{0, 30};
  const double k = 2;
  for (double t : {0.0, 0.5, 1.0, 3.0}) {
    const MotionState m = move_particle({0, 0}, v0, a, k, t);
    CHECK(m.velocity.x == Approx(100 * std::exp(-k * t)));
    CHECK(m.velocity.y == Approx(15 * (1 - std::exp(-k * t))));
  }
  const MotionState late = move_particle({0, 0}, v0, a, k, 50);
  CHECK(late.velocity.x == Approx(0).margin(1e-12));
  CHECK(late.velocity.y == Approx(a.y / k));
  // The position is the integral of the velocity: check with a fine sum.
  double x = 0;
  const int steps = 100000;
  const double dt = 1.0 / steps;
  for (int i = 0; i < steps; ++i)
    x += move_particle({0, 0}, v0, a, k, (i + 0.5) * dt).velocity.x * dt;
  CHECK(move_particle({0, 0}, v0, a, k, 1).position.x == Approx(x).epsilon(1e-8));
}

TEST_CASE("motion is continuous as drag goes to zero", "[motion]") {
  const Vec2 p0{1, 2}, v0{30, -40}, a{5, -60};
  const MotionState free = move_particle(p0, v0, a, 0, 2);
  for (double k : {1.0001e-4, -1.0001e-4, 2e-4}) {
    const MotionState m = move_particle(p0, v0, a, k, 2);
    CHECK(m.position.x == Approx(free.position.x).epsilon(1e-3));
    CHECK(m.position.y == Approx(free.position.y).epsilon(1e-3));
    CHECK(m.velocity.y == Approx(free.velocity.y).epsilon(1e-3));
  }
}

TEST_CASE("negative drag stays finite", "[motion]") {
  for (double t : {1.0, 100.0, 1e6}) {
    const MotionState m = move_particle({0, 0}, {100, 100}, {0, -10}, -5, t);
    CHECK(std::isfinite(m.position.x));
    CHECK(std::isfinite(m.position.y));
    CHECK(std::isfinite(m.velocity.x));
  }
}
