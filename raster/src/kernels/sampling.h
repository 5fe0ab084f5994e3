// Texture sampling, coverage and the blend, written once for the scalar
// paths (the reference kernel, the portable kernel and ribbons). The SIMD
// kernels compute the same operations lane by lane and must match them bit
// for bit (tests/raster/kernel_test.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "kernels/kernel.h"
#include "spritz/raster/raster.h"

namespace spritz::detail {

// Texel addresses and weights of a bilinear sample at (u, v) in [0, 1],
// clamped to the edge.
struct Bilinear {
  const float *r0, *r1;  // rows
  int x0, x1;            // texel offsets (floats) in the rows
  float tx, ty;
};

// u, v in [0, 1] put the taps within [-1, width] x [-1, height], which the
// padded border (a copy of the edge) covers: the same values as clamping each
// tap to the texture, without the clamps.
//
// Nearest (filter = "nearest"): the texel under (u, w) is number u width
// rounded down, x = u width and tx = ty = 0; u = 1 takes the border's copy
// of the last texel. Only r0 and x0 are used then.
inline Bilinear bilinear_taps(const LevelView& m, float u, float v, bool nearest = false) {
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
  return fused(hi - lo, splat(mix), lo);
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
  for (int c = 0; c < 3; ++c) d[c] = fused(d[c], 1 - occl, src[c]);
  d[3] = fused(d[3], 1 - occl, occl);
}

// Local coordinates of pixel (x, y)'s centre and its coverage (0 outside).
struct PixelGeometry {
  float lx, ly, cov;
};

inline PixelGeometry pixel_geometry(const Sprite& s, const ExactEdges& edges, int x, int y,
                                    float fy) {
  const float fx = static_cast<float>(x) + 0.5f - s.cx;
  PixelGeometry g;
  g.lx = fused(fx, s.ax_x, fy * s.ax_y);
  g.ly = fused(fx, s.ay_x, fy * s.ay_y);
  const float alx = std::abs(g.lx), aly = std::abs(g.ly);
  if (alx - s.foot_x >= s.half_w || aly - s.foot_y >= s.half_h) {
    g.cov = 0;
  } else if (alx + s.foot_x <= s.half_w && aly + s.foot_y <= s.half_h) {
    g.cov = 1;  // the whole pixel is inside
  } else if (s.exact_edges) {
    g.cov = exact_coverage(s, edges, static_cast<float>(x), static_cast<float>(y));
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

}  // namespace spritz::detail
