// pow.
//
// x^y = e^(y log x) for x > 0: log x is a double-double (exp_log.cpp),
// y log x is formed exactly from it (two_prod), and e^ takes the
// double-double. The result's relative error is the absolute error of
// y log x: with the faster logarithm (absolute error 2^-68) for |y| < 2^12,
// below 2^-56; with the full one (relative error 2^-65) beyond, below
// 709 x 2^-65 = 2^-55.5 when the result is finite. Either way the result is
// within about 0.7 ulp.
// A negative x has a real power only for an integer y: its sign is x's when
// y is odd. The special values are C's (Annex F.10.4.4).
#include <cmath>
#include <cstdint>

#include "bits.h"
#include "exp_log.h"
#include "spritz/elementary.h"

namespace spritz::math {
namespace {

// Every double of 2^52 or more is an integer.
bool is_integer(double y) {
  const double a = y < 0 ? -y : y;
  return a >= 0x1p52 || detail::round_to_integer(a) == a;
}

// y an integer: odd? (Every double of 2^53 or more is even.)
bool is_odd_integer(double y) {
  if (y < 0) y = -y;
  return y < 0x1p53 && is_integer(y) && (static_cast<int64_t>(y) & 1) != 0;
}

// -1 for a negative x (or -0) and an odd integer y, else 1.
double odd_sign(double x, double y) {
  return is_odd_integer(y) && (detail::bits_of(x) >> 63) != 0 ? -1 : 1;
}

// pow where x or y is zero, infinite or NaN, or x is 1 or -1: true with the
// result in *out, false when none of these applies.
bool special_pow(double x, double y, double* out) {
  const double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  const double inf = detail::kInfinity;
  if (y == 0 || x == 1) {
    *out = 1;
  } else if (detail::is_nan(x) || detail::is_nan(y)) {
    *out = x + y;
  } else if (ay == inf) {
    *out = ax == 1 ? 1 : (ax > 1) == (y > 0) ? inf : 0;
  } else if (x == 0) {
    *out = (y < 0 ? inf : 0) * odd_sign(x, y);
  } else if (ax == inf) {
    *out = (y < 0 ? 0 : inf) * odd_sign(x, y);
  } else if (x == -1) {
    *out = is_integer(y) ? odd_sign(x, y) : detail::kNaN;
  } else {
    return false;
  }
  return true;
}

}  // namespace

double pow(double x, double y) {
  double special;
  if (special_pow(x, y, &special)) return special;
  double sign = 1;
  if (x < 0) {
    if (!is_integer(y)) return detail::kNaN;
    if (is_odd_integer(y)) sign = -1;
    x = -x;
  }
  // |log x| >= 2^-53 for x != 1, so beyond 2^64 the power overflows or
  // underflows whatever x is (and y times log x might overflow two_prod).
  if (y > 0x1p64 || y < -0x1p64) return sign * ((x > 1) == (y > 0) ? detail::kInfinity : 0);
  // log_fast's absolute error, 2^-68, times |y| < 2^12 moves y log x by
  // less than 2^-56; beyond, the full-precision logarithm.
  const bool small_y = y < 0x1p12 && y > -0x1p12;
  const detail::DD l = small_y ? detail::log_fast(x) : detail::log_dd(detail::log_parts(x));
  const detail::DD p = detail::two_prod(l.hi, y);
  const detail::DD ylog = detail::fast_two_sum(p.hi, p.lo + l.lo * y);
  return sign * detail::exp_dd(ylog);
}

}  // namespace spritz::math
