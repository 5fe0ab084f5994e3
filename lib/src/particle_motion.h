// A particle's place and velocity at any age (docs/model.md 5, 6, 9.1, 9.3,
// 9.6): its start on the emission shape, closed-form motion, the path, the
// parent of a sub-emitter's child, and turbulence. Inline: evaluation calls
// it for every particle and trail ghost, and a call across files costs
// measurably there.
#pragma once

#include <algorithm>
#include <cmath>

#include "eval_detail.h"
#include "spritz/angle.h"
#include "spritz/collision.h"
#include "spritz/elementary.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz::detail {
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
  const double spread = (2 * unit(st, Channel::kSpread) - 1) * em.spread_deg * kDegToRad;
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

// model.md 6.1: gravity, drag and the radial, tangential and linear
// accelerations integrated from birth by semi-implicit Euler with the
// emitter's step h: floor(age / h) whole steps, then one of the remaining
// age. Each step takes the unit vector r from the origin before it (0 at the
// origin), t = r turned a quarter counter-clockwise and the unit velocity
// vh (0 at rest), then v += (g + a_r r + a_t t + a_l vh - k v) dt and
// p += v dt. With acceleration curves, a_r, a_t and a_l are first scaled by
// their curves at the age the step reaches over the particle's life, as
// Godot reads its curve textures after advancing a particle's age. The same
// age always takes the same steps: a pure function.
inline MotionState integrate_forces(const Emitter& em, uint32_t st, Vec2 origin, Vec2 start,
                                    Vec2 v0, double age) {
  const Forces& f = em.forces;
  const double ar0 = f.radial.at(unit(st, Channel::kRadialAcceleration));
  const double at0 = f.tangential.at(unit(st, Channel::kTangentialAcceleration));
  const double al0 = f.linear.at(unit(st, Channel::kLinearAcceleration));
  const double d = f.damping.at(unit(st, Channel::kDamping));
  const double w = f.orbit_velocity.at(unit(st, Channel::kOrbitVelocity)) * kDegToRad;
  const bool curved = f.any_curve();
  const double life = curved ? em.lifetime_s.at(unit(st, Channel::kLifetime)) : 0;
  const Vec2 g = em.acceleration;
  const double k = em.drag_per_s, h = f.step_s;
  Vec2 p = start - origin, v = v0;
  double reached = 0;  // the age the steps have reached (what the curves read)
  const auto factor = [&](Forces::CurveOf c, double tau) {
    const auto i = static_cast<size_t>(c);
    return f.curved[i] ? f.curves[i].evaluate(tau, 0) : 1.0;
  };
  // model.md 6.3, 6.4: damping takes d dt off the speed (stopping at 0) and
  // the orbit turns the offset by w dt, in the same step.
  const auto step = [&](double dt) {
    double ar = ar0, at = at0, al = al0;
    if (curved) {
      reached += dt;
      const double tau = life > 0 ? reached / life : 0;
      ar *= factor(Forces::kRadialCurve, tau);
      at *= factor(Forces::kTangentialCurve, tau);
      al *= factor(Forces::kLinearCurve, tau);
    }
    const double r = std::sqrt(p.x * p.x + p.y * p.y);
    const Vec2 rh = r > 0 ? p * (1 / r) : Vec2{0, 0};
    const Vec2 th{-rh.y, rh.x};
    Vec2 a = g + rh * ar + th * at;
    if (al != 0) {  // (skipped at 0: the same operations, so the same bits, as before it)
      const double s = std::sqrt(v.x * v.x + v.y * v.y);
      if (s > 0) a = a + v * (al / s);
    }
    v = v + (a - v * k) * dt;
    if (d != 0) {
      const double s = std::sqrt(v.x * v.x + v.y * v.y);
      v = s > 0 ? v * (std::max(s - d * dt, 0.0) / s) : v;
    }
    if (w != 0) p = rotate(p, w * dt);
    p = p + v * dt;
  };
  const double whole = std::floor(age / h);
  const auto n = static_cast<int64_t>(whole);
  for (int64_t i = 0; i < n; ++i) step(h);
  const double rest = age - whole * h;
  if (rest > 0) step(rest);
  return {origin + p, v};
}

// model.md 6.3: linear damping alone (no acceleration, drag or orbit
// velocity): the speed s0 falls by d per second along the launch direction
// and stops at T = s0 / d.
inline MotionState damped_motion(const Emitter& em, uint32_t st, Vec2 start, Vec2 v0, double age) {
  const double d = em.forces.damping.at(unit(st, Channel::kDamping));
  const double s0 = std::sqrt(v0.x * v0.x + v0.y * v0.y);
  if (s0 == 0) return {start, {0, 0}};
  const Vec2 dir = v0 * (1 / s0);
  const double t = d > 0 ? std::min(age, s0 / d) : age;
  return {start + dir * (s0 * t - 0.5 * d * t * t), dir * (s0 - d * t)};
}

