#include "spritz/raster/raster.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "kernels/kernel.h"

namespace spritz {

// Two cache lines at most: the strip loop fetches every line of a sprite ahead.
static_assert(sizeof(Sprite) <= 128, "a Sprite is fetched ahead line by line; keep it small");

namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;
constexpr double kMaxHalfExtentPx =
    1e7;  // larger sprites are clamped (they cover the canvas anyway)
// Thinner sprites are drawn this thin with their colour and alpha scaled down
// to keep their light (area x colour). Float coverage resolves edges only to
// about 1e-7 px in a sprite's local coordinates, so a 1e-7 px line lost all
// its light; and a half extent of 1e-320 px made 1 / extent infinite in float
// and the mip level a wild integer, which read texels far outside the
// texture (a crash in the SIMD kernels).
constexpr double kMinHalfExtentPx = 1e-5;
// Mip selection aims at sqrt(2) texels per pixel, half a level blurrier than
// 1:1: point-sampling a sharper level at pixel centres would gain or lose a
// few percent of a small sprite's light with its subpixel phase. With it, a
// sprite's total light stays within 1% of area x mean texel from 0.3 px up
// (tested), and nothing pops as particles shrink or drift.
constexpr double kLodBias = 1.4142135623730951;
constexpr size_t kSpriteChunk = 1024;  // most particles per setup task
constexpr double kExactBelowPx = 3;    // sprites thinner than this get exact edge coverage
constexpr size_t kPrefetchAhead = 4;   // sprites of a strip fetched ahead of the one drawn

// Texel addresses and weights of a bilinear sample at (u, v) in [0, 1],
// clamped to the edge.
struct Bilinear {
  const float *r0, *r1;  // rows
  int x0, x1;            // texel offsets (floats) in the rows
  float tx, ty;
};

using detail::level_view;
using detail::LevelView;

// u, v in [0, 1] put the taps within [-1, width] x [-1, height], which the
// padded border (a copy of the edge) covers: the same values as clamping each
// tap to the texture, without the clamps.
//
// Nearest (filter = "nearest"): the texel under (u, w) is number u width
// rounded down, x = u width and tx = ty = 0; u = 1 takes the border's copy
// of the last texel. Only r0 and x0 are used then.
inline Bilinear bilinear_taps(const LevelView& m, float u, float v, bool nearest = false) {
  using detail::fused;
  const float x = nearest ? u * m.width : fused(u, m.width, -0.5f);
  const float y = nearest ? v * m.height : fused(v, m.height, -0.5f);
  const int ix = static_cast<int>(x + 1.0f) - 1, iy = static_cast<int>(y + 1.0f) - 1;
  const float fx0 = static_cast<float>(ix), fy0 = static_cast<float>(iy);
  Bilinear b;
  b.tx = x - fx0;
  b.ty = y - fy0;
  b.x0 = ix * 4;
  b.x1 = ix * 4 + 4;
  b.r0 = m.origin + static_cast<ptrdiff_t>(iy) * m.stride;
  b.r1 = b.r0 + m.stride;
  return b;
}

inline Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline Float4 splat(float v) {
  return Float4{v, v, v, v};
}

// Bilinear sample, four channels at once, columns first (a, b on the top
// row, c, d below; the steps c - a and d - b come from padded_down, the same
// floats the reference subtracts), each lerp one fused multiply-add:
//   left = a + (c - a) ty, right = b + (d - b) ty, texel = left + (right - left) tx
inline Float4 bilinear4(const LevelView& m, float u, float v) {
  using detail::fused;
  const Bilinear b = bilinear_taps(m, u, v);
  const float* down = m.down + (b.r0 - m.origin);
  const Float4 left = fused(load4(down + b.x0), splat(b.ty), load4(b.r0 + b.x0));
  const Float4 right = fused(load4(down + b.x1), splat(b.ty), load4(b.r0 + b.x1));
  return fused(right - left, splat(b.tx), left);
}

inline Float4 nearest4(const LevelView& m, float u, float v) {
  const Bilinear b = bilinear_taps(m, u, v, true);
  return load4(b.r0 + b.x0);
}

inline Float4 sample4(const LevelView& l0, const LevelView& l1, float mix, bool nearest, float u,
                      float v) {
  if (nearest) return nearest4(l0, u, v);
  const Float4 lo = bilinear4(l0, u, v);
  if (mix <= 0) return lo;
  const Float4 hi = bilinear4(l1, u, v);
  return detail::fused(hi - lo, splat(mix), lo);
}

// The same sample one channel at a time (the reference).
inline void sample_scalar(const Sprite& s, float u, float v, float out[4]) {
  if (s.nearest) {
    const Bilinear b =
        bilinear_taps(level_view(s.cell->levels[static_cast<size_t>(s.level0)]), u, v, true);
    for (int c = 0; c < 4; ++c) out[c] = b.r0[b.x0 + c];
    return;
  }
  for (int level = 0; level < (s.level_mix > 0 ? 2 : 1); ++level) {
    const Bilinear b = bilinear_taps(
        level_view(s.cell->levels[static_cast<size_t>(level ? s.level1 : s.level0)]), u, v);
    for (int c = 0; c < 4; ++c) {
      using detail::fused;
      const float left = fused(b.r1[b.x0 + c] - b.r0[b.x0 + c], b.ty, b.r0[b.x0 + c]);
      const float right = fused(b.r1[b.x1 + c] - b.r0[b.x1 + c], b.ty, b.r0[b.x1 + c]);
      const float t = fused(right - left, b.tx, left);
      out[c] = level ? fused(t - out[c], s.level_mix, out[c]) : t;
    }
  }
}

// Blends the source (C, A (1 - E)) into the pixel at d, one channel at a
// time, each one fused multiply-add (the reference's blend):
//   dst.rgb = C + dst.rgb (1 - A (1 - E))
//   dst.a   = A (1 - E) + dst.a (1 - A (1 - E))
inline void blend_scalar(float* d, const float src[4]) {
  const float occl = std::min(1.0f, src[3]);
  for (int c = 0; c < 3; ++c) d[c] = detail::fused(d[c], 1 - occl, src[c]);
  d[3] = detail::fused(d[3], 1 - occl, occl);
}

// Local coordinates of pixel (x, y)'s centre and its coverage (0 outside).
struct PixelGeometry {
  float lx, ly, cov;
};

inline PixelGeometry pixel_geometry(const Sprite& s, const detail::ExactEdges& edges, int x, int y,
                                    float fy) {
  const float fx = static_cast<float>(x) + 0.5f - s.cx;
  PixelGeometry g;
  g.lx = detail::fused(fx, s.ax_x, fy * s.ax_y);
  g.ly = detail::fused(fx, s.ay_x, fy * s.ay_y);
  const float alx = std::abs(g.lx), aly = std::abs(g.ly);
  if (alx - s.foot_x >= s.half_w || aly - s.foot_y >= s.half_h) {
    g.cov = 0;
  } else if (alx + s.foot_x <= s.half_w && aly + s.foot_y <= s.half_h) {
    g.cov = 1;  // the whole pixel is inside
  } else if (s.exact_edges) {
    g.cov = detail::exact_coverage(s, edges, static_cast<float>(x), static_cast<float>(y));
  } else {
    // Edge of a sprite at least kExactBelowPx across: the overlap of the
    // pixel's footprint [l - foot, l + foot] with [-half, half] along each
    // local axis, multiplied. Exact for axis-aligned sprites; for rotated
    // ones it differs from the exact area only along the edge, by far less
    // than the 1% light budget once the sprite spans a few pixels.
    const float ox = std::min(alx + s.foot_x, s.half_w) - std::max(alx - s.foot_x, -s.half_w);
    const float oy = std::min(aly + s.foot_y, s.half_h) - std::max(aly - s.foot_y, -s.half_h);
    g.cov = std::max(0.0f, ox * s.inv_foot_x) * std::max(0.0f, oy * s.inv_foot_y);
  }
  return g;
}

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

// Linear colour, brightness (HDR above 1), then light influence toward the
// ambient colour: c' = c (1 - L + L ambient); alpha lane: opacity (1 - E).
// `thin` scales both (a sprite widened to its minimum extent).
Float4 particle_colour(const Particle& p, const Emitter& em, Rgb ambient_linear, double thin) {
  const double li = em.light_influence;
  const double k = em.brightness * p.alpha * thin;
  return Float4{static_cast<float>(srgb_to_linear_fast(p.color_srgb.r) * k *
                                   (1 - li + li * ambient_linear.r)),
                static_cast<float>(srgb_to_linear_fast(p.color_srgb.g) * k *
                                   (1 - li + li * ambient_linear.g)),
                static_cast<float>(srgb_to_linear_fast(p.color_srgb.b) * k *
                                   (1 - li + li * ambient_linear.b)),
                static_cast<float>(p.alpha * thin * (1 - em.light_emission))};
}

// A ribbon segment's outline, and one new corner per side of a pixel.
constexpr int kMaxClipped = 4 + 2 * kRibbonCapPoints + 4;

// The area of the polygon (x[i], y[i]), i < n (n <= 4 + 2 kRibbonCapPoints), inside the pixel
// [px, px + 1] x [py, py + 1]: Sutherland-Hodgman against the pixel's four
// sides, then the shoelace formula; its absolute value.
double area_in_pixel(const double* x, const double* y, int n, double px, double py) {
  // In the pixel's own coordinates, so the shoelace sums stay small.
  double ax[kMaxClipped], ay[kMaxClipped], bx[kMaxClipped], by[kMaxClipped];
  for (int i = 0; i < n; ++i) ax[i] = x[i] - px, ay[i] = y[i] - py;
  // Sides as (axis, bound, keep >= or <=).
  const double bounds[4] = {0, 1, 0, 1};
  for (int side = 0; side < 4 && n > 0; ++side) {
    const bool along_x = side < 2, keep_above = side % 2 == 0;
    const double b = bounds[side];
    int m = 0;
    for (int i = 0; i < n; ++i) {
      const int j = (i + 1) % n;
      const double ci = (along_x ? ax[i] : ay[i]) - b, cj = (along_x ? ax[j] : ay[j]) - b;
      const bool in_i = keep_above ? ci >= 0 : ci <= 0, in_j = keep_above ? cj >= 0 : cj <= 0;
      if (in_i) bx[m] = ax[i], by[m] = ay[i], ++m;
      if (in_i != in_j) {
        const double t = ci / (ci - cj);
        bx[m] = ax[i] + (ax[j] - ax[i]) * t;
        by[m] = ay[i] + (ay[j] - ay[i]) * t;
        if (along_x)
          bx[m] = b;
        else
          by[m] = b;
        ++m;
      }
    }
    n = m;
    for (int i = 0; i < n; ++i) ax[i] = bx[i], ay[i] = by[i];
  }
  double twice = 0;
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    twice += ax[i] * ay[j] - ax[j] * ay[i];
  }
  return std::abs(0.5 * twice);
}

}  // namespace

