// `spritz render`'s file formats end to end: the PNG text chunk, 16-bit PNG, EXR and HDR
// frames as independent decoders read them.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include "cli/cli_support.h"
#include "cli/run.h"
#include "effect_files.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"

namespace fs = std::filesystem;
using namespace spritz::test;

TEST_CASE("PNG frames carry a parseable tEXt chunk", "[cli]") {
  const fs::path d = fresh_dir("text");
  REQUIRE(
      run_spritz("render " + kConfigs + "/campfire.toml -f 12 -o f_###.png --seed 9 -q", d).code ==
      0);
  const spritz::DecodedPng png = spritz::decode_png(read_bytes(d / "f_012.png"), "f_012.png");
  CHECK(png.width == 256);
  bool found = false;
  for (const auto& t : png.texts) {
    if (t.keyword != "spritz") continue;
    found = true;
    CHECK_THAT(t.text, Catch::Contains("\"seed\":9"));
    CHECK_THAT(t.text, Catch::Contains("\"frame\":12"));
    CHECK_THAT(t.text, Catch::Contains("\"clock\":1.9"));  // start 1.5 + 12/30
    CHECK_THAT(t.text, Catch::Contains("\"effect_hash\":\""));
    CHECK_THAT(t.text, Catch::Contains("\"version\":\""));
  }
  CHECK(found);
}

TEST_CASE("the tEXt chunk is ASCII whatever the effect's name", "[cli]") {
  // tEXt holds Latin-1; a UTF-8 name is written as JSON \u escapes.
  const fs::path d = fresh_dir("text_utf8");
  write(d / "fx.toml", "[effect]\nname = \"fuego \u00f1 \U0001F525\"\n[[emitter]]\n");
  REQUIRE(run_spritz("render fx.toml -f 0 -o f.png -q", d).code == 0);
  const spritz::DecodedPng png = spritz::decode_png(read_bytes(d / "f.png"), "f.png");
  bool found = false;
  for (const auto& t : png.texts) {
    if (t.keyword != "spritz") continue;
    found = true;
    CHECK_THAT(t.text, Catch::Contains("\"effect\":\"fuego \\u00f1 \\ud83d\\udd25\""));
    CHECK(std::all_of(t.text.begin(), t.text.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x80; }));
  }
  CHECK(found);
}

TEST_CASE("depth 16 writes 16-bit PNGs an independent decoder reads, without banding", "[cli]") {
  SPRITZ_SKIP_UNLESS(shell("command -v ffmpeg >/dev/null", nullptr) == 0,
                     "needs ffmpeg (scripts/build.sh --tests installs it)");
  const fs::path d = fresh_dir("depth16");
  REQUIRE(run_spritz("render " + kConfigs + "/smoke.toml --time 1 -o s8.png", d).code == 0);
  REQUIRE(run_spritz("render " + kConfigs + "/smoke.toml --time 1 --depth 16 -o s16.png", d).code ==
          0);
  // ffmpeg decodes both: 16-bit samples big-endian.
  const auto decode = [&](const std::string& png, const std::string& fmt) {
    std::string raw;
    REQUIRE(
        shell("ffmpeg -v error -i '" + (d / png).string() + "' -f rawvideo -pix_fmt " + fmt + " -",
              &raw) == 0);
    return raw;
  };
  const std::string a = decode("s8.png", "rgba"), b = decode("s16.png", "rgba64be");
  REQUIRE(a.size() == 256 * 256 * 4);
  REQUIRE(b.size() == 2 * a.size());
  std::set<int> levels8, levels16;
  int worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const int v8 = static_cast<uint8_t>(a[i]);
    const int v16 = static_cast<uint8_t>(b[2 * i]) * 256 + static_cast<uint8_t>(b[2 * i + 1]);
    // The same tone map: the 16-bit value rounds to the 8-bit one.
    worst = std::max(worst, std::abs(static_cast<int>(std::lround(v16 / 257.0)) - v8));
    if (i % 4 == 0) levels8.insert(v8), levels16.insert(v16);
  }
  CHECK(worst <= 1);
  // The soft smoke has far more distinct levels of red: no banding.
  CHECK(levels16.size() > 20 * levels8.size());
  // The sheet too, and refusals where 16 bits cannot go.
  const Run sheet = run_spritz(
      "atlas " + kConfigs + "/fire_loop.toml -o f16.png --cell 32x32 --padding 2 --depth 16", d);
  REQUIRE(sheet.code == 0);
  std::string info;
  shell("file '" + (d / "f16.png").string() + "'", &info);
  CHECK_THAT(info, Catch::Contains("16-bit/color RGBA"));
  CHECK(decode("f16.png", "rgba64be").size() == 2 * 138 * 138 * 4);
  CHECK_THAT(read_text(d / "f16.json"), Catch::Contains("\"format\": \"RGBA16161616\""));
  const Run raw = run_spritz("render " + kConfigs + "/smoke.toml --time 1 --depth 16 -o -", d);
  CHECK(raw.code == 2);
  CHECK_THAT(raw.err, Catch::Contains("--depth 16 is for PNG files; raw RGBA on stdout"));
  CHECK(run_spritz("render " + kConfigs + "/smoke.toml --depth 12", d).code != 0);
  // --skip-existing accepts a whole 16-bit frame.
  const Run again = run_spritz("render " + kConfigs +
                                   "/smoke.toml --time 1 --depth 16 -o s16.png --skip-existing "
                                   "--json",
                               d);
  CHECK_THAT(again.out, Catch::Contains("\"skipped\":true"));
}

