// Collisions in closed form (model.md 9.7): impacts found exactly, against an
// analytic bounce and a fine brute-force search; no particle on the wrong
// side; energy never grows; responses; load errors.
#include "spritz/collision.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/write.h"

using namespace spritz;

namespace {

Collider line(Vec2 point, Vec2 normal) {
  Collider c;
  c.kind = ColliderKind::kLine;
  c.point = point;
  const double l = length(normal);
  c.normal = c.normal_written = normal * (1 / l);
  return c;
}

Collider circle(Vec2 centre, double r, bool inside) {
  Collider c;
  c.kind = ColliderKind::kCircle;
  c.point = centre;
  c.radius = r;
  c.inside = inside;
  return c;
}

Collider box(Vec2 centre, Vec2 size, bool inside) {
  Collider c;
  c.kind = ColliderKind::kBox;
  c.point = centre;
  c.half = size * 0.5;
  c.inside = inside;
  return c;
}

// Deterministic numbers in [0, 1) for the property tests.
struct Rolls {
  uint32_t s;
  uint32_t n = 0;
  double next() { return unit(particle_stream(s, n++), Channel::kSpeed); }
  double in(double lo, double hi) { return lo + (hi - lo) * next(); }
};

// A random start on the allowed side of every collider of `c`.
struct Start {
  Vec2 p, v, a;
  double k;
};
Start random_start(const Collision& c, Rolls& r, bool drag) {
  for (;;) {
    Start s{{r.in(-90, 90), r.in(-90, 90)},
            {r.in(-300, 300), r.in(-300, 300)},
            {r.in(-200, 200), r.in(-500, 100)},
            drag ? r.in(0.2, 3) : 0.0};
    bool ok = true;
    for (const Collider& k : c.colliders) ok = ok && collider_distance(k, s.p) > 0.5;
    if (ok) return s;
  }
}

// The scenes the property tests run: each collider kind and side, alone and
// together.
std::vector<Collision> scenes() {
  std::vector<Collision> out;
  const auto add = [&](std::vector<Collider> cs, double e, double f) {
    Collision c;
    c.restitution = e;
    c.friction = f;
    c.max_bounces = 12;
    c.rest_speed_px_per_s = 0.5;
    c.colliders = std::move(cs);
    out.push_back(c);
  };
  add({line({0, -100}, {0, 1})}, 0.7, 0.1);
  add({line({0, -60}, {0.3, 1}), line({80, 0}, {-1, 0.2})}, 0.9, 0);
  add({circle({20, -30}, 40, false)}, 0.8, 0.2);
  add({circle({0, 0}, 100, true)}, 1, 0);
  add({box({0, 0}, {200, 180}, true)}, 0.6, 0.05);
  add({box({10, -40}, {60, 30}, false), line({0, -110}, {0, 1})}, 0.5, 0.3);
  add({box({0, 0}, {220, 220}, true), circle({30, 30}, 25, false),
       box({-40, -50}, {30, 30}, false)},
      0.75, 0.1);
  return out;
}

}  // namespace

TEST_CASE("a ball dropped on a line bounces at the heights e^2n h", "[collision]") {
  // Dropped from h = 100 onto y = 0 under g = 400 without drag: it lands at
  // speed v = sqrt(2 g h); after impact n it leaves at e^n v and rises to
  // e^(2n) h, landing again 2 e^n v / g later.
  const double h = 100, g = 400, e = 0.6;
  Collision c;
  c.restitution = e;
  c.max_bounces = 20;
  c.rest_speed_px_per_s = 0;
  c.colliders = {line({0, 0}, {0, 1})};
  Flight f(c, {0, h}, {0, 0}, {0, -g}, 0, 100);
  const double v = std::sqrt(2 * g * h);
  double t = std::sqrt(2 * h / g);
  for (int n = 1; n <= 12; ++n) {
    const Impact* im = f.next_impact();
    REQUIRE(im);
    CHECK(im->age_s == Approx(t).epsilon(1e-12));
    CHECK(std::abs(im->position.y) < 1e-9);
    CHECK(im->velocity_out.y == Approx(std::pow(e, n) * v).epsilon(1e-12));
    f.take();
    const double apex = im->age_s + std::pow(e, n) * v / g;
    CHECK(f.at(apex).position.y == Approx(std::pow(e, 2 * n) * h).epsilon(1e-9));
    t += 2 * std::pow(e, n) * v / g;
  }
}