double canvas_scale(const Canvas& canvas, int width, int height) {
  return std::min(static_cast<double>(width) / canvas.width,
                  static_cast<double>(height) / canvas.height);
}

View canvas_view(const Canvas& canvas, int width, int height) {
  return View{canvas_scale(canvas, width, height), 0, 0};
}

View fit_view(const Bounds& b, const Canvas& canvas, int width, int height, double margin_px) {
  if (b.empty) return canvas_view(canvas, width, height);
  const double bw = std::max(b.x1 - b.x0, 1e-6), bh = std::max(b.y1 - b.y0, 1e-6);
  const double scale = std::min(std::max(1.0, width - 2 * margin_px) / bw,
                                std::max(1.0, height - 2 * margin_px) / bh);
  return View{scale, 0.5 * (b.x0 + b.x1), 0.5 * (b.y0 + b.y1)};
}

Bounds visible_bounds(const View& v, int width, int height) {
  Bounds b;
  const double hx = 0.5 * width / v.scale, hy = 0.5 * height / v.scale;
  b.add(v.center_x - hx, v.center_y - hy, v.center_x + hx, v.center_y + hy);
  return b;
}

bool make_sprite(const Particle& p, const Emitter& em, const Texture& tex, Rgb ambient_linear,
                 int width, int height, const View& view, Sprite& s) {
  if (!(p.alpha > 0) || !(p.w > 0) || !(p.h > 0)) return false;
  const double scale = view.scale;
  const double cx = width * 0.5 + (p.x - view.center_x) * scale;
  const double cy = height * 0.5 - (p.y - view.center_y) * scale;
  const double hw_true = std::min(p.w * scale * 0.5, kMaxHalfExtentPx);
  const double hh_true = std::min(p.h * scale * 0.5, kMaxHalfExtentPx);
  const double hw = std::max(hw_true, kMinHalfExtentPx), hh = std::max(hh_true, kMinHalfExtentPx);
  const double thin = (hw_true / hw) * (hh_true / hh);  // 1 unless widened here
  const double theta = std::fmod(p.rotation_deg, 360.0) * kDegToRad;
  const double c = std::cos(theta), sn = std::sin(theta);
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

  s.colour = particle_colour(p, em, ambient_linear, thin);

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
    const double lod = std::log2(texels_per_px);
    const int l = static_cast<int>(std::floor(lod));
    s.level0 = std::min(l, last);
    s.level1 = std::min(l + 1, last);
    s.level_mix = s.level0 == s.level1 ? 0.0f : static_cast<float>(lod - l);
  }
  return true;
}

