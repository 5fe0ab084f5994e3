// Internal to the rasterizer: the per-sprite draw kernels and what they
// share. Every kernel computes the same IEEE single-precision operations in
// the same order, so all of them give the same bytes as
// draw_sprite_reference (tested), and a render farm of mixed CPUs produces
// identical frames. The multiply-adds of the per-pixel formulas are fused
// (fused() below: one rounding, as IEEE 754 fusedMultiplyAdd defines it),
// written out where they are meant; the compiler fuses nothing on its own
// (-ffp-contract=off), so every kernel rounds at the same places.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "spritz/raster/image.h"
#include "spritz/raster/raster.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace spritz::detail {

struct RowSpansAvx2;

// The pixels of each row that can touch a sprite: where |lx| < half_w +
// foot_x and |ly| < half_h + foot_y. Each constraint |a fx + b fy| < e gives
// fx in (-|e / a| - (b / a) fy, |e / a| - (b / a) fy), so a row's span costs a
// few multiply-adds of terms computed once per sprite.
//
// A span only has to contain every pixel that the per-pixel coverage test
// (single precision) accepts; the reference walks the whole bounding box
// instead, and the kernels must match it bit for bit. The test can accept a
// pixel outside the exact span only by its rounding error, at most a few
// units in the last place of |cx|, |a fx|, |b fy| and e; divided by |a| that
// is a distance in pixels. Each side is widened by 16 times that bound plus
// 0.001 px (a few thousandths of a pixel for ordinary sprites), so no
// accepted pixel is ever left out and no wasted one is taken in.
class RowSpans {
 public:
  explicit RowSpans(const Sprite& s) : cx_(static_cast<double>(s.cx) - 0.5), x0_(s.x0), x1_(s.x1) {
    const double fx_max =
        std::abs(static_cast<double>(s.cx)) + std::max(std::abs(s.x0), std::abs(s.x1)) + 1;
    const double fy_max =
        std::abs(static_cast<double>(s.cy)) + std::max(std::abs(s.y0), std::abs(s.y1)) + 1;
    add(0, s.ax_x, s.ax_y, static_cast<double>(s.half_w) + s.foot_x, fx_max, fy_max);
    add(1, s.ay_x, s.ay_y, static_cast<double>(s.half_h) + s.foot_y, fx_max, fy_max);
  }

  // Pixels [*xa, *xb) of the row whose centre is fy below the sprite's centre.
  void at(float fy, int* xa, int* xb) const {
    const double f = fy;
    for (int i = 0; i < 2; ++i)
      if (std::abs(fixed_b_[i] * f) >= fixed_e_[i]) {  // a degenerate axis rules the row out
        *xa = *xb = x0_;
        return;
      }
    const double lo = std::max(lo_[0] + slope_[0] * f, lo_[1] + slope_[1] * f);
    const double hi = std::min(hi_[0] + slope_[0] * f, hi_[1] + slope_[1] * f);
    // Pixel x can touch when x + 0.5 - cx is in (lo, hi).
    const double a = std::floor(lo + cx_) + 1, b = std::ceil(hi + cx_);
    *xa = static_cast<int>(std::clamp(a, static_cast<double>(x0_), static_cast<double>(x1_)));
    *xb = static_cast<int>(std::clamp(b, static_cast<double>(*xa), static_cast<double>(x1_)));
  }

 private:
  friend struct RowSpansAvx2;  // the same arithmetic on four rows at once

  void add(int i, double a, double b, double e, double fx_max, double fy_max) {
    if (std::abs(a) < 1e-12) {  // the constraint does not depend on x
      lo_[i] = -1e300, hi_[i] = 1e300, slope_[i] = 0;
      fixed_b_[i] = b, fixed_e_[i] = e + 1e-6 * (std::abs(b) * fy_max + e) + 1e-3;
      return;
    }
    const double margin =
        std::min(2.0, 1e-3 + 1e-6 * (fx_max + (std::abs(b) * fy_max + e) / std::abs(a)));
    const double r = std::abs(e / a) + margin;
    lo_[i] = -r, hi_[i] = r, slope_[i] = -b / a;
    fixed_b_[i] = 0, fixed_e_[i] = 1;  // never rules a row out
  }

  double cx_;
  int x0_, x1_;
  double lo_[2], hi_[2], slope_[2];
  double fixed_b_[2], fixed_e_[2];
};

