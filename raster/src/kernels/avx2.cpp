// The AVX2 sprite kernel. It computes exactly what draw_sprite_reference
// computes, operation for operation, so its output is the same bytes:
//   - the geometry of eight pixels at a time (lanes = pixels): eight of a
//     row, or, for sprites at most 16 px wide, the next eight of their
//     rows' spans laid end to end;
//   - the bilinear taps as two 256-bit loads per pixel and level: the top
//     texel pair a|b from the padded mip storage and the steps down to the
//     bottom pair, c-a|d-b, from padded_down (the same differences the
//     reference computes, computed once per texture), blended down the
//     columns first;
//   - two pixels per vector for the colour and the blend (lanes = RGBA RGBA),
//     since neighbouring pixels are neighbours in the frame buffer too.
//   - every fused() of the reference as one FMA3 instruction, which rounds
//     exactly as it does.
// Only this file's functions carry target("avx2,fma"); the binary still
// runs on any x86-64 and picks this kernel at run time (cpu_has_avx2_fma).
// exact_coverage_into<__m256> and Kernel::group are always inlined into the
// target("avx2,fma") walks, and no __m256 is passed by value across a call
// between AVX and non-AVX code (Clang refuses that; GCC only warns, -Wpsabi).
#pragma GCC diagnostic ignored "-Wpsabi"
#include <algorithm>
#include <cstddef>

#include "kernels/kernel_x86.h"

namespace spritz::detail {

#if SPRITZ_X86_KERNELS

bool cpu_has_avx2_fma() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

namespace {

// Per-pixel texel offsets and weights of one mip level for the eight pixels
// of a group: x = u w - 0.5 (fused), ix = int(x + 1) - 1 (floor for x >= -1),
// tx = x - ix.
SPRITZ_AVX2 void taps8(const LevelView& l, __m256 u, __m256 v, int* off, float* ty, __m256* tx) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
  const __m256i one_i = _mm256_set1_epi32(1);
  const __m256 x = _mm256_fmsub_ps(u, _mm256_set1_ps(l.width), half);
  const __m256 y = _mm256_fmsub_ps(v, _mm256_set1_ps(l.height), half);
  const __m256i ix = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(x, one)), one_i);
  const __m256i iy = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(y, one)), one_i);
  *tx = _mm256_sub_ps(x, _mm256_cvtepi32_ps(ix));
  _mm256_store_ps(ty, _mm256_sub_ps(y, _mm256_cvtepi32_ps(iy)));
  const __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(iy, _mm256_set1_epi32(l.stride)),
                                     _mm256_slli_epi32(ix, 2));
  _mm256_store_si256(reinterpret_cast<__m256i*>(off), o);
}

// The nearest texel's offset for the eight pixels of a group (filter =
// "nearest"): x = u w, ix = int(x + 1) - 1, as bilinear_taps computes it.
SPRITZ_AVX2 void nearest8(const LevelView& l, __m256 u, __m256 v, int* off) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256i one_i = _mm256_set1_epi32(1);
  const __m256 x = _mm256_mul_ps(u, _mm256_set1_ps(l.width));
  const __m256 y = _mm256_mul_ps(v, _mm256_set1_ps(l.height));
  const __m256i ix = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(x, one)), one_i);
  const __m256i iy = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(y, one)), one_i);
  const __m256i o = _mm256_add_epi32(_mm256_mullo_epi32(iy, _mm256_set1_epi32(l.stride)),
                                     _mm256_slli_epi32(ix, 2));
  _mm256_store_si256(reinterpret_cast<__m256i*>(off), o);
}

// The nearest texels of pixels i and i + 1 as [rgba_i | rgba_i+1]: two
// 16-byte loads (the texel past the border column is not the texture's).
SPRITZ_AVX2 __m256 nearest2(const LevelView& l, const int* off, int i) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(l.origin + off[i])),
                              _mm_loadu_ps(l.origin + off[i + 1]), 1);
}

