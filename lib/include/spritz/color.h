// Colours: sRGB as authors write them, linear light for blending.
#pragma once

#include <cmath>

#include "spritz/elementary.h"

namespace spritz {

struct Rgb {
  double r = 0, g = 0, b = 0;
};

struct Rgba {
  double r = 0, g = 0, b = 0, a = 0;
};

// The sRGB transfer functions (IEC 61966-2-1), on [0, 1]. The powers are
// taken as e^(2.4 log x) with spritz's own functions, which is within a few
// ulps of the double result (2.4 |log x| < 6 multiplies log's error) and
// twice as fast as pow, whose extra care buys nothing here: colours end as
// floats or 8 and 16 bits, and the function is the same on every CPU.
inline double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : math::exp(2.4 * math::log((c + 0.055) / 1.055));
}
inline double linear_to_srgb(double c) {
  return c <= 0.0031308 ? c * 12.92 : 1.055 * math::exp(math::log(c) / 2.4) - 0.055;
}
inline Rgb srgb_to_linear(Rgb c) {
  return {srgb_to_linear(c.r), srgb_to_linear(c.g), srgb_to_linear(c.b)};
}

}  // namespace spritz