// a * b + c rounded once, as IEEE 754 fusedMultiplyAdd defines it: one FMA
// instruction in the AVX2 kernel (x86-64 FMA3) and on ARMv8 (FMLA), and
// exactly the same value from soft_fma below in a plain x86-64 build, so
// every kernel agrees bit for bit whichever CPU runs it. (glibc's fmaf
// would do too, but without FMA hardware it is a slow library call.)
//
// soft_fma: the product of two floats is exact in double (24 + 24 bits <=
// 53), and TwoSum gives the double sum's rounding error e exactly. Rounding
// the sum to odd (keep it if exact or if its last bit is 1; else step one
// ulp toward e) and then to float is correct rounding, since a double has
// at least two bits more than a float (Boldo and Melquiond, "When double
// rounding is odd", 2005). Finite inputs cannot overflow in double; an
// infinite or NaN sum is already the answer and is never stepped.
//
// Most sums need none of that: rounding the double sum straight to float
// is already correct unless it landed exactly on a point halfway between
// two floats (every such point is a double, so none can lie strictly
// between the exact sum and its nearest double), or among float subnormals
// (whose halfway points are spaced differently). soft_fma_hard tells; on
// the image data here that is under 1% of calls, so the branch is well
// predicted, while the round-to-odd step itself is branch-free (a coin
// toss there).
inline double round_to_odd_sum(double x, double y) {
  const double s = x + y;
  const double xs = s - y, ys = s - xs;
  const double e = (x - xs) + (y - ys);  // x + y = s + e exactly
  uint64_t bits;
  __builtin_memcpy(&bits, &s, sizeof s);
  // 1 where the sum is finite, inexact and even, else 0.
  const uint64_t step =
      (~bits & 1) & static_cast<uint64_t>(e != 0) & static_cast<uint64_t>(s - s == 0);
  const uint64_t toward_zero = static_cast<uint64_t>((e > 0) != (s > 0));
  bits += step - ((2 * step) & (0 - toward_zero));  // +1 away from zero, -1 toward it
  double r;
  __builtin_memcpy(&r, &bits, sizeof r);
  return r;
}

inline bool soft_fma_hard(double s) {
  uint64_t bits;
  __builtin_memcpy(&bits, &s, sizeof s);
  const double m = s < 0 ? -s : s;
  return (bits & 0x1fffffff) == 0x10000000 || (m > 0 && m < 0x1p-126);  // halfway, or subnormal
}

inline float soft_fma(float a, float b, float c) {
  const double x = static_cast<double>(a) * static_cast<double>(b), y = c, s = x + y;
  if (__builtin_expect(soft_fma_hard(s), 0)) return static_cast<float>(round_to_odd_sum(x, y));
  return static_cast<float>(s);
}

__attribute__((always_inline)) inline float fused(float a, float b, float c) {
#if defined(__FMA__) || defined(__aarch64__)
  return __builtin_fmaf(a, b, c);
#else
  return soft_fma(a, b, c);
#endif
}
#if !defined(__FMA__) && !defined(__aarch64__) && defined(__SSE2__)
// soft_fma on two lanes, from x = a b (exact) and y = c in doubles: the two
// floats in the low half.
__attribute__((always_inline)) inline __m128 soft_fma2(__m128d x, __m128d y) {
  const __m128d zero = _mm_setzero_pd();
  const __m128d s = _mm_add_pd(x, y);
  // soft_fma_hard on both lanes: the low 29 bits read "one half" (in each
  // 64-bit lane the low 32-bit half compares; the high half, masked to 0,
  // always does), or a nonzero magnitude below the smallest normal float.
  const __m128i halfway = _mm_cmpeq_epi32(
      _mm_and_si128(_mm_castpd_si128(s), _mm_set1_epi64x(0x1fffffff)), _mm_set1_epi64x(0x10000000));
  const __m128d m = _mm_andnot_pd(_mm_set1_pd(-0.0), s);
  const __m128d tiny = _mm_and_pd(_mm_cmpgt_pd(m, zero), _mm_cmplt_pd(m, _mm_set1_pd(0x1p-126)));
  if (__builtin_expect(!(_mm_movemask_epi8(halfway) & 0x0f0f) && !_mm_movemask_pd(tiny), 1))
    return _mm_cvtpd_ps(s);
  const __m128d xs = _mm_sub_pd(s, y), ys = _mm_sub_pd(s, xs);
  const __m128d e = _mm_add_pd(_mm_sub_pd(x, xs), _mm_sub_pd(y, ys));
  const __m128i bits = _mm_castpd_si128(s);
  const __m128i inexact = _mm_castpd_si128(_mm_cmpneq_pd(e, zero));
  const __m128i finite = _mm_castpd_si128(_mm_cmpeq_pd(_mm_sub_pd(s, s), zero));
  const __m128i step =
      _mm_and_si128(_mm_andnot_si128(bits, _mm_set1_epi64x(1)), _mm_and_si128(inexact, finite));
  const __m128i toward_zero =
      _mm_castpd_si128(_mm_xor_pd(_mm_cmpgt_pd(e, zero), _mm_cmpgt_pd(s, zero)));
  const __m128i delta = _mm_sub_epi64(step, _mm_and_si128(_mm_add_epi64(step, step), toward_zero));
  return _mm_cvtpd_ps(_mm_castsi128_pd(_mm_add_epi64(bits, delta)));
}
#endif

