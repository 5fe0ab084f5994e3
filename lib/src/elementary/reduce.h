// Argument reduction for sin, cos and tan: x = n pi/2 + y with |y| <= pi/4,
// y as a double-double accurate to far below its last bit whatever x is
// (reduce.cpp).
#pragma once

#include "double_double.h"

namespace spritz::math::detail {

struct Reduced {
  int n = 0;  // the quadrant; only n mod 4 matters (n & 3)
  DD y;
};

// x finite.
Reduced reduce_pio2(double x);

}  // namespace spritz::math::detail
