// exp, exp2, expm1, log, log2, log10, log1p.
//
// e^x: x = (128 k + j) log(2)/128 + r, 128 k + j the nearest integer to
// x 128/log 2, so |r| <= log(2)/256 and
//   e^x = 2^k 2^(j/128) e^r,   e^r = 1 + r + r^2/2 + ... + r^6/720,
// 2^(j/128) from a table as a double-double (constants.h). The first term
// left out, r^7/7!, is below 2^-66. log(2)/128 is held as a 35-bit head and
// a tail, so n times the head is exact and x - n head too (Sterbenz). The
// product is a double-double right to about 2^-60, and one rounding at the
// end makes e^x right to about 0.5 ulp.
//
// log x: x = 2^k m with 45/64 <= m < 91/64, cut into 128 intervals; in
// interval i, with 1/c the table's double near the inverse of its middle,
//   log m = log(1/c)^-1 + log(1 + r),   r = m (1/c) - 1,   |r| < 2^-7.6,
// r exact as a double-double (two_prod), log(1/c) from the table, and
//   log(1 + r) = r - r^2/2 + r^3/3 - ... - r^8/8,
// whose first term left out is below 2^-64 of r; r^2/2 is exact, so log m is
// right to about 2^-66 of itself: enough for pow, which multiplies it by y
// before exponentiating. The interval holding 1 has 1/c = 1, so near x = 1
// the logarithm is the series alone, right to its last bit.
#include "exp_log.h"

#include <cmath>

#include "bits.h"
#include "constants.h"
#include "spritz/elementary.h"