__attribute__((always_inline)) inline Float4 fused(Float4 a, Float4 b, Float4 c) {
#if defined(__FMA__) || defined(__aarch64__) || !defined(__SSE2__)
  Float4 r;
  for (int i = 0; i < 4; ++i) r[i] = fused(a[i], b[i], c[i]);
  return r;
#else
  // soft_fma on four lanes as two pairs of doubles.
  const __m128 va = reinterpret_cast<__m128>(a), vb = reinterpret_cast<__m128>(b),
               vc = reinterpret_cast<__m128>(c);
  const __m128 lo = soft_fma2(_mm_mul_pd(_mm_cvtps_pd(va), _mm_cvtps_pd(vb)), _mm_cvtps_pd(vc));
  const __m128 hi = soft_fma2(
      _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(va, va)), _mm_cvtps_pd(_mm_movehl_ps(vb, vb))),
      _mm_cvtps_pd(_mm_movehl_ps(vc, vc)));
  return reinterpret_cast<Float4>(_mm_movelh_ps(lo, hi));
#endif
}

// Branch-free helpers that work the same on a float and on a GCC vector of
// floats (T = __m256 in the AVX2 kernel): each lane computes exactly what the
// scalar version computes. NaN in `a` gives `b`.
template <typename T>
__attribute__((always_inline)) inline T lane_min(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
__attribute__((always_inline)) inline T lane_max(T a, T b) {
  return a > b ? a : b;
}
template <typename T>
__attribute__((always_inline)) inline T lane_clamp01(T v, T zero, T one) {
  return lane_min(lane_max(v, zero), one);
}

// The part of the exact area that one edge P -> Q of the sprite's rectangle
// contributes (see exact_coverage): the integral over x in [0, 1] of
// clamp(y(x), 0, 1) along the edge, signed by the direction of travel. y is
// linear in x along the edge with the given slope (0 for a vertical edge,
// whose clipped x-range is then a single point).
template <typename T>
__attribute__((always_inline)) inline T edge_area(T px, T py, T qx, float slope, T zero, T one) {
  const T x0 = lane_clamp01(px, zero, one), x1 = lane_clamp01(qx, zero, one);
  const T z0 = py + (x0 - px) * slope, z1 = py + (x1 - px) * slope;
  const T lo = lane_min(z0, z1), hi = lane_max(z0, z1), w = hi - lo;
  // [lo, hi] splits into a part below 0 (value 0), a middle part [m0, m1]
  // (mean (m0 + m1) / 2) and a part above 1 (value 1). Each length is a
  // difference of clamped ends, so nothing cancels catastrophically.
  const T m0 = lane_clamp01(lo, zero, one), m1 = lane_clamp01(hi, zero, one);
  const T above = hi - lane_max(lane_min(hi, one), lo);
  const T integral = (m1 - m0) * ((m0 + m1) * 0.5f) + above;
  const T mean = w > zero ? integral / w : m0;  // w = 0: y is constant along the piece
  return (x1 - x0) * mean;
}

// The per-sprite part of exact_coverage: the rectangle's half axes and its
// edges' slopes.
struct ExactEdges {
  float wx, wy, hx, hy;    // half axes in screen space
  float slope_h, slope_w;  // dy/dx along the edges parallel to h and to w

  // Only sprites with exact_edges use it; the others skip the divisions.
  explicit ExactEdges(const Sprite& s)
      : wx(s.ax_x * s.half_w), wy(s.ax_y * s.half_w), hx(s.ay_x * s.half_h), hy(s.ay_y * s.half_h) {
    // Edges closer to vertical than this have a clipped x-range of a few
    // ulps at most; slope 0 keeps their (vanishing) term finite.
    constexpr float kVertical = 1e-20f;
    slope_h = s.exact_edges && std::abs(hx) > kVertical ? hy / hx : 0.0f;
    slope_w = s.exact_edges && std::abs(wx) > kVertical ? wy / wx : 0.0f;
  }
};

// The exact area of the sprite's rectangle inside the unit pixel whose corner
// is at (px, py). With the rectangle's boundary oriented positively, Green's
// theorem gives the area of its intersection with the pixel as
//   -sum over edges of the integral of clamp(y, 0, 1) dx over x in [0, 1]
// (in pixel-relative coordinates): each vertical slice of the pixel counts
// the clamped length of the rectangle's slice. Summed over all pixels it is
// the rectangle's area, so light is conserved at any size. Only the
// rectangle's own edges take part, so no boundary can be counted twice, and
// every step is continuous in the inputs: rounding moves the result by
// rounding-sized amounts even for edges that run along the pixel's sides.
//
// The vector kernels call it through exact_coverage_into: arguments by
// reference and the result through a reference, because Clang refuses to
// pass a 256- or 512-bit vector by value from a function compiled for AVX to
// one that is not (the vector ABI differs); always inlined, the two are the
// same code.
template <typename T>
__attribute__((always_inline)) inline T exact_coverage(const Sprite& s, const ExactEdges& e, T px,
                                                       T py) {
  const T zero = px * 0.0f, one = zero + 1.0f;
  const T cx = s.cx - px, cy = s.cy - py;
  // Corners c + w + h, c + w - h, c - w - h, c - w + h: positive orientation
  // for the screen axes (x right, y down) and the sprite's axes.
  const T x0 = cx + e.wx + e.hx, y0 = cy + e.wy + e.hy;
  const T x1 = cx + e.wx - e.hx, y1 = cy + e.wy - e.hy;
  const T x2 = cx - e.wx - e.hx, y2 = cy - e.wy - e.hy;
  const T x3 = cx - e.wx + e.hx, y3 = cy - e.wy + e.hy;
  const T sum =
      edge_area(x0, y0, x1, e.slope_h, zero, one) + edge_area(x1, y1, x2, e.slope_w, zero, one) +
      edge_area(x2, y2, x3, e.slope_h, zero, one) + edge_area(x3, y3, x0, e.slope_w, zero, one);
  return lane_clamp01(zero - sum, zero, one);
}

template <typename T>
__attribute__((always_inline)) inline void exact_coverage_into(const Sprite& s, const ExactEdges& e,
                                                               const T& px, const T& py, T& out) {
  out = exact_coverage(s, e, px, py);
}

// A mip level's storage, hoisted out of the pixel loop: the image rows are
// floats too, so without local copies the compiler must reload the texture's
// pointers after every store.
struct LevelView {
  const float* origin;  // texel (0, 0) of the padded storage
  const float* down;    // the same texel in padded_down
  int stride;           // floats per padded row
  float width, height;
};

inline LevelView level_view(const MipLevel& m) {
  return {m.padded_at(0, 0), m.padded_down_at(0, 0), m.padded_stride, static_cast<float>(m.width),
          static_cast<float>(m.height)};
}

// The portable kernel (GCC vector extensions: SSE2 on x86-64, NEON on ARM).
uint64_t draw_sprite_portable(const Sprite& s, Image& img, int row_begin, int row_end);

// The AVX2 kernel: eight pixels' geometry at a time, two pixels' texels per
// 256-bit vector, FMA3 for the fused multiply-adds. Only call it when
// cpu_has_avx2_fma().
uint64_t draw_sprite_avx2(const Sprite& s, Image& img, int row_begin, int row_end);
bool cpu_has_avx2_fma();

// The AVX-512 kernel: the AVX2 kernel's operations on sixteen pixels'
// geometry at a time and four pixels per 512-bit vector. Only call it when
// cpu_has_avx512().
uint64_t draw_sprite_avx512(const Sprite& s, Image& img, int row_begin, int row_end);
bool cpu_has_avx512();
// Whether the AVX-512 kernel is this CPU's default (measured faster there);
// elsewhere the AVX2 kernel is, and SPRITZ_SIMD=avx512 picks it by hand.
bool avx512_preferred();

// RowSpans::at on the four rows fy[0..3] at once, as the AVX2 kernel computes
// it (exposed for tests). Only call it when cpu_has_avx2_fma().
void row_spans4_avx2(const RowSpans& spans, const float* fy, int* xa, int* xb);

}  // namespace spritz::detail