namespace detail {

uint64_t draw_sprite_portable(const Sprite& sprite, Image& img, int row_begin, int row_end) {
  const Sprite s = sprite;  // a local copy: stores to the image cannot alias it
  const LevelView l0 = level_view(s.cell->levels[static_cast<size_t>(s.level0)]);
  const LevelView l1 = level_view(s.cell->levels[static_cast<size_t>(s.level1)]);
  const float mix = s.level_mix;
  const RowSpans spans(s);
  const ExactEdges edges(s);
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* __restrict row = img.row(y);
    const float fy = static_cast<float>(y) + 0.5f - s.cy;
    int xa, xb;
    spans.at(fy, &xa, &xb);
    for (int x = xa; x < xb; ++x) {
      const PixelGeometry g = pixel_geometry(s, edges, x, y, fy);
      if (g.cov <= 0) continue;
      const float u = std::clamp(detail::fused(g.lx, s.inv_w, 0.5f), 0.0f, 1.0f);
      const float v = std::clamp(detail::fused(-g.ly, s.inv_h, 0.5f), 0.0f, 1.0f);
      // src = colour texel cov: (C, A (1 - E)); k = 1 - A (1 - E):
      //   dst = src + dst k, fused
      const Float4 src = s.colour * sample4(l0, l1, mix, s.nearest, u, v) * g.cov;
      const float occl = std::min(1.0f, src[3]);
      Float4 add = src;
      add[3] = occl;
      const Float4 d = detail::fused(load4(row + x * 4), splat(1 - occl), add);
      std::memcpy(row + x * 4, &d, sizeof d);
      ++blended;
    }
  }
  return blended;
}

}  // namespace detail

