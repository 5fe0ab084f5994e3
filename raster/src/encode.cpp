#include "spritz/raster/encode.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "encode_internal.h"
#include "spritz/color.h"

namespace spritz {

detail::EncodeTables::EncodeTables() {
  for (int k = 0; k < 255; ++k)
    threshold[static_cast<size_t>(k)] = static_cast<float>(srgb_to_linear((k + 0.5) / 255.0));
  threshold[255] = std::numeric_limits<float>::infinity();
  for (int i = 0; i <= kGrid; ++i) {
    const float v = static_cast<float>(i) / kGrid;
    start[static_cast<size_t>(i)] = static_cast<uint8_t>(
        std::upper_bound(threshold.begin(), threshold.end() - 1, v) - threshold.begin());
  }
  for (int i = 0; i < kGrid; ++i)
    if (start[static_cast<size_t>(i) + 1] - start[static_cast<size_t>(i)] > 1) std::abort();
  for (int i = 0; i <= kSteps; ++i)
    srgb[static_cast<size_t>(i)] =
        static_cast<float>(linear_to_srgb(static_cast<double>(i) / kSteps));
}

const detail::EncodeTables& detail::encode_tables() {
  static const EncodeTables tables;
  return tables;
}

namespace {

using detail::encode_tables;
using detail::EncodeTables;

// Four pixels at a time in GCC/Clang vector types: plain IEEE operations per
// lane (SSE2 on x86-64, NEON on ARM), no branches, the same arithmetic as one
// pixel at a time. A particle frame's values are too varied for branches to
// predict; the pixel loop runs over every pixel of every frame.
using F4 = float __attribute__((vector_size(16)));
using I4 = int32_t __attribute__((vector_size(16)));

inline F4 vmax(F4 a, F4 b) {
  return a > b ? a : b;
}  // NaN in a gives b
inline F4 vmin(F4 a, F4 b) {
  return a < b ? a : b;
}
inline F4 clamp01(F4 v) {
  return vmin(vmax(v, F4{}), F4{} + 1.0f);
}  // NaN gives 0
inline I4 trunc_i(F4 v) {
  return __builtin_convertvector(v, I4);
}
inline F4 to_f(I4 v) {
  return __builtin_convertvector(v, F4);
}

// Exact 8-bit sRGB codes of linear values (clamped to [0, 1]; NaN gives 0).
inline I4 srgb8(const EncodeTables& t, F4 x) {
  x = clamp01(x);
  const I4 cell = trunc_i(x * static_cast<float>(EncodeTables::kGrid));
  I4 code;
  F4 next;
  for (int k = 0; k < 4; ++k) {
    code[k] = t.start[static_cast<size_t>(cell[k])];
    next[k] = t.threshold[static_cast<size_t>(code[k])];
  }
  return code - (x >= next);  // a true comparison is -1
}

// sRGB-encoded values in [0, 1] as floats (for premultiplied output): the
// exact linear segment near black, where the curve is steep, else the fine
// table with linear interpolation.
inline F4 srgb_f(const EncodeTables& t, F4 x) {
  x = clamp01(x);
  const F4 f = x * static_cast<float>(EncodeTables::kSteps);
  I4 i = trunc_i(f);
  i = i < EncodeTables::kSteps - 1 ? i : EncodeTables::kSteps - 1;
  const F4 w = f - to_f(i);
  F4 lo, hi;
  for (int k = 0; k < 4; ++k) {
    lo[k] = t.srgb[static_cast<size_t>(i[k])];
    hi[k] = t.srgb[static_cast<size_t>(i[k]) + 1];
  }
  const F4 table = lo + (hi - lo) * w;
  return x <= 0.0031308f ? x * 12.92f : table;
}

// lround(clamp(v, 0, 1) * 255): for y in [0, 255], y - trunc(y) is exact, so
// this rounds half away from zero exactly as lround.
inline I4 to_byte(F4 v) {
  const F4 y = clamp01(v) * 255.0f;
  const I4 i = trunc_i(y);
  return i - (y - to_f(i) >= 0.5f);
}

// Pixels src[0..15] (four RGBA) to dst[0..15]. The tone map and alpha mode
// are template parameters, so the row loop carries no mode branches.
template <Tonemap kTonemap, AlphaMode kAlpha>
inline void encode4(const EncodeTables& t, const float* src, uint8_t* dst) {
  const F4 zero{}, one = zero + 1.0f;
  F4 r, g, b, a;
  for (int k = 0; k < 4; ++k) {
    r[k] = src[4 * k];
    g[k] = src[4 * k + 1];
    b[k] = src[4 * k + 2];
    a[k] = src[4 * k + 3];
  }
  r = vmax(r, zero), g = vmax(g, zero), b = vmax(b, zero);
  a = clamp01(a);
  if constexpr (kTonemap == Tonemap::kWhite) {
    // Where the largest channel p > 1: C'' = (1 - beta) C / p + beta,
    // beta = 1 - 1/p. (Other lanes compute and discard it.)
    const F4 p = vmax(r, vmax(g, b));
    const auto hot = p > one;
    const F4 beta = one - one / p, keep = one - beta;
    r = hot ? keep * r / p + beta : r;
    g = hot ? keep * g / p + beta : g;
    b = hot ? keep * b / p + beta : b;
  } else {
    r = vmin(r, one), g = vmin(g, one), b = vmin(b, one);
  }
  const F4 a_out = vmax(a, vmin(vmax(r, vmax(g, b)), one));
  // a_out == 0 only where C and A are all 0; inv = 0 there encodes 0, 0, 0, 0.
  const F4 inv = a_out > zero ? one / a_out : zero;
  I4 cr, cg, cb, ca;
  if constexpr (kAlpha == AlphaMode::kStraight) {
    cr = srgb8(t, r * inv), cg = srgb8(t, g * inv), cb = srgb8(t, b * inv);
    ca = to_byte(a_out);
  } else {
    cr = to_byte(srgb_f(t, r * inv) * a_out);
    cg = to_byte(srgb_f(t, g * inv) * a_out);
    cb = to_byte(srgb_f(t, b * inv) * a_out);
    ca = to_byte(a);
  }
  for (int k = 0; k < 4; ++k) {
    dst[4 * k] = static_cast<uint8_t>(cr[k]);
    dst[4 * k + 1] = static_cast<uint8_t>(cg[k]);
    dst[4 * k + 2] = static_cast<uint8_t>(cb[k]);
    dst[4 * k + 3] = static_cast<uint8_t>(ca[k]);
  }
}

// Rows [row_begin, row_end); with `avx2`, each row's first multiple of 8
// pixels on the AVX2 path (encode_avx2.cpp: the same bytes), the rest here.
template <Tonemap kTonemap, AlphaMode kAlpha>
void encode_rows(const Image& img, uint8_t* out, int row_begin, int row_end, bool avx2) {
  const EncodeTables& t = encode_tables();
  const size_t width = static_cast<size_t>(img.width), body = width & ~size_t{3};
  const size_t wide = avx2 ? width & ~size_t{7} : 0;
  for (int y = row_begin; y < row_end; ++y) {
    const float* src = img.row(y);
    uint8_t* dst = out + static_cast<size_t>(y - img.y0) * width * 4;
    if (wide > 0) detail::encode_row_avx2(t, kTonemap, kAlpha, src, dst, wide);
    // Four pixels just like the four before them (the background, a
    // transparent area) encode as those did: copied, not computed again.
    for (size_t x = wide; x < body; x += 4) {
      if (x > 0 && std::memcmp(src + x * 4, src + x * 4 - 16, 16 * sizeof(float)) == 0)
        std::memcpy(dst + x * 4, dst + x * 4 - 16, 16);
      else
        encode4<kTonemap, kAlpha>(t, src + x * 4, dst + x * 4);
    }
    if (body < width) {  // the last 1-3 pixels, padded with zeros
      float in[16] = {};
      uint8_t bytes[16];
      std::memcpy(in, src + body * 4, (width - body) * 4 * sizeof(float));
      encode4<kTonemap, kAlpha>(t, in, bytes);
      std::memcpy(dst + body * 4, bytes, (width - body) * 4);
    }
  }
}

}  // namespace

uint8_t linear_to_srgb8(float x) {
  const F4 v{x, x, x, x};
  return static_cast<uint8_t>(srgb8(encode_tables(), v)[0]);
}

void detail::encode_rgba8_rows(const Image& img, Tonemap tonemap, AlphaMode alpha, uint8_t* out,
                               int row_begin, int row_end, bool avx2) {
  avx2 = avx2 && encode_avx2_available();
  const bool white = tonemap == Tonemap::kWhite, straight = alpha == AlphaMode::kStraight;
  if (white && straight)
    encode_rows<Tonemap::kWhite, AlphaMode::kStraight>(img, out, row_begin, row_end, avx2);
  if (white && !straight)
    encode_rows<Tonemap::kWhite, AlphaMode::kPremultiplied>(img, out, row_begin, row_end, avx2);
  if (!white && straight)
    encode_rows<Tonemap::kClamp, AlphaMode::kStraight>(img, out, row_begin, row_end, avx2);
  if (!white && !straight)
    encode_rows<Tonemap::kClamp, AlphaMode::kPremultiplied>(img, out, row_begin, row_end, avx2);
}

void encode_rgba8(const Image& img, Tonemap tonemap, AlphaMode alpha, uint8_t* out, int row_begin,
                  int row_end) {
  detail::encode_rgba8_rows(img, tonemap, alpha, out, row_begin, row_end, true);
}

void encode_rgba8(const Image& img, Tonemap tonemap, AlphaMode alpha, std::vector<uint8_t>& out) {
  out.resize(static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 4);
  encode_rgba8(img, tonemap, alpha, out.data(), 0, img.height);
}

namespace {

template <typename T>
void bleed(std::vector<T>& rgba, int width, int height) {
  // Breadth-first dilation: each pass gives transparent pixels next to known
  // ones the average colour of those neighbours, until every pixel is known.
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  std::vector<uint8_t> known(n);
  std::vector<size_t> frontier, next;
  for (size_t i = 0; i < n; ++i) known[i] = rgba[i * 4 + 3] != 0;
  for (size_t i = 0; i < n; ++i)
    if (!known[i]) frontier.push_back(i);
  constexpr int kPasses = 16;
  for (int pass = 0; pass < kPasses && !frontier.empty(); ++pass) {
    next.clear();
    std::vector<std::pair<size_t, std::array<T, 3>>> fills;
    for (size_t i : frontier) {
      const int x = static_cast<int>(i % static_cast<size_t>(width)),
                y = static_cast<int>(i / static_cast<size_t>(width));
      int64_t sum[3] = {0, 0, 0}, count = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const size_t j =
              static_cast<size_t>(ny) * static_cast<size_t>(width) + static_cast<size_t>(nx);
          if (!known[j]) continue;
          for (int k = 0; k < 3; ++k) sum[k] += rgba[j * 4 + static_cast<size_t>(k)];
          ++count;
        }
      if (count == 0) {
        next.push_back(i);
      } else {
        fills.push_back({i,
                         {static_cast<T>(sum[0] / count), static_cast<T>(sum[1] / count),
                          static_cast<T>(sum[2] / count)}});
      }
    }
    if (fills.empty()) break;  // nothing known at all: leave it black
    for (const auto& [i, c] : fills) {
      for (int k = 0; k < 3; ++k) rgba[i * 4 + static_cast<size_t>(k)] = c[static_cast<size_t>(k)];
      known[i] = 1;
    }
    frontier.swap(next);
  }
  // Pixels farther than kPasses from any visible one take the mean colour of
  // the visible pixels: no filter footprint reaches them from visible texels.
  if (!frontier.empty()) {
    uint64_t sum[3] = {0, 0, 0}, count = 0;
    for (size_t i = 0; i < n; ++i)
      if (rgba[i * 4 + 3] != 0) {
        for (int k = 0; k < 3; ++k) sum[k] += rgba[i * 4 + static_cast<size_t>(k)];
        ++count;
      }
    for (size_t i : frontier)
      for (int k = 0; k < 3; ++k)
        rgba[i * 4 + static_cast<size_t>(k)] = count ? static_cast<T>(sum[k] / count) : T{0};
  }
}

}  // namespace

