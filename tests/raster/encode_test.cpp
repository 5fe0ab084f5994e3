#include "spritz/raster/encode.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "encode_internal.h"
#include "spritz/color.h"
#include "spritz/raster/png.h"

using namespace spritz;

namespace {
std::vector<uint8_t> encode_one(float r, float g, float b, float a, Tonemap t, AlphaMode m) {
  Image img;
  img.resize(1, 1);
  img.rgba = {r, g, b, a};
  std::vector<uint8_t> out;
  encode_rgba8(img, t, m, out);
  return out;
}
}  // namespace

TEST_CASE("8-bit sRGB encoding rounds exactly", "[encode]") {
  for (int k = 0; k < 256; ++k) {
    const double lin = srgb_to_linear(k / 255.0);
    CHECK(linear_to_srgb8(static_cast<float>(lin)) == k);
  }
  CHECK(linear_to_srgb8(-1) == 0);
  CHECK(linear_to_srgb8(2) == 255);
}

TEST_CASE("the white tone map keeps hue and goes toward white", "[encode]") {
  // p = 2: beta = 0.5, c'' = 0.5 c / 2 + 0.5.
  const auto px = encode_one(2, 1, 0, 1, Tonemap::kWhite, AlphaMode::kStraight);
  CHECK(px[0] == 255);
  CHECK(px[1] == linear_to_srgb8(0.75f));
  CHECK(px[2] == linear_to_srgb8(0.5f));
  const auto clamped = encode_one(2, 1, 0, 1, Tonemap::kClamp, AlphaMode::kStraight);
  CHECK(clamped[1] == 255);
  CHECK(clamped[2] == 0);
}

TEST_CASE("straight alpha carries additive light over transparency", "[encode]") {
  // Pure light 0.5 red on a transparent background: a' = 0.5, colour = 1.
  const auto px = encode_one(0.5f, 0.25f, 0, 0, Tonemap::kWhite, AlphaMode::kStraight);
  CHECK(px[3] == 128);
  CHECK(px[0] == 255);
  CHECK(px[1] == linear_to_srgb8(0.5f));
  // Composited "over" black, it gives back exactly the light.
  const double over_black = srgb_to_linear(px[0] / 255.0) * px[3] / 255.0;
  CHECK(over_black == Approx(0.5).epsilon(0.01));
  // Ordinary content keeps its alpha.
  const auto normal = encode_one(0.25f, 0.25f, 0.25f, 0.5f, Tonemap::kWhite, AlphaMode::kStraight);
  CHECK(normal[3] == 128);
  CHECK(normal[0] == linear_to_srgb8(0.5f));
  // Nothing at all is transparent black.
  const auto none = encode_one(0, 0, 0, 0, Tonemap::kWhite, AlphaMode::kStraight);
  CHECK(none == std::vector<uint8_t>{0, 0, 0, 0});
}

TEST_CASE("premultiplied output keeps the true coverage as alpha", "[encode]") {
  const auto light = encode_one(0.5f, 0, 0, 0, Tonemap::kWhite, AlphaMode::kPremultiplied);
  CHECK(light[3] == 0);
  CHECK(light[0] == 128);  // sRGB(1) * 0.5
  const auto normal =
      encode_one(0.25f, 0.25f, 0.25f, 0.5f, Tonemap::kWhite, AlphaMode::kPremultiplied);
  CHECK(normal[3] == 128);
  CHECK(normal[0] == Approx(linear_to_srgb8(0.5f) * 0.5).margin(1));
}

TEST_CASE("PNG tEXt chunks survive a round trip", "[encode]") {
  const std::vector<uint8_t> px = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto png =
      encode_png(px.data(), 2, 1, {{"spritz", "{\"seed\":7}"}, {"Software", "spritz"}});
  const DecodedPng d = decode_png(png, "mem");
  CHECK(d.width == 2);
  CHECK(d.rgba == px);
  REQUIRE(d.texts.size() == 2);
  CHECK(d.texts[0].keyword == "spritz");
  CHECK(d.texts[0].text == "{\"seed\":7}");
}

TEST_CASE("colour bleed fills transparent pixels and leaves alpha alone", "[encode]") {
  std::vector<uint8_t> img(5 * 1 * 4, 0);
  img[8] = 200, img[9] = 100, img[10] = 50, img[11] = 255;  // middle pixel visible
  bleed_transparent_colour(img, 5, 1);
  for (int x = 0; x < 5; ++x) {
    CHECK(img[static_cast<size_t>(x) * 4 + 0] == 200);
    CHECK(img[static_cast<size_t>(x) * 4 + 1] == 100);
    CHECK(img[static_cast<size_t>(x) * 4 + 3] == (x == 2 ? 255 : 0));
  }
}