TEST_CASE("an .exr frame is the float frame in half floats, as an independent decoder reads it",
          "[cli]") {
  SPRITZ_SKIP_UNLESS(shell("command -v ffmpeg >/dev/null", nullptr) == 0,
                     "needs ffmpeg (scripts/build.sh --tests installs it)");
  const fs::path d = fresh_dir("exr");
  const std::string fx_path = kConfigs + "/campfire.toml";
  REQUIRE(run_spritz("render " + fx_path + " --time 1 -o fire.exr", d).code == 0);
  std::string raw;
  REQUIRE(shell("ffmpeg -v error -i '" + (d / "fire.exr").string() +
                    "' -f rawvideo -pix_fmt gbrapf32le -",
                &raw) == 0);
  REQUIRE(raw.size() == size_t{256} * 256 * 4 * 4);
  // The same frame in process: its float buffer is what the file holds (R,
  // G, B the premultiplied light, A the coverage), to half precision.
  std::ifstream in(fx_path);
  const spritz::Effect fx =
      spritz::load_effect(std::string(std::istreambuf_iterator<char>(in), {}), fx_path, kConfigs);
  const spritz::RunSettings settings;
  spritz::EffectFiles files(settings);
  spritz::FrameRenderer r(fx, 256, 256, 1,
                          files.textures(fx, spritz::canvas_view(fx.canvas, 256, 256).scale));
  r.render(spritz::clock_at_time(fx, 1));
  const spritz::Image& img = r.image();
  const size_t n = 256 * 256;
  double worst = 0, brightest = 0;
  for (int c = 0; c < 4; ++c) {
    const int plane = c == 0 ? 2 : c == 1 ? 0 : c == 2 ? 1 : 3;  // gbrap: G, B, R, A planes
    for (size_t i = 0; i < n; ++i) {
      float got;
      std::memcpy(&got, raw.data() + (static_cast<size_t>(plane) * n + i) * 4, 4);
      const float want = img.rgba[i * 4 + static_cast<size_t>(c)];
      worst = std::max(worst,
                       static_cast<double>(std::abs(got - want) / std::max(1e-3f, std::abs(want))));
      if (c < 3) brightest = std::max(brightest, static_cast<double>(got));
    }
  }
  CHECK(worst < 1e-3);   // half: 11 significant bits
  CHECK(brightest > 1);  // light above 1 kept, no tone map
  // --skip-existing knows a whole .exr from a cut one.
  const Run again =
      run_spritz("render " + fx_path + " --time 1 -o fire.exr --skip-existing --json", d);
  CHECK_THAT(again.out, Catch::Contains("\"skipped\":true"));
  fs::resize_file(d / "fire.exr", fs::file_size(d / "fire.exr") / 2);
  const Run cut =
      run_spritz("render " + fx_path + " --time 1 -o fire.exr --skip-existing --json", d);
  CHECK_THAT(cut.out, Catch::Contains("\"rendered\":1"));
  CHECK(run_spritz("render " + fx_path + " --time 1 --depth 16 -o f.exr", d).code == 2);
}

TEST_CASE("render writes Radiance HDR when the pattern ends in .hdr", "[cli]") {
  const fs::path d = fresh_dir("hdr");
  const Run r = run_spritz("render " + kConfigs + "/sparks.toml -f 10-11 -o h_##.hdr -q", d);
  CHECK(r.code == 0);
  const std::vector<uint8_t> bytes = read_bytes(d / "h_10.hdr");
  REQUIRE(bytes.size() > 64);
  CHECK(std::string(bytes.begin(), bytes.begin() + 10) == "#?RADIANCE");
  CHECK(fs::exists(d / "h_11.hdr"));
}