namespace {

DrawPath choose_draw_path() {
  if (detail::avx512_preferred()) return DrawPath::kAvx512;
  return detail::cpu_has_avx2_fma() ? DrawPath::kAvx2 : DrawPath::kPortable;
}

}  // namespace

DrawPath default_draw_path() {
  static const DrawPath path = choose_draw_path();
  return path;
}

DrawPath draw_path_from_name(std::string_view name) {
  for (DrawPath p :
       {DrawPath::kReference, DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
    if (name != draw_path_name(p)) continue;
    if (!draw_path_available(p))
      throw Error(std::string("this CPU cannot run the ") + draw_path_name(p) +
                  " sprite kernel (it lacks the instructions); its default is " +
                  draw_path_name(default_draw_path()));
    return p;
  }
  throw Error("unknown sprite kernel '" + printable(name) +
              "'; the kernels are reference, portable, avx2 and avx512");
}

bool draw_path_available(DrawPath path) {
  switch (path) {
    case DrawPath::kAvx2:
      return detail::cpu_has_avx2_fma();
    case DrawPath::kAvx512:
      return detail::cpu_has_avx512();
    default:
      return true;
  }
}

const char* draw_path_name(DrawPath path) {
  switch (path) {
    case DrawPath::kReference:
      return "reference";
    case DrawPath::kPortable:
      return "portable";
    case DrawPath::kAvx2:
      return "avx2";
    case DrawPath::kAvx512:
      return "avx512";
  }
  return "?";
}

uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end, DrawPath path) {
  if (__builtin_expect(s.ribbon != nullptr, 0))
    return draw_ribbon_segment(s, img, row_begin, row_end);
  switch (path) {
    case DrawPath::kReference:
      return draw_sprite_reference(s, img, row_begin, row_end);
    case DrawPath::kPortable:
      return detail::draw_sprite_portable(s, img, row_begin, row_end);
    case DrawPath::kAvx2:
      return detail::draw_sprite_avx2(s, img, row_begin, row_end);
    case DrawPath::kAvx512:
      return detail::draw_sprite_avx512(s, img, row_begin, row_end);
  }
  return 0;
}

uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end) {
  return draw_sprite(s, img, row_begin, row_end, default_draw_path());
}

