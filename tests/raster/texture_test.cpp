#include "spritz/raster/texture.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <tuple>

#include "smoke.h"
#include "spritz/color.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/png.h"

using namespace spritz;

TEST_CASE("textures round-trip through sRGB and premultiplication", "[texture]") {
  // A 16x1 PNG with every 17th sRGB code and a few alphas.
  std::vector<uint8_t> px;
  for (int i = 0; i < 16; ++i) {
    const uint8_t v = static_cast<uint8_t>(i * 17);
    px.insert(px.end(),
              {v, static_cast<uint8_t>(255 - v), 128, static_cast<uint8_t>(i % 2 ? 255 : 128)});
  }
  const std::vector<uint8_t> png = encode_png(px.data(), 16, 1);
  const Texture t = texture_from_encoded(png, "strip.png", 1, 1);
  const MipLevel& m = t.cells[0].levels[0];
  for (int i = 0; i < 16; ++i) {
    const float a = m.texel(i, 0)[3];
    CHECK(a == Approx(px[static_cast<size_t>(i) * 4 + 3] / 255.0));
    const float lin = m.texel(i, 0)[0] / a;
    CHECK(lin == Approx(srgb_to_linear(i * 17 / 255.0)).margin(1e-6));
    // Back to 8 bits: the same code.
    CHECK(linear_to_srgb8(lin) == i * 17);
  }
}

TEST_CASE("flipbook cells each get a mip chain and never share texels", "[texture]") {
  // 2x1 layout: left cell white, right cell black-transparent.
  std::vector<float> rgba(8 * 4 * 4, 0.0f);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 4; ++c) rgba[static_cast<size_t>((y * 8 + x) * 4 + c)] = 1;
  const Texture t = texture_from_linear(8, 4, rgba, 2, 1);
  REQUIRE(t.cells.size() == 2);
  CHECK(t.cells[0].levels.size() == 3);  // 4x4, 2x2, 1x1
  CHECK(t.cells[0].mean[3] == 1);
  CHECK(t.cells[1].mean[3] == 0);
  CHECK_THROWS_WITH(texture_from_linear(8, 4, rgba, 3, 1), Catch::Contains("does not divide"));
}

TEST_CASE("every built-in generates at any resolution and fades at the border", "[texture]") {
  for (std::string_view name : builtin_texture_names()) {
    for (int res : {1, 16, 37}) {
      const Texture t = builtin_texture(name, res, 2, 2);
      CHECK(t.cell_width == res);
      if (name == "solid" || res < 16) continue;
      const MipLevel& m = t.cells[0].levels[0];
      // The corner texel is (nearly) transparent.
      CHECK(m.texel(0, 0)[3] < 0.02f);
    }
  }
  CHECK_THROWS_WITH(builtin_texture("bogus", 16, 1, 1),
                    Catch::Contains("unknown built-in texture 'builtin:bogus'"));
}

TEST_CASE("corrupt and oversized textures are clear errors", "[texture]") {
  const std::vector<uint8_t> junk = {0x89, 'P', 'N', 'G', 1, 2, 3};
  CHECK_THROWS_WITH(texture_from_encoded(junk, "bad.png", 1, 1),
                    Catch::StartsWith("cannot decode texture bad.png: not a PNG file"));
  // A JPEG (or anything else) is named as not a PNG, not "unknown image type".
  const std::vector<uint8_t> jpeg = {0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0};
  CHECK_THROWS_WITH(
      texture_from_encoded(jpeg, "photo.jpg", 1, 1),
      "cannot decode texture photo.jpg: not a PNG file (spritz reads PNG images only)");
  // Every truncation of a valid PNG is an error with a reason, never a crash
  // or an empty message, up to the IEND chunk's CRC: stb_image stops reading
  // at IEND's type, when every pixel is there.
  std::vector<uint8_t> rgba(16 * 16 * 4, 200);
  const std::vector<uint8_t> whole = encode_png(rgba.data(), 16, 16);
  for (size_t n = 0; n + 4 < whole.size(); ++n) {
    const std::vector<uint8_t> cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n));
    INFO(n << " of " << whole.size() << " bytes");
    CHECK_THROWS_WITH(decode_png(cut, "cut.png"),
                      Catch::StartsWith("cannot decode cut.png: ") && !Catch::EndsWith(": "));
  }
  // A valid header that claims 20000 x 20000.
  std::vector<uint8_t> px(4, 255);
  std::vector<uint8_t> png = encode_png(px.data(), 1, 1);
  png[16] = 0;
  png[17] = 0;
  png[18] = 0x4e;
  png[19] = 0x20;  // width 20000
  png[20] = 0;
  png[21] = 0;
  png[22] = 0x4e;
  png[23] = 0x20;  // height 20000
  CHECK_THROWS_AS(texture_from_encoded(png, "huge.png", 1, 1), Error);
}

