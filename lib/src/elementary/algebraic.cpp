// cbrt, hypot, fmod.
#include <cmath>
#include <cstdint>

#include "bits.h"
#include "double_double.h"
#include "spritz/elementary.h"

namespace spritz::math {

// cbrt: x = 2^(3q) a with 1 <= a < 8, cbrt x = 2^q cbrt a. A first guess
// from the bits (the exponent divided by three), three Halley steps
//   y <- y (y^3 + 2a) / (2y^3 + a),
// which triple the correct bits each (5% -> 2^-40 -> far below 2^-53), then
// one Newton step with the residual y^3 - a taken exactly (two_prod), so the
// last rounding is the only one: about 0.5 ulp.
double cbrt(double x) {
  if (x == 0 || detail::is_nan(x) || detail::is_inf(x)) return x + x;
  const double sign = x < 0 ? -1 : 1;
  double a = x < 0 ? -x : x;
  int q = 0;
  if (a < 0x1p-1022) {  // subnormal
    a *= 0x1p54;
    q = -18;
  }
  const int e = static_cast<int>(detail::bits_of(a) >> 52) - 1023;
  const int e3 = e >= 0 ? e / 3 : -((-e + 2) / 3);  // floor(e / 3)
  q += e3;
  a = detail::scale2(a, -3 * e3);  // now 1 <= a < 8, exactly
  double y = detail::from_bits(detail::bits_of(a) / 3 + 0x2a9f7893782da1ceu);
  for (int i = 0; i < 3; ++i) {
    const double y3 = y * y * y;
    y = y * (y3 + 2 * a) / (2 * y3 + a);
  }
  const detail::DD sq = detail::two_prod(y, y);
  const detail::DD cube = detail::two_prod(sq.hi, y);
  const double residual = ((cube.hi - a) + cube.lo) + sq.lo * y;
  y -= residual / (3 * sq.hi);
  return sign * detail::scale2(y, q);
}

// hypot: sqrt(x^2 + y^2) with the squares and their sum taken exactly as a
// double-double and its square root to about 2^-104 (double_double.h), so
// one rounding at the end: about 0.5 ulp. Arguments are scaled by a power of
// two first, so nothing overflows or underflows on the way; an infinite
// argument gives infinity even beside a NaN (C's Annex F).
double hypot(double x, double y) {
  if (detail::is_inf(x) || detail::is_inf(y)) return detail::kInfinity;
  if (detail::is_nan(x) || detail::is_nan(y)) return x + y;
  double a = x < 0 ? -x : x, b = y < 0 ? -y : y;
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == 0 || b < a * 0x1p-60) return a + b;  // (b/a)^2 / 2 below 2^-121
  int scale = 0;
  if (a > 0x1p500) {
    scale = 600;
  } else if (b < 0x1p-500) {
    scale = -600;
  }
  a = detail::scale2(a, -scale);
  b = detail::scale2(b, -scale);
  const detail::DD sum = detail::add(detail::two_prod(a, a), detail::two_prod(b, b));
  return detail::scale2(detail::round(detail::sqrt(sum)), scale);
}

// fmod: x - n y for the integer n = trunc(x / y), which is exact in binary
// floating point. With x = mx 2^ex and y = my 2^ey (integers mx, my below
// 2^53), x mod y = 2^ey ((mx 2^(ex - ey)) mod my), and the integer
// remainder is taken 11 bits of the exponent difference at a time so that
// nothing exceeds 64 bits.
double fmod(double x, double y) {
  if (detail::is_nan(x) || detail::is_nan(y) || detail::is_inf(x) || y == 0) return detail::kNaN;
  const uint64_t bx = detail::bits_of(x), by = detail::bits_of(y);
  const uint64_t sign = bx & (uint64_t{1} << 63);
  const uint64_t ax = bx & ~(uint64_t{1} << 63), ay = by & ~(uint64_t{1} << 63);
  if (ax < ay) return x;  // includes x = 0 and an infinite y
  constexpr uint64_t kMantissa = (uint64_t{1} << 52) - 1;
  const auto integer = [](uint64_t a, int* e) {  // a = m 2^e, m integer
    const int field = static_cast<int>(a >> 52);
    *e = (field == 0 ? 1 : field) - 1075;
    return field == 0 ? (a & kMantissa) : (a & kMantissa) | (kMantissa + 1);
  };
  int ex, ey;
  const uint64_t mx = integer(ax, &ex), my = integer(ay, &ey);
  uint64_t r = mx % my;
  for (int d = ex - ey; d > 0 && r != 0;) {
    const int step = d < 11 ? d : 11;
    r = (r << step) % my;
    d -= step;
  }
  const double magnitude = detail::scale2(static_cast<double>(r), ey);  // exact: r < my
  return detail::from_bits(detail::bits_of(magnitude) | sign);
}

}  // namespace spritz::math
