// Internal to the rasterizer: what the x86-64 kernels (AVX2 and AVX-512)
// share. SPRITZ_X86_KERNELS says whether they are built (x86-64 with GCC or
// Clang); elsewhere the portable kernel is the fastest there is.
#pragma once

#include "kernels/kernel.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SPRITZ_X86_KERNELS 1
#include <immintrin.h>

namespace spritz::detail {

#define SPRITZ_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

// RowSpans::at for four rows at once: the same double-precision operations
// lane by lane, so the same spans. A row costs a few cycles instead of a
// scalar chain through floor, ceil and clamps.
struct RowSpansAvx2 {
  // Rows whose centres are fy below the sprite's centre.
  SPRITZ_AVX2 static void at4(const RowSpans& r, __m128 fy, int* xa, int* xb) {
    const __m256d f = _mm256_cvtps_pd(fy);
    const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
    __m256d empty = _mm256_setzero_pd();  // a degenerate axis rules the row out
    for (int i = 0; i < 2; ++i) {
      const __m256d bf = _mm256_and_pd(_mm256_mul_pd(_mm256_set1_pd(r.fixed_b_[i]), f), abs_mask);
      empty = _mm256_or_pd(empty, _mm256_cmp_pd(bf, _mm256_set1_pd(r.fixed_e_[i]), _CMP_GE_OQ));
    }
    const __m256d s0 = _mm256_mul_pd(_mm256_set1_pd(r.slope_[0]), f);
    const __m256d s1 = _mm256_mul_pd(_mm256_set1_pd(r.slope_[1]), f);
    // std::max(p, q) is p < q ? q : p, which max_pd(q, p) computes; min alike.
    const __m256d lo = _mm256_max_pd(_mm256_add_pd(_mm256_set1_pd(r.lo_[1]), s1),
                                     _mm256_add_pd(_mm256_set1_pd(r.lo_[0]), s0));
    const __m256d hi = _mm256_min_pd(_mm256_add_pd(_mm256_set1_pd(r.hi_[1]), s1),
                                     _mm256_add_pd(_mm256_set1_pd(r.hi_[0]), s0));
    const __m256d cx = _mm256_set1_pd(r.cx_);
    const __m256d a = _mm256_add_pd(_mm256_floor_pd(_mm256_add_pd(lo, cx)), _mm256_set1_pd(1.0));
    const __m256d b = _mm256_ceil_pd(_mm256_add_pd(hi, cx));
    // std::clamp(v, l, h) is v < l ? l : (h < v ? h : v).
    const __m256d x0 = _mm256_set1_pd(r.x0_), x1 = _mm256_set1_pd(r.x1_);
    const __m256d ca = _mm256_min_pd(x1, _mm256_max_pd(x0, a));
    const __m256d cb = _mm256_min_pd(x1, _mm256_max_pd(ca, b));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(xa),
                     _mm256_cvttpd_epi32(_mm256_blendv_pd(ca, x0, empty)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(xb),
                     _mm256_cvttpd_epi32(_mm256_blendv_pd(cb, x0, empty)));
  }
};

// Four rows' spans and the terms fy ax_y and fy ay_y (fy = y + 0.5 - cy) of
// each row, as the one-row formulas compute them.
struct Rows4 {
  alignas(16) int xa[4], xb[4];
  alignas(16) float fy_ax[4], fy_ay[4];

  SPRITZ_AVX2 void at(const Sprite& s, const RowSpans& spans, int y) {
    const __m128i ys = _mm_add_epi32(_mm_set1_epi32(y), _mm_setr_epi32(0, 1, 2, 3));
    const __m128 fy =
        _mm_sub_ps(_mm_add_ps(_mm_cvtepi32_ps(ys), _mm_set1_ps(0.5f)), _mm_set1_ps(s.cy));
    RowSpansAvx2::at4(spans, fy, xa, xb);
    _mm_store_ps(fy_ax, _mm_mul_ps(fy, _mm_set1_ps(s.ax_y)));
    _mm_store_ps(fy_ay, _mm_mul_ps(fy, _mm_set1_ps(s.ay_y)));
  }
};

// Lane numbers 0..7.
SPRITZ_AVX2 __m256i lanes() {
  return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
}

}  // namespace spritz::detail

#endif