namespace spritz::math {
namespace detail {
namespace {

constexpr double kExpOverflow = 0x1.62e42fefa39efp+9;    // 709.78...: e^x > max double above
constexpr double kExpUnderflow = -0x1.74910d52d3052p+9;  // -745.13...: e^x < 2^-1075 below

// (e^r - 1 - r) / r^2 = 1/2 + r/6 + ... + r^4/720, for |r| <= log(2)/256.
double exp_table_poly(double r) {
  constexpr double c[] = {1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720};
  return polynomial(r, c);
}

// e^x = v 2^k.
struct Scaled {
  int k = 0;
  DD v;
};

// 2^(n/128) e^r, n an integer, |r.hi| <= log(2)/256 + a little.
Scaled exp_table(double n, DD r) {
  const int ni = static_cast<int>(n);
  const double* t = kExp2Table[ni & 127];
  const double p = r.hi + (r.hi * r.hi * exp_table_poly(r.hi) + r.lo * (1 + r.hi));  // e^r - 1
  return {ni >> 7, fast_two_sum(t[0], t[1] + t[0] * p)};
}

// e^x for |x.hi| < 746.
Scaled exp_scaled(DD x) {
  const double n = round_to_integer(x.hi * kInvLn2Times128);
  const double head = x.hi - n * kLn2Over128Short;  // exact
  return exp_table(n, add(two_sum(head, -(n * kLn2Over128Tail)), x.lo));
}

// (e^x - 1 - x - x^2/2) / x^3 = 1/6 + x/24 + ... + x^11/14!, for |x| < 0.34;
// the first term left out is below 2^-63.
double expm1_poly(double x) {
  constexpr double c[] = {1.0 / 6,        1.0 / 24,        1.0 / 120,        1.0 / 720,
                          1.0 / 5040,     1.0 / 40320,     1.0 / 362880,     1.0 / 3628800,
                          1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800, 1.0 / 87178291200};
  return polynomial(x, c);
}

// (log(1 + r) - r + r^2/2) / r^3 = 1/3 - r/4 + ... - r^5/8.
double log_poly(double r) {
  constexpr double c[] = {1.0 / 3, -1.0 / 4, 1.0 / 5, -1.0 / 6, 1.0 / 7, -1.0 / 8};
  return polynomial(r, c);
}

constexpr double kLogTableStart = 45.0 / 64, kLogTableScale = 4096.0 / 23;

// m's interval in kLogTable and r = m (1/c) - 1 exactly, as a double-double:
// m = m_hi + m_lo with m_hi of 44 bits, so m_hi (1/c) is exact (1/c has 9
// bits), and so is m_hi (1/c) - 1 (Sterbenz).
struct LogReduction {
  const double* table;
  DD r;
};

LogReduction reduce_log(double m) {
  int i = static_cast<int>((m - kLogTableStart) * kLogTableScale);  // m - start is exact
  i = i < 0 ? 0 : i > 127 ? 127 : i;
  const double* t = kLogTable[i];
  const double m_hi = from_bits(bits_of(m) & ~uint64_t{0x1ff});
  return {t, two_sum(m_hi * t[0] - 1, (m - m_hi) * t[0])};
}

// log m as a double-double: r^2/2 exact, so right to about 2^-66.
DD log_of_m(double m) {
  const LogReduction red = reduce_log(m);
  const DD r = red.r;
  const DD sq = two_prod(r.hi, r.hi);
  const DD a = two_sum(r.hi, -0.5 * sq.hi);
  const double lo = a.lo + (-0.5 * sq.lo + (r.hi * sq.hi * log_poly(r.hi) + r.lo * (1 - r.hi)));
  return add(DD{red.table[1], red.table[2]}, fast_two_sum(a.hi, lo));
}

// x = 2^k m with 45/64 <= m < 91/64, for x > 0 finite.
double normalize(double x, int* k_out) {
  int k = 0;
  if (x < 0x1p-1022) {  // subnormal: make it normal
    x *= 0x1p54;
    k = -54;
  }
  const uint64_t b = bits_of(x);
  k += static_cast<int>(b >> 52) - 1023;
  double m = from_bits((b & ((uint64_t{1} << 52) - 1)) | (uint64_t{1023} << 52));
  if (m >= 91.0 / 64) {
    m *= 0.5;
    k += 1;
  }
  *k_out = k;
  return m;
}

}  // namespace

LogParts log_parts(double x) {
  int k;
  const double m = normalize(x, &k);
  return {static_cast<double>(k), log_of_m(m)};
}

// r^2 in doubles, whose rounding is below 2^-69 absolute, and the sum
// k log 2 + log(1/c)^-1 + log(1 + r) in one pass.
DD log_fast(double x) {
  int ki;
  const double m = normalize(x, &ki);
  const LogReduction red = reduce_log(m);
  const double k = ki, r = red.r.hi;
  const DD head = two_sum(k * kLn2Short, red.table[1]);  // k log 2 + log c
  const DD sum = two_sum(head.hi, r);
  const double tail = r * r * (-0.5 + r * log_poly(r)) + red.r.lo * (1 - r);
  return fast_two_sum(sum.hi, ((head.lo + sum.lo) + (k * kLn2ShortTail + red.table[2])) + tail);
}

DD log_dd(const LogParts& p) {
  const DD a = two_sum(p.k * kLn2Short, p.log_m.hi);
  return fast_two_sum(a.hi, a.lo + (p.log_m.lo + p.k * kLn2ShortTail));
}

double exp_dd(DD x) {
  if (x.hi > kExpOverflow) return kInfinity;
  if (x.hi < kExpUnderflow) return 0;
  const Scaled e = exp_scaled(x);
  // Exact, or overflow to infinity; a subnormal result is rounded twice
  // (to 53 bits, then to its own precision): within 1 ulp.
  return scale2(round(e.v), e.k);
}

}  // namespace detail

using detail::DD;

// The common case on its own, for speed: a normal result, no double-double
// argument, r's rounding error carried as r_lo, and one term fewer (r^6/720
// is below 2^-60).
double exp(double x) {
  if (x < 708 && x > -708) {  // e^x normal; false for NaN
    if (x < 0x1p-54 && x > -0x1p-54) return 1 + x;
    const double n = detail::round_to_integer(x * detail::kInvLn2Times128);
    const double head = x - n * detail::kLn2Over128Short;  // exact
    const double tail = n * detail::kLn2Over128Tail;
    const double r = head - tail;
    const double r_lo = (head - r) - tail;
    // e^r - 1 = r + r^2 (1/2 + r/6 + r^2 (1/24 + r/120)), in pairs (Estrin)
    // so that fewer operations wait on each other.
    const double r2 = r * r;
    const double q = (1.0 / 2 + r * (1.0 / 6)) + r2 * (1.0 / 24 + r * (1.0 / 120));
    const double p = r + (r2 * q + r_lo);
    const int ni = static_cast<int>(n);
    const double* t = detail::kExp2Table[ni & 127];
    return (t[0] + (t[1] + t[0] * p)) * detail::pow2(ni >> 7);
  }
  if (detail::is_nan(x)) return x + x;
  return detail::exp_dd({x, 0});
}

double exp2(double x) {
  if (detail::is_nan(x)) return x + x;
  if (x >= 1024) return detail::kInfinity;
  if (x < -1075) return 0;
  const double n = detail::round_to_integer(x * 128);
  const double f = x - n / 128;  // exact
  const detail::Scaled e = detail::exp_table(n, detail::mul(DD{detail::kLn2Hi, detail::kLn2Lo}, f));
  return detail::scale2(detail::round(e.v), e.k);
}

double expm1(double x) {
  if (detail::is_nan(x)) return x + x;
  if (x > 709) return exp(x);  // e^x - 1 rounds to e^x (or overflows)
  if (x < -40) return -1;      // e^x < 2^-57: e^x - 1 rounds to -1
  if (x < 0x1p-54 && x > -0x1p-54) return x;
  if (x < 0.34 && x > -0.34) {  // e^x - 1 = x + x^2/2 + x^3 P(x), x^2/2 exact
    const DD sq = detail::two_prod(x, x);
    const DD a = detail::two_sum(x, 0.5 * sq.hi);
    const double lo = a.lo + (0.5 * sq.lo + x * sq.hi * detail::expm1_poly(x));
    return detail::round(detail::fast_two_sum(a.hi, lo));
  }
  const detail::Scaled e = detail::exp_scaled({x, 0});
  const DD s = detail::two_sum(detail::scale2(e.v.hi, e.k), -1);
  return s.hi + (s.lo + detail::scale2(e.v.lo, e.k));
}

double log(double x) {
  if (detail::is_nan(x) || x == detail::kInfinity) return x + x;
  if (x == 0) return -detail::kInfinity;
  if (x < 0) return detail::kNaN;
  return detail::round(detail::log_fast(x));
}

double log2(double x) {
  if (detail::is_nan(x) || x == detail::kInfinity) return x + x;
  if (x == 0) return -detail::kInfinity;
  if (x < 0) return detail::kNaN;
  const detail::LogParts p = detail::log_parts(x);
  const DD f = detail::mul(p.log_m, DD{detail::kInvLn2Hi, detail::kInvLn2Lo});
  return detail::round(detail::add(f, p.k));
}

double log10(double x) {
  if (detail::is_nan(x) || x == detail::kInfinity) return x + x;
  if (x == 0) return -detail::kInfinity;
  if (x < 0) return detail::kNaN;
  const detail::LogParts p = detail::log_parts(x);
  const DD f = detail::mul(p.log_m, DD{detail::kInvLn10Hi, detail::kInvLn10Lo});
  const DD k = detail::mul(DD{detail::kLog10Of2Hi, detail::kLog10Of2Lo}, p.k);
  return detail::round(detail::add(k, f));
}

double log1p(double x) {
  if (detail::is_nan(x) || x == detail::kInfinity) return x + x;
  if (x == -1) return -detail::kInfinity;
  if (x < -1) return detail::kNaN;
  if (x < 0x1p-54 && x > -0x1p-54) return x;
  // 1 + x = u.hi + u.lo exactly; log(u.hi + u.lo) = log u.hi + t - t^2/2
  // with t = u.lo / u.hi below 2^-53.
  const DD u = detail::two_sum(1, x);
  const double t = u.lo / u.hi;
  const DD l = detail::log_dd(detail::log_parts(u.hi));
  return detail::round(detail::add(l, t - 0.5 * t * t));
}

}  // namespace spritz::math