// The integrals of the rotation R(-w s) over [0, t], and of s R(-w s): with
// x = w t, I0 = (int cos, int sin) and I1 = (int s cos, int s sin). Series
// below |x| = 1 (the direct forms cancel there), exact forms above.
struct RotationIntegrals {
  double c0, s0, c1, s1;
};
inline RotationIntegrals rotation_integrals(double w, double t) {
  const double x = w * t;
  if (std::abs(x) < 1) {
    // c0 = t sum (-1)^n x^2n / (2n+1)!      s0 = t sum (-1)^n x^(2n+1) / (2n+2)!
    // c1 = t^2 sum (-1)^n x^2n / ((2n)! (2n+2))   s1 = t^2 sum (-1)^n x^(2n+1) / ((2n+1)! (2n+3))
    double c0 = 0, s0 = 0, c1 = 0, s1 = 0, fact = 1, pw = 1;  // fact = (2n)!, pw = x^2n
    for (int n = 0; n < 12; ++n) {
      const double sign = (n % 2) ? -1.0 : 1.0;
      const double f1 = fact * (2 * n + 1), f2 = f1 * (2 * n + 2);
      c0 += sign * pw / f1;
      s0 += sign * pw * x / f2;
      c1 += sign * pw / (fact * (2 * n + 2));
      s1 += sign * pw * x / (f1 * (2 * n + 3));
      fact = f2;
      pw *= x * x;
    }
    return {t * c0, t * s0, t * t * c1, t * t * s1};
  }
  const double c = math::cos(x), sn = math::sin(x), half = math::sin(x / 2);
  return {sn / w, 2 * half * half / w, -2 * half * half / (w * w) + t * sn / w,
          sn / (w * w) - t * c / w};
}

// model.md 6.4: orbit velocity w with constant acceleration a and no drag:
// dp/dt = v0 + a t + w J (p - o) solves in the turning frame as
// p - o = R(w t) [(p0 - o) + I0(v0) + I1(a)], with I the integrals of
// R(-w s) and s R(-w s) applied to the vectors.
inline MotionState orbit_velocity_motion(const Emitter& em, uint32_t st, Vec2 origin, Vec2 start,
                                         Vec2 v0, double age) {
  const double w = em.forces.orbit_velocity.at(unit(st, Channel::kOrbitVelocity)) * kDegToRad;
  const Vec2 a = em.acceleration;
  const Vec2 q0 = start - origin;
  if (w == 0) return {start + v0 * age + a * (0.5 * age * age), v0 + a * age};
  const RotationIntegrals r = rotation_integrals(w, age);
  // R(-w s) (x, y) = (c x + s y, -s x + c y).
  const auto apply = [](double c, double sn, Vec2 u) {
    return Vec2{c * u.x + sn * u.y, -sn * u.x + c * u.y};
  };
  const Vec2 q = q0 + apply(r.c0, r.s0, v0) + apply(r.c1, r.s1, a);
  const Vec2 rel = rotate(q, w * age);
  const Vec2 v = v0 + a * age + Vec2{-rel.y, rel.x} * w;
  return {origin + rel, v};
}

// model.md 6.2: orbit motion about the origin (the start point, shape
// offset included): radius lerp(R0, R1, tau), angle theta0 + omega age, and
// the velocity its exact derivative.
inline MotionState orbit_motion(const Emitter& em, uint32_t st, Vec2 centre, Vec2 dir, double age) {
  const Orbit& o = em.orbit;
  const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
  const double r0 = o.radius.at(unit(st, Channel::kOrbitRadius));
  const double r1 = o.has_radius_end ? o.radius_end.at(unit(st, Channel::kOrbitRadiusEnd)) : r0;
  const double w = o.angular_speed_deg_per_s.at(unit(st, Channel::kOrbitAngularSpeed)) * kDegToRad;
  const double tau = life > 0 ? age / life : 0;
  const double r = r0 + (r1 - r0) * tau;
  const double dr = life > 0 ? (r1 - r0) / life : 0;
  const double phi = math::atan2(dir.y, dir.x) + w * age;
  Vec2 u;
  math::sincos(phi, &u.y, &u.x);
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
  } else if (integrated_motion(em)) {
    out.m = integrate_forces(em, st, l.origin, l.start, l.v0, age);
  } else if (em.forces.has_damping()) {
    out.m = damped_motion(em, st, l.start, l.v0, age);
  } else if (em.forces.has_orbit_velocity()) {
    out.m = orbit_velocity_motion(em, st, l.origin, l.start, l.v0, age);
  } else {
    out.m = move_particle(l.start, l.v0, em.acceleration, em.drag_per_s, age);
  }
  if (em.turbulence.enabled) add_turbulence(em, st, l.noise_origin, age, at_death, out.m);
  if (!resting) out.heading = out.m.velocity;
  return out;
}

}  // namespace spritz::detail