TEST_CASE("impacts agree with a fine brute-force search", "[collision]") {
  // For each flight: sample the signed distance at 200,000 ages; the first
  // sample on the wrong side (below -1e-9 px), refined by bisection, is the
  // brute-force impact. The closed-form search must find the same impact
  // (within 1e-9 s) and never one later; where the brute force sees none, a
  // grazing contact it stepped over may still be found, and must then be a
  // real contact (distance within 1e-6 px).
  int compared = 0;
  for (bool drag : {false, true}) {
    uint32_t seed = 1;
    for (const Collision& c : scenes()) {
      Rolls r{seed++ * 7919u + (drag ? 1000u : 0u)};
      for (int trial = 0; trial < 40; ++trial) {
        const Start s = random_start(c, r, drag);
        const double life = 3;
        Flight f(c, s.p, s.v, s.a, s.k, life);
        const Impact* im = f.next_impact();
        const auto wrong = [&](double t) {
          const Vec2 p = move_particle(s.p, s.v, s.a, s.k, t).position;
          double d = 1e300;
          for (const Collider& k : c.colliders) d = std::min(d, collider_distance(k, p));
          return d;
        };
        const int steps = 200000;
        double brute = -1;
        for (int i = 1; i <= steps; ++i) {
          const double t = life * i / steps;
          if (wrong(t) < -1e-9) {
            double lo = life * (i - 1) / steps, hi = t;
            for (int j = 0; j < 200; ++j) {
              const double mid = 0.5 * (lo + hi);
              (wrong(mid) >= 0 ? lo : hi) = mid;
            }
            brute = lo;
            break;
          }
        }
        if (brute >= 0) {
          REQUIRE(im);
          CHECK(im->age_s == Approx(brute).margin(1e-9));
          ++compared;
        } else if (im) {
          CHECK(std::abs(wrong(im->age_s)) < 1e-6);
        }
      }
    }
  }
  CHECK(compared > 300);
}

TEST_CASE("no particle is on the wrong side of a collider at a million sampled ages",
          "[collision]") {
  double worst = 0;
  int64_t samples = 0, impacts = 0;
  uint32_t seed = 99;
  for (const Collision& c : scenes()) {
    for (bool drag : {false, true}) {
      Rolls r{seed++};
      for (int trial = 0; trial < 100; ++trial) {
        const Start s = random_start(c, r, drag);
        for (int i = 0; i < 715; ++i) {
          const double age = r.in(0, 4);
          const CollidedMotion m = collide(c, s.p, s.v, s.a, s.k, 4, age);
          REQUIRE(m.alive);
          impacts += m.impacts;
          for (const Collider& k : c.colliders)
            worst = std::min(worst, collider_distance(k, m.m.position));
          ++samples;
        }
      }
    }
  }
  CHECK(samples >= 1000000);
  CHECK(impacts > samples);  // most samples are after several impacts
  CHECK(worst > -1e-9);      // rounding of the closed form only: far inside the contact tolerance
}

TEST_CASE("energy never grows with restitution <= 1 and friction >= 0", "[collision]") {
  // Without drag, E = |v|^2 / 2 - a.p is constant in flight; an impact can
  // only take energy away.
  uint32_t seed = 5;
  for (const Collision& c : scenes()) {
    Rolls r{seed++};
    for (int trial = 0; trial < 50; ++trial) {
      const Start s = random_start(c, r, false);
      Flight f(c, s.p, s.v, s.a, 0, 5);
      const auto energy = [&](Vec2 p, Vec2 v) { return 0.5 * dot(v, v) - dot(s.a, p); };
      double last = energy(s.p, s.v);
      while (const Impact* im = f.next_impact()) {
        const double before = energy(im->position, im->velocity_in);
        const double after = energy(im->position, im->velocity_out);
        CHECK(before == Approx(last).epsilon(1e-7).margin(1e-6));
        CHECK(after <= before + 1e-9 * (1 + std::abs(before)));
        last = after;
        f.take();
      }
    }
  }
}

