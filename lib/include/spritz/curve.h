// Keypoint curves (model.md 7.1, 7.2), flattened once at load into fixed
// arrays and read by a linear scan at tau = age / life.
#pragma once

#include <array>

#include "spritz/color.h"

namespace spritz {

inline constexpr int kMaxCurveKeys = 20;

// A number curve with an optional envelope per keypoint.
// value(tau, eps) = S_bar(tau) + E(tau) * eps, with eps in [-1, 1].
struct Curve {
  int count = 1;
  std::array<double, kMaxCurveKeys> t{};
  std::array<double, kMaxCurveKeys> value{};
  std::array<double, kMaxCurveKeys> envelope{};

  static Curve constant(double v);
  static Curve line(double from, double to);  // [[0, from], [1, to]]
  bool has_envelope() const;
  double evaluate(double tau, double eps) const;
  // The segment [t[k], t[k+1]] holding tau (k = 0 with f = 0 before the
  // first key or for one key, the last with f = 1 after the last), and the
  // blend factor f within it.
  int segment(double tau, double* f) const;
  // d value(tau, eps) / d tau: the slope of the segment [t[k], t[k+1])
  // holding tau, 0 where the curve is held (before the first key, from the
  // last on).
  double slope(double tau, double eps) const;
  // The slope from below: that of the segment (t[k], t[k+1]] holding tau, 0
  // where the curve is held (up to the first key, past the last). At tau = 1
  // it is the last segment's slope, the limit as the particle nears its death.
  double slope_from_below(double tau, double eps) const;
  // Largest value the curve can take for any tau and eps (for sizing textures).
  double max_value() const;
  // Smallest value the curve can take for any tau and eps.
  double min_value() const;
};

// A colour curve: keypoints in sRGB, interpolated in sRGB (as authors see
// them). The optional envelope is a +- band applied to all three channels with
// one roll (channel kColorEnvelope), clamped to [0, 1].
struct ColorCurve {
  int count = 1;
  std::array<double, kMaxCurveKeys> t{};
  std::array<Rgb, kMaxCurveKeys> srgb{};
  std::array<double, kMaxCurveKeys> envelope{};

  static ColorCurve constant(Rgb srgb);
  bool has_envelope() const;
  Rgb evaluate(double tau, double eps) const;
};

}  // namespace spritz
