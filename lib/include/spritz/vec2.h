// A 2D vector in design pixels, y up.
#pragma once

#include <cmath>

#include "spritz/angle.h"
#include "spritz/elementary.h"

namespace spritz {

struct Vec2 {
  double x = 0, y = 0;
};

inline Vec2 operator+(Vec2 a, Vec2 b) {
  return {a.x + b.x, a.y + b.y};
}
inline Vec2 operator-(Vec2 a, Vec2 b) {
  return {a.x - b.x, a.y - b.y};
}
inline Vec2 operator*(Vec2 a, double s) {
  return {a.x * s, a.y * s};
}
inline Vec2 operator*(double s, Vec2 a) {
  return {a.x * s, a.y * s};
}
inline double dot(Vec2 a, Vec2 b) {
  return a.x * b.x + a.y * b.y;
}
inline double length(Vec2 a) {
  return std::sqrt(dot(a, a));
}

// Counter-clockwise rotation by `angle_rad` (y up).
inline Vec2 rotate(Vec2 a, double angle_rad) {
  double c, s;
  math::sincos(angle_rad, &s, &c);
  return {a.x * c - a.y * s, a.x * s + a.y * c};
}

// Unit vector at `angle_deg` counter-clockwise from +x (90 = up).
inline Vec2 direction_from_degrees(double angle_deg) {
  double c, s;
  math::sincos(angle_deg * kDegToRad, &s, &c);
  return {c, s};
}

}  // namespace spritz