TEST_CASE("a built-in flipbook stays within 4096 px per side", "[texture]") {
  // 256 px cells, as a 300 px sprite asks for, in a 256x256 layout would be
  // 65536 px per side: 64 GB of texels, and "out of memory". The cells shrink
  // instead, to a power of two; small layouts keep the full resolution.
  const auto cell_px = [](const std::string& layout) {
    const Effect fx = load_effect("[[emitter]]\ntexture = \"builtin:smoke\"\nsize = 300\n" + layout,
                                  "fx.toml", ".");
    return load_textures(fx, 1.0)[0]->cell_width;
  };
  CHECK(cell_px("") == 256);
  CHECK(cell_px("flipbook = { layout = [4, 4] }\n") == 256);
  CHECK(cell_px("flipbook = { layout = [32, 2] }\n") == 128);
  CHECK(cell_px("flipbook = { layout = [1, 20] }\n") == 128);
  CHECK(cell_px("flipbook = { layout = [256, 1] }\n") == 16);
}

// The raster library reads no files: a file texture's bytes come from the
// program, and one it did not hand in is an error at the texture key.
TEST_CASE("file textures are decoded from the bytes the caller hands in", "[texture]") {
  const std::string dir = SPRITZ_SOURCE_DIR "/configs";
  const Effect fx = load_effect(
      "[[emitter]]\nrate = 1\ntexture = \"textures/coin.png\"\nflipbook = { layout = [8, 1] }\n",
      "coin.toml", dir);
  REQUIRE(fx.emitters[0].texture.kind == TextureRef::Kind::kFile);
  const std::string path = fx.emitters[0].texture.path;
  CHECK(path == dir + "/textures/coin.png");
  CHECK_THROWS_WITH(load_textures(fx, 1.0),
                    Catch::StartsWith("coin.toml:3:11: texture " + path + " was not read"));
  std::ifstream in(path, std::ios::binary);
  TextureBytes files;
  files[path].assign(std::istreambuf_iterator<char>(in), {});
  const TextureSet set = load_textures(fx, 1.0, files);
  REQUIRE(set[0]);
  CHECK(set[0]->cells.size() == 8);
  // Corrupt bytes: the texture key's place and the decoder's reason.
  files[path].resize(40);
  CHECK_THROWS_WITH(load_textures(fx, 1.0, files),
                    Catch::StartsWith("coin.toml:3:11: cannot decode texture " + path));
}

TEST_CASE("TextureRef parses builtin: in one place", "[texture]") {
  const TextureRef b = TextureRef::parse("builtin:smoke");
  CHECK(b.builtin());
  CHECK(b.name == "smoke");
  CHECK(b.label() == "builtin:smoke");
  const TextureRef f = TextureRef::parse("fx/glow.png");
  CHECK(!f.builtin());
  CHECK(f.path == "fx/glow.png");
  CHECK(f.label() == "fx/glow.png");
  CHECK(TextureRef::parse("builtin:").name.empty());
  CHECK(!TextureRef::parse("Builtin:soft").builtin());
  CHECK(TextureRef{} == TextureRef::parse("builtin:soft"));
}

namespace {

// PNG bytes from chunks: the signature, then each chunk (length, type, data,
// a CRC stb does not check).
std::vector<unsigned char> png_of(const std::vector<std::pair<std::string, std::string>>& chunks) {
  std::vector<unsigned char> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  for (const auto& [type, data] : chunks) {
    const uint32_t n = static_cast<uint32_t>(data.size());
    for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<unsigned char>(n >> s));
    out.insert(out.end(), type.begin(), type.end());
    out.insert(out.end(), data.begin(), data.end());
    for (int k = 0; k < 4; ++k) out.push_back(0);
  }
  return out;
}