namespace {

// The encoder as the model states it, one pixel and one channel at a time,
// with a binary search for the sRGB code: what the four-lane encoder must
// match byte for byte.
uint8_t reference_srgb8(float x) {
  static const std::vector<float> thresholds = [] {
    std::vector<float> t;
    for (int k = 0; k < 255; ++k)
      t.push_back(static_cast<float>(srgb_to_linear((k + 0.5) / 255.0)));
    return t;
  }();
  if (!(x > 0)) return 0;
  return static_cast<uint8_t>(std::upper_bound(thresholds.begin(), thresholds.end(), x) -
                              thresholds.begin());
}

float reference_srgb_f(float x) {
  constexpr int kSteps = 4096;
  static const std::vector<float> table = [] {
    std::vector<float> v;
    for (int i = 0; i <= kSteps; ++i)
      v.push_back(static_cast<float>(linear_to_srgb(static_cast<double>(i) / kSteps)));
    return v;
  }();
  if (x <= 0.0031308f) return std::max(0.0f, x * 12.92f);
  const float f = std::min(x, 1.0f) * kSteps;
  const int i = std::min(static_cast<int>(f), kSteps - 1);
  const float t = f - static_cast<float>(i);
  return table[static_cast<size_t>(i)] +
         (table[static_cast<size_t>(i) + 1] - table[static_cast<size_t>(i)]) * t;
}

uint8_t reference_byte(float v) {
  return static_cast<uint8_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
}

void reference_pixel(const float* src, Tonemap tonemap, AlphaMode alpha, uint8_t* dst) {
  float c[3] = {std::max(src[0], 0.0f), std::max(src[1], 0.0f), std::max(src[2], 0.0f)};
  const float a = std::clamp(src[3], 0.0f, 1.0f);
  const float p = std::max({c[0], c[1], c[2]});
  if (p > 1) {
    if (tonemap == Tonemap::kWhite) {
      const float beta = 1 - 1 / p;
      for (float& ch : c) ch = (1 - beta) * ch / p + beta;
    } else {
      for (float& ch : c) ch = std::min(ch, 1.0f);
    }
  }
  const float a_out = std::max(a, std::min(1.0f, std::max({c[0], c[1], c[2]})));
  if (!(a_out > 0)) {
    dst[0] = dst[1] = dst[2] = dst[3] = 0;
    return;
  }
  const float inv = 1 / a_out;
  if (alpha == AlphaMode::kStraight) {
    for (int k = 0; k < 3; ++k) dst[k] = reference_srgb8(std::min(1.0f, c[k] * inv));
    dst[3] = reference_byte(a_out);
  } else {
    for (int k = 0; k < 3; ++k)
      dst[k] = reference_byte(reference_srgb_f(std::min(1.0f, c[k] * inv)) * a_out);
    dst[3] = reference_byte(a);
  }
}

}  // namespace

TEST_CASE("the sRGB code matches a binary search over the exact thresholds", "[encode]") {
  // Every 61st float in [0, 1], plus both neighbours of every threshold.
  uint32_t mismatches = 0;
  uint32_t one_bits;
  const float one = 1.0f;
  std::memcpy(&one_bits, &one, 4);
  for (uint32_t bits = 0; bits <= one_bits; bits += 61) {
    float x;
    std::memcpy(&x, &bits, 4);
    mismatches += linear_to_srgb8(x) != reference_srgb8(x);
  }
  for (int k = 0; k < 255; ++k) {
    const float t = static_cast<float>(srgb_to_linear((k + 0.5) / 255.0));
    for (float x : {std::nextafter(t, 0.0f), t, std::nextafter(t, 2.0f)})
      mismatches += linear_to_srgb8(x) != reference_srgb8(x);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("the four- and eight-pixel encoders match the one-pixel reference byte for byte",
          "[encode]") {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  // Values from every regime: zero, negative, tiny, ordinary, exactly one,
  // hot (tone-mapped), thresholds' neighbourhoods.
  auto value = [&] {
    switch (rng() % 7) {
      case 0:
        return 0.0f;
      case 1:
        return -unit(rng);
      case 2:
        return std::pow(10.0f, -6.0f + 5.0f * unit(rng));
      case 3:
        return 1.0f;
      case 4:
        return 4.0f * unit(rng);
      default:
        return unit(rng);
    }
  };
  // Both paths: four pixels at a time, and eight with AVX2 (rows' first
  // multiple of eight; widths to 19 give every tail), where the CPU has it.
  std::vector<bool> paths = {false};
  if (detail::encode_avx2_available()) paths.push_back(true);
  for (const bool avx2 : paths) {
    for (const Tonemap tonemap : {Tonemap::kWhite, Tonemap::kClamp}) {
      for (const AlphaMode alpha : {AlphaMode::kStraight, AlphaMode::kPremultiplied}) {
        for (int width = 1; width <= 19; ++width) {
          Image img;
          img.resize(width, 400);
          for (float& v : img.rgba) v = value();
          // Runs of equal pixels too: the encoder copies a group equal to
          // the one before it.
          for (size_t i = 64; i + 64 <= img.rgba.size(); i += 256)
            std::copy_n(&img.rgba[i - 64], 64, &img.rgba[i]);
          std::vector<uint8_t> out(img.rgba.size());
          detail::encode_rgba8_rows(img, tonemap, alpha, out.data(), 0, img.height, avx2);
          size_t mismatches = 0;
          for (size_t i = 0; i < img.rgba.size() / 4; ++i) {
            uint8_t want[4];
            reference_pixel(&img.rgba[i * 4], tonemap, alpha, want);
            mismatches += std::memcmp(want, &out[i * 4], 4) != 0;
          }
          INFO("avx2 " << avx2 << " width " << width << " tonemap " << static_cast<int>(tonemap)
                       << " alpha " << static_cast<int>(alpha));
          CHECK(mismatches == 0);
        }
      }
    }
  }
  // The public entry point takes the AVX2 path where there is one.
  Image img;
  img.resize(16, 2);
  for (float& v : img.rgba) v = value();
  std::vector<uint8_t> a, b(img.rgba.size());
  encode_rgba8(img, Tonemap::kWhite, AlphaMode::kStraight, a);
  detail::encode_rgba8_rows(img, Tonemap::kWhite, AlphaMode::kStraight, b.data(), 0, 2, false);
  CHECK(a == b);
}