// The bilinear samples of pixels i and i + 1 as [rgba_i | rgba_i+1], each
// lerp fused:
//   left = a + (c - a) ty, right = b + (d - b) ty, texel = left + (right - left) tx
SPRITZ_AVX2 __m256 bilinear2(const LevelView& l, const int* off, const float* ty, int i,
                             __m256 tx2) {
  const int o0 = off[i], o1 = off[i + 1];
  const __m256 top0 = _mm256_loadu_ps(l.origin + o0),
               down0 = _mm256_loadu_ps(l.down + o0);  // a|b, c-a|d-b
  const __m256 top1 = _mm256_loadu_ps(l.origin + o1), down1 = _mm256_loadu_ps(l.down + o1);
  const __m256 v0 = _mm256_fmadd_ps(down0, _mm256_broadcast_ss(ty + i), top0);
  const __m256 v1 = _mm256_fmadd_ps(down1, _mm256_broadcast_ss(ty + i + 1), top1);
  const __m256 left = _mm256_permute2f128_ps(v0, v1, 0x20);   // left_i | left_i+1
  const __m256 right = _mm256_permute2f128_ps(v0, v1, 0x31);  // right_i | right_i+1
  return _mm256_fmadd_ps(_mm256_sub_ps(right, left), tx2, left);
}

// What one sprite's draw needs, as vectors, and the work on one group of
// eight pixels, shared by the row walk and the packed walk below. Compiled
// once for each combination of trilinear sampling, exact edge coverage and
// nearest sampling (never with trilinear): each copy has no per-pair test
// and fewer live values.
template <bool trilinear, bool exact, bool nearest>
struct Kernel {
  static_assert(!(trilinear && nearest));
  const Sprite s;  // a copy: stores to the image cannot alias it
  const ExactEdges edges;
  LevelView l0, l1;
  __m256 zero, one, half, abs_mask, cx, ax_x, ay_x, half_w, half_h, neg_half_w, neg_half_h, foot_x,
      foot_y;
  __m256 inv_foot_x, inv_foot_y, inv_w, inv_h, mix, colour;
  __m256i pair_index[4];  // lane pair k of a group, each broadcast over one 128-bit half
  alignas(32) int off0[8], off1[8];
  alignas(32) float ty0[8], ty1[8];