void bleed_transparent_colour(std::vector<uint8_t>& rgba, int width, int height) {
  bleed(rgba, width, height);
}
void bleed_transparent_colour(std::vector<uint16_t>& rgba, int width, int height) {
  bleed(rgba, width, height);
}

namespace {

// round(clamp(v, 0, 1) * 65535).
uint16_t to_u16(double v) {
  return static_cast<uint16_t>(std::lround(std::clamp(v, 0.0, 1.0) * 65535.0));
}

// encode4's steps 1 and 2 for one pixel, in scalar floats (the same
// operations): the tone-mapped colour (each channel in [0, 1]), the
// coverage a and the alpha a straight pixel is written with.
struct Toned {
  float r, g, b, a, a_out;
};
Toned tone_map(const float* src, bool white) {
  float r = std::max(src[0], 0.0f), g = std::max(src[1], 0.0f), b = std::max(src[2], 0.0f);
  const float a = std::clamp(src[3], 0.0f, 1.0f);
  if (white) {
    const float p = std::max(r, std::max(g, b));
    if (p > 1.0f) {
      const float beta = 1.0f - 1.0f / p, keep = 1.0f - beta;
      r = keep * r / p + beta, g = keep * g / p + beta, b = keep * b / p + beta;
    }
  } else {
    r = std::min(r, 1.0f), g = std::min(g, 1.0f), b = std::min(b, 1.0f);
  }
  return {r, g, b, a, std::max(a, std::min(std::max(r, std::max(g, b)), 1.0f))};
}

}  // namespace