std::string ihdr(uint32_t w, uint32_t h) {
  std::string d;
  for (uint32_t v : {w, h})
    for (int s = 24; s >= 0; s -= 8) d.push_back(static_cast<char>(v >> s));
  d += std::string("\x08\x06\x00\x00\x00", 5);  // 8-bit RGBA
  return d;
}

}  // namespace

// Found by the fuzzing issue: a 60000x60000 texture was "unknown image type"
// (stb refuses it without saying why), and stb's reason quoted a hostile
// chunk type verbatim, so a chunk named ESC[2J cleared the reader's terminal.
TEST_CASE("a texture's declared size is checked first, and stb's reasons are printable",
          "[texture]") {
  const auto huge = png_of({{"IHDR", ihdr(60000, 60000)}, {"IEND", ""}});
  uint32_t w = 0, h = 0;
  REQUIRE(png_declared_size(huge, &w, &h));
  CHECK(w == 60000);
  CHECK(h == 60000);
  CHECK_THROWS_WITH(texture_from_encoded(huge, "huge.png", 1, 1),
                    "texture huge.png is 60000x60000, larger than the limit of 16384 per side");
  CHECK_FALSE(png_declared_size({'G', 'I', 'F', '8'}, &w, &h));
  const auto hostile = png_of({{"IHDR", ihdr(4, 4)}, {"\x1b[2J", "x"}, {"IEND", ""}});
  try {
    texture_from_encoded(hostile, "esc.png", 1, 1);
    FAIL("decoded a PNG with an unknown critical chunk");
  } catch (const Error& e) {
    const std::string what = e.what();
    CHECK(what.find('\x1b') == std::string::npos);
    CHECK_THAT(what, Catch::Contains("\\x1b[2J PNG chunk not known"));  // stb's reason, escaped
    CHECK_THAT(what, Catch::StartsWith("cannot decode texture esc.png: corrupt or truncated PNG"));
  }
}