  SPRITZ_AVX2 explicit Kernel(const Sprite& sprite)
      : s(sprite),
        edges(sprite),
        l0(level_view(sprite.cell->levels[static_cast<size_t>(sprite.level0)])),
        l1(level_view(sprite.cell->levels[static_cast<size_t>(sprite.level1)])) {
    zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), half = _mm256_set1_ps(0.5f);
    abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    cx = _mm256_set1_ps(s.cx);
    ax_x = _mm256_set1_ps(s.ax_x), ay_x = _mm256_set1_ps(s.ay_x);
    half_w = _mm256_set1_ps(s.half_w), half_h = _mm256_set1_ps(s.half_h);
    neg_half_w = _mm256_set1_ps(-s.half_w), neg_half_h = _mm256_set1_ps(-s.half_h);
    foot_x = _mm256_set1_ps(s.foot_x), foot_y = _mm256_set1_ps(s.foot_y);
    inv_foot_x = _mm256_set1_ps(s.inv_foot_x), inv_foot_y = _mm256_set1_ps(s.inv_foot_y);
    inv_w = _mm256_set1_ps(s.inv_w), inv_h = _mm256_set1_ps(s.inv_h);
    mix = _mm256_set1_ps(s.level_mix);
    colour = _mm256_setr_ps(s.colour[0], s.colour[1], s.colour[2], s.colour[3], s.colour[0],
                            s.colour[1], s.colour[2], s.colour[3]);
    for (int k = 0; k < 4; ++k) {
      const int a = 2 * k, b = 2 * k + 1;
      pair_index[k] = _mm256_setr_epi32(a, a, a, a, b, b, b, b);
    }
  }

  // Pixels (xs, ys) of one group, lane by lane: fy_ax = fy ax_y and fy_ay =
  // fy ay_y for each lane's row (fy = y + 0.5 - cy), py = y; lanes outside
  // `valid` get no coverage. Blends pairs (0, 1) .. (2 pairs - 2, 2 pairs - 1)
  // at the addresses `at(k, &full)` gives (full: the pair's second pixel is
  // in the image; when it is not, only the first is touched). Returns the
  // pixels blended.
  template <typename At>
  SPRITZ_AVX2 int group(__m256i xs, __m256 fy_ax, __m256 fy_ay, __m256 py, __m256 valid, int pairs,
                        At at) {
    // Geometry, as pixel_geometry computes it.
    const __m256 fx = _mm256_sub_ps(_mm256_add_ps(_mm256_cvtepi32_ps(xs), half), cx);
    const __m256 lx = _mm256_fmadd_ps(fx, ax_x, fy_ax);
    const __m256 ly = _mm256_fmadd_ps(fx, ay_x, fy_ay);
    const __m256 alx = _mm256_and_ps(lx, abs_mask), aly = _mm256_and_ps(ly, abs_mask);
    const __m256 inside =
        _mm256_and_ps(_mm256_cmp_ps(_mm256_add_ps(alx, foot_x), half_w, _CMP_LE_OQ),
                      _mm256_cmp_ps(_mm256_add_ps(aly, foot_y), half_h, _CMP_LE_OQ));
    const __m256 ox = _mm256_sub_ps(_mm256_min_ps(_mm256_add_ps(alx, foot_x), half_w),
                                    _mm256_max_ps(_mm256_sub_ps(alx, foot_x), neg_half_w));
    const __m256 oy = _mm256_sub_ps(_mm256_min_ps(_mm256_add_ps(aly, foot_y), half_h),
                                    _mm256_max_ps(_mm256_sub_ps(aly, foot_y), neg_half_h));
    __m256 cov = _mm256_mul_ps(_mm256_max_ps(_mm256_mul_ps(ox, inv_foot_x), zero),
                               _mm256_max_ps(_mm256_mul_ps(oy, inv_foot_y), zero));
    if constexpr (exact) {
      // Sprites thinner than 3 px: the exact area on edge pixels, as the
      // reference computes it, lane by lane (exact_coverage on __m256).
      const __m256 outside =
          _mm256_or_ps(_mm256_cmp_ps(_mm256_sub_ps(alx, foot_x), half_w, _CMP_GE_OQ),
                       _mm256_cmp_ps(_mm256_sub_ps(aly, foot_y), half_h, _CMP_GE_OQ));
      const __m256 px = _mm256_cvtepi32_ps(xs);
      __m256 area;
      exact_coverage_into<__m256>(s, edges, px, py, area);
      cov = _mm256_andnot_ps(outside, _mm256_blendv_ps(area, one, inside));
    } else {
      (void)py;
      cov = _mm256_blendv_ps(cov, one, inside);
    }
    // Outside the footprint (|l| - foot >= half) the overlap above is
    // already <= 0, so max(.., 0) makes it exactly 0 as the reference's test does.
    cov = _mm256_and_ps(cov, valid);
    const int covered = _mm256_movemask_ps(_mm256_cmp_ps(cov, zero, _CMP_GT_OQ));
    if (!covered) return 0;

    const __m256 u = _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(lx, inv_w, half), zero), one);
    const __m256 v = _mm256_min_ps(_mm256_max_ps(_mm256_fnmadd_ps(ly, inv_h, half), zero), one);
    __m256 tx0 = zero, tx1 = zero;
    if constexpr (nearest)
      nearest8(l0, u, v, off0);
    else
      taps8(l0, u, v, off0, ty0, &tx0);
    if constexpr (trilinear) taps8(l1, u, v, off1, ty1, &tx1);

    for (int k = 0; k < pairs; ++k) {
      const int i = 2 * k;
      const __m256 cov2 = _mm256_permutevar8x32_ps(cov, pair_index[k]);
      __m256 t;
      if constexpr (nearest)
        t = nearest2(l0, off0, i);
      else
        t = bilinear2(l0, off0, ty0, i, _mm256_permutevar8x32_ps(tx0, pair_index[k]));
      if constexpr (trilinear) {
        const __m256 hi = bilinear2(l1, off1, ty1, i, _mm256_permutevar8x32_ps(tx1, pair_index[k]));
        t = _mm256_fmadd_ps(_mm256_sub_ps(hi, t), mix, t);
      }
      // src = colour texel cov; occl = min(1, src.a); k = 1 - occl:
      //   dst.rgb = src.rgb + dst.rgb k, dst.a = occl + dst.a k (fused)
      // A pixel of the pair with no coverage (off the span, or the one
      // just past its end) is blended too, and keeps its bytes: colours,
      // texels and coverage are finite and >= +0, so its src is +0, k is
      // exactly 1 and +0 + dst = dst for every buffer value, all of which
      // are finite and >= +0 for the same reason. That saves a compare
      // and a blend per pair.
      const __m256 src = _mm256_mul_ps(_mm256_mul_ps(colour, t), cov2);
      const __m256 occl = _mm256_min_ps(_mm256_permute_ps(src, 0xff), one);
      const __m256 keep = _mm256_sub_ps(one, occl);
      const __m256 add = _mm256_blend_ps(src, occl, 0x88);
      bool full;
      float* d = at(k, &full);
      if (full) {  // the pair's second pixel is in the row (and the strip): rewriting it unchanged
                   // is safe
        _mm256_storeu_ps(d, _mm256_fmadd_ps(_mm256_loadu_ps(d), keep, add));
      } else {  // the row's last pixel: touch no memory beyond it
        const __m128 old = _mm_loadu_ps(d);
        _mm_storeu_ps(d,
                      _mm_fmadd_ps(old, _mm256_castps256_ps128(keep), _mm256_castps256_ps128(add)));
      }
    }
    return __builtin_popcount(static_cast<unsigned>(covered));
  }
};

