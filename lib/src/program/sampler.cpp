// Texture reads for programs (docs/programs.md, "Textures").
//
// A coordinate u in texture space is first folded into [0, 1]: clamped, or
// with repeat_enable wrapped to u - floor(u); NaN reads as 0. An image of
// w x h texels is then read as GLSL's linear filter does, texel centres at
// (i + 1/2) / w:
//
//     x = u w - 1/2,  i = floor(x),  f = x - i
//     value = t[i] (1 - f) + t[i + 1] f       (each axis, x then y)
//
// where a texel index past the edge is clamped (or wrapped). With
// filter_nearest the value is t[floor(u w)] instead. All in doubles, in
// one fixed order: the same bits everywhere. A curve or gradient is read
// exactly at the folded u (v plays no part): r is the curve's value (g, b
// 0, a 1), as Godot's CurveTexture holds it in its red channel; a
// gradient gives its colour with a = 1.
#include "sampler.h"

#include <algorithm>
#include <cmath>

namespace spritz::program {
namespace {

double fold(double u, bool repeat) {
  if (!std::isfinite(u)) return std::isnan(u) || repeat ? 0.0 : (u > 0 ? 1.0 : 0.0);
  if (!repeat) return std::clamp(u, 0.0, 1.0);
  const double f = u - std::floor(u);
  return f < 1 ? f : 0.0;  // -tiny wraps to 1 - tiny, which may round to 1
}

// Texel index i of an axis n texels long (n >= 1), |i| small.
int32_t edge(int64_t i, int32_t n, bool repeat) {
  if (repeat) return static_cast<int32_t>(((i % n) + n) % n);
  return static_cast<int32_t>(std::clamp<int64_t>(i, 0, n - 1));
}

double at(const ProgramImage& im, int32_t x, int32_t y, uint32_t k) {
  const size_t i =
      (static_cast<size_t>(y) * static_cast<size_t>(im.width) + static_cast<size_t>(x)) * 4 + k;
  return im.rgba[i] / 65535.0;
}

double fallback(const SamplerInfo& info, uint32_t k) {
  switch (info.fallback) {
    case SamplerInfo::Fallback::kWhite:
      return 1;
    case SamplerInfo::Fallback::kBlack:
      return k == 3 ? 1 : 0;
    case SamplerInfo::Fallback::kTransparent:
      return 0;
  }
  return 0;
}

double curve_channel(const Sampler& s, double u, uint32_t k) {
  if (s.curve) return k == 0 ? s.curve->evaluate(u, 0) : (k == 3 ? 1 : 0);
  if (k == 3) return 1;
  const Rgb c = s.gradient->evaluate(u, 0);
  return k == 0 ? c.r : (k == 1 ? c.g : c.b);
}

double image_sample(const Sampler& s, double u, double v, uint32_t k) {
  const ProgramImage& im = *s.image;
  const bool rep = s.info.repeat;
  const int32_t w = im.width, h = im.height;
  if (s.info.nearest) {
    const auto ix = static_cast<int64_t>(std::floor(u * w));
    const auto iy = static_cast<int64_t>(std::floor(v * h));
    return at(im, edge(ix, w, rep), edge(iy, h, rep), k);
  }
  const double x = u * w - 0.5, y = v * h - 0.5;
  const double x0 = std::floor(x), y0 = std::floor(y);
  const double fx = x - x0, fy = y - y0;
  const auto i = static_cast<int64_t>(x0);
  const auto j = static_cast<int64_t>(y0);
  const int32_t xa = edge(i, w, rep), xb = edge(i + 1, w, rep);
  const int32_t ya = edge(j, h, rep), yb = edge(j + 1, h, rep);
  const double top = at(im, xa, ya, k) + (at(im, xb, ya, k) - at(im, xa, ya, k)) * fx;
  const double bottom = at(im, xa, yb, k) + (at(im, xb, yb, k) - at(im, xa, yb, k)) * fx;
  return top + (bottom - top) * fy;
}

}  // namespace

double sample(const Sampler& s, double u, double v, uint32_t k) {
  u = fold(u, s.info.repeat);
  v = fold(v, s.info.repeat);
  if (s.image) return image_sample(s, u, v, k);
  if (s.curve || s.gradient) return curve_channel(s, u, k);
  return fallback(s.info, k);
}

double texel(const Sampler& s, int32_t x, int32_t y, uint32_t k) {
  if (s.image)
    return at(*s.image, std::clamp(x, 0, s.image->width - 1), std::clamp(y, 0, s.image->height - 1),
              k);
  if (s.curve || s.gradient)
    return curve_channel(s, (std::clamp(x, 0, kCurveTexels - 1) + 0.5) / kCurveTexels, k);
  return fallback(s.info, k);
}

int32_t texture_size(const Sampler& s, int32_t lod, uint32_t k) {
  int32_t n = 1;
  if (s.image)
    n = k == 0 ? s.image->width : s.image->height;
  else if (s.curve || s.gradient)
    n = k == 0 ? kCurveTexels : 1;
  const int32_t level = std::clamp(lod, 0, 30);
  return std::max(1, n >> level);
}

}  // namespace spritz::program