uint64_t draw_sprite_reference(const Sprite& s, Image& img, int row_begin, int row_end) {
  if (s.ribbon) return draw_ribbon_segment(s, img, row_begin, row_end);
  const detail::ExactEdges edges(s);
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* row = img.row(y);
    const float fy = static_cast<float>(y) + 0.5f - s.cy;
    for (int x = s.x0; x < s.x1; ++x) {
      const PixelGeometry g = pixel_geometry(s, edges, x, y, fy);
      if (g.cov <= 0) continue;
      const float u = std::clamp(detail::fused(g.lx, s.inv_w, 0.5f), 0.0f, 1.0f);
      const float v = std::clamp(detail::fused(-g.ly, s.inv_h, 0.5f), 0.0f, 1.0f);
      float t[4];
      sample_scalar(s, u, v, t);
      // C = colour texel cov, A(1 - E) = alpha (1 - E) texel_alpha cov.
      float src[4];
      for (int c = 0; c < 4; ++c) src[c] = s.colour[c] * t[c] * g.cov;
      blend_scalar(row + x * 4, src);
      ++blended;
    }
  }
  return blended;
}

uint64_t draw_ribbon_segment(const Sprite& s, Image& img, int row_begin, int row_end) {
  const RibbonSegment& r = *s.ribbon;
  // The outline: L_a, L_b, [b's cap], R_b, R_a, [a's cap]. A cap runs from
  // C + N cos(phi) + T hw sin(phi) for phi in (0, pi), N = L - C.
  static const auto arc = [] {
    std::array<std::pair<double, double>, kRibbonCapPoints> a{};
    for (int c = 0; c < kRibbonCapPoints; ++c) {
      const double phi = 3.14159265358979323846 * (c + 1) / (kRibbonCapPoints + 1);
      a[static_cast<size_t>(c)] = {std::cos(phi), std::sin(phi)};
    }
    return a;
  }();
  double outline_x[4 + 2 * kRibbonCapPoints], outline_y[4 + 2 * kRibbonCapPoints];
  int corners = 0;
  const auto add = [&](double x, double y) {
    outline_x[corners] = x;
    outline_y[corners] = y;
    ++corners;
  };
  const auto cap = [&](double cx, double cy, double lx, double ly, double hw, double ox,
                       double oy) {
    const double nx = lx - cx, ny = ly - cy;
    for (const auto& [c, sn] : arc) add(cx + nx * c + ox * hw * sn, cy + ny * c + oy * hw * sn);
  };
  add(r.corner_x[0], r.corner_y[0]);
  add(r.corner_x[1], r.corner_y[1]);
  if (r.cap_b) cap(r.ax + r.dx, r.ay + r.dy, r.corner_x[1], r.corner_y[1], r.hw_b, r.tx, r.ty);
  add(r.corner_x[2], r.corner_y[2]);
  add(r.corner_x[3], r.corner_y[3]);
  if (r.cap_a) cap(r.ax, r.ay, r.corner_x[3], r.corner_y[3], r.hw_a, -r.tx, -r.ty);
  const double reach = std::max(r.hw_a, r.hw_b) + 0.75;
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* row = img.row(y);
    const double py = y + 0.5;
    for (int x = s.x0; x < s.x1; ++x) {
      // The pixel centre's place along the centre line (0 at a, 1 at b) and
      // its distance to the line's nearest point (on a cap, where t is
      // clamped to 0 or 1, the distance to the end point, so a soft profile
      // rounds off with the cap).
      const double px = x + 0.5;
      const double t =
          r.len2 > 0 ? std::clamp(((px - r.ax) * r.dx + (py - r.ay) * r.dy) / r.len2, 0.0, 1.0)
                     : 0.0;
      const double qx = r.ax + r.dx * t, qy = r.ay + r.dy * t;
      const double ex = px - qx, ey = py - qy;
      const double dist = std::hypot(ex, ey);
      // The outline lies within the wider half width of the centre line
      // (its corners and caps do), and the pixel within 0.71 of its centre:
      // farther off, no clipping is needed to know it is outside.
      if (dist > reach) continue;
      const float cov =
          static_cast<float>(std::min(1.0, area_in_pixel(outline_x, outline_y, corners, x, y)));
      if (!(cov > 0)) continue;
      // Across the line: -1 .. 1 over the half width there, signed by side.
      const double hw = r.hw_a + (r.hw_b - r.hw_a) * t;
      const double across = hw > 0 ? (ey * r.tx - ex * r.ty < 0 ? -dist : dist) / hw : 0.0;
      const float v = static_cast<float>(std::clamp(0.5 + 0.5 * across, 0.0, 1.0));
      float tex[4];
      sample_scalar(s, 0.5f, v, tex);
      const float tf = static_cast<float>(t);
      float src[4];
      for (int c = 0; c < 4; ++c)
        src[c] = detail::fused(r.colour_b[c] - r.colour_a[c], tf, r.colour_a[c]) * tex[c] * cov;
      blend_scalar(row + x * 4, src);
      ++blended;
    }
  }
  return blended;
}

