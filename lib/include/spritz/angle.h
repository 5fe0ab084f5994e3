// pi and the conversions between degrees (the effect file's and inspect's
// unit, counter-clockwise) and radians: the one definition every part of
// spritz uses.
#pragma once

namespace spritz {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kDegToRad = kPi / 180.0;
inline constexpr double kRadToDeg = 180.0 / kPi;

}  // namespace spritz
