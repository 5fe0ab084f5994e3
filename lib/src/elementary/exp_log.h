// The exponential and logarithm cores shared by exp, exp2, expm1, log, log2,
// log10, log1p and pow (exp_log.cpp).
#pragma once

#include "double_double.h"

namespace spritz::math::detail {

// x > 0 finite, as x = 2^k m with sqrt(1/2) <= m < sqrt(2): k and log m,
// log m to a relative error below 2^-64.
struct LogParts {
  double k = 0;
  DD log_m;
};
LogParts log_parts(double x);

// log x = k log 2 + log m as a double-double, relative error below 2^-64.
DD log_dd(const LogParts& p);

// log x for x > 0 finite, faster: its absolute error is below 2^-68
// (relative 2^-61 near x = 1, where r^2/2 is the largest rounded term).
DD log_fast(double x);

// e^x for a double-double x with |x.hi| < 746, rounded once: overflow gives
// infinity, underflow a correctly scaled subnormal or zero.
double exp_dd(DD x);

}  // namespace spritz::math::detail
