// Double-double arithmetic: a value held as an unevaluated sum hi + lo of two
// doubles with |lo| <= ulp(hi)/2, about 106 bits. The elementary functions
// (elementary.h) carry their intermediate results this way so that the one
// rounding at the end is the only one that matters.
//
// Everything here is exact IEEE arithmetic, proved in the references below,
// as long as nothing overflows or underflows; it relies on the build's
// -ffp-contract=off (a fused multiply-add would change the error terms).
//   two_sum, fast_two_sum: Knuth, TAOCP vol. 2, 4.2.2; Dekker 1971.
//   two_prod: Dekker 1971, with Veltkamp's split, exact for |a|, |b| < 2^995.
#pragma once

#include <cmath>
#include <cstddef>

namespace spritz::math::detail {

struct DD {
  double hi = 0, lo = 0;
};

// a + b = s + e exactly, s = fl(a + b).
inline DD two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

// The same when |a| >= |b| (or a == 0): three operations instead of six.
inline DD fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}

// a = hi + lo with each half of 26 bits or fewer, so their products are exact.
inline DD split(double a) {
  const double c = 134217729.0 * a;  // 2^27 + 1
  const double hi = c - (c - a);
  return {hi, a - hi};
}

// a * b = p + e exactly, p = fl(a * b).
inline DD two_prod(double a, double b) {
  const double p = a * b;
  const DD x = split(a), y = split(b);
  const double e = ((x.hi * y.hi - p) + x.hi * y.lo + x.lo * y.hi) + x.lo * y.lo;
  return {p, e};
}

// a + b, both double-doubles: relative error about 2^-104.
inline DD add(DD a, DD b) {
  const DD s = two_sum(a.hi, b.hi);
  return fast_two_sum(s.hi, s.lo + (a.lo + b.lo));
}

// a + b for a double b.
inline DD add(DD a, double b) {
  const DD s = two_sum(a.hi, b);
  return fast_two_sum(s.hi, s.lo + a.lo);
}

// a * b: relative error about 2^-102.
inline DD mul(DD a, DD b) {
  const DD p = two_prod(a.hi, b.hi);
  return fast_two_sum(p.hi, p.lo + (a.hi * b.lo + a.lo * b.hi));
}

inline DD mul(DD a, double b) {
  const DD p = two_prod(a.hi, b);
  return fast_two_sum(p.hi, p.lo + a.lo * b);
}

// a / b: the quotient's first double, then the remainder a - q b (exact by
// two_prod) divided again. Relative error about 2^-102.
inline DD div(DD a, DD b) {
  const double q = a.hi / b.hi;
  const DD p = two_prod(q, b.hi);
  const double r = (((a.hi - p.hi) - p.lo) + a.lo) - q * b.lo;
  return fast_two_sum(q, r / b.hi);
}

// sqrt(a) for a.hi > 0: one Newton step from the double square root.
inline DD sqrt(DD a) {
  const double s = std::sqrt(a.hi);
  const DD sq = two_prod(s, s);
  const double r = ((a.hi - sq.hi) - sq.lo) + a.lo;
  return fast_two_sum(s, r / (2 * s));
}

// c[0] + z c[1] + z^2 c[2] + ..., by Horner's rule.
template <size_t N>
inline double polynomial(double z, const double (&c)[N]) {
  double r = c[N - 1];
  for (size_t i = N - 1; i-- > 0;) r = c[i] + z * r;
  return r;
}

// The nearest double to a.
inline double round(DD a) {
  return a.hi + a.lo;
}

}  // namespace spritz::math::detail