// Row by row: each row's span in groups of eight pixels.
template <typename K>
SPRITZ_AVX2 uint64_t draw_rows(K& kernel, const RowSpans& spans, Image& img, int ylo, int yhi) {
  const Sprite& s = kernel.s;
  const int width = img.width;
  uint64_t blended = 0;
  Rows4 rows;
  for (int y = ylo; y < yhi; ++y) {
    const int j = (y - ylo) & 3;
    if (j == 0) rows.at(s, spans, y);
    float* __restrict row = img.row(y);
    const __m256 fy_ax = _mm256_broadcast_ss(rows.fy_ax + j),
                 fy_ay = _mm256_broadcast_ss(rows.fy_ay + j);
    const __m256 py = _mm256_set1_ps(static_cast<float>(y));
    const int xa = rows.xa[j], xb = rows.xb[j];
    const __m256i xb_v = _mm256_set1_epi32(xb);
    for (int x = xa; x < xb; x += 8) {
      const __m256i xs = _mm256_add_epi32(_mm256_set1_epi32(x), lanes());
      const __m256 valid = _mm256_castsi256_ps(_mm256_cmpgt_epi32(xb_v, xs));
      blended += static_cast<uint64_t>(kernel.group(
          xs, fy_ax, fy_ay, py, valid, std::min(4, (xb - x + 1) >> 1), [&](int k, bool* full) {
            *full = x + 2 * k + 1 < width;
            return row + static_cast<ptrdiff_t>(x + 2 * k) * 4;
          }));
    }
  }
  return blended;
}

// Sprites at most kPackedWidth pixels wide: the spans of all their rows in
// the strip, each padded to an even length, laid end to end, so a group of
// eight lanes holds pixels of several rows. A small sprite leaves most lanes
// idle row by row; packed, nearly all are busy, with one loop exit per sprite
// instead of one or two per row (measured in bench/). Every pixel gets the
// same operations as row by row, so the bytes do not change.
constexpr int kPackedWidth = 16;  // also the lanes each row writes: whole groups of eight
static_assert(kPackedWidth % 8 == 0);
// The list's length: a strip's rows and more, each row writing kPackedWidth
// lanes, and a group reading up to eight past the end. Rows that do not fit
// go in the next round.
constexpr int kPackedLanes = 18 * kPackedWidth + 16;