// Found by the fuzzing issue: stb copies from a null pointer for a
// zero-length IDAT chunk (undefined behaviour), and reallocates whatever an
// IDAT claims, 2 GiB for a forged length. The chunks are checked first.
TEST_CASE("a texture's chunks are checked before stb sees them", "[texture]") {
  std::vector<uint8_t> rgba(4 * 4 * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<uint8_t>(i * 37);
  const std::vector<uint8_t> png = encode_png(rgba.data(), 4, 4);
  // The same image with an empty IDAT chunk before its data: legal PNG.
  const size_t idat = std::string(png.begin(), png.end()).find("IDAT") - 4;
  std::vector<uint8_t> with_empty(png.begin(), png.begin() + static_cast<ptrdiff_t>(idat));
  for (uint8_t b :
       std::initializer_list<uint8_t>{0, 0, 0, 0, 'I', 'D', 'A', 'T', 0x35, 0xaf, 0x06, 0x1e})
    with_empty.push_back(b);
  with_empty.insert(with_empty.end(), png.begin() + static_cast<ptrdiff_t>(idat), png.end());
  CHECK(check_png(with_empty).empty_idat);
  CHECK_FALSE(check_png(png).empty_idat);
  CHECK(without_empty_idat(with_empty) == png);
  CHECK(decode_png(with_empty, "e.png").rgba == rgba);
  const Texture a = texture_from_encoded(png, "a.png", 1, 1);
  const Texture b = texture_from_encoded(with_empty, "e.png", 1, 1);
  CHECK(a.cells[0].levels[0].padded == b.cells[0].levels[0].padded);

  std::vector<uint8_t> forged = png;
  forged[idat] = 0x7f;  // IDAT now claims about 2 GiB
  CHECK_THROWS_WITH(texture_from_encoded(forged, "f.png", 1, 1),
                    Catch::StartsWith("cannot decode texture f.png: corrupt PNG: chunk 2 (IDAT) at "
                                      "byte 33 claims 2130706") &&
                        Catch::EndsWith("remain (truncated file?)"));
  CHECK_THROWS_WITH(decode_png(forged, "f.png"), Catch::Contains("chunk 2 (IDAT) at byte 33"));
  const auto zero = png_of({{"IHDR", ihdr(0, 5)}, {"IEND", ""}});
  CHECK_THROWS_WITH(texture_from_encoded(zero, "z.png", 1, 1),
                    "cannot decode texture z.png: corrupt PNG: IHDR declares a 0x5 image");
  std::vector<uint8_t> trailing = png;
  trailing.resize(trailing.size() - 12);  // IEND gone: stb still decodes the image
  trailing.push_back(1);
  CHECK_THROWS_WITH(decode_png(trailing, "t.png"), Catch::Contains("1 stray bytes at byte"));
}

// Found by the fuzzing issue: a 1 MB all-zero 16384x16384 PNG took 12 GB and
// two minutes. Its memory is known from its header, and refused at once.
TEST_CASE("textures are held to a memory limit before they are decoded", "[texture]") {
  // A 4096x4096 sheet fits the default 2 GiB, a 16384x16384 image does not.
  CHECK(texture_memory(4096, 4096, 4, 4) < (uint64_t{900} << 20));
  CHECK(texture_memory(4096, 4096, 4, 4) > (uint64_t{700} << 20));
  CHECK(texture_memory(16384, 16384, 1, 1) > (uint64_t{16} << 30));
  const auto bomb = png_of({{"IHDR", ihdr(16384, 16384)}, {"IDAT", "x"}, {"IEND", ""}});
  TextureLimits limits;
  limits.raise_hint = "RAISE=N";
  CHECK_THROWS_WITH(texture_from_encoded(bomb, "bomb.png", 1, 1, limits),
                    "texture bomb.png (16384x16384) would take 17071 MB with its mip levels, more "
                    "than the texture memory limit of 2048 MB (RAISE=N)");
  // The limit holds for an effect's textures together, and names the key.
  std::vector<uint8_t> rgba(64 * 64 * 4, 200);
  const std::vector<uint8_t> png = encode_png(rgba.data(), 64, 64);
  const Effect fx = load_effect(
      "[[emitter]]\ntexture = \"builtin:soft\"\n[[emitter]]\ntexture = \"builtin:disc\"\n",
      "two.toml", ".");
  Effect files = fx;
  files.emitters[0].texture = TextureRef::parse("a.png");
  files.emitters[1].texture = TextureRef::parse("b.png");
  const uint64_t one = texture_memory(64, 64, 1, 1);
  limits.memory_bytes = one + one / 2;
  const TextureBytes bytes = {{"a.png", png}, {"b.png", png}};
  CHECK_THROWS_WITH(load_textures(files, 1.0, bytes, limits),
                    Catch::StartsWith("two.toml:4:11: texture b.png (64x64) would take 0.3 MB "
                                      "with its mip levels, 0.6 MB with the effect's other "
                                      "textures, more than the texture memory limit of 0.5 MB"));
  limits.memory_bytes = 2 * one;
  CHECK(load_textures(files, 1.0, bytes, limits).size() == 2);
}

TEST_CASE("a level's padded copy repeats its edges, and its steps are the rows' differences",
          "[texture]") {
  // A 5x3 image of distinct values (so a texel copied from the wrong place
  // shows), one cell: its levels are 5x3, 2x1 and 1x1.
  std::vector<float> rgba(5 * 3 * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<float>(i) * 0.25f + 1.0f;
  const Texture t = texture_from_linear(5, 3, rgba, 1, 1);
  REQUIRE(t.cells[0].levels.size() == 3);
  const auto source = [&](int x, int y, int c) {
    return rgba[static_cast<size_t>((y * 5 + x) * 4 + c)];
  };
  const MipLevel& m = t.cells[0].levels[0];
  REQUIRE(m.padded.size() == static_cast<size_t>(m.padded_stride) * 5);
  for (int y = -1; y <= 3; ++y)
    for (int x = -1; x <= 5; ++x)
      for (int c = 0; c < 4; ++c) {
        CAPTURE(x, y, c);
        CHECK(m.padded_at(x, y)[c] == source(std::clamp(x, 0, 4), std::clamp(y, 0, 2), c));
        // The step to the row below; the last padded row has none (zeros).
        const float down = y < 3 ? m.padded_at(x, y + 1)[c] - m.padded_at(x, y)[c] : 0.0f;
        CHECK(m.padded_down_at(x, y)[c] == down);
      }
  // Level 1 (2x1) box-filters the blocks columns [0, 2) and [2, 5) of rows
  // [0, 3): the sums in the order downsample adds them, in double.
  const MipLevel& half = t.cells[0].levels[1];
  REQUIRE(half.width == 2);
  REQUIRE(half.height == 1);
  for (int x = 0; x < 2; ++x)
    for (int c = 0; c < 4; ++c) {
      const int x0 = x == 0 ? 0 : 2, x1 = x == 0 ? 2 : 5;
      double sum = 0;
      for (int sy = 0; sy < 3; ++sy)
        for (int sx = x0; sx < x1; ++sx) sum += source(sx, sy, c);
      CHECK(half.texel(x, 0)[c] == static_cast<float>(sum * (1.0 / (3 * (x1 - x0)))));
    }
}

namespace {

// builtin:smoke's alpha as first written, texel by texel: four octaves of
// hashed value noise, each lattice point hashed where a texel needs it. The
// generator reads per-cell tables instead (raster/src/builtin.cpp,
// SmokeNoise); its texels must be these, float for float.
double reference_smoothstep(double e0, double e1, double x) {
  const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3 - 2 * t);
}
double reference_lattice(int x, int y, uint32_t seed) {
  const uint32_t h =
      mix32(static_cast<uint32_t>(x) * 0x8da6b343u ^ static_cast<uint32_t>(y) * 0xd8163841u ^ seed);
  return h * (1.0 / 4294967296.0);
}
double reference_value_noise(double x, double y, uint32_t seed) {
  const double fx = std::floor(x), fy = std::floor(y);
  const int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
  const double tx = reference_smoothstep(0, 1, x - fx), ty = reference_smoothstep(0, 1, y - fy);
  const double a = reference_lattice(ix, iy, seed), b = reference_lattice(ix + 1, iy, seed);
  const double c = reference_lattice(ix, iy + 1, seed), d = reference_lattice(ix + 1, iy + 1, seed);
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}
double reference_smoke(double x, double y, double t) {
  const double radius = 0.5 + 0.42 * std::sqrt(t);
  const double r = std::sqrt(x * x + y * y) / radius;
  const double body = reference_smoothstep(1.0, 0.25, r);
  if (body == 0 || std::sqrt(x * x + y * y) >= 1.0) return 0.0;
  double nx = x * 2.6 + 11.3 + t * 0.9, ny = y * 2.6 - 4.1 - t * 1.3;
  double sum = 0, amp = 0.5, norm = 0;
  for (int o = 0; o < 4; ++o) {
    sum += amp * reference_value_noise(nx, ny, 0x51a3u + static_cast<uint32_t>(o) * 0x9E3779B9u);
    norm += amp;
    nx *= 2.03;
    ny *= 2.03;
    amp *= 0.5;
  }
  const double density = std::clamp(0.25 + 1.1 * (sum / norm), 0.0, 1.0);
  return std::clamp(body * density * (1.1 - 0.75 * t), 0.0, 1.0) *
         reference_smoothstep(1.0, 0.9, std::sqrt(x * x + y * y));
}

}  // namespace

TEST_CASE("builtin:smoke's texels are its noise computed texel by texel", "[texture]") {
  // Sizes whose lattice spans differ (odd, a power of two, the largest),
  // every phase of a 4x4 flipbook and of a 3x1 one.
  for (const auto& [n, cols, rows] :
       {std::tuple{256, 4, 4}, std::tuple{37, 4, 4}, std::tuple{64, 3, 1}, std::tuple{1, 2, 1}}) {
    const Texture tex = builtin_texture("smoke", n, cols, rows, 2);
    const int frames = cols * rows;
    int inside = 0;  // texels the noise reached
    for (int f = 0; f < frames; ++f) {
      const double t = (f + 0.5) / frames;
      const MipLevel& m = tex.cells[static_cast<size_t>(f)].levels[0];
      REQUIRE(m.width == n);
      int wrong = 0;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const double x = (i + 0.5) / n * 2 - 1, y = (j + 0.5) / n * 2 - 1;
          const float want = static_cast<float>(reference_smoke(x, y, t));
          const float* got = m.texel(i, j);
          if (std::memcmp(got, &want, sizeof want) != 0 || got[3] != got[0]) ++wrong;
          if (want > 0) ++inside;
        }
      CAPTURE(n, cols, rows, f);
      CHECK(wrong == 0);
    }
    if (n > 1) CHECK(inside > 0);
  }
}

