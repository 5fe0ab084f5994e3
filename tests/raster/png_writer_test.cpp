// PngWriter (png_writer.h): the fast encoder's streams are valid zlib and
// PNG, decode to the pixels given, and do not depend on the order or
// thread pieces come from; a frame drawn and encoded strip by strip gives
// the bytes of the whole frame.
#include "spritz/raster/png_writer.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"

using namespace spritz;

namespace {

// Images like particle frames: transparent areas, soft blobs, hard edges,
// noise, and a flat band (long zero runs after filtering), of any size.
std::vector<uint8_t> test_image(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> px(static_cast<size_t>(w) * static_cast<size_t>(h) * 4, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p =
          &px[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4];
      const double dx = x - w * 0.4, dy = y - h * 0.6,
                   r2 = (dx * dx + dy * dy) / (w * w * 0.04 + 1);
      if (r2 < 1) {
        const auto v = static_cast<uint8_t>(255 * (1 - r2) * (1 - r2));
        p[0] = v;
        p[1] = static_cast<uint8_t>(v / 2);
        p[2] = 40;
        p[3] = v;
      }
      if (x % 97 < 30 && y % 13 < 5)
        for (int c = 0; c < 4; ++c) p[c] = static_cast<uint8_t>(rng());
      if (y % 50 > 44)
        for (int c = 0; c < 4; ++c) p[c] = 200;
    }
  return px;
}

// The PNG's zlib stream (its IDAT chunks' data, in order).
std::vector<uint8_t> zlib_stream(const std::vector<uint8_t>& png) {
  std::vector<uint8_t> z;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t len = (uint32_t{png[at]} << 24) | (uint32_t{png[at + 1]} << 16) |
                         (uint32_t{png[at + 2]} << 8) | png[at + 3];
    if (std::equal(png.begin() + static_cast<long>(at) + 4, png.begin() + static_cast<long>(at) + 8,
                   "IDAT"))
      z.insert(z.end(), png.begin() + static_cast<long>(at) + 8,
               png.begin() + static_cast<long>(at) + 8 + len);
    at += 12 + len;
  }
  return z;
}

Effect bundled(const std::string& name) {
  const std::string path = std::string(SPRITZ_SOURCE_DIR) + "/" + name;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return load_effect(text.str(), path, std::string(SPRITZ_SOURCE_DIR) + "/configs");
}

}  // namespace

TEST_CASE("the fast PNG encoder's files decode to the pixels given", "[png]") {
  const std::pair<int, int> sizes[] = {{1, 1}, {3, 1}, {5, 33}, {17, 64}, {1920, 70}, {301, 97}};
  for (const auto& [w, h] : sizes) {
    CAPTURE(w, h);
    const std::vector<uint8_t> px = test_image(w, h, static_cast<uint32_t>(w * 7 + h));
    const std::vector<uint8_t> png = encode_png(px.data(), w, h, {{"spritz", "{\"seed\":1}"}});
    const DecodedPng d = decode_png(png, "mem");  // stb_image
    CHECK(d.width == w);
    CHECK(d.height == h);
    CHECK(d.rgba == px);
    REQUIRE(d.texts.size() == 1);
    CHECK(d.texts[0].text == "{\"seed\":1}");
    // zlib checks the stream and its Adler-32; libdeflate is stricter
    // about the blocks' codes.
    const std::vector<uint8_t> z = zlib_stream(png);
    const size_t raw_size = static_cast<size_t>(h) * (static_cast<size_t>(w) * 4 + 1);
    std::vector<uint8_t> raw(raw_size);
    uLongf got = raw_size;
    CHECK(uncompress(raw.data(), &got, z.data(), z.size()) == Z_OK);
    CHECK(got == raw_size);
    libdeflate_decompressor* dec = libdeflate_alloc_decompressor();
    size_t actual = 0;
    CHECK(libdeflate_zlib_decompress(dec, z.data(), z.size(), raw.data(), raw.size(), &actual) ==
          LIBDEFLATE_SUCCESS);
    CHECK(actual == raw_size);
    libdeflate_free_decompressor(dec);
  }
}

TEST_CASE("the fast encoder codes zero runs of every length and hard bytes", "[png]") {
  // Rows that are all zero but for a byte at each place, so runs of every
  // length from 0 to a row and more meet the 8-byte steps at every offset;
  // and a row of bytes that filter to every value.
  const int w = 300, h = 70;
  std::vector<uint8_t> px(static_cast<size_t>(w) * h * 4, 0);
  for (int y = 0; y < h; ++y)
    px[static_cast<size_t>(y) * w * 4 + static_cast<size_t>(y * 17 % (w * 4))] = 255;
  for (int i = 0; i < w * 4; ++i)
    px[static_cast<size_t>(40) * w * 4 + static_cast<size_t>(i)] = static_cast<uint8_t>(i * 131);
  const DecodedPng d = decode_png(encode_png(px.data(), w, h), "mem");
  CHECK(d.rgba == px);
  // All zero: one literal and matches of 258.
  std::vector<uint8_t> empty(static_cast<size_t>(w) * h * 4, 0);
  const std::vector<uint8_t> png = encode_png(empty.data(), w, h);
  CHECK(decode_png(png, "mem").rgba == empty);
  CHECK(png.size() < 600);
}

