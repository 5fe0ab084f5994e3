// The 8-bit encoder on eight pixels at a time with AVX2 (encode_internal.h):
// encode.cpp's four-pixel code on vectors twice as wide. The sRGB tables
// are read lane by lane, not with AVX2 gathers, which were slower on the
// hosts measured (the figures: docs/performance.md, "Runs 9-15"). Lane by
// lane the same IEEE operations in the same order (no FMA: the build
// contracts nothing), so the same bytes.
// Every helper is always inlined into encode_row_avx2's target("avx2")
// body: no __m256 crosses a call between AVX and non-AVX code.
#pragma GCC diagnostic ignored "-Wpsabi"
#include <cstring>

#include "encode_internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

namespace spritz::detail {

#define SPRITZ_ENC_AVX2 __attribute__((target("avx2"), always_inline)) inline

bool encode_avx2_available() {
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
}

namespace {

// vmax(a, b) = a > b ? a : b (NaN in a gives b) is max_ps(a, b);
// vmin(a, b) = a < b ? a : b is min_ps(a, b).
SPRITZ_ENC_AVX2 __m256 clamp01(__m256 v) {
  return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()), _mm256_set1_ps(1.0f));
}

// A comparison's lanes as integers: -1 where true, 0 where false.
SPRITZ_ENC_AVX2 __m256i as_int(__m256 mask) {
  return _mm256_castps_si256(mask);
}

// Exact 8-bit sRGB codes (encode.cpp's srgb8).
SPRITZ_ENC_AVX2 __m256i srgb8(const EncodeTables& t, __m256 x) {
  x = clamp01(x);
  const __m256i cell = _mm256_cvttps_epi32(
      _mm256_mul_ps(x, _mm256_set1_ps(static_cast<float>(EncodeTables::kGrid))));
  alignas(32) int cells[8], codes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(cells), cell);
  for (int k = 0; k < 8; ++k) codes[k] = t.start[static_cast<size_t>(cells[k])];
  const __m256i code = _mm256_load_si256(reinterpret_cast<const __m256i*>(codes));
  const __m256 next = _mm256_setr_ps(
      t.threshold[static_cast<size_t>(codes[0])], t.threshold[static_cast<size_t>(codes[1])],
      t.threshold[static_cast<size_t>(codes[2])], t.threshold[static_cast<size_t>(codes[3])],
      t.threshold[static_cast<size_t>(codes[4])], t.threshold[static_cast<size_t>(codes[5])],
      t.threshold[static_cast<size_t>(codes[6])], t.threshold[static_cast<size_t>(codes[7])]);
  return _mm256_sub_epi32(code, as_int(_mm256_cmp_ps(x, next, _CMP_GE_OQ)));  // true is -1
}

// sRGB-encoded values as floats (encode.cpp's srgb_f).
SPRITZ_ENC_AVX2 __m256 srgb_f(const EncodeTables& t, __m256 x) {
  x = clamp01(x);
  const __m256 f = _mm256_mul_ps(x, _mm256_set1_ps(static_cast<float>(EncodeTables::kSteps)));
  __m256i i = _mm256_cvttps_epi32(f);
  const __m256i last = _mm256_set1_epi32(EncodeTables::kSteps - 1);
  i = _mm256_blendv_epi8(last, i, _mm256_cmpgt_epi32(last, i));  // i < last ? i : last
  const __m256 w = _mm256_sub_ps(f, _mm256_cvtepi32_ps(i));
  alignas(32) int at[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(at), i);
  alignas(32) float los[8], his[8];
  for (int k = 0; k < 8; ++k) {
    los[k] = t.srgb[static_cast<size_t>(at[k])];
    his[k] = t.srgb[static_cast<size_t>(at[k]) + 1];
  }
  const __m256 lo = _mm256_load_ps(los), hi = _mm256_load_ps(his);
  const __m256 table = _mm256_add_ps(lo, _mm256_mul_ps(_mm256_sub_ps(hi, lo), w));
  const __m256 linear = _mm256_mul_ps(x, _mm256_set1_ps(12.92f));
  return _mm256_blendv_ps(table, linear, _mm256_cmp_ps(x, _mm256_set1_ps(0.0031308f), _CMP_LE_OQ));
}

// lround(clamp(v, 0, 1) * 255) (encode.cpp's to_byte).
SPRITZ_ENC_AVX2 __m256i to_byte(__m256 v) {
  const __m256 y = _mm256_mul_ps(clamp01(v), _mm256_set1_ps(255.0f));
  const __m256i i = _mm256_cvttps_epi32(y);
  const __m256 half =
      _mm256_cmp_ps(_mm256_sub_ps(y, _mm256_cvtepi32_ps(i)), _mm256_set1_ps(0.5f), _CMP_GE_OQ);
  return _mm256_sub_epi32(i, as_int(half));
}

// The white tone map of one channel: hot ? keep * c / p + beta : c.
SPRITZ_ENC_AVX2 __m256 toward_white(__m256 c, __m256 p, __m256 hot, __m256 beta, __m256 keep) {
  return _mm256_blendv_ps(c, _mm256_add_ps(_mm256_div_ps(_mm256_mul_ps(keep, c), p), beta), hot);
}