TEST_CASE("builtin:smoke's cells are the same on both paths, four texels at a time or one",
          "[texture]") {
  // The AVX2 path shades a row's first multiple of four texels; sizes with
  // every remainder, phases across the puff's growth.
  std::vector<bool> paths = {false};
  if (detail::smoke_avx2_available()) paths.push_back(true);
  for (const bool avx2 : paths)
    for (int n : {1, 3, 4, 5, 6, 7, 33, 96, 130})
      for (double t : {0.03125, 0.40625, 0.96875}) {
        std::vector<float> rgba(static_cast<size_t>(n) * static_cast<size_t>(n) * 4, -1.0f);
        detail::smoke_cell(n, t, rgba.data(), avx2);
        int wrong = 0;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            const double x = (i + 0.5) / n * 2 - 1, y = (j + 0.5) / n * 2 - 1;
            const float want = static_cast<float>(reference_smoke(x, y, t));
            const float* got =
                &rgba[(static_cast<size_t>(j) * static_cast<size_t>(n) + static_cast<size_t>(i)) *
                      4];
            for (int c = 0; c < 4; ++c) wrong += std::memcmp(got + c, &want, sizeof want) != 0;
          }
        CAPTURE(avx2, n, t);
        CHECK(wrong == 0);
      }
}