TEST_CASE("a box's corners and grazing contacts keep the particle outside", "[collision]") {
  Collision c;
  c.restitution = 1;
  c.colliders = {box({0, 0}, {100, 100}, false)};
  // Flying left at the height of the top face: above it (by more than the
  // contact tolerance) it misses; at it, or within the tolerance, or below,
  // it hits the +x face at x = 50 (t = 0.5), the corner included.
  for (double off : {1e-3, 1e-9, 0.0, -1e-9, -1.0}) {
    Flight f(c, {100, 50 + off}, {-100, 0}, {0, 0}, 0, 3);
    const Impact* im = f.next_impact();
    if (off > 1e-7) {
      CHECK_FALSE(im);
    } else {
      REQUIRE(im);
      CHECK(im->age_s == Approx(0.5).margin(1e-12));
      CHECK(im->normal.x == 1);
      f.take();
    }
    for (int i = 0; i <= 300; ++i)
      CHECK(collider_distance(c.colliders[0], f.at(std::max(0.5, i * 0.01)).position) > -1e-9);
  }
  // Aimed along the diagonal at the corner: the +x face takes it.
  Flight diag(c, {100, 100}, {-100, -100}, {0, 0}, 0, 3);
  const Impact* im = diag.next_impact();
  REQUIRE(im);
  CHECK(im->age_s == Approx(0.5).margin(1e-12));
  diag.take();
  for (int i = 50; i <= 300; ++i)
    CHECK(collider_distance(c.colliders[0], diag.at(i * 0.01).position) > -1e-9);
  // Grazing a circle: a straight path that touches it at one point is no
  // impact, and the search's work stays bounded there.
  Collision g;
  g.colliders = {circle({0, 0}, 50, false)};
  CHECK_FALSE(Flight(g, {-100, 50}, {100, 0}, {0, 0}, 0, 2).next_impact());
  for (int i = 0; i <= 2000; ++i) {
    const CollidedMotion m = collide(g, {-100, 50}, {100, 0}, {0, 0}, 0, 2, i * 0.001);
    CHECK(collider_distance(g.colliders[0], m.m.position) > -1e-9);
  }
}

TEST_CASE("stop rests at the impact, kill ends the particle there", "[collision]") {
  Collision c;
  c.colliders = {line({0, 0}, {0, 1})};
  c.response = CollisionResponse::kStop;
  // Thrown sideways from y = 100 under g = 200: lands at t = 1, x = 50.
  const CollidedMotion before = collide(c, {0, 100}, {50, 0}, {0, -200}, 0, 5, 0.999);
  CHECK(before.impacts == 0);
  const CollidedMotion rest = collide(c, {0, 100}, {50, 0}, {0, -200}, 0, 5, 3);
  CHECK(rest.alive);
  CHECK(rest.impacts == 1);
  CHECK(rest.resting);
  CHECK(rest.m.position.x == Approx(50).epsilon(1e-12));
  CHECK(std::abs(rest.m.position.y) < 1e-9);
  CHECK(rest.m.velocity.x == 0);
  CHECK(rest.m.velocity.y == 0);
  CHECK(rest.heading.x > 0);  // it skidded along +x
  CHECK(rest.heading.y == 0);
  c.response = CollisionResponse::kKill;
  CHECK(collide(c, {0, 100}, {50, 0}, {0, -200}, 0, 5, 0.999).alive);
  CHECK_FALSE(collide(c, {0, 100}, {50, 0}, {0, -200}, 0, 5, 1.0).alive);
  CHECK_FALSE(collide(c, {0, 100}, {50, 0}, {0, -200}, 0, 5, 3).alive);
}

