// A particle's place and velocity at any age (docs/model.md 5, 6, 9.1, 9.3,
// 9.6): its start on the emission shape, closed-form motion, the path, the
// parent of a sub-emitter's child, and turbulence. Inline: evaluation calls
// it for every particle and trail ghost, and a call across files costs
// measurably there.
#pragma once

#include <algorithm>
#include <cmath>

#include "eval_detail.h"
#include "spritz/collision.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz::detail {
namespace motion_constants {

inline constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

}  // namespace motion_constants

// Where a particle starts (model.md 5, 9.1, 9.3): its place, its initial
// velocity and the point turbulence reads the noise at (the start point in
// the frame the particle moves in: a local-space particle's, without the path).
struct Launch {
  Vec2 start, v0, noise_origin;
  Vec2 origin;  // the shape's centre: what forces turn about
  Vec2 v0_dir;  // the launch direction (unit), what an orbit starts along
};

inline Launch launch(const Emitter& em, uint32_t st, double birth_s, double clock,
                     const ParentState* parent) {
  const ShapeSample s = sample_shape(em.shape, em.direction, unit(st, Channel::kShapeU),
                                     unit(st, Channel::kShapeV), unit(st, Channel::kInOutCoin));
  const double spread =
      (2 * unit(st, Channel::kSpread) - 1) * em.spread_deg * motion_constants::kDegToRad;
  const Vec2 dir = em.spread_deg != 0 ? rotate(s.normal, spread) : s.normal;
  const double speed = em.speed_px_per_s.at(unit(st, Channel::kSpeed));
  Vec2 origin = em.position;
  Vec2 v0 = dir * speed;
  if (parent) {
    origin = origin + parent->position;
    if (em.inherit_velocity != 0) v0 = v0 + parent->velocity * em.inherit_velocity;
  } else if (!em.path.empty()) {
    origin = origin + em.path.at(em.space == Space::kLocal ? clock : birth_s);
    if (em.inherit_velocity != 0) v0 = v0 + em.path.velocity(birth_s) * em.inherit_velocity;
  }
  const Vec2 start = origin + s.offset;
  const bool riding = !parent && !em.path.empty() && em.space == Space::kLocal;
  return {start, v0, riding ? em.position + s.offset : start, origin, dir};
}

// model.md 6.1: gravity, drag and the radial and tangential accelerations
// integrated from birth by semi-implicit Euler with the emitter's step h:
// floor(age / h) whole steps, then one of the remaining age. Each step takes
// the unit vector r from the origin before it (0 at the origin), t = r turned
// a quarter counter-clockwise, then v += (g + a_r r + a_t t - k v) dt and
// p += v dt. The same age always takes the same steps: a pure function.
inline MotionState integrate_forces(const Emitter& em, uint32_t st, Vec2 origin, Vec2 start,
                                    Vec2 v0, double age) {
  const double ar = em.forces.radial.at(unit(st, Channel::kRadialAcceleration));
  const double at = em.forces.tangential.at(unit(st, Channel::kTangentialAcceleration));
  const Vec2 g = em.acceleration;
  const double k = em.drag_per_s, h = em.forces.step_s;
  Vec2 p = start - origin, v = v0;
  const auto step = [&](double dt) {
    const double r = std::sqrt(p.x * p.x + p.y * p.y);
    const Vec2 rh = r > 0 ? p * (1 / r) : Vec2{0, 0};
    const Vec2 th{-rh.y, rh.x};
    v = v + (g + rh * ar + th * at - v * k) * dt;
    p = p + v * dt;
  };
  const double whole = std::floor(age / h);
  const auto n = static_cast<int64_t>(whole);
  for (int64_t i = 0; i < n; ++i) step(h);
  const double rest = age - whole * h;
  if (rest > 0) step(rest);
  return {origin + p, v};
}

