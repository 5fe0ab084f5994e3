// sin, cos, sincos, tan.
//
// After the reduction x = n pi/2 + y (reduce.cpp), |y| <= pi/4 and
//   sin x = sin y, cos y, -sin y, -cos y   for n mod 4 = 0, 1, 2, 3,
//   cos x = cos y, -sin y, -cos y, sin y,
//   tan x = sin y / cos y, or -cos y / sin y for odd n.
// On |y| <= pi/4 the Taylor series converge fast: the first term left out,
// y^19/19! for sin and y^20/20! for cos, is below 2^-62 of the result.
// With y = yh + yl (yl below yh's last bit, so yl^2 is negligible):
//   sin y = yh + (yh z P(z) + yl (1 - z/2)),      z = yh^2,
//   cos y = (1 - z/2) + (z^2 Q(z) - yh yl),
// where z/2 is taken exactly (two_prod) and 1 - z/2 with its rounding error
// (two_sum), so the only large rounding is the last addition: about 0.5 ulp
// plus the small correction's own error.
#include <cmath>

#include "bits.h"
#include "double_double.h"
#include "reduce.h"
#include "spritz/elementary.h"

namespace spritz::math {
namespace {

using detail::DD;

constexpr double kPiOver4 = 0x1.921fb54442d18p-1;

// sin y = y + y z P(z), P's coefficients (-1)^k / (2k+1)! for k = 1..8.
double sin_poly(double z) {
  constexpr double c[] = {
      -1.0 / 6,        1.0 / 120,        -1.0 / 5040,          1.0 / 362880,
      -1.0 / 39916800, 1.0 / 6227020800, -1.0 / 1307674368000, 1.0 / 355687428096000};
  return detail::polynomial(z, c);
}

// cos y = 1 - z/2 + z^2 Q(z), Q's coefficients (-1)^k / (2k)! for k = 2..9.
double cos_poly(double z) {
  constexpr double c[] = {
      1.0 / 24,        -1.0 / 720,         1.0 / 40320,          -1.0 / 3628800,
      1.0 / 479001600, -1.0 / 87178291200, 1.0 / 20922789888000, -1.0 / 6402373705728000};
  return detail::polynomial(z, c);
}

DD sin_kernel(DD y) {
  const double z = y.hi * y.hi;
  const double corr = y.hi * z * sin_poly(z) + y.lo * (1 - 0.5 * z);
  return detail::fast_two_sum(y.hi, corr);
}

DD cos_kernel(DD y) {
  const DD z = detail::two_prod(y.hi, y.hi);
  const DD w = detail::two_sum(1, -0.5 * z.hi);
  const double corr = (w.lo - 0.5 * z.lo) + (z.hi * z.hi * cos_poly(z.hi) - y.hi * y.lo);
  return detail::fast_two_sum(w.hi, corr);
}

DD negated(DD a) {
  return {-a.hi, -a.lo};
}

// sin and cos of y in quadrant n.
DD sin_quadrant(int n, DD y) {
  switch (n & 3) {
    case 0:
      return sin_kernel(y);
    case 1:
      return cos_kernel(y);
    case 2:
      return negated(sin_kernel(y));
    default:
      return negated(cos_kernel(y));
  }
}

DD cos_quadrant(int n, DD y) {
  return sin_quadrant(n + 1, y);
}

bool tiny(double x) {
  return x < 0x1p-27 && x > -0x1p-27;
}

bool in_first_octant(double x) {
  return x <= kPiOver4 && x >= -kPiOver4;
}

}  // namespace

double sin(double x) {
  if (tiny(x)) return x;  // sin x = x (1 - x^2/6), x^2/6 below half an ulp
  if (in_first_octant(x)) return detail::round(sin_kernel({x, 0}));
  if (detail::is_nan(x) || detail::is_inf(x)) return x - x;
  const detail::Reduced r = detail::reduce_pio2(x);
  return detail::round(sin_quadrant(r.n, r.y));
}

double cos(double x) {
  if (tiny(x)) return 1;
  if (in_first_octant(x)) return detail::round(cos_kernel({x, 0}));
  if (detail::is_nan(x) || detail::is_inf(x)) return x - x;
  const detail::Reduced r = detail::reduce_pio2(x);
  return detail::round(cos_quadrant(r.n, r.y));
}

void sincos(double x, double* s, double* c) {
  if (tiny(x)) {
    *s = x;
    *c = 1;
    return;
  }
  if (detail::is_nan(x) || detail::is_inf(x)) {
    *s = *c = x - x;
    return;
  }
  const detail::Reduced r =
      in_first_octant(x) ? detail::Reduced{0, {x, 0}} : detail::reduce_pio2(x);
  *s = detail::round(sin_quadrant(r.n, r.y));
  *c = detail::round(cos_quadrant(r.n, r.y));
}

double tan(double x) {
  if (tiny(x)) return x;  // tan x = x (1 + x^2/3)
  if (detail::is_nan(x) || detail::is_inf(x)) return x - x;
  const detail::Reduced r =
      in_first_octant(x) ? detail::Reduced{0, {x, 0}} : detail::reduce_pio2(x);
  const DD s = sin_kernel(r.y), c = cos_kernel(r.y);
  return detail::round((r.n & 1) == 0 ? detail::div(s, c) : negated(detail::div(c, s)));
}

}  // namespace spritz::math