template <typename K>
SPRITZ_AVX2 uint64_t draw_packed(K& kernel, const RowSpans& spans, Image& img, int ylo, int yhi) {
  const Sprite& s = kernel.s;
  alignas(32) int px[kPackedLanes], py[kPackedLanes], ok[kPackedLanes];
  alignas(32) float fy_ax[kPackedLanes], fy_ay[kPackedLanes];
  const int width = img.width;
  uint64_t blended = 0;
  int y = ylo;
  while (y < yhi) {
    // Lay out rows until the next one might not fit.
    int n = 0;
    Rows4 rows;
    for (int j = 0; y < yhi && n + kPackedWidth <= kPackedLanes - 16; ++y, j = (j + 1) & 3) {
      if (j == 0) rows.at(s, spans, y);
      const int xa = rows.xa[j], xb = rows.xb[j];
      // kPackedWidth lanes from n on, whatever the span's length (it is at
      // most that): the next row overwrites what lies past this one's (even) end.
      const __m256 a = _mm256_broadcast_ss(rows.fy_ax + j), b = _mm256_broadcast_ss(rows.fy_ay + j);
      const __m256i yv = _mm256_set1_epi32(y), xb_v = _mm256_set1_epi32(xb);
      for (int h = 0; h < kPackedWidth; h += 8) {
        const __m256i xs = _mm256_add_epi32(_mm256_set1_epi32(xa + h), lanes());
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(px + n + h), xs);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(py + n + h), yv);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(ok + n + h), _mm256_cmpgt_epi32(xb_v, xs));
        _mm256_storeu_ps(fy_ax + n + h, a);
        _mm256_storeu_ps(fy_ay + n + h, b);
      }
      n += (xb - xa + 1) & ~1;  // even length; the extra pixel is not valid
    }
    // The last group's lanes past the end: no coverage, and finite inputs.
    const __m256i none = _mm256_setzero_si256();
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(px + n), none);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(py + n), none);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(ok + n), none);
    _mm256_storeu_ps(fy_ax + n, _mm256_setzero_ps());
    _mm256_storeu_ps(fy_ay + n, _mm256_setzero_ps());
    for (int g = 0; g < n; g += 8) {
      const __m256i ys = _mm256_load_si256(reinterpret_cast<const __m256i*>(py + g));
      blended += static_cast<uint64_t>(kernel.group(
          _mm256_load_si256(reinterpret_cast<const __m256i*>(px + g)), _mm256_load_ps(fy_ax + g),
          _mm256_load_ps(fy_ay + g), _mm256_cvtepi32_ps(ys),
          _mm256_castsi256_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(ok + g))),
          std::min(4, (n - g) >> 1), [&](int k, bool* full) {
            const int i = g + 2 * k;
            *full = px[i] + 1 < width;
            return img.row(py[i]) + static_cast<ptrdiff_t>(px[i]) * 4;
          }));
    }
  }
  return blended;
}

// Sprites whose pixel bounds in the strip fit kTinySide x kTinySide (the
// particles of 1 to 3 px that fill skies and galaxies by the million): the
// bounds' rows laid out as they are, each padded to an even length (2 or 4
// lanes), two or four rows a group. The rows' spans are not worked out: the
// reference walks the whole bounds too, and a pixel of them that the sprite
// misses gets no coverage and keeps its bytes (as the packed walk's padding).
constexpr int kTinySide = 4;