// model.md 6.2: orbit motion about the origin (the start point, shape
// offset included): radius lerp(R0, R1, tau), angle theta0 + omega age, and
// the velocity its exact derivative.
inline MotionState orbit_motion(const Emitter& em, uint32_t st, Vec2 centre, Vec2 dir, double age) {
  const Orbit& o = em.orbit;
  const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
  const double r0 = o.radius.at(unit(st, Channel::kOrbitRadius));
  const double r1 = o.has_radius_end ? o.radius_end.at(unit(st, Channel::kOrbitRadiusEnd)) : r0;
  const double w = o.angular_speed_deg_per_s.at(unit(st, Channel::kOrbitAngularSpeed)) *
                   motion_constants::kDegToRad;
  const double tau = life > 0 ? age / life : 0;
  const double r = r0 + (r1 - r0) * tau;
  const double dr = life > 0 ? (r1 - r0) / life : 0;
  const double phi = std::atan2(dir.y, dir.x) + w * age;
  const Vec2 u{std::cos(phi), std::sin(phi)};
  const Vec2 n{-u.y, u.x};
  return {centre + u * r, u * dr + n * (r * w)};
}

// Turbulence (model.md 9.6): adds A(tau) noise(p0 f, age speed + phase
// unit(st, 16)) to the position and its time derivative to the velocity.
//
// `at_death` asks for the state at the particle's death (a sub-emitter's
// parent, model.md 9.3): its velocity is the limit from below, whichever side
// of 1 age / life rounds to. The amplitude's slope there is the last
// segment's, and A = max(A_raw, 0) has the left derivative A_raw'(1) when
// A_raw(1) > 0, min(A_raw'(1), 0) when A_raw(1) = 0, and 0 below.
inline void add_turbulence(const Emitter& em, uint32_t st, Vec2 p0, double age, bool at_death,
                           MotionState& m) {
  const Turbulence& tb = em.turbulence;
  const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
  const double tau = life > 0 ? age / life : 0;
  const double eps =
      tb.amplitude_has_envelope ? 2 * unit(st, Channel::kTurbulenceEnvelope) - 1 : 0.0;
  const double a_raw = tb.amplitude.evaluate(tau, eps);
  const double a = std::max(a_raw, 0.0);
  const double z = age * tb.speed + (tb.phase != 0 ? tb.phase * unit(st, Channel::kNoisePhase) : 0);
  const NoiseVector n = noise2(tb.fields, p0 * tb.frequency, z);
  double da = 0;
  if (life > 0 && at_death) {
    const double a1 = tb.amplitude.evaluate(1, eps), s1 = tb.amplitude.slope_from_below(1, eps);
    da = (a1 > 0 ? s1 : a1 == 0 ? std::min(s1, 0.0) : 0.0) / life;
  } else if (life > 0 && a_raw > 0) {
    da = tb.amplitude.slope(tau, eps) / life;
  }
  m.position = m.position + n.value * a;
  m.velocity = m.velocity + n.value * da + n.dz * (a * tb.speed);
}

// A particle's state with what collisions add: the direction orientation
// follows (its velocity, or for a particle resting on a collider the way it
// skidded), its impacts so far, and whether it is alive (a particle killed
// by a collider, or born inside one, is not).
struct ParticleMotion {
  MotionState m;
  Vec2 heading;
  uint32_t impacts = 0;
  bool alive = true;
};

// model.md 5, 6, 9 and 9.7: where the particle with stream `st` born at
// `birth_s` is at `clock`, and its velocity, for any age (a parent's place at
// its death too). A sub-emitter's child starts at its parent's place and adds
// inherit_velocity times its parent's velocity. Collisions act on the
// closed-form motion; turbulence then displaces it.
inline ParticleMotion particle_motion(const Emitter& em, uint32_t st, double birth_s, double clock,
                                      const ParentState* parent = nullptr, bool at_death = false) {
  const Launch l = launch(em, st, birth_s, clock, parent);
  const double age = clock - birth_s;
  ParticleMotion out;
  bool resting = false;
  if (em.collision.enabled()) {
    const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
    const CollidedMotion c =
        collide(em.collision, l.start, l.v0, em.acceleration, em.drag_per_s, life, age);
    out.m = c.m;
    out.heading = c.heading;
    out.impacts = c.impacts;
    out.alive = c.alive;
    resting = c.resting;
  } else if (em.orbit.enabled) {
    out.m = orbit_motion(em, st, l.start, l.v0_dir, age);
  } else if (em.forces.enabled()) {
    out.m = integrate_forces(em, st, l.origin, l.start, l.v0, age);
  } else {
    out.m = move_particle(l.start, l.v0, em.acceleration, em.drag_per_s, age);
  }
  if (em.turbulence.enabled) add_turbulence(em, st, l.noise_origin, age, at_death, out.m);
  if (!resting) out.heading = out.m.velocity;
  return out;
}

}  // namespace spritz::detail
