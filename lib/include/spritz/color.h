// Colours: sRGB as authors write them, linear light for blending.
#pragma once

#include <cmath>

namespace spritz {

struct Rgb {
  double r = 0, g = 0, b = 0;
};

struct Rgba {
  double r = 0, g = 0, b = 0, a = 0;
};

// The sRGB transfer functions (IEC 61966-2-1), on [0, 1].
inline double srgb_to_linear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
inline double linear_to_srgb(double c) {
  return c <= 0.0031308 ? c * 12.92 : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}
inline Rgb srgb_to_linear(Rgb c) {
  return {srgb_to_linear(c.r), srgb_to_linear(c.g), srgb_to_linear(c.b)};
}

}  // namespace spritz