TEST_CASE("filter = nearest draws a pixel-art texture as hard blocks from the command line",
          "[cli]") {
  const fs::path d = fresh_dir("filter_nearest");
  // 4x4 texels, each its own colour, drawn 64 px wide on a 64x64 canvas: 16x16 blocks.
  std::vector<uint8_t> px(4 * 4 * 4);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) {
      uint8_t* p = &px[static_cast<size_t>((y * 4 + x) * 4)];
      p[0] = static_cast<uint8_t>(30 + 60 * x), p[1] = static_cast<uint8_t>(20 + 70 * y),
      p[2] = 200, p[3] = 255;
    }
  const std::vector<uint8_t> png = spritz::encode_png(px.data(), 4, 4);
  std::ofstream(d / "t.png", std::ios::binary)
      .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  write(d / "fx.toml",
        "[canvas]\nsize = [64, 64]\n[[emitter]]\nrate = 0\nbursts = [{ time = 0, count = 1 "
        "}]\nlifetime = 10\n"
        "speed = 0\nsize = 64\ntexture = \"t.png\"\nfilter = \"nearest\"\n");
  REQUIRE(run_spritz("render fx.toml --time 0.5 -o nearest.png -q", d).code == 0);
  REQUIRE(
      run_spritz(
          "render fx.toml --time 0.5 -o bilinear.png -q --set 'emitter.0.filter=\"bilinear\"'", d)
          .code == 0);
  const spritz::DecodedPng nearest =
      spritz::decode_png(read_bytes(d / "nearest.png"), "nearest.png");
  const spritz::DecodedPng bilinear =
      spritz::decode_png(read_bytes(d / "bilinear.png"), "bilinear.png");
  REQUIRE(nearest.width == 64);
  int blended = 0;
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) {
      const uint8_t* want = &px[static_cast<size_t>(((y / 16) * 4 + x / 16) * 4)];
      const uint8_t* got = &nearest.rgba[static_cast<size_t>((y * 64 + x) * 4)];
      INFO("pixel " << x << "," << y);
      REQUIRE(std::equal(want, want + 4, got));  // the texel's own sRGB bytes
      blended += !std::equal(want, want + 4, &bilinear.rgba[static_cast<size_t>((y * 64 + x) * 4)]);
    }
  CHECK(blended > 64 * 64 / 2);  // bilinear blends neighbouring texels across most pixels
  write(d / "fx.toml", "[[emitter]]\nfilter = \"point\"\n");
  const Run bad = run_spritz("validate fx.toml", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("fx.toml:2:10:"));
  CHECK_THAT(bad.err, Catch::Contains("\"nearest\""));
}

TEST_CASE("PNG frames decode the same in PIL, ImageMagick and ffmpeg as spritz's own pixels",
          "[cli]") {
  // spritz's own encoder (and --png small) against three independent
  // decoders: each must give the raw RGBA spritz writes to stdout.
  SPRITZ_SKIP_UNLESS(shell("command -v ffmpeg >/dev/null", nullptr) == 0,
                     "needs ffmpeg (scripts/build.sh --tests installs it)");
  SPRITZ_SKIP_UNLESS(shell("test -x /usr/bin/convert-im6.q16", nullptr) == 0,
                     "needs ImageMagick (scripts/build.sh --tests installs it)");
  SPRITZ_SKIP_UNLESS(shell("/usr/bin/python3 -c 'import PIL' 2>/dev/null", nullptr) == 0,
                     "needs python3-pil (scripts/build.sh --tests installs it)");
  const fs::path d = fresh_dir("decoders");
  for (const std::string fx : {"campfire", "sparks", "smoke", "snow"}) {
    for (const std::string mode : {"fast", "small"}) {
      CAPTURE(fx, mode);
      const std::string args =
          "render " + kConfigs + "/" + fx + ".toml --time 0.9 --size 301x170 --png " + mode;
      REQUIRE(run_spritz(args + " -o f.png", d).code == 0);
      const Run raw = run_spritz(args + " -o -", d);
      REQUIRE(raw.code == 0);
      REQUIRE(raw.out.size() == 301u * 170 * 4);
      const std::string png = "'" + (d / "f.png").string() + "'";
      std::string ff, im, pil;
      CHECK(shell("ffmpeg -v error -i " + png + " -f rawvideo -pix_fmt rgba -", &ff) == 0);
      CHECK(shell("/usr/bin/convert-im6.q16 " + png + " -depth 8 rgba:-", &im) == 0);
      CHECK(shell("/usr/bin/python3 -c \"import sys; from PIL import Image; "
                  "sys.stdout.buffer.write(Image.open(sys.argv[1]).convert('RGBA').tobytes())\" " +
                      png,
                  &pil) == 0);
      CHECK(ff == raw.out);
      CHECK(im == raw.out);
      CHECK(pil == raw.out);
    }
  }
}
