// Bit-level helpers of the elementary functions: a double's fields and exact
// scaling by powers of two, without the C library.
#pragma once

#include <cstdint>
#include <cstring>

namespace spritz::math::detail {

inline uint64_t bits_of(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline double from_bits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// 2^e for a normal exponent, -1022 <= e <= 1023.
inline double pow2(int e) {
  return from_bits(static_cast<uint64_t>(e + 1023) << 52);
}

// v * 2^e for a normal v, exact whenever the result is a normal number and
// rounded once when it is subnormal: a subnormal result is reached by one
// exact step to a normal number near 2^-1000 times the result, then one
// rounding multiplication by 2^-1000.
inline double scale2(double v, int e) {
  while (e > 1023) {
    v *= pow2(1023);
    e -= 1023;
  }
  if (e < -1022) {
    while (e < -2000) {
      v *= pow2(-1000);
      e += 1000;
    }
    return (v * pow2(e + 1000)) * pow2(-1000);
  }
  return v * pow2(e);
}

// The integer nearest to x (ties to even) for |x| < 2^51: adding 1.5 2^52
// leaves no bits below the units, so the addition rounds x to an integer.
// Plain IEEE addition, unlike floor, which is a library call on x86-64
// without SSE4.1.
inline double round_to_integer(double x) {
  constexpr double kShift = 0x1.8p52;
  return (x + kShift) - kShift;
}

inline bool is_nan(double x) {
  return x != x;
}
inline bool is_inf(double x) {
  return (bits_of(x) << 1) == (uint64_t{0x7ff} << 53);
}

inline constexpr double kInfinity = __builtin_inf();
inline constexpr double kNaN = __builtin_nan("");

}  // namespace spritz::math::detail