TEST_CASE("a bouncing particle rests after max_bounces or below the rest speed", "[collision]") {
  Collision c;
  c.colliders = {line({0, 0}, {0, 1})};
  c.restitution = 0.5;
  c.max_bounces = 3;
  c.rest_speed_px_per_s = 0;
  const CollidedMotion m = collide(c, {0, 100}, {10, 0}, {0, -400}, 0, 100, 50);
  CHECK(m.impacts == 3);
  CHECK(m.resting);
  c.max_bounces = 1000;
  c.rest_speed_px_per_s = 20;  // v = 282.8 px/s: e^n v < 20 from n = 4
  const CollidedMotion r = collide(c, {0, 100}, {0, 0}, {0, -400}, 0, 100, 50);
  CHECK(r.impacts == 4);
  CHECK(r.resting);
}

TEST_CASE("a particle born inside a solid collider never lives", "[collision]") {
  Collision c;
  c.colliders = {circle({0, 0}, 30, false)};
  CHECK_FALSE(collide(c, {10, 0}, {0, 100}, {0, 0}, 0, 5, 0).alive);
  CHECK_FALSE(collide(c, {10, 0}, {0, 100}, {0, 0}, 0, 5, 2).alive);
  // On the surface (within the contact tolerance) is not inside: moving in,
  // it bounces at once.
  const CollidedMotion on = collide(c, {30 - 1e-9, 0}, {-10, 0}, {0, 0}, 0, 5, 1);
  CHECK(on.alive);
  CHECK(on.impacts == 1);
  CHECK(on.m.position.x > 30);
}

TEST_CASE("with drag the impacts are exact too", "[collision]") {
  // Straight down onto y = 0 from y = 50 at 100 px/s with drag 2 and no
  // gravity: y(t) = 50 - 100 (1 - e^(-2t)) / 2 reaches 0 at e^(-2t) = 0, so
  // never; from 40 at t = ln(5) / 2.
  Collision c;
  c.colliders = {line({0, 0}, {0, 1})};
  c.restitution = 1;
  CHECK_FALSE(Flight(c, {0, 50}, {0, -100}, {0, 0}, 2, 100).next_impact());
  Flight f(c, {0, 40}, {0, -100}, {0, 0}, 2, 100);
  const Impact* im = f.next_impact();
  REQUIRE(im);
  CHECK(im->age_s == Approx(std::log(5.0) / 2).epsilon(1e-13));
  CHECK(im->velocity_in.y == Approx(-20).epsilon(1e-11));
}

TEST_CASE("an impact has the same bits whatever horizon it was asked for", "[collision]") {
  // The search skips solving for roots surely after the horizon; a root it
  // does solve is bracketed the same way, so an evaluation at any age sees
  // the very impacts a full search finds.
  uint32_t seed = 77;
  int compared = 0;
  for (const Collision& c : scenes()) {
    for (bool drag : {false, true}) {
      Rolls r{seed++};
      for (int trial = 0; trial < 30; ++trial) {
        const Start s = random_start(c, r, drag);
        Flight full(c, s.p, s.v, s.a, s.k, 4);
        std::vector<Impact> truth;
        while (const Impact* im = full.next_impact()) {
          truth.push_back(*im);
          full.take();
        }
        for (int q = 0; q < 8; ++q) {
          const double horizon = r.in(0, 4);
          Flight f(c, s.p, s.v, s.a, s.k, 4);
          size_t n = 0;
          while (const Impact* im = f.next_impact(horizon)) {
            if (im->age_s > horizon) break;
            REQUIRE(n < truth.size());
            CHECK(std::memcmp(&im->age_s, &truth[n].age_s, sizeof(double)) == 0);
            CHECK(std::memcmp(&im->position, &truth[n].position, sizeof(Vec2)) == 0);
            CHECK(std::memcmp(&im->velocity_out, &truth[n].velocity_out, sizeof(Vec2)) == 0);
            f.take();
            ++n;
            ++compared;
          }
          // Every impact by the horizon was found, and the next is after it.
          CHECK((n == truth.size() || truth[n].age_s > horizon));
        }
      }
    }
  }
  CHECK(compared > 500);
}
