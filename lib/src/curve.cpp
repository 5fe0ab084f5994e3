#include "spritz/curve.h"

#include <algorithm>

namespace spritz {
namespace {

// Finds the segment [t[k], t[k+1]] holding tau and the blend factor within it.
// A linear scan beats binary search for at most 20 keys.
template <typename Keys>
int find_segment(const Keys& t, int count, double tau, double* f) {
  if (count <= 1 || tau <= t[0]) {
    *f = 0;
    return 0;
  }
  if (tau >= t[count - 1]) {
    *f = 1;
    return count - 2;
  }
  int k = 0;
  while (k + 2 < count && tau >= t[k + 1]) ++k;
  *f = (tau - t[k]) / (t[k + 1] - t[k]);
  return k;
}

double lerp(double a, double b, double f) {
  return a + (b - a) * f;
}

}  // namespace

Curve Curve::constant(double v) {
  Curve c;
  c.value[0] = v;
  return c;
}

Curve Curve::line(double from, double to) {
  Curve c;
  c.count = 2;
  c.t[1] = 1;
  c.value[0] = from;
  c.value[1] = to;
  return c;
}

bool Curve::has_envelope() const {
  return std::any_of(envelope.begin(), envelope.begin() + count, [](double e) { return e != 0; });
}

double Curve::evaluate(double tau, double eps) const {
  if (count == 1) return value[0] + envelope[0] * eps;
  double f;
  const int k = find_segment(t, count, tau, &f);
  return lerp(value[k], value[k + 1], f) + lerp(envelope[k], envelope[k + 1], f) * eps;
}

int Curve::segment(double tau, double* f) const {
  return find_segment(t, count, tau, f);
}

double Curve::slope(double tau, double eps) const {
  for (int k = 0; k + 1 < count; ++k)
    if (tau >= t[k] && tau < t[k + 1])
      return ((value[k + 1] - value[k]) + (envelope[k + 1] - envelope[k]) * eps) /
             (t[k + 1] - t[k]);
  return 0;
}

double Curve::slope_from_below(double tau, double eps) const {
  for (int k = 0; k + 1 < count; ++k)
    if (tau > t[k] && tau <= t[k + 1])
      return ((value[k + 1] - value[k]) + (envelope[k + 1] - envelope[k]) * eps) /
             (t[k + 1] - t[k]);
  return 0;
}

double Curve::max_value() const {
  double m = value[0] + std::abs(envelope[0]);
  for (int k = 1; k < count; ++k) m = std::max(m, value[k] + std::abs(envelope[k]));
  return m;
}

double Curve::min_value() const {
  double m = value[0] - std::abs(envelope[0]);
  for (int k = 1; k < count; ++k) m = std::min(m, value[k] - std::abs(envelope[k]));
  return m;
}

ColorCurve ColorCurve::constant(Rgb srgb) {
  ColorCurve c;
  c.srgb[0] = srgb;
  return c;
}

bool ColorCurve::has_envelope() const {
  return std::any_of(envelope.begin(), envelope.begin() + count, [](double e) { return e != 0; });
}

Rgb ColorCurve::evaluate(double tau, double eps) const {
  Rgb c;
  double e;
  if (count == 1) {
    c = srgb[0];
    e = envelope[0];
  } else {
    double f;
    const int k = find_segment(t, count, tau, &f);
    c = {lerp(srgb[k].r, srgb[k + 1].r, f), lerp(srgb[k].g, srgb[k + 1].g, f),
         lerp(srgb[k].b, srgb[k + 1].b, f)};
    e = lerp(envelope[k], envelope[k + 1], f);
  }
  if (e != 0) {
    c.r = std::clamp(c.r + e * eps, 0.0, 1.0);
    c.g = std::clamp(c.g + e * eps, 0.0, 1.0);
    c.b = std::clamp(c.b + e * eps, 0.0, 1.0);
  }
  return c;
}

}  // namespace spritz
