// atan, atan2, asin, acos.
//
// Everything goes through the angle of a point (b, a) with 0 <= a <= b:
// t = a / b in [0, 1] as a double-double, then with c = i/16 the nearest
// sixteenth to t,
//   atan t = atan c + atan u,   u = (t - c) / (1 + t c),   |u| <= 1/32,
// atan c from a table (constants.h) and atan u from its Taylor series
// u - u^3/3 + ... + u^11/11 (the first term left out is below 2^-60 of u).
// t - c is exact (Sterbenz) and u is a double-double, so the result is
// right to about 2^-58 and rounded once. Beyond the diagonal (a > b) the
// angle is pi/2 - atan(b/a); in the left half plane pi minus that.
//   asin x = atan2(x, sqrt(1 - x^2)),   acos x = atan2(sqrt(1 - x^2), x),
// with 1 - x^2 exact as a double-double and its square root to about 2^-104.
#include <cmath>

#include "bits.h"
#include "constants.h"
#include "double_double.h"
#include "spritz/elementary.h"

namespace spritz::math {
namespace {

using detail::DD;

// atan u = u + u^3 P(u^2), P's coefficients (-1)^k / (2k+1) for k = 1..5.
double atan_poly(double z) {
  constexpr double c[] = {-1.0 / 3, 1.0 / 5, -1.0 / 7, 1.0 / 9, -1.0 / 11};
  return detail::polynomial(z, c);
}

// atan t for 0 <= t.hi <= 1.
DD atan_unit(DD t) {
  const int i = static_cast<int>(t.hi * 16 + 0.5);
  const double c = i / 16.0;
  const DD num = detail::two_sum(t.hi - c, t.lo);  // t.hi - c exact
  DD p = detail::two_prod(t.hi, c);
  p.lo += t.lo * c;
  const DD den = detail::add(detail::two_sum(1, p.hi), p.lo);
  const DD u = detail::div(num, den);
  const double u3 = u.hi * u.hi * u.hi;
  const DD a = detail::two_sum(detail::kAtanTable[i][0], u.hi);
  const double lo = a.lo + (detail::kAtanTable[i][1] + u.lo + u3 * atan_poly(u.hi * u.hi));
  return detail::fast_two_sum(a.hi, lo);
}

DD minus(DD a, DD b) {
  return detail::add(a, DD{-b.hi, -b.lo});
}

// The angle of the point (b, a), a, b >= 0 as double-doubles, not both
// zero, both below 2^900 and, unless one is zero, above 2^-900: in [0, pi/2].
DD angle(DD a, DD b) {
  if (a.hi <= b.hi) return atan_unit(detail::div(a, b));
  return minus(DD{detail::kPio2Hi, detail::kPio2Lo}, atan_unit(detail::div(b, a)));
}

double with_sign_of(double magnitude, double s) {
  return (detail::bits_of(s) >> 63) != 0 ? -magnitude : magnitude;
}

// 1 - x^2 exactly, for |x| <= 1, then its square root.
DD cosine_of_asin(double x) {
  const DD sq = detail::two_prod(x, x);
  const DD w = detail::add(detail::two_sum(1, -sq.hi), -sq.lo);
  return w.hi == 0 ? DD{} : detail::sqrt(w);
}

}  // namespace

double atan(double x) {
  if (detail::is_nan(x)) return x + x;
  const double a = x < 0 ? -x : x;
  if (a < 0x1p-27) return x;  // atan x = x (1 - x^2/3)
  DD r;
  if (a <= 1) {
    r = atan_unit({a, 0});
  } else if (a < 0x1p60) {
    r = minus(DD{detail::kPio2Hi, detail::kPio2Lo}, atan_unit(detail::div(DD{1, 0}, DD{a, 0})));
  } else {  // pi/2 - 1/a, and 1/a below 2^-60
    r = detail::add(DD{detail::kPio2Hi, detail::kPio2Lo}, -1 / a);
  }
  return with_sign_of(detail::round(r), x);
}

namespace {

// The angle of (b, a) for finite a, b >= 0, not both zero. Where one is
// below 2^-30 of the other the angle is their quotient (atan t = t (1 -
// t^2/3)), or pi/2 less it, and one division rounds it correctly, even to a
// subnormal. Otherwise both are scaled by a power of two to near 1 first,
// which keeps the double-double products away from overflow and underflow.
DD point_angle(double a, double b) {
  const DD pio2{detail::kPio2Hi, detail::kPio2Lo};
  if (a <= b && a < b * 0x1p-30) return {a / b, 0};
  if (b < a && b < a * 0x1p-30) return detail::add(pio2, -(b / a));
  double big = a > b ? a : b;
  if (big < 0x1p-1000) {
    a = detail::scale2(a, 600);
    b = detail::scale2(b, 600);
    big = detail::scale2(big, 600);
  }
  const int e = static_cast<int>(detail::bits_of(big) >> 52) - 1023;
  return angle({detail::scale2(a, -e), 0}, {detail::scale2(b, -e), 0});
}

}  // namespace

double atan2(double y, double x) {
  if (detail::is_nan(x) || detail::is_nan(y)) return x + y;
  const bool left = (detail::bits_of(x) >> 63) != 0;  // x < 0 or x = -0
  double a = y < 0 ? -y : y, b = x < 0 ? -x : x;
  if (detail::is_inf(a) || detail::is_inf(b)) {  // the limits: 0, pi/4 or pi/2
    const bool both = detail::is_inf(a) && detail::is_inf(b);
    a = both || detail::is_inf(a) ? 1 : 0;
    b = both || detail::is_inf(b) ? 1 : 0;
  }
  DD r = a == 0 ? DD{} : point_angle(a, b);
  if (left) r = minus({detail::kPiHi, detail::kPiLo}, r);
  return with_sign_of(detail::round(r), y);
}

double asin(double x) {
  if (detail::is_nan(x)) return x + x;
  const double a = x < 0 ? -x : x;
  if (a > 1) return detail::kNaN;
  if (a < 0x1p-27) return x;  // asin x = x (1 + x^2/6)
  if (a == 1) return with_sign_of(detail::round(DD{detail::kPio2Hi, detail::kPio2Lo}), x);
  return with_sign_of(detail::round(angle({a, 0}, cosine_of_asin(a))), x);
}

double acos(double x) {
  if (detail::is_nan(x)) return x + x;
  const double a = x < 0 ? -x : x;
  if (a > 1) return detail::kNaN;
  if (x == 1) return 0;
  if (x == -1) return detail::round(DD{detail::kPiHi, detail::kPiLo});
  if (a < 0x1p-60) return detail::round(detail::add(DD{detail::kPio2Hi, detail::kPio2Lo}, -x));
  const DD r = angle(cosine_of_asin(a), {a, 0});
  return detail::round(x < 0 ? minus(DD{detail::kPiHi, detail::kPiLo}, r) : r);
}

}  // namespace spritz::math