// Eight pixels. Loaded as four vectors of two pixels, a 4x4 transpose in
// each 128-bit half gives r, g, b, a with lanes in the pixel order
// 0 2 4 6 | 1 3 5 7; the packed results are put back in order at the end.
template <Tonemap kTonemap, AlphaMode kAlpha>
SPRITZ_ENC_AVX2 void encode8(const EncodeTables& t, const float* src, uint8_t* dst) {
  const __m256 v0 = _mm256_loadu_ps(src), v1 = _mm256_loadu_ps(src + 8);
  const __m256 v2 = _mm256_loadu_ps(src + 16), v3 = _mm256_loadu_ps(src + 24);
  const __m256 t0 = _mm256_unpacklo_ps(v0, v1), t1 = _mm256_unpackhi_ps(v0, v1);
  const __m256 t2 = _mm256_unpacklo_ps(v2, v3), t3 = _mm256_unpackhi_ps(v2, v3);
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  __m256 r = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
  __m256 g = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t2)));
  __m256 b = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
  __m256 a = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t1), _mm256_castps_pd(t3)));
  r = _mm256_max_ps(r, zero), g = _mm256_max_ps(g, zero), b = _mm256_max_ps(b, zero);
  a = clamp01(a);
  if constexpr (kTonemap == Tonemap::kWhite) {
    const __m256 p = _mm256_max_ps(r, _mm256_max_ps(g, b));
    const __m256 hot = _mm256_cmp_ps(p, one, _CMP_GT_OQ);
    const __m256 beta = _mm256_sub_ps(one, _mm256_div_ps(one, p)), keep = _mm256_sub_ps(one, beta);
    r = toward_white(r, p, hot, beta, keep);
    g = toward_white(g, p, hot, beta, keep);
    b = toward_white(b, p, hot, beta, keep);
  } else {
    r = _mm256_min_ps(r, one), g = _mm256_min_ps(g, one), b = _mm256_min_ps(b, one);
  }
  const __m256 a_out = _mm256_max_ps(a, _mm256_min_ps(_mm256_max_ps(r, _mm256_max_ps(g, b)), one));
  const __m256 inv =
      _mm256_blendv_ps(zero, _mm256_div_ps(one, a_out), _mm256_cmp_ps(a_out, zero, _CMP_GT_OQ));
  __m256i cr, cg, cb, ca;
  if constexpr (kAlpha == AlphaMode::kStraight) {
    cr = srgb8(t, _mm256_mul_ps(r, inv));
    cg = srgb8(t, _mm256_mul_ps(g, inv));
    cb = srgb8(t, _mm256_mul_ps(b, inv));
    ca = to_byte(a_out);
  } else {
    cr = to_byte(_mm256_mul_ps(srgb_f(t, _mm256_mul_ps(r, inv)), a_out));
    cg = to_byte(_mm256_mul_ps(srgb_f(t, _mm256_mul_ps(g, inv)), a_out));
    cb = to_byte(_mm256_mul_ps(srgb_f(t, _mm256_mul_ps(b, inv)), a_out));
    ca = to_byte(a);
  }
  // Each code is 0..255: one pixel a 32-bit lane, then back in order.
  const __m256i px =
      _mm256_or_si256(_mm256_or_si256(cr, _mm256_slli_epi32(cg, 8)),
                      _mm256_or_si256(_mm256_slli_epi32(cb, 16), _mm256_slli_epi32(ca, 24)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                      _mm256_permutevar8x32_epi32(px, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

template <Tonemap kTonemap, AlphaMode kAlpha>
__attribute__((target("avx2"))) void encode_row(const EncodeTables& t, const float* src,
                                                uint8_t* dst, size_t count) {
  for (size_t x = 0; x < count; x += 8) {
    // Eight pixels just like the eight before them (the background, a
    // transparent area) encode as those did: copied, not computed again.
    if (x > 0 && std::memcmp(src + x * 4, src + x * 4 - 32, 32 * sizeof(float)) == 0)
      std::memcpy(dst + x * 4, dst + x * 4 - 32, 32);
    else
      encode8<kTonemap, kAlpha>(t, src + x * 4, dst + x * 4);
  }
}

}  // namespace

void encode_row_avx2(const EncodeTables& t, Tonemap tonemap, AlphaMode alpha, const float* src,
                     uint8_t* dst, size_t count) {
  const bool white = tonemap == Tonemap::kWhite, straight = alpha == AlphaMode::kStraight;
  if (white && straight) encode_row<Tonemap::kWhite, AlphaMode::kStraight>(t, src, dst, count);
  if (white && !straight)
    encode_row<Tonemap::kWhite, AlphaMode::kPremultiplied>(t, src, dst, count);
  if (!white && straight) encode_row<Tonemap::kClamp, AlphaMode::kStraight>(t, src, dst, count);
  if (!white && !straight)
    encode_row<Tonemap::kClamp, AlphaMode::kPremultiplied>(t, src, dst, count);
}

}  // namespace spritz::detail

#else  // no AVX2 path on this target

namespace spritz::detail {

bool encode_avx2_available() {
  return false;
}

void encode_row_avx2(const EncodeTables&, Tonemap, AlphaMode, const float*, uint8_t*, size_t) {}

}  // namespace spritz::detail

#endif
