#include "spritz/shape.h"

#include <cmath>

#include "spritz/angle.h"
#include "spritz/elementary.h"

namespace spritz {

ShapeSample sample_shape(const Shape& shape, Vec2 emitter_dir, double u, double v, double coin) {
  constexpr double kTwoPi = 6.28318530717958647692;
  ShapeSample s;
  s.normal = emitter_dir;
  bool normal_from_shape = false;  // the ellipse's outward normal or a point's
  const double a = shape.a, b = shape.b;
  switch (shape.kind) {
    case ShapeKind::kPoint:
      break;
    case ShapeKind::kBox:
      if (shape.style == ShapeStyle::kVolume) {
        s.offset = {(2 * u - 1) * a, (2 * v - 1) * b};
      } else {
        // Walk the top and right edges by arc length, then v < 0.5 mirrors the
        // point to the opposite edge: equal density per unit length everywhere.
        const double l = u * (2 * a + 2 * b);
        if (l < 2 * a) {
          s.offset = {l - a, b};
          if (v < 0.5) s.offset.y = -s.offset.y;
        } else {
          s.offset = {a, l - 2 * a - b};
          if (v < 0.5) s.offset.x = -s.offset.x;
        }
      }
      break;
    case ShapeKind::kEllipse: {
      const double theta = kTwoPi * u;
      double rho = 1;
      if (shape.style == ShapeStyle::kVolume) {
        const double q2 = shape.inner * shape.inner;
        rho = std::sqrt(q2 + v * (1 - q2));  // inverse-transform sampling of the (annular) disc
      }
      double c, sn;
      math::sincos(theta, &sn, &c);
      s.offset = {rho * a * c, rho * b * sn};
      // The gradient of x^2/a^2 + y^2/b^2, defined even at the centre.
      const Vec2 g{c / a, sn / b};
      s.normal = shape.along_direction ? emitter_dir : g * (1.0 / length(g));
      normal_from_shape = !shape.along_direction;
      break;
    }
    case ShapeKind::kPoints: {
      // Point i = min(n - 1, floor(n u)); with normals, the emitter direction
      // is measured from the point's (unit) normal, a zero normal leaving it.
      const size_t n = shape.points.size();
      if (n == 0) break;
      const double fi = std::floor(static_cast<double>(n) * u);
      const size_t i = fi >= static_cast<double>(n - 1) ? n - 1 : static_cast<size_t>(fi);
      s.offset = shape.points[i];
      if (i < shape.normals.size()) {
        const Vec2 nm = shape.normals[i];
        const double l = length(nm);
        if (l > 0) {
          const Vec2 un = nm * (1.0 / l);
          s.normal = {un.x * emitter_dir.x - un.y * emitter_dir.y,
                      un.y * emitter_dir.x + un.x * emitter_dir.y};
          normal_from_shape = true;
        }
      }
      break;
    }
  }
  if (shape.rotation_deg != 0) {
    s.offset = rotate(s.offset, shape.rotation_deg * kDegToRad);
    if (normal_from_shape) s.normal = rotate(s.normal, shape.rotation_deg * kDegToRad);
  }
  const bool inward =
      shape.in_out == InOut::kInward || (shape.in_out == InOut::kBoth && coin >= 0.5);
  if (inward) s.normal = s.normal * -1.0;
  return s;
}

}  // namespace spritz
