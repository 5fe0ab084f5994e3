#include "encode.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "color.h"

namespace spritz {
namespace {

// thresholds[k] = the linear value halfway (in sRGB) between codes k and k+1:
// the 8-bit code of x is the number of thresholds <= x. Exact rounding with no
// pow() per pixel.
const std::array<float, 255>& srgb_thresholds() {
  static const std::array<float, 255> t = [] {
    std::array<float, 255> v{};
    for (int k = 0; k < 255; ++k) v[static_cast<size_t>(k)] = static_cast<float>(srgb_to_linear((k + 0.5) / 255.0));
    return v;
  }();
  return t;
}

// sRGB-encoded value in [0, 1] as a float (for premultiplied output), from a
// fine table with linear interpolation.
float linear_to_srgb_f(float x) {
  constexpr int kSteps = 4096;
  static const std::array<float, kSteps + 1> table = [] {
    std::array<float, kSteps + 1> v{};
    for (int i = 0; i <= kSteps; ++i) v[static_cast<size_t>(i)] = static_cast<float>(linear_to_srgb(static_cast<double>(i) / kSteps));
    return v;
  }();
  // Near black the curve is steep; use the exact linear segment there.
  if (x <= 0.0031308f) return std::max(0.0f, x * 12.92f);
  const float f = std::min(x, 1.0f) * kSteps;
  const int i = std::min(static_cast<int>(f), kSteps - 1);
  const float t = f - static_cast<float>(i);
  return table[static_cast<size_t>(i)] + (table[static_cast<size_t>(i) + 1] - table[static_cast<size_t>(i)]) * t;
}

uint8_t to_byte(float v) { return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

}  // namespace

uint8_t linear_to_srgb8(float x) {
  // A table of lower bounds on a 1/8192 grid, then at most a step or two up
  // the exact thresholds: the same answer as a binary search, much faster.
  constexpr int kGrid = 8192;
  static const std::array<uint8_t, kGrid + 1> start = [] {
    const auto& t = srgb_thresholds();
    std::array<uint8_t, kGrid + 1> s{};
    for (int i = 0; i <= kGrid; ++i) {
      const float v = static_cast<float>(i) / kGrid;
      s[static_cast<size_t>(i)] = static_cast<uint8_t>(std::upper_bound(t.begin(), t.end(), v) - t.begin());
    }
    return s;
  }();
  const auto& t = srgb_thresholds();
  if (!(x > 0)) return 0;  // also maps NaN to 0
  if (x >= 1) return 255;
  int code = start[static_cast<size_t>(x * kGrid)];
  while (code < 255 && x >= t[static_cast<size_t>(code)]) ++code;
  return static_cast<uint8_t>(code);
}

void encode_rgba8(const Image& img, Tonemap tonemap, AlphaMode alpha, uint8_t* out, int row_begin,
                  int row_end) {
  for (int y = row_begin; y < row_end; ++y) {
    const float* src = img.row(y);
    uint8_t* dst = out + static_cast<size_t>(y) * static_cast<size_t>(img.width) * 4;
    for (int x = 0; x < img.width; ++x, src += 4, dst += 4) {
      float c[3] = {std::max(src[0], 0.0f), std::max(src[1], 0.0f), std::max(src[2], 0.0f)};
      const float a = std::clamp(src[3], 0.0f, 1.0f);
      const float p = std::max({c[0], c[1], c[2]});
      if (p > 1) {
        if (tonemap == Tonemap::kWhite) {
          // C'' = (1 - beta) C / p + beta, beta = 1 - 1/p.
          const float beta = 1 - 1 / p;
          for (float& ch : c) ch = (1 - beta) * ch / p + beta;
        } else {
          for (float& ch : c) ch = std::min(ch, 1.0f);
        }
      }
      const float cmax = std::min(1.0f, std::max({c[0], c[1], c[2]}));
      const float a_out = std::max(a, cmax);
      if (!(a_out > 0)) {
        dst[0] = dst[1] = dst[2] = dst[3] = 0;
        continue;
      }
      const float inv = 1 / a_out;
      if (alpha == AlphaMode::kStraight) {
        for (int k = 0; k < 3; ++k) dst[k] = linear_to_srgb8(std::min(1.0f, c[k] * inv));
        dst[3] = to_byte(a_out);
      } else {
        for (int k = 0; k < 3; ++k) dst[k] = to_byte(linear_to_srgb_f(std::min(1.0f, c[k] * inv)) * a_out);
        dst[3] = to_byte(a);
      }
    }
  }
}

void encode_rgba8(const Image& img, Tonemap tonemap, AlphaMode alpha, std::vector<uint8_t>& out) {
  out.resize(static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 4);
  encode_rgba8(img, tonemap, alpha, out.data(), 0, img.height);
}

void bleed_transparent_colour(std::vector<uint8_t>& rgba, int width, int height) {
  // Breadth-first dilation: each pass gives transparent pixels next to known
  // ones the average colour of those neighbours, until every pixel is known.
  const size_t n = static_cast<size_t>(width) * static_cast<size_t>(height);
  std::vector<uint8_t> known(n);
  std::vector<size_t> frontier, next;
  for (size_t i = 0; i < n; ++i) known[i] = rgba[i * 4 + 3] != 0;
  for (size_t i = 0; i < n; ++i) if (!known[i]) frontier.push_back(i);
  constexpr int kPasses = 16;
  for (int pass = 0; pass < kPasses && !frontier.empty(); ++pass) {
    next.clear();
    std::vector<std::pair<size_t, std::array<uint8_t, 3>>> fills;
    for (size_t i : frontier) {
      const int x = static_cast<int>(i % static_cast<size_t>(width)), y = static_cast<int>(i / static_cast<size_t>(width));
      int sum[3] = {0, 0, 0}, count = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int nx = x + dx, ny = y + dy;
          if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
          const size_t j = static_cast<size_t>(ny) * static_cast<size_t>(width) + static_cast<size_t>(nx);
          if (!known[j]) continue;
          for (int k = 0; k < 3; ++k) sum[k] += rgba[j * 4 + static_cast<size_t>(k)];
          ++count;
        }
      if (count == 0) {
        next.push_back(i);
      } else {
        fills.push_back({i, {static_cast<uint8_t>(sum[0] / count), static_cast<uint8_t>(sum[1] / count),
                             static_cast<uint8_t>(sum[2] / count)}});
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
        rgba[i * 4 + static_cast<size_t>(k)] = count ? static_cast<uint8_t>(sum[k] / count) : 0;
  }
}

}  // namespace spritz