bool Rasterizer::same_line(size_t a, size_t b) const {
  return particles_[a].first == particles_[b].first &&
         particles_[a].second->key == particles_[b].second->key;
}

bool Rasterizer::make_segment(size_t i, Sprite& s, RibbonSegment& r) const {
  const size_t n = particles_.size();
  if (i + 1 >= n || !same_line(i, i + 1)) return false;
  const Particle& pa = *particles_[i].second;
  const Particle& pb = *particles_[i + 1].second;
  const Emitter& em = fx_.emitters[particles_[i].first];
  if (!(pa.alpha > 0) && !(pb.alpha > 0)) return false;
  const double scale = view_.scale;
  const auto centre = [&](size_t j, double* x, double* y) {
    const Particle& p = *particles_[j].second;
    *x = width_ * 0.5 + (p.x - view_.center_x) * scale;
    *y = height_ * 0.5 - (p.y - view_.center_y) * scale;
  };
  const auto half_width = [&](const Particle& p) {
    return std::min(std::max(p.w, 0.0) * scale * 0.5, kMaxHalfExtentPx);
  };
  // A sample's normal times its half width: N normal to the line through
  // its neighbours on the ribbon (itself at the ends), the same doubles for
  // both segments that share the sample.
  const auto normal = [&](size_t j, double* nx, double* ny) {
    const size_t prev = j > 0 && same_line(j - 1, j) ? j - 1 : j;
    const size_t next = j + 1 < n && same_line(j + 1, j) ? j + 1 : j;
    double x0, y0, x1, y1;
    centre(prev, &x0, &y0);
    centre(next, &x1, &y1);
    const double dx = x1 - x0, dy = y1 - y0, len = std::hypot(dx, dy);
    const double hw = half_width(*particles_[j].second);
    // A particle that has not moved has no direction: any normal draws its
    // round ends as one disc.
    *nx = len > 0 ? -dy / len * hw : 0.0;
    *ny = len > 0 ? dx / len * hw : hw;
  };
  double bx, by, nax, nay, nbx, nby;
  centre(i, &r.ax, &r.ay);
  centre(i + 1, &bx, &by);
  normal(i, &nax, &nay);
  normal(i + 1, &nbx, &nby);
  r.dx = bx - r.ax;
  r.dy = by - r.ay;
  r.len2 = r.dx * r.dx + r.dy * r.dy;
  const double len = std::sqrt(r.len2);
  // Along the segment; for one of no length, square to the normal at b.
  const double nb = std::hypot(nbx, nby);
  const double tx = len > 0 ? r.dx / len : nb > 0 ? nby / nb : 1.0;
  const double ty = len > 0 ? r.dy / len : nb > 0 ? -nbx / nb : 0.0;
  r.tx = tx;
  r.ty = ty;
  r.hw_a = half_width(pa);
  r.hw_b = half_width(pb);
  r.colour_a = particle_colour(pa, em, ambient_linear_, 1);
  r.colour_b = particle_colour(pb, em, ambient_linear_, 1);
  r.corner_x[0] = r.ax + nax, r.corner_y[0] = r.ay + nay;
  r.corner_x[1] = bx + nbx, r.corner_y[1] = by + nby;
  r.corner_x[2] = bx - nbx, r.corner_y[2] = by - nby;
  r.corner_x[3] = r.ax - nax, r.corner_y[3] = r.ay - nay;
  r.cap_a = !(i > 0 && same_line(i - 1, i));
  r.cap_b = !(i + 2 < n && same_line(i + 2, i + 1));
  // The bounds: the corners, and the caps' discs.
  double x_lo = r.corner_x[0], x_hi = x_lo, y_lo = r.corner_y[0], y_hi = y_lo;
  for (int c = 1; c < 4; ++c) {
    x_lo = std::min(x_lo, r.corner_x[c]);
    x_hi = std::max(x_hi, r.corner_x[c]);
    y_lo = std::min(y_lo, r.corner_y[c]);
    y_hi = std::max(y_hi, r.corner_y[c]);
  }
  if (r.cap_a) {
    x_lo = std::min(x_lo, r.ax - r.hw_a), x_hi = std::max(x_hi, r.ax + r.hw_a);
    y_lo = std::min(y_lo, r.ay - r.hw_a), y_hi = std::max(y_hi, r.ay + r.hw_a);
  }
  if (r.cap_b) {
    x_lo = std::min(x_lo, bx - r.hw_b), x_hi = std::max(x_hi, bx + r.hw_b);
    y_lo = std::min(y_lo, by - r.hw_b), y_hi = std::max(y_hi, by + r.hw_b);
  }
  const double x0 = std::max(0.0, std::floor(x_lo)), x1 = std::min<double>(width_, std::ceil(x_hi));
  const double y0 = std::max(0.0, std::floor(y_lo)),
               y1 = std::min<double>(height_, std::ceil(y_hi));
  if (!(x0 < x1) || !(y0 < y1)) return false;  // off canvas, a point, or not finite
  s = Sprite{};
  s.x0 = static_cast<int>(x0);
  s.x1 = static_cast<int>(x1);
  s.y0 = static_cast<int>(y0);
  s.y1 = static_cast<int>(y1);
  const Texture& tex = *textures_[em.index];
  s.cell = &tex.cell(pa.cell >= 1 && pa.cell <= static_cast<int>(tex.cells.size()) ? pa.cell : 1);
  s.nearest = em.filter == TextureFilter::kNearest;
  s.ribbon = &r;
  return true;
}

