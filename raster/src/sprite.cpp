#include "sprite.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "spritz/color.h"
#include "spritz/elementary.h"

namespace spritz {
namespace detail {
namespace {

// Mip selection aims at sqrt(2) texels per pixel, half a level blurrier than
// 1:1: point-sampling a sharper level at pixel centres would gain or lose a
// few percent of a small sprite's light with its subpixel phase. With it, a
// sprite's total light stays within 1% of area x mean texel from 0.3 px up
// (tested), and nothing pops as particles shrink or drift.
constexpr double kLodBias = 1.4142135623730951;
constexpr double kExactBelowPx = 3;  // sprites thinner than this get exact edge coverage

// sRGB to linear through a fine table (one lookup per colour channel per
// particle instead of a pow).
float srgb_to_linear_fast(double c) {
  constexpr int kSteps = 4096;
  static const std::array<double, kSteps + 2> table = [] {
    std::array<double, kSteps + 2> t{};
    for (int i = 0; i <= kSteps + 1; ++i)
      t[static_cast<size_t>(i)] = srgb_to_linear(std::min(1.0, static_cast<double>(i) / kSteps));
    return t;
  }();
  if (!(c > 0)) return 0;
  if (c <= 0.04045) return static_cast<float>(c / 12.92);
  const double f = std::min(c, 1.0) * kSteps;
  const int i = static_cast<int>(f);
  return static_cast<float>(table[static_cast<size_t>(i)] +
                            (table[static_cast<size_t>(i) + 1] - table[static_cast<size_t>(i)]) *
                                (f - i));
}

// Whether a and b are the same double, bit for bit.
bool same_bits(double a, double b) {
  uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

}  // namespace

Float4 particle_colour(const Particle& p, const Emitter& em, Rgb ambient_linear, double thin,
                       LightPass pass) {
  const double li = em.light_influence;
  const double e = p.emission >= 0 ? p.emission : em.light_emission;
  // A light pass keeps its share of the light; the occlusion (w) is the
  // whole image's either way.
  const double share = pass == LightPass::kAll ? 1.0 : pass == LightPass::kAlpha ? 1 - e : e;
  const double k = em.brightness * p.alpha * thin * share;
  // Blending in sRGB values (canvas.blend): the colour as it is stored.
  const auto space = [&em](double c) {
    return em.blend_srgb ? std::clamp(c, 0.0, 1.0) : srgb_to_linear_fast(c);
  };
  return Float4{static_cast<float>(space(p.color_srgb.r) * k * (1 - li + li * ambient_linear.r)),
                static_cast<float>(space(p.color_srgb.g) * k * (1 - li + li * ambient_linear.g)),
                static_cast<float>(space(p.color_srgb.b) * k * (1 - li + li * ambient_linear.b)),
                static_cast<float>(p.alpha * thin * (1 - e))};
}

}  // namespace detail

using detail::kExactBelowPx;
using detail::kLodBias;
using detail::kMaxHalfExtentPx;
using detail::kMinHalfExtentPx;

bool make_sprite(const Particle& p, const Emitter& em, const Texture& tex, Rgb ambient_linear,
                 int width, int height, const View& view, Sprite& s, LightPass pass,
                 SpriteMemo* memo) {
  SpriteMemo local;
  SpriteMemo& m = memo ? *memo : local;
  if (!(p.alpha > 0) || !(p.w > 0) || !(p.h > 0)) return false;
  const double scale = view.scale;
  const double cx = width * 0.5 + (p.x - view.center_x) * scale;
  const double cy = height * 0.5 - (p.y - view.center_y) * scale;
  const double hw_true = std::min(p.w * scale * 0.5, kMaxHalfExtentPx);
  const double hh_true = std::min(p.h * scale * 0.5, kMaxHalfExtentPx);
  const double hw = std::max(hw_true, kMinHalfExtentPx), hh = std::max(hh_true, kMinHalfExtentPx);
  const double thin = (hw_true / hw) * (hh_true / hh);  // 1 unless widened here
  // Bit for bit: -0 and +0 are equal but have sines of different signs.
  if (!m.has_rotation || !detail::same_bits(p.rotation_deg, m.rotation_deg)) {
    const double theta = math::fmod(p.rotation_deg, 360.0) * kDegToRad;
    math::sincos(theta, &m.sin, &m.cos);
    m.rotation_deg = p.rotation_deg;
    m.has_rotation = true;
  }
  const double c = m.cos, sn = m.sin;
  const double ext_x = std::abs(c) * hw + std::abs(sn) * hh;
  const double ext_y = std::abs(sn) * hw + std::abs(c) * hh;
  const double x0 = std::max(0.0, std::floor(cx - ext_x));
  const double x1 = std::min(static_cast<double>(width), std::ceil(cx + ext_x));
  const double y0 = std::max(0.0, std::floor(cy - ext_y));
  const double y1 = std::min(static_cast<double>(height), std::ceil(cy + ext_y));
  if (!(x0 < x1) || !(y0 < y1)) return false;  // off canvas (or not finite)
  s.ribbon = nullptr;  // the slot may have held a ribbon segment in an earlier frame
  s.cx = static_cast<float>(cx);
  s.cy = static_cast<float>(cy);
  // Local axes in screen space (y down): x = (cos, -sin), up = (-sin, -cos).
  s.ax_x = static_cast<float>(c);
  s.ax_y = static_cast<float>(-sn);
  s.ay_x = static_cast<float>(-sn);
  s.ay_y = static_cast<float>(-c);
  s.half_w = static_cast<float>(hw);
  s.half_h = static_cast<float>(hh);
  s.foot_x = s.foot_y = static_cast<float>(0.5 * (std::abs(c) + std::abs(sn)));
  s.inv_foot_x = s.inv_foot_y = static_cast<float>(1 / (std::abs(c) + std::abs(sn)));
  // Tiny sprites need the exact pixel-square clip: a separable footprint
  // would let the light of a sub-pixel particle rotated near 45 degrees
  // flicker as it drifts across the pixel grid.
  s.exact_edges = std::min(hw, hh) * 2 < kExactBelowPx;
  s.inv_w = static_cast<float>(0.5 / hw);
  s.inv_h = static_cast<float>(0.5 / hh);
  s.x0 = static_cast<int>(x0);
  s.x1 = static_cast<int>(x1);
  s.y0 = static_cast<int>(y0);
  s.y1 = static_cast<int>(y1);

  s.colour = detail::particle_colour(p, em, ambient_linear, thin, pass);

  s.cell = &tex.cell(p.cell >= 1 && p.cell <= static_cast<int>(tex.cells.size()) ? p.cell : 1);
  // Texels per screen pixel picks the mip level; trilinear between two levels
  // so nothing pops as a particle shrinks.
  const double texels_per_px =
      std::max(tex.cell_width / (2 * hw), tex.cell_height / (2 * hh)) * kLodBias;
  const int last = static_cast<int>(s.cell->levels.size()) - 1;
  s.nearest = em.filter == TextureFilter::kNearest;
  if (texels_per_px <= 1 || em.filter != TextureFilter::kTrilinear) {  // the full-size texture
    s.level0 = s.level1 = 0;
    s.level_mix = 0;
  } else {
    if (!m.has_lod || !detail::same_bits(texels_per_px, m.texels_per_px)) {
      m.lod = math::log2(texels_per_px);
      m.texels_per_px = texels_per_px;
      m.has_lod = true;
    }
    const double lod = m.lod;
    const int l = static_cast<int>(std::floor(lod));
    s.level0 = std::min(l, last);
    s.level1 = std::min(l + 1, last);
    s.level_mix = s.level0 == s.level1 ? 0.0f : static_cast<float>(lod - l);
  }
  return true;
}

}  // namespace spritz