template <typename K>
SPRITZ_AVX2 uint64_t draw_tiny(K& kernel, Image& img, int ylo, int yhi) {
  const Sprite& s = kernel.s;
  const int w = s.x1 - s.x0, row_lanes = w > 2 ? 4 : 2, shift = w > 2 ? 2 : 1;
  const __m256i lane = lanes();
  const __m256i col = _mm256_and_si256(lane, _mm256_set1_epi32(row_lanes - 1));
  const __m256i row = _mm256_srli_epi32(lane, shift);
  const __m256i xs = _mm256_add_epi32(_mm256_set1_epi32(s.x0), col);
  const __m256i x_ok = _mm256_cmpgt_epi32(_mm256_set1_epi32(s.x1), xs);
  const __m256 ax_y = _mm256_set1_ps(s.ax_y), ay_y = _mm256_set1_ps(s.ay_y);
  const int width = img.width;
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; y += 8 / row_lanes) {
    const __m256i ys = _mm256_add_epi32(_mm256_set1_epi32(y), row);
    const __m256 valid =
        _mm256_castsi256_ps(_mm256_and_si256(x_ok, _mm256_cmpgt_epi32(_mm256_set1_epi32(yhi), ys)));
    // fy = y + 0.5 - cy and its terms, as Rows4 computes them.
    const __m256 py = _mm256_cvtepi32_ps(ys);
    const __m256 fy = _mm256_sub_ps(_mm256_add_ps(py, _mm256_set1_ps(0.5f)), _mm256_set1_ps(s.cy));
    const int pairs = std::min(4, (yhi - y) * row_lanes / 2);
    blended += static_cast<uint64_t>(
        kernel.group(xs, _mm256_mul_ps(fy, ax_y), _mm256_mul_ps(fy, ay_y), py, valid, pairs,
                     [&](int k, bool* full) {
                       const int x = s.x0 + (2 * k) % row_lanes;
                       *full = x + 1 < width;
                       return img.row(y + (2 * k) / row_lanes) + static_cast<ptrdiff_t>(x) * 4;
                     }));
  }
  return blended;
}

template <bool trilinear, bool exact, bool nearest = false>
__attribute__((target("avx2,fma"))) uint64_t draw(const Sprite& sprite, Image& img, int row_begin,
                                                  int row_end) {
  Kernel<trilinear, exact, nearest> kernel(sprite);
  const int ylo = std::max(sprite.y0, row_begin), yhi = std::min(sprite.y1, row_end);
  if (ylo >= yhi) return 0;
  if (sprite.x1 - sprite.x0 <= kTinySide && yhi - ylo <= kTinySide)
    return draw_tiny(kernel, img, ylo, yhi);
  const RowSpans spans(sprite);
  return sprite.x1 - sprite.x0 <= kPackedWidth ? draw_packed(kernel, spans, img, ylo, yhi)
                                               : draw_rows(kernel, spans, img, ylo, yhi);
}

}  // namespace

__attribute__((target("avx2,fma"))) uint64_t draw_sprite_avx2(const Sprite& s, Image& img,
                                                              int row_begin, int row_end) {
  if (s.nearest)
    return s.exact_edges ? draw<false, true, true>(s, img, row_begin, row_end)
                         : draw<false, false, true>(s, img, row_begin, row_end);
  const bool trilinear = s.level_mix > 0;
  if (s.exact_edges)
    return trilinear ? draw<true, true>(s, img, row_begin, row_end)
                     : draw<false, true>(s, img, row_begin, row_end);
  return trilinear ? draw<true, false>(s, img, row_begin, row_end)
                   : draw<false, false>(s, img, row_begin, row_end);
}

__attribute__((target("avx2,fma"))) void row_spans4_avx2(const RowSpans& spans, const float* fy,
                                                         int* xa, int* xb) {
  RowSpansAvx2::at4(spans, _mm_loadu_ps(fy), xa, xb);
}

#else  // not x86-64 with GCC or Clang: the portable kernel is the fastest there is

bool cpu_has_avx2_fma() {
  return false;
}

uint64_t draw_sprite_avx2(const Sprite& s, Image& img, int row_begin, int row_end) {
  return draw_sprite_portable(s, img, row_begin, row_end);
}

void row_spans4_avx2(const RowSpans& spans, const float* fy, int* xa, int* xb) {
  for (int i = 0; i < 4; ++i) spans.at(fy[i], xa + i, xb + i);
}

#endif

}  // namespace spritz::detail
