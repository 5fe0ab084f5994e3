// What each texture filter samples (emitter key `filter`, docs/rendering.md):
// "nearest" the texel under the pixel centre, "bilinear" the full-size
// texture blended between its four nearest texels, "trilinear" (the default)
// a blend of two mip levels. The kernels' agreement with the reference is
// tested in blend_test.cpp for every filter; here, what the reference draws.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "spritz/load.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

using namespace spritz;

namespace {

// A texture with a different value in every texel and channel.
Texture noise_texture(int w, int h, std::vector<float>* texels) {
  texels->resize(static_cast<size_t>(w * h * 4));
  for (size_t i = 0; i < texels->size(); ++i)
    (*texels)[i] = 0.05f + 0.9f * static_cast<float>((i * 2654435761u) % 1000) / 1000;
  return texture_from_linear(w, h, *texels, 1, 1);
}

Emitter emitter(const char* filter) {
  const Effect fx =
      load_effect(std::string("[[emitter]]\nfilter = \"") + filter + "\"\n", "t.toml", ".");
  return fx.emitters[0];
}

// The sprite of a white, opaque, unrotated particle of `size` px centred at
// the image's centre, drawn by the reference into a transparent image.
Image draw(const Emitter& em, const Texture& tex, int image_px, double size, double rotation = 0) {
  Particle p;
  p.w = p.h = size;
  p.color_srgb = {1, 1, 1};
  p.alpha = 1;
  p.rotation_deg = rotation;
  Sprite sp;
  Image img;
  img.resize(image_px, image_px);
  if (make_sprite(p, em, tex, {1, 1, 1}, image_px, image_px, View{1, 0, 0}, sp))
    draw_sprite_reference(sp, img, 0, image_px);
  return img;
}

}  // namespace

TEST_CASE("filter names load, and a wrong one is an error that lists them", "[filter]") {
  CHECK(emitter("nearest").filter == TextureFilter::kNearest);
  CHECK(emitter("bilinear").filter == TextureFilter::kBilinear);
  CHECK(emitter("trilinear").filter == TextureFilter::kTrilinear);
  CHECK(load_effect("[[emitter]]\n", "t.toml", ".").emitters[0].filter ==
        TextureFilter::kTrilinear);
  try {
    load_effect("[[emitter]]\nfilter = \"point\"\n", "t.toml", ".");
    FAIL("no error");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find("t.toml:2:10") != std::string::npos);
    CHECK(what.find("\"nearest\"") != std::string::npos);
  }
}

TEST_CASE("nearest magnifies each texel into a block of its exact value", "[filter]") {
  std::vector<float> texels;
  const Texture tex = noise_texture(8, 8, &texels);
  // 8 texels drawn 32 px wide on a 32 px image: texel (i, j) covers pixels
  // [4i, 4i + 4) x [4j, 4j + 4), every one of them fully covered.
  const Image img = draw(emitter("nearest"), tex, 32, 32);
  int exact = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x)
      for (int c = 0; c < 4; ++c) {
        const float want = texels[static_cast<size_t>(((y / 4) * 8 + x / 4) * 4 + c)];
        const float got = img.row(y)[x * 4 + c];
        INFO("pixel " << x << "," << y << " channel " << c);
        REQUIRE(got == want);  // colour 1, alpha 1 and coverage 1 multiply exactly
        ++exact;
      }
  CHECK(exact == 32 * 32 * 4);
}

TEST_CASE("bilinear draws a texture at its own size texel for texel, trilinear blurs it",
          "[filter]") {
  std::vector<float> texels;
  const Texture tex = noise_texture(16, 16, &texels);
  const Image sharp = draw(emitter("bilinear"), tex, 16, 16);
  const Image soft = draw(emitter("trilinear"), tex, 16, 16);
  double sharp_err = 0, soft_err = 0;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x)
      for (int c = 0; c < 4; ++c) {
        const float want = texels[static_cast<size_t>((y * 16 + x) * 4 + c)];
        sharp_err =
            std::max(sharp_err, static_cast<double>(std::abs(sharp.row(y)[x * 4 + c] - want)));
        soft_err = std::max(soft_err, static_cast<double>(std::abs(soft.row(y)[x * 4 + c] - want)));
      }
  CHECK(sharp_err < 1e-5);  // pixel centres land on texel centres
  CHECK(soft_err > 0.1);    // half a level blurrier than 1:1, by design
}

TEST_CASE("bilinear and nearest sample the full-size texture however small the sprite",
          "[filter]") {
  // A 64x64 texture whose left half is dark and right half bright, drawn 4
  // px wide: trilinear reads a 4x4 mip level, the others level 0.
  std::vector<float> texels(64 * 64 * 4);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      for (int c = 0; c < 4; ++c)
        texels[static_cast<size_t>((y * 64 + x) * 4 + c)] = x < 32 ? 0.1f : 0.9f;
  const Texture tex = texture_from_linear(64, 64, texels, 1, 1);
  for (const char* name : {"trilinear", "bilinear", "nearest"}) {
    Particle p;
    p.w = p.h = 4;
    p.color_srgb = {1, 1, 1};
    p.alpha = 1;
    Sprite sp;
    REQUIRE(make_sprite(p, emitter(name), tex, {1, 1, 1}, 8, 8, View{1, 0, 0}, sp));
    INFO(name);
    CHECK(sp.level0 == (std::string(name) == "trilinear" ? 4 : 0));
    CHECK(sp.nearest == (std::string(name) == "nearest"));
  }
  // Nearest at 4 px: each pixel centre is at texel 8 + 16 k, all dark or all
  // bright, no blend.
  const Image img = draw(emitter("nearest"), tex, 4, 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) CHECK(img.row(y)[x * 4] == (x < 2 ? 0.1f : 0.9f));
}

TEST_CASE("nearest keeps a rotated sprite's texels whole and finite at every angle", "[filter]") {
  std::vector<float> texels;
  const Texture tex = noise_texture(5, 7, &texels);
  const Emitter em = emitter("nearest");
  for (double rot = 0; rot < 360; rot += 7.5) {
    const Image img = draw(em, tex, 24, 17.3, rot);
    int interior = 0;
    for (int y = 0; y < 24; ++y)
      for (int x = 0; x < 24; ++x) {
        const float* px = img.row(y) + x * 4;
        REQUIRE(std::isfinite(px[0]));
        if (px[3] > 0) {
          // A fully covered pixel holds one texel's exact value, all four
          // channels of the same texel; edge pixels hold a fraction of one.
          bool found = false;
          for (size_t t = 0; t < texels.size() && !found; t += 4)
            found = px[0] == texels[t] && px[1] == texels[t + 1] && px[2] == texels[t + 2] &&
                    px[3] == texels[t + 3];
          interior += found;
        }
      }
    INFO("rotation " << rot);
    CHECK(interior > 100);
  }
}
