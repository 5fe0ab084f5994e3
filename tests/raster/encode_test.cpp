#include <catch2/catch.hpp>

#include "color.h"
#include "encode.h"
#include "png.h"

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
  const auto normal = encode_one(0.25f, 0.25f, 0.25f, 0.5f, Tonemap::kWhite, AlphaMode::kPremultiplied);
  CHECK(normal[3] == 128);
  CHECK(normal[0] == Approx(linear_to_srgb8(0.5f) * 0.5).margin(1));
}

TEST_CASE("PNG tEXt chunks survive a round trip", "[encode]") {
  const std::vector<uint8_t> px = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto png = encode_png(px.data(), 2, 1, {{"spritz", "{\"seed\":7}"}, {"Software", "spritz"}});
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