TEST_CASE("a PNG's pieces give the same bytes in any order and from any thread", "[png]") {
  const int w = 257, h = 200;
  const std::vector<uint8_t> px = test_image(w, h, 5);
  const std::vector<uint8_t> whole = encode_png(px.data(), w, h, {{"k", "v"}});
  PngWriter writer(w, h, {{"k", "v"}});
  REQUIRE(writer.pieces() == (h + kPngPieceRows - 1) / kPngPieceRows);
  CHECK(writer.piece_rows(writer.pieces() - 1) == h - (writer.pieces() - 1) * kPngPieceRows);
  std::vector<std::thread> threads;
  for (int k = writer.pieces() - 1; k >= 0; --k)
    threads.emplace_back([&, k] {
      writer.add_piece(k, px.data() + static_cast<size_t>(k) * kPngPieceRows * w * 4);
    });
  for (std::thread& t : threads) t.join();
  CHECK(writer.finish() == whole);

  PngWriter missing(w, h);
  missing.add_piece(0, px.data());
  CHECK_THROWS_WITH(missing.finish(), Catch::Contains("never added"));
}

TEST_CASE("the small PNG mode is the adaptive encoder's file", "[png]") {
  const int w = 120, h = 90;
  const std::vector<uint8_t> px = test_image(w, h, 9);
  const std::vector<uint8_t> png = encode_png(px.data(), w, h, {}, PngMode::kSmall);
  CHECK(png == encode_png_adaptive(px.data(), w, h));
  CHECK(decode_png(png, "mem").rgba == px);
}

TEST_CASE("a frame encoded strip by strip is the whole frame's PNG", "[png]") {
  // A bundled effect, a motion-blurred one (drawn whole, encoded in
  // pieces), sRGB blending and the emissive pass (finished per strip).
  const char* cases[][2] = {{"configs/campfire.toml", ""},
                            {"configs/fireflies.toml", "blur"},
                            {"configs/torch.toml", "srgb"},
                            {"configs/sparks.toml", "emissive"}};
  for (const auto& c : cases) {
    CAPTURE(c[0], c[1]);
    Effect fx = bundled(c[0]);
    const std::string mode = c[1];
    if (mode == "blur") fx.canvas.blur_samples = 4;
    if (mode == "srgb") fx.canvas.blend = BlendSpace::kSrgb;
    const int w = 301, h = 170;  // strips cut sprites; the last strip is short
    std::vector<uint8_t> reference;
    for (int threads : {1, 2, 3}) {
      CAPTURE(threads);
      FrameRenderer r(fx, w, h, threads);
      if (mode == "emissive") r.set_light_pass(LightPass::kEmissive);
      CHECK(r.can_stream() == (mode != "blur"));
      std::vector<uint8_t> png, rgba, whole;
      const uint64_t alive = r.render_png(1.25, {{"t", "x"}}, png);
      CHECK(r.render_rgba8(1.25, rgba) == alive);
      CHECK(r.render(1.25) == alive);
      r.encode(whole);
      CHECK(rgba == whole);
      CHECK(png == encode_png(whole.data(), w, h, {{"t", "x"}}));
      if (reference.empty()) reference = png;
      CHECK(png == reference);
      // Streamed to a sink as the strips finish: the same bytes, in order,
      // each write a whole part (head, a piece's chunk, tail).
      std::vector<uint8_t> streamed;
      int writes = 0, err = -1;
      CHECK(r.render_png(
                1.25, {{"t", "x"}},
                [&](const uint8_t* data, size_t size) {
                  streamed.insert(streamed.end(), data, data + size);
                  ++writes;
                  return 0;
                },
                err) == alive);
      CHECK(err == 0);
      CHECK(streamed == png);
      CHECK(writes == (h + kPngPieceRows - 1) / kPngPieceRows + 2);
    }
  }
}

TEST_CASE("a streamed PNG stops writing at the sink's first error and reports it", "[png]") {
  const int w = 64, h = 200;
  const std::vector<uint8_t> px = test_image(w, h, 3);
  PngWriter writer(w, h);
  std::vector<uint8_t> out;
  int calls = 0;
  writer.stream_to([&](const uint8_t* data, size_t size) {
    ++calls;
    if (calls == 3) return 28;  // ENOSPC on the second piece
    out.insert(out.end(), data, data + size);
    return 0;
  });
  CHECK_THROWS_WITH(writer.finish(), Catch::Contains("streamed"));
  std::vector<std::thread> threads;
  for (int k = writer.pieces() - 1; k >= 0; --k)
    threads.emplace_back([&, k] {
      writer.add_piece(k, px.data() + static_cast<size_t>(k) * kPngPieceRows * w * 4);
    });
  for (std::thread& t : threads) t.join();
  CHECK(writer.finish_stream() == 28);
  CHECK(calls == 3);  // head, piece 0, the failing piece 1; nothing after

  PngWriter whole(w, h, {}, PngMode::kSmall);
  CHECK_THROWS_WITH(whole.stream_to([](const uint8_t*, size_t) { return 0; }),
                    Catch::Contains("not streamed"));
}

TEST_CASE("background strips are encoded once and give the whole frame's bytes", "[png]") {
  // A tall canvas: most strips hold no sprite, and the last one is short.
  Effect fx = bundled("configs/sparks.toml");
  const int w = 97, h = 1000;
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    FrameRenderer r(fx, w, h, threads);
    for (const LightPass pass : {LightPass::kAll, LightPass::kEmissive, LightPass::kAlpha}) {
      CAPTURE(static_cast<int>(pass));
      r.set_light_pass(pass);
      for (const double clock : {1.0, 1.5, 1.0}) {  // later frames reuse the pieces
        CAPTURE(clock);
        std::vector<uint8_t> png, whole;
        r.render_png(clock, {}, png);
        r.render(clock);
        r.encode(whole);
        CHECK(png == encode_png(whole.data(), w, h));
      }
    }
  }
}
