// A particle's place and velocity at any age (docs/model.md 5, 6, 9.1, 9.3,
// 9.6): its start on the emission shape, closed-form motion, the path, the
// parent of a sub-emitter's child, and turbulence. Inline: evaluation calls
// it for every particle and trail ghost, and a call across files costs
// measurably there.
#pragma once

#include <algorithm>
#include <cmath>

#include "eval_detail.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz::detail {
namespace motion_constants {

inline constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

}  // namespace motion_constants

// model.md 5, 6 and 9: where the particle with stream `st` born at
// `birth_s` is at `clock`, and its velocity, for any age (a parent's place at
// its death too). A sub-emitter's child starts at its parent's place and adds
// inherit_velocity times its parent's velocity. Turbulence adds
// A(tau) noise(p0 f, age speed + phase unit(st, 16)), p0 being the start
// point in the frame the particle moves in (a local-space particle's, without
// the path), and its time derivative to the velocity.
//
// `at_death` asks for the state at the particle's death (a sub-emitter's
// parent, model.md 9.3): its velocity is the limit from below, whichever side
// of 1 age / life rounds to. The amplitude's slope there is the last
// segment's, and A = max(A_raw, 0) has the left derivative A_raw'(1) when
// A_raw(1) > 0, min(A_raw'(1), 0) when A_raw(1) = 0, and 0 below.
inline MotionState particle_motion(const Emitter& em, uint32_t st, double birth_s, double clock,
                                   const ParentState* parent = nullptr, bool at_death = false) {
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
  const double age = clock - birth_s;
  MotionState m = move_particle(start, v0, em.acceleration, em.drag_per_s, age);
  if (em.turbulence.enabled) {
    const Turbulence& tb = em.turbulence;
    const bool riding = !parent && !em.path.empty() && em.space == Space::kLocal;
    const Vec2 p0 = riding ? em.position + s.offset : start;
    const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
    const double tau = life > 0 ? age / life : 0;
    const double eps =
        tb.amplitude_has_envelope ? 2 * unit(st, Channel::kTurbulenceEnvelope) - 1 : 0.0;
    const double a_raw = tb.amplitude.evaluate(tau, eps);
    const double a = std::max(a_raw, 0.0);
    const double z =
        age * tb.speed + (tb.phase != 0 ? tb.phase * unit(st, Channel::kNoisePhase) : 0);
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
  return m;
}

}  // namespace spritz::detail