TEST_CASE("textures built on several threads are the textures built on one", "[texture]") {
  const auto same = [](const Texture& a, const Texture& b) {
    REQUIRE(a.cells.size() == b.cells.size());
    for (size_t c = 0; c < a.cells.size(); ++c) {
      REQUIRE(a.cells[c].levels.size() == b.cells[c].levels.size());
      for (int k = 0; k < 4; ++k) CHECK(a.cells[c].mean[k] == b.cells[c].mean[k]);
      for (size_t l = 0; l < a.cells[c].levels.size(); ++l) {
        CHECK(a.cells[c].levels[l].padded == b.cells[c].levels[l].padded);
        CHECK(a.cells[c].levels[l].padded_down == b.cells[c].levels[l].padded_down);
      }
    }
  };
  // An animated built-in (every cell differs) and a decoded flipbook.
  const Texture one = builtin_texture("smoke", 32, 4, 4, 1);
  for (int threads : {2, 3, 16, 64}) {
    CAPTURE(threads);
    same(one, builtin_texture("smoke", 32, 4, 4, threads));
  }
  std::vector<uint8_t> px(24 * 16 * 4);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(i * 37 % 251);
  const std::vector<uint8_t> png = encode_png(px.data(), 24, 16);
  same(texture_from_encoded(png, "sheet.png", 3, 2, {}, false, 1),
       texture_from_encoded(png, "sheet.png", 3, 2, {}, false, 3));
  // A cell that fails fails the texture, whatever thread built it.
  CHECK_THROWS_WITH(texture_from_cells(
                        4, 4, 2, 2,
                        [](int cell, float* rgba) {
                          if (cell == 3) throw Error("cell 3 failed");
                          std::fill(rgba, rgba + 64, 0.5f);
                        },
                        2),
                    Catch::Contains("cell 3 failed"));
}

TEST_CASE("a texture's levels live in its one block, and copies and overflow on the heap",
          "[texture]") {
  const Texture t = builtin_texture("smoke", 32, 2, 2, 2);
  REQUIRE(t.arena);
  for (const TextureCell& c : t.cells)
    for (const MipLevel& m : c.levels) {
      CHECK(t.arena->owns(m.padded.data()));
      CHECK(t.arena->owns(m.padded_down.data()));
      CHECK(reinterpret_cast<uintptr_t>(m.padded.data()) % 64 == 0);
    }
  // A copy does not lean on the original's block: it outlives it.
  Texture copy;
  {
    const Texture original = builtin_texture("smoke", 32, 2, 2, 1);
    copy = original;
    CHECK_FALSE(original.arena->owns(copy.cells[0].levels[0].padded.data()));
  }
  CHECK(copy.cells[3].levels[0].padded == t.cells[3].levels[0].padded);
  // A full block hands out nothing more; the allocator then uses the heap.
  TexelArena small(256);
  CHECK(small.take(100) != nullptr);
  CHECK(small.take(128) != nullptr);
  CHECK(small.take(1) == nullptr);
  TexelVector v{TexelAllocator<float>(&small)};
  v.assign(1000, 1.0f);
  CHECK_FALSE(small.owns(v.data()));
  CHECK(v[999] == 1.0f);
}
