// builtin:smoke's texels four at a time with AVX2 (smoke.h): smoke_row's
// double operations lane by lane in the same order (sqrt and division are
// exact IEEE operations, and the build contracts nothing into FMAs), the
// four lattice points of each octave read with gathers, so the same
// texels. Every helper is always inlined into smoke_row_avx2's
// target("avx2") body: no __m256d crosses a call between AVX and non-AVX
// code.
#pragma GCC diagnostic ignored "-Wpsabi"
// GCC 12's AVX2 gathers start from _mm256_undefined_pd(), which its own
// -Wmaybe-uninitialized then reports at every use (as in kernels/avx512.cpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <cstddef>

#include "smoke.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace spritz::detail {

#define SPRITZ_SMOKE_AVX2 __attribute__((target("avx2"), always_inline)) inline

bool smoke_avx2_available() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

namespace {

// std::clamp(v, lo, hi) is v < lo ? lo : (hi < v ? hi : v) (not max/min,
// which differ for -0).
SPRITZ_SMOKE_AVX2 __m256d clamp(__m256d v, double lo, double hi) {
  const __m256d l = _mm256_set1_pd(lo), h = _mm256_set1_pd(hi);
  const __m256d inner = _mm256_blendv_pd(v, h, _mm256_cmp_pd(h, v, _CMP_LT_OQ));
  return _mm256_blendv_pd(inner, l, _mm256_cmp_pd(v, l, _CMP_LT_OQ));
}

SPRITZ_SMOKE_AVX2 __m256d smoothstep4(double e0, double e1, __m256d x) {
  const double width = e1 - e0;
  const __m256d t =
      clamp(_mm256_div_pd(_mm256_sub_pd(x, _mm256_set1_pd(e0)), _mm256_set1_pd(width)), 0.0, 1.0);
  return _mm256_mul_pd(_mm256_mul_pd(t, t),
                       _mm256_sub_pd(_mm256_set1_pd(3.0), _mm256_mul_pd(_mm256_set1_pd(2.0), t)));
}

// noise_at for texels i .. i + 3 of row j.
SPRITZ_SMOKE_AVX2 __m256d noise4(const SmokeCell& cell, int i, int j) {
  __m256d sum = _mm256_setzero_pd();
  double amp = 0.5, norm = 0;
  for (const SmokeOctave& oc : cell.octaves) {
    // Each lane's four lattice points by plain loads: gathers were slower
    // on the hosts measured (docs/performance.md).
    const double* p = oc.points.data() + oc.row_cell[static_cast<size_t>(j)];
    const int* cols = oc.col_cell.data() + i;
    const double *p0 = p + cols[0], *p1 = p + cols[1], *p2 = p + cols[2], *p3 = p + cols[3];
    const int s = oc.stride;
    const __m256d a = _mm256_setr_pd(p0[0], p1[0], p2[0], p3[0]);
    const __m256d b = _mm256_setr_pd(p0[1], p1[1], p2[1], p3[1]);
    const __m256d c = _mm256_setr_pd(p0[s], p1[s], p2[s], p3[s]);
    const __m256d d = _mm256_setr_pd(p0[s + 1], p1[s + 1], p2[s + 1], p3[s + 1]);
    const __m256d tx = _mm256_loadu_pd(oc.col_smooth.data() + i);
    const __m256d ty = _mm256_set1_pd(oc.row_smooth[static_cast<size_t>(j)]);
    const __m256d top = _mm256_add_pd(a, _mm256_mul_pd(_mm256_sub_pd(b, a), tx));
    const __m256d bottom = _mm256_add_pd(c, _mm256_mul_pd(_mm256_sub_pd(d, c), tx));
    const __m256d v = _mm256_add_pd(top, _mm256_mul_pd(_mm256_sub_pd(bottom, top), ty));
    sum = _mm256_add_pd(sum, _mm256_mul_pd(_mm256_set1_pd(amp), v));
    norm += amp;
    amp *= 0.5;
  }
  return _mm256_div_pd(sum, _mm256_set1_pd(norm));
}

}  // namespace

__attribute__((target("avx2"))) void smoke_row_avx2(const SmokeCell& cell, int j, float* row) {
  const __m256d y = _mm256_set1_pd(cell.centre[static_cast<size_t>(j)]);
  const __m256d y2 = _mm256_mul_pd(y, y);
  const __m256d zero = _mm256_setzero_pd();
  // Each texel's alpha four times (white, premultiplied): lanes 0-1, 2-3.
  const __m256i low = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
  const __m256i high = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
  for (int i = 0; i + 4 <= cell.n; i += 4) {
    const __m256d x = _mm256_loadu_pd(cell.centre.data() + i);
    const __m256d from_centre = _mm256_sqrt_pd(_mm256_add_pd(_mm256_mul_pd(x, x), y2));
    const __m256d body =
        smoothstep4(1.0, 0.25, _mm256_div_pd(from_centre, _mm256_set1_pd(cell.radius)));
    // smoke_row's test, lane by lane: neither body == 0 nor from_centre >= 1.
    const __m256d inside =
        _mm256_and_pd(_mm256_cmp_pd(body, zero, _CMP_NEQ_OQ),
                      _mm256_cmp_pd(from_centre, _mm256_set1_pd(1.0), _CMP_LT_OQ));
    __m256d alpha = zero;
    if (_mm256_movemask_pd(inside) != 0) {
      const __m256d density =
          clamp(_mm256_add_pd(_mm256_set1_pd(0.25),
                              _mm256_mul_pd(_mm256_set1_pd(1.1), noise4(cell, i, j))),
                0.0, 1.0);
      const __m256d value = _mm256_mul_pd(
          clamp(_mm256_mul_pd(_mm256_mul_pd(body, density), _mm256_set1_pd(cell.fade)), 0.0, 1.0),
          smoothstep4(1.0, 0.9, from_centre));
      alpha = _mm256_blendv_pd(zero, value, inside);
    }
    const __m256 four = _mm256_castps128_ps256(_mm256_cvtpd_ps(alpha));
    float* p = row + static_cast<size_t>(i) * 4;
    _mm256_storeu_ps(p, _mm256_permutevar8x32_ps(four, low));
    _mm256_storeu_ps(p + 8, _mm256_permutevar8x32_ps(four, high));
  }
}

}  // namespace spritz::detail

#else  // no AVX2 path on this target

namespace spritz::detail {

bool smoke_avx2_available() {
  return false;
}

void smoke_row_avx2(const SmokeCell&, int, float*) {}

}  // namespace spritz::detail

#endif
