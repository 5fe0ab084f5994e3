// Motion vectors stored as engines' shaders read them (motion_vector_encoding.h).
#include "spritz/raster/motion_vector_encoding.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "spritz/error.h"

namespace spritz {

MotionEncoding motion_encoding_from_name(std::string_view name) {
  if (name == "unity") return MotionEncoding::kUnity;
  if (name == "sidefx") return MotionEncoding::kSideFx;
  if (name == "unreal") return MotionEncoding::kUnreal;
  throw Error("motion-vector encoding must be unity, sidefx or unreal, got '" + std::string(name) +
              "'");
}

const char* motion_encoding_name(MotionEncoding enc) {
  switch (enc) {
    case MotionEncoding::kUnity:
      return "unity";
    case MotionEncoding::kSideFx:
      return "sidefx";
    case MotionEncoding::kUnreal:
      return "unreal";
  }
  return "unity";
}

double motion_extent(const MotionField& field, double cell_w, double cell_h) {
  double m = 0;
  for (size_t i = 0; i + 1 < field.xy.size(); i += 2)
    m = std::max({m, std::abs(field.xy[i] / cell_w), std::abs(field.xy[i + 1] / cell_h)});
  return m;
}

namespace {

// The red and green values in [0, 1] for a displacement of (mx, my) cell
// units (y down) at scale S, unclamped.
void encode_pair(double mx, double my, double scale, MotionEncoding enc, double& r, double& g) {
  const double x = mx / scale, y = my / scale;
  r = g = 0.5;
  switch (enc) {
    case MotionEncoding::kUnity:  // rg * 2 - 1 = (x, y up)
      r = 0.5 + 0.5 * x;
      g = 0.5 - 0.5 * y;
      return;
    case MotionEncoding::kSideFx:  // (r, 1 - g) * 2 - 1 = -(x, y up)
      r = 0.5 - 0.5 * x;
      g = 0.5 - 0.5 * y;
      return;
    case MotionEncoding::kUnreal:  // (255 v - 128) / 127 = (x, y down)
      r = (128 + 127 * x) / 255;
      g = (128 + 127 * y) / 255;
      return;
  }
}

}  // namespace

uint16_t motion_neutral16(MotionEncoding enc) {
  double r, g;
  encode_pair(0, 0, 1, enc, r, g);
  return static_cast<uint16_t>(std::lround(r * 65535));
}

uint64_t encode_motion(const MotionField& field, double cell_w, double cell_h, double scale,
                       MotionEncoding enc, std::vector<uint16_t>& rgba16) {
  const size_t n = static_cast<size_t>(field.width) * static_cast<size_t>(field.height);
  rgba16.resize(n * 4);
  uint64_t clamped = 0;
  for (size_t i = 0; i < n; ++i) {
    double r, g;
    encode_pair(field.xy[2 * i] / cell_w, field.xy[2 * i + 1] / cell_h, scale, enc, r, g);
    if (r < 0 || r > 1 || g < 0 || g > 1) ++clamped;
    rgba16[4 * i] = static_cast<uint16_t>(std::lround(std::clamp(r, 0.0, 1.0) * 65535));
    rgba16[4 * i + 1] = static_cast<uint16_t>(std::lround(std::clamp(g, 0.0, 1.0) * 65535));
    rgba16[4 * i + 2] = 0;
    rgba16[4 * i + 3] = 65535;
  }
  return clamped;
}

void decode_motion(double r, double g, double cell_w, double cell_h, double scale,
                   MotionEncoding enc, double& dx, double& dy) {
  double x = 0, y = 0;  // cell units, y down
  switch (enc) {
    case MotionEncoding::kUnity:
      x = (r * 2 - 1) * scale;
      y = -(g * 2 - 1) * scale;
      break;
    case MotionEncoding::kSideFx: {
      // The shader's vector (y up) is minus the motion.
      const double sx = (r * 2 - 1) * scale, sy_up = ((1 - g) * 2 - 1) * scale;
      x = -sx;
      y = sy_up;  // -(-sy_up): minus the motion, and up to down
      break;
    }
    case MotionEncoding::kUnreal:
      x = (r * 255 - 128) / 127 * scale;
      y = (g * 255 - 128) / 127 * scale;
      break;
  }
  dx = x * cell_w;
  dy = y * cell_h;
}

}  // namespace spritz
