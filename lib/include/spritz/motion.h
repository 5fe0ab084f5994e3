// Closed-form motion under constant acceleration and linear drag (model.md 6).
#pragma once

#include <algorithm>
#include <cmath>

#include "spritz/elementary.h"
#include "spritz/vec2.h"

namespace spritz {

struct MotionState {
  Vec2 position;
  Vec2 velocity;
};

inline constexpr double kSmallDrag = 1e-4;        // below this, use the drag-free limit
inline constexpr double kDragExponentLimit = 60;  // clamp of -k t: finite even for negative drag

// dv/dt = a - k v solved exactly. With v_inf = a / k and
// sigma(t) = (1 - e^(-k t)) / k:
//   v(t) = v_inf + (v0 - v_inf) e^(-k t)
//   p(t) = p0 + v_inf t + (v0 - v_inf) sigma(t)
// and p0 + v0 t + a t^2 / 2 when |k| < 1e-4 (the two agree in the limit).
inline MotionState move_particle(Vec2 p0, Vec2 v0, Vec2 accel, double drag, double t) {
  if (std::abs(drag) < kSmallDrag) {
    return {p0 + v0 * t + accel * (0.5 * t * t), v0 + accel * t};
  }
  const double e = math::exp(std::clamp(-drag * t, -kDragExponentLimit, kDragExponentLimit));
  const Vec2 v_inf = accel * (1.0 / drag);
  const double sigma = (1 - e) / drag;
  return {p0 + v_inf * t + (v0 - v_inf) * sigma, v_inf + (v0 - v_inf) * e};
}

}  // namespace spritz