void srgb_blend_to_linear(Image& img, Tonemap tonemap, int row_begin, int row_end) {
  const bool white = tonemap == Tonemap::kWhite;
  const size_t w = static_cast<size_t>(img.width);
  const size_t first = static_cast<size_t>(row_begin - img.y0) * w;
  const size_t last = static_cast<size_t>(row_end - img.y0) * w;
  for (size_t i = first; i < last; ++i) {
    float* px = &img.rgba[i * 4];
    // The encoder's tone map and alpha, on the encoded values; then the
    // light that encodes to E / a.
    const Toned t = tone_map(px, white);
    const double inv = t.a_out > 0.0f ? 1.0 / t.a_out : 0.0;
    px[0] = static_cast<float>(srgb_to_linear(std::min(1.0, t.r * inv)) * t.a_out);
    px[1] = static_cast<float>(srgb_to_linear(std::min(1.0, t.g * inv)) * t.a_out);
    px[2] = static_cast<float>(srgb_to_linear(std::min(1.0, t.b * inv)) * t.a_out);
    px[3] = t.a;
  }
}

// The scalar form of encode4's steps 1-3 (same float operations for the
// tone map and alpha), with sRGB in double and 16-bit rounding.
void encode_rgba16(const Image& img, Tonemap tonemap, AlphaMode alpha, std::vector<uint16_t>& out) {
  const size_t n = static_cast<size_t>(img.width) * static_cast<size_t>(img.height);
  out.resize(n * 4);
  const bool white = tonemap == Tonemap::kWhite, straight = alpha == AlphaMode::kStraight;
  for (size_t i = 0; i < n; ++i) {
    const Toned t = tone_map(&img.rgba[i * 4], white);
    const float r = t.r, g = t.g, b = t.b, a = t.a, a_out = t.a_out;
    const float inv = a_out > 0.0f ? 1.0f / a_out : 0.0f;
    const double c[3] = {linear_to_srgb(std::min(r * inv, 1.0f)),
                         linear_to_srgb(std::min(g * inv, 1.0f)),
                         linear_to_srgb(std::min(b * inv, 1.0f))};
    uint16_t* dst = &out[i * 4];
    for (int k = 0; k < 3; ++k) dst[k] = to_u16(straight ? c[k] : c[k] * a_out);
    dst[3] = to_u16(straight ? a_out : a);
  }
}

}  // namespace spritz