Rasterizer::Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height,
                       int threads)
    : Rasterizer(fx, textures, width, height, threads, canvas_view(fx.canvas, width, height)) {}

Rasterizer::Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height,
                       int threads, const View& view)
    : fx_(fx),
      textures_(textures),
      width_(width),
      height_(height),
      threads_(std::max(1, threads)),
      view_(view),
      pool_(std::make_unique<ThreadPool>(std::max(1, threads))) {
  const Rgba& bg = fx.canvas.background_srgb;
  background_[0] = static_cast<float>(srgb_to_linear(bg.r) * bg.a);
  background_[1] = static_cast<float>(srgb_to_linear(bg.g) * bg.a);
  background_[2] = static_cast<float>(srgb_to_linear(bg.b) * bg.a);
  background_[3] = static_cast<float>(bg.a);
  ambient_linear_ = srgb_to_linear(fx.canvas.ambient_srgb);
}

void Rasterizer::render(const Frame& frame, Image& out) {
  out.resize(width_, height_);

  // Sprite setup, in parallel chunks; each particle keeps its slot (its
  // place in draw order: emitter by emitter), so the draw order is the
  // evaluation order whatever the thread count.
  emitter_start_.clear();
  size_t n = 0;
  for (const EmitterFrame& ef : frame.emitters) {
    emitter_start_.push_back(n);
    n += ef.particles.size();
  }
  // On two threads or more, frames take turns with two sprite lists: the
  // list a frame writes was last read two frames ago, not just now by the
  // other core's strips, whose copies of its lines would each have to be
  // invalidated across the caches first (S3 frame after frame: 25.4-26.0
  // ms with one list, 23.6-24.1 with two; docs/performance.md).
  if (threads_ > 1) sprites_.swap(sprites_spare_);
  sprites_.resize(n);
  const bool ribbons = std::any_of(fx_.emitters.begin(), fx_.emitters.end(),
                                   [](const Emitter& em) { return em.trail.draws_ribbon(); });
  segments_.resize(ribbons ? n : 0);
  // Ribbons look at neighbouring slots by index. Only they need the list of
  // all slots, made here on one thread (S3's 100,000 particles: 0.45 ms, 2%
  // of a two-thread frame that the chunks no longer wait for).
  particles_.clear();
  if (ribbons)
    for (const EmitterFrame& ef : frame.emitters)
      for (const Particle& p : ef.particles) particles_.push_back({ef.emitter, &p});
  // Chunks small enough that every thread gets several even for a thousand
  // particles (setup is a few percent of a small frame: run serially it
  // would cap the thread scaling), large enough to amortise the task.
  const size_t chunk =
      std::clamp<size_t>(n / (4 * static_cast<size_t>(threads_)), 64, kSpriteChunk);
  const int chunks = static_cast<int>((n + chunk - 1) / chunk);
  const int strips = (height_ + kStripRows - 1) / kStripRows;
  if (bins_.size() < static_cast<size_t>(chunks)) bins_.resize(static_cast<size_t>(chunks));
  std::vector<uint64_t> kept(static_cast<size_t>(chunks), 0);
  pool_->run(chunks, [&](int task) {
    const size_t begin = static_cast<size_t>(task) * chunk, end = std::min(n, begin + chunk);
    // Bin the chunk's sprites that reach the canvas by the strips their rows
    // touch, keeping draw order (the bins index sprites_ directly).
    std::vector<std::vector<uint32_t>>& bins = bins_[static_cast<size_t>(task)];
    bins.resize(static_cast<size_t>(strips));
    for (auto& bin : bins) bin.clear();
    uint64_t valid = 0;
    // The emitter that holds slot `begin` (the last one starting at or
    // before it: emitters with no particles start where the next does).
    size_t e =
        static_cast<size_t>(std::upper_bound(emitter_start_.begin(), emitter_start_.end(), begin) -
                            emitter_start_.begin() - 1);
    for (size_t i = begin; i < end; ++i) {
      while (e + 1 < emitter_start_.size() && emitter_start_[e + 1] <= i) ++e;
      const EmitterFrame& ef = frame.emitters[e];
      const Emitter& em = fx_.emitters[ef.emitter];
      // A ribbon's samples are segments to the next sample, and the ribbon
      // ends in the particle (a cap): the particle is drawn as a sprite only
      // while it has no sample behind it yet.
      const Particle& p = ef.particles[i - emitter_start_[e]];
      bool drawn;
      if (!em.trail.draws_ribbon())
        drawn = make_sprite(p, em, *textures_[em.index], ambient_linear_, width_, height_, view_,
                            sprites_[i]);
      else if (p.trail > 0)
        drawn = make_segment(i, sprites_[i], segments_[i]);
      else
        drawn = !(i > 0 && same_line(i - 1, i)) &&
                make_sprite(p, em, *textures_[em.index], ambient_linear_, width_, height_, view_,
                            sprites_[i]);
      if (!drawn) continue;
      ++valid;
      const Sprite& s = sprites_[i];
      for (int k = s.y0 / kStripRows; k <= (s.y1 - 1) / kStripRows; ++k)
        bins[static_cast<size_t>(k)].push_back(static_cast<uint32_t>(i));
    }
    kept[static_cast<size_t>(task)] = valid;
  });

  blended_.assign(static_cast<size_t>(strips), 0);
  pool_->run(strips, [&](int k) {
    const int row_begin = k * kStripRows, row_end = std::min(height_, row_begin + kStripRows);
    // The background, from locals: read through `this` the loop would
    // reload it after every store to the image (a float store may alias it).
    const Float4 bg = {background_[0], background_[1], background_[2], background_[3]};
    const int width = width_;
    for (int y = row_begin; y < row_end; ++y) {
      float* __restrict row = out.row(y);
      for (int x = 0; x < width; ++x) std::memcpy(row + x * 4, &bg, sizeof bg);
    }
    uint64_t local = 0;
    for (int c = 0; c < chunks; ++c) {
      const std::vector<uint32_t>& bin = bins_[static_cast<size_t>(c)][static_cast<size_t>(k)];
      for (size_t j = 0; j < bin.size(); ++j) {
        // A strip's sprites lie anywhere in sprites_ (100,000 of them are
        // 12 MB): fetch the one a few places ahead while this one draws.
        // S3: 16-19% less time (docs/performance.md).
        if (j + kPrefetchAhead < bin.size()) {
          const uintptr_t next = reinterpret_cast<uintptr_t>(&sprites_[bin[j + kPrefetchAhead]]);
          for (uintptr_t line = next & ~uintptr_t{63}; line < next + sizeof(Sprite); line += 64)
            __builtin_prefetch(reinterpret_cast<const void*>(line));
        }
        local += draw_sprite(sprites_[bin[j]], out, row_begin, row_end, path_);
      }
    }
    blended_[static_cast<size_t>(k)] = local;
  });
  stats_.sprites = 0;
  for (uint64_t c : kept) stats_.sprites += c;
  stats_.covered_pixels = 0;
  for (uint64_t b : blended_) stats_.covered_pixels += b;
}

}  // namespace spritz
