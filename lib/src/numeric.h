// Conversions from double to an integer type that are defined for every
// input. A plain cast of a value outside the target's range is undefined
// behaviour in C++, and x86 and ARM give different integers for it (so
// different bytes); evaluation converts through saturating_cast instead.
#pragma once

#include <limits>
#include <type_traits>

namespace spritz {

// v truncated toward zero, as static_cast<Int>(v) does in range; values
// beyond the range give its nearest end, NaN gives 0. The bounds compare as
// doubles: the largest int64 rounds up to 2^63, which is out of range, so
// ">=" sends it to the maximum.
template <typename Int>
constexpr Int saturating_cast(double v) {
  static_assert(std::is_integral_v<Int>, "saturating_cast converts to an integer type");
  constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<Int>::max());
  if (!(v == v)) return 0;
  if (v <= lo) return std::numeric_limits<Int>::min();
  if (v >= hi) return std::numeric_limits<Int>::max();
  return static_cast<Int>(v);
}

}  // namespace spritz
