// `spritz atlas` end to end: sheets, metadata, loop seams, motion vectors, engines loading them.
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

TEST_CASE("atlas: sheet, metadata and an exact loop seam", "[cli]") {
  const fs::path d = fresh_dir("atlas");
  const Run r =
      run_spritz("atlas " + kConfigs +
                     "/fire_loop.toml -o sheets/fire.png --grid 4x2 --padding 2 --max-seam 0",
                 d);
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("loop seam 0"));
  const auto png = spritz::decode_png(read_bytes(d / "sheets/fire.png"), "fire.png");
  CHECK(png.width == 4 * 128 + 5 * 2);
  CHECK(png.height == 2 * 128 + 3 * 2);
  const std::string meta = read_text(d / "sheets/fire.json");
  CHECK(count_of(meta, "\"frame\": {") == 8);
  CHECK_THAT(meta, Catch::Contains("\"fire_loop_05\": {\"frame\": {\"x\": 132, \"y\": 132, \"w\": "
                                   "128, \"h\": 128}, \"rotated\": false, \"trimmed\": false"));
  CHECK_THAT(meta, Catch::Contains("\"image\": \"fire.png\""));
  CHECK_THAT(meta, Catch::Contains("\"format\": \"RGBA8888\""));
  CHECK_THAT(meta, Catch::Contains("\"size\": {\"w\": 522, \"h\": 262}"));
  CHECK_THAT(meta, Catch::Contains("\"scale\": \"1\""));
  CHECK_THAT(meta, Catch::Contains("\"frameTags\": [{\"name\": \"fire_loop\", \"from\": 0, \"to\": "
                                   "7, \"direction\": \"forward\"}]"));
  CHECK_THAT(meta,
             Catch::Contains(
                 "\"grid\": {\"columns\": 4, \"rows\": 2, \"frameWidth\": 128, \"frameHeight\": "
                 "128, \"padding\": 2, \"count\": 8, \"fps\": 8, \"loop\": true}"));
  CHECK_THAT(meta, Catch::Contains("\"duration\": 125"));
  CHECK_THAT(meta, Catch::Contains("\"seed\": 2024"));
  CHECK_THAT(meta, Catch::Contains("\"effect_hash\": \""));

  const Run arr = run_spritz("atlas " + kConfigs +
                                 "/fire_loop.toml -o a.png --grid 2x2 --meta-format array --meta "
                                 "m.json --pot --cell 100x60",
                             d);
  CHECK(arr.code == 0);
  CHECK_THAT(read_text(d / "m.json"),
             Catch::Contains("\"frames\": [\n    {\"filename\": \"fire_loop_00\""));
  CHECK_THAT(read_text(d / "m.json"), Catch::Contains("\"image\": \"a.png\""));
  // Metadata in another folder names the sheet relative to itself, as
  // TexturePacker's loaders resolve meta.image.
  CHECK(run_spritz("atlas " + kConfigs +
                       "/fire_loop.toml -o sheets/f.png --meta meta/f.json --grid 2x2 --cell 16x16",
                   d)
            .code == 0);
  CHECK_THAT(read_text(d / "meta/f.json"), Catch::Contains("\"image\": \"../sheets/f.png\""));
  const auto pot = spritz::decode_png(read_bytes(d / "a.png"), "a.png");
  CHECK(pot.width == 256);
  CHECK(pot.height == 128);

  // A stream that is not looped has a seam, and --max-seam fails it.
  const Run open =
      run_spritz("atlas " + kConfigs + "/campfire.toml -o c.png --grid 2x2 --max-seam 0", d);
  CHECK(open.code == 1);
  CHECK_THAT(open.err, Catch::Contains("is over --max-seam 0"));
  CHECK(no_temp_files(d));
}

TEST_CASE("atlas: whole-ms durations, PixiJS animations and Aseprite's own form", "[cli]") {
  const fs::path d = fresh_dir("atlas_forms");
  // 16 cells of a 1 s loop: 62.5 ms each, written as 63 and 62 alternating
  // so the durations sum to the loop.
  const Run r = run_spritz("atlas " + kConfigs + "/fire_loop.toml -o f.png --cell 32x32", d);
  REQUIRE(r.code == 0);
  const std::string meta = read_text(d / "f.json");
  int64_t sum = 0;
  for (size_t at = 0; (at = meta.find("\"duration\": ", at)) != std::string::npos; at += 12) {
    const int64_t ms = std::atoll(meta.c_str() + at + 12);
    CHECK((ms == 62 || ms == 63));
    sum += ms;
  }
  CHECK(sum == 1000);
  CHECK_THAT(meta, Catch::Contains("\"animations\": {\"fire_loop\": [\"fire_loop_00\", "
                                   "\"fire_loop_01\""));
  // Aseprite's form: frames keyed "0".."15" as Phaser's createFromAseprite
  // looks them up, with the tag, size, image and format.
  const Run a = run_spritz(
      "atlas " + kConfigs + "/fire_loop.toml -o g.png --cell 32x32 --meta-format aseprite", d);
  REQUIRE(a.code == 0);
  const std::string ase = read_text(d / "g.json");
  CHECK_THAT(ase, Catch::Contains("\"frames\": {\n    \"0\": {\"frame\": {\"x\": 0, \"y\": 0, "
                                  "\"w\": 32, \"h\": 32}"));
  CHECK_THAT(ase, Catch::Contains("\"15\": {\"frame\": {\"x\": 96, \"y\": 96"));
  CHECK_THAT(ase, Catch::Contains("\"frameTags\": [{\"name\": \"fire_loop\", \"from\": 0, "
                                  "\"to\": 15, \"direction\": \"forward\"}]"));
  CHECK_THAT(ase, Catch::Contains("\"size\": {\"w\": 128, \"h\": 128}"));
  CHECK_THAT(ase, Catch::Contains("\"image\": \"g.png\""));
  CHECK_THAT(ase, Catch::Contains("\"animations\": {\"fire_loop\": [\"0\", \"1\", \"2\""));
  // One pixel of padding cannot hold both neighbours' edges: refused, and
  // the message names the least that works.
  const Run p1 = run_spritz("atlas " + kConfigs + "/torch.toml -o t.png --padding 1", d);
  CHECK(p1.code == 2);
  CHECK_THAT(p1.err, Catch::Contains("--padding 2 is the least that keeps cells apart"));
  CHECK_FALSE(fs::exists(d / "t.png"));
}

TEST_CASE("engines load the sheets as they are: PixiJS 8, Phaser 3.90 and 4.2 in Chromium",
          "[cli]") {
  // tests/browser/engines.mjs bakes fire_loop in the three JSON forms and
  // loads them with the real libraries in headless Chromium, from 127.0.0.1.
  const fs::path browser = browser_tests();
  const std::string missing = browser_tests_missing();
  SPRITZ_SKIP_UNLESS(missing.empty(), missing);
  std::string out;
  const int rc = shell("node '" + (browser / "engines.mjs").string() + "' '" SPRITZ_BINARY "' '" +
                           kConfigs + "' 2>&1",
                       &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Catch::Contains("all checks passed"));
  CHECK(count_of(out, "ok   ") == 18);
}

TEST_CASE("atlas --motion-vectors: exact vectors, their scale in the JSON, and --mv-check",
          "[cli]") {
  const fs::path d = fresh_dir("motion_vectors");
  // A disc moving 32 px per cell: every in-between is the disc part way.
  write(d / "slide.toml", R"([effect]
name = "slide"
duration = 1
[canvas]
size = [128, 64]
[[emitter]]
rate = 0
bursts = [{ time = 0, count = 1 }]
lifetime = 10
position = [-50, 0]
speed = 32
direction = 0
size = 16
texture = "builtin:disc"
)");
  const Run r = run_spritz(
      "atlas slide.toml --grid 4x1 -o s.png --motion-vectors s_mv.png "
      "--mv-check --mv-check-image s_check.png",
      d);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("motion vectors s_mv.png (unity, scale 0.0625 cells, 16-bit)"));
  CHECK_THAT(r.err, Catch::Contains("mv-check: 9 in-betweens against the exact render: crossfade"));
  // The blend with the stored vectors puts the disc where it is in
  // between; a crossfade shows two faint discs.
  const std::string meta = read_text(d / "s.json");
  CHECK_THAT(meta, Catch::Contains("\"motionVectors\": {\"image\": \"s_mv.png\", \"encoding\": "
                                   "\"unity\", \"scale\": 0.0625, \"units\": \"cell\", \"depth\": "
                                   "16, \"dilate\": 0.5, \"fit\": \"exact\", \"check\": "
                                   "{\"inbetweens\": 9, "
                                   "\"crossfadePsnr\": "));
  const auto figure = [&](const std::string& key) {
    const size_t at = meta.find("\"" + key + "\": ");
    REQUIRE(at != std::string::npos);
    return std::stod(meta.substr(at + key.size() + 4));
  };
  CHECK(figure("crossfadePsnr") < 30);
  CHECK(figure("motionVectorPsnr") > figure("crossfadePsnr") + 15);
  const auto mv = spritz::decode_png(read_bytes(d / "s_mv.png"), "s_mv.png");
  CHECK(mv.width == 512);
  CHECK(mv.height == 64);
  std::string info;
  shell("file '" + (d / "s_mv.png").string() + "'", &info);
  CHECK_THAT(info, Catch::Contains("16-bit/color RGBA"));
  const auto pic = spritz::decode_png(read_bytes(d / "s_check.png"), "s_check.png");
  CHECK(pic.width == 4 * 128 + 5 * 4);
  // 8 bits on request, the other encodings, and --json.
  const Run u = run_spritz(
      "atlas slide.toml --grid 4x1 -o u.png --motion-vectors u_mv.png "
      "--mv-encoding unreal --mv-depth 8 --mv-scale 0.5 --mv-check --json",
      d);
  REQUIRE(u.code == 0);
  CHECK_THAT(u.out, Catch::Contains("{\"type\":\"motion_vectors\",\"path\":\"u_mv.png\","
                                    "\"encoding\":\"unreal\",\"scale\":0.5,\"clamped_pixels\":0"));
  shell("file '" + (d / "u_mv.png").string() + "'", &info);
  CHECK_THAT(info, Catch::Contains("8-bit/color RGBA"));
  const auto u8 = spritz::decode_png(read_bytes(d / "u_mv.png"), "u_mv.png");
  CHECK(u8.rgba[0] == 128);  // Unreal's neutral, in an empty corner
  CHECK(u8.rgba[1] == 128);
  // Fitted to the blend: said in the log and the JSON.
  const Run b = run_spritz(
      "atlas slide.toml --grid 4x1 -o b.png --motion-vectors b_mv.png --mv-fit blend", d);
  REQUIRE(b.code == 0);
  CHECK_THAT(b.err, Catch::Contains("motion vectors fitted to the blend: "));
  CHECK_THAT(read_text(d / "b.json"), Catch::Contains("\"fit\": \"blend\""));
  // A scale too small clamps, and says so.
  const Run c = run_spritz(
      "atlas slide.toml --grid 4x1 -o c.png --motion-vectors c_mv.png --mv-scale 0.01", d);
  CHECK(c.code == 0);
  CHECK_THAT(c.err, Catch::Contains("move farther than --mv-scale 0.01 cells"));
  // Refusals, before anything is written.
  const Run nomv = run_spritz("atlas slide.toml -o n.png --mv-check", d);
  CHECK(nomv.code == 2);
  CHECK_THAT(nomv.err, Catch::Contains("give --motion-vectors PATH too"));
  const Run seeds =
      run_spritz("atlas slide.toml -o n.png --seeds 1-4 --grid 2x2 --motion-vectors n_mv.png", d);
  CHECK(seeds.code == 2);
  CHECK_THAT(seeds.err, Catch::Contains("a sheet of --seeds has one time"));
  const Run same = run_spritz("atlas slide.toml -o n.png --motion-vectors n.png", d);
  CHECK(same.code == 2);
  CHECK_THAT(same.err, Catch::Contains("--motion-vectors would overwrite n.png"));
  CHECK(run_spritz("atlas slide.toml -o n.png --motion-vectors n.exr", d).code == 2);
  const Run fit =
      run_spritz("atlas slide.toml -o n.png --motion-vectors n_mv.png --mv-fit best", d);
  CHECK(fit.code == 2);
  CHECK_THAT(fit.err, Catch::Contains("--mv-fit"));
  CHECK_FALSE(fs::exists(d / "n.png"));

  // render: one map per frame, in frame units, the scale in the summary.
  const Run rr =
      run_spritz("render slide.toml -f 0-2 -o f_####.png --motion-vectors mv_####.png --json", d);
  REQUIRE(rr.code == 0);
  for (const char* f : {"mv_0000.png", "mv_0001.png", "mv_0002.png"}) CHECK(fs::exists(d / f));
  CHECK_THAT(rr.out, Catch::Contains("\"motion_vectors\":{\"pattern\":\"mv_####.png\","
                                     "\"encoding\":\"unity\",\"scale\":0.25,\"units\":\"frame\""));
  const Run one = run_spritz("render slide.toml -f 0-2 -o g_####.png --motion-vectors mv.png", d);
  CHECK(one.code == 2);
  CHECK_THAT(one.err, Catch::Contains("names one file but 3 frames"));
  CHECK(run_spritz("render slide.toml --time 0 -o - --motion-vectors mv.png", d).code == 2);
  CHECK(
      run_spritz("render slide.toml --time 0 -o x.png --motion-vectors y.png --mv-check", d).code ==
      2);
  CHECK(run_spritz("render slide.toml --time 0 -o x.png --motion-vectors y.png --mv-fit blend", d)
            .code == 2);
  CHECK_FALSE(fs::exists(d / "x.png"));
  CHECK(no_temp_files(d));
}

TEST_CASE("motion-vector blending of the bundled moving effects against a crossfade", "[cli]") {
  // The figures docs/cli.md reports; each a deterministic render, so they
  // hold to the hundredth of a dB. With the exact vectors the gain is what
  // one vector per pixel allows (see docs/cli.md for why sparks and comets
  // gain little); vectors fitted to the blend gain over 3 dB on each, at
  // fractions of the step they were not fitted to.
  const fs::path d = fresh_dir("mv_check");
  for (const std::string fx : {"torch", "comets", "sparks"}) {
    double exact = 0;
    for (const std::string fit : {"exact", "blend"}) {
      const Run r =
          run_spritz("atlas " + kConfigs + "/" + fx + ".toml -o " + fx + ".png --motion-vectors " +
                         fx + "_mv.png --mv-check --mv-fit " + fit + " --json",
                     d);
      REQUIRE(r.code == 0);
      const auto grab = [&](const std::string& key) {
        const size_t at = r.out.find("\"" + key + "\":");
        REQUIRE(at != std::string::npos);
        return std::stod(r.out.substr(at + key.size() + 3));
      };
      const double fade = grab("crossfade_psnr"), blend = grab("motion_vector_psnr");
      INFO(fx << ", " << fit << ": crossfade " << fade << " dB, motion vectors " << blend << " dB");
      CHECK(blend > fade);
      if (fit == "exact") {
        exact = blend;
        if (fx == "torch") CHECK(blend > fade + 2);
        CHECK(r.out.find("fitted_pixels") == std::string::npos);
      } else {
        CHECK(blend > fade + 3);
        CHECK(blend > exact);
        CHECK(grab("fitted_pixels") > 0);
        CHECK_THAT(read_text(d / (fx + ".json")), Catch::Contains("\"fit\": \"blend\""));
      }
    }
  }
}

TEST_CASE("light passes from the command line: alpha and emissive frames and sheets", "[cli]") {
  const fs::path d = fresh_dir("passes");
  for (const char* pass : {"all", "alpha", "emissive"}) {
    INFO(pass);
    CHECK(run_spritz("render " + kConfigs + "/campfire.toml --time 1 --pass " + pass + " -o " +
                         pass + ".png",
                     d)
              .code == 0);
    CHECK(run_spritz("atlas " + kConfigs + "/campfire.toml --grid 2x2 --cell 32x32 --pass " + pass +
                         " -o sheet_" + pass + ".png",
                     d)
              .code == 0);
  }
  const auto all = spritz::decode_png(read_bytes(d / "all.png"), "all.png");
  const auto alpha = spritz::decode_png(read_bytes(d / "alpha.png"), "alpha.png");
  const auto emissive = spritz::decode_png(read_bytes(d / "emissive.png"), "emissive.png");
  // The flames are additive: the emissive frame holds them over nothing, the
  // alpha frame keeps the opaque background.
  int transparent = 0;
  for (size_t i = 3; i < emissive.rgba.size(); i += 4) transparent += emissive.rgba[i] == 0;
  CHECK(transparent > 256 * 256 / 2);
  CHECK(alpha.rgba[3] == 255);
  CHECK(alpha.rgba != all.rgba);
  // The default is the whole image, bit for bit.
  const Run plain = run_spritz("render " + kConfigs + "/campfire.toml --time 1 -o plain.png", d);
  CHECK(read_bytes(d / "plain.png") == read_bytes(d / "all.png"));
  CHECK(run_spritz("render " + kConfigs + "/campfire.toml --time 1 --pass glow", d).code != 0);
}

TEST_CASE("atlas: the roblox preset and bad input", "[cli]") {
  const fs::path d = fresh_dir("atlas_bad");
  const Run ok =
      run_spritz("atlas " + kConfigs + "/fire_loop.toml -o r.png --preset roblox-2x2 -q", d);
  CHECK(ok.code == 0);
  const auto png = spritz::decode_png(read_bytes(d / "r.png"), "r.png");
  CHECK(png.width == 1024);
  CHECK(png.height == 1024);
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"--grid 3x3 --sheet 1024x1024", "does not divide a 1024x1024 sheet into whole cells"},
      {"--grid 0x4", "--grid 0x4: each value must be within [1, 256]"},
      {"--cell 0x10", "--cell 0x10"},
      {"--cell -5x10", "--cell -5x10"},
      {"--grid 2x2 -f 0-9", "10 frames do not fit a 2x2 grid of 4 cells"},
      {"--grid 64x64 --cell 1024x1024", "over the limit of 16384 per side"},
      {"--preset roblox-3x3", "--preset must be roblox-2x2, roblox-4x4 or roblox-8x8"},
      {"--meta-format xml", "--meta-format must be hash, array or aseprite"},
      {"--meta bad.png", "the sheet (-o) and its metadata (--meta) would both be bad.png"},
      {"--meta ./sub/../bad.png", "would both be ./sub/../bad.png"},
      {"--max-seam -1", "--max-seam must be 0 or more"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const Run r = run_spritz("atlas " + kConfigs + "/fire_loop.toml -o bad.png " + c.args, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
  }
  CHECK_FALSE(fs::exists(d / "bad.png"));
  const Run json = run_spritz("atlas " + kConfigs + "/fire_loop.toml -o bad.json", d);
  CHECK(json.code == 2);
  CHECK_THAT(json.err, Catch::Contains("would both be bad.json"));
  CHECK_FALSE(fs::exists(d / "bad.json"));
}

TEST_CASE("atlas cells rendered on several threads give the same sheet", "[cli]") {
  const fs::path d = fresh_dir("atlas_threads");
  for (const char* t : {"1", "3"})
    REQUIRE(run_spritz("atlas " + kConfigs + "/fire_loop.toml -o s" + t +
                           ".png --grid 3x2 --cell 64x48 -q --threads " + t,
                       d)
                .code == 0);
  CHECK(read_bytes(d / "s1.png") == read_bytes(d / "s3.png"));
  // A seed sweep (one effect per cell) too.
  for (const char* t : {"1", "2"})
    REQUIRE(run_spritz("atlas " + kConfigs + "/confetti.toml --seeds 1-5 --time 1 -o v" + t +
                           ".png --cell 48x48 -q --threads " + t,
                       d)
                .code == 0);
  CHECK(read_bytes(d / "v1.png") == read_bytes(d / "v2.png"));
}

TEST_CASE("a looped effect with sub-emitters and an animated rate bakes a seamless atlas",
          "[cli]") {
  const fs::path d = fresh_dir("loop_sub");
  write(d / "fx.toml",
        "[effect]\nduration = 1.0\nloop = true\n[canvas]\nsize = [64, 64]\nmotion_blur = { samples "
        "= 3 }\n"
        "[[emitter]]\nname = \"p\"\nrate = [[0, 2], [0.5, 8], [1, 2]]\nlifetime = [0.8, "
        "1.6]\nspeed = 30\nspread = 30\n"
        "[[emitter]]\nsub = { parent = \"p\", count = 12 }\nlifetime = 1.3\nspeed = [10, "
        "25]\nspread = 180\n"
        "light_emission = 1\n[[emitter]]\nsub = { parent = \"p\", on = \"life\" }\nrate = "
        "15\nlifetime = 0.9\nsize = 3\n"
        "trail = { count = 4, length = 0.1 }\n");
  const Run r = run_spritz("atlas fx.toml -o sheet.png --grid 4x4 --max-seam 0 --fit", d);
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("loop seam 0"));
  // The frames are not empty: the children are drawn.
  const spritz::DecodedPng png = spritz::decode_png(read_bytes(d / "sheet.png"), "sheet.png");
  size_t lit = 0;
  for (size_t i = 3; i < png.rgba.size(); i += 4) lit += png.rgba[i] > 0;
  CHECK(lit > 2000);
}

// The loop seam is measured on a frame of its own, one step after the last
// cell: a renderer made like every other (make_renderer), so the run's work
// and memory limits apply to it as to the cells. Here the cells are light and
// only that frame holds the burst.
TEST_CASE("atlas: the loop seam's frame is held to the run's work limit", "[cli]") {
  const fs::path d = fresh_dir("atlas_seam_limit");
  write(d / "late.toml",
        "[effect]\nduration = 1\n[canvas]\nsize = [32, 32]\n[[emitter]]\nrate = 0\n"
        "lifetime = 0.5\nmax_particles = 5000\nbursts = [{ time = 0.9, count = 5000 }]\n");
  // Without a limit to speak of, the sheet is made.
  REQUIRE(run_spritz("atlas late.toml --grid 2x1 -o ok.png -q", d).code == 0);
  const Run r = run_spritz_env("SPRITZ_WORK_LIMIT=1000", "atlas late.toml --grid 2x1 -o s.png", d);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("at clock 1 s a frame would evaluate and draw 5000 particle "
                                    "samples"));
  CHECK_THAT(r.err, Catch::Contains("more than the work limit of 1000;"));
  CHECK_FALSE(fs::exists(d / "s.png"));
  CHECK_FALSE(fs::exists(d / "s.json"));
  // The memory budget too: 5000 particles do not fit in what SPRITZ_MEMORY_MB=1
  // allows a frame; the cells, which hold none, are never refused.
  const Run m = run_spritz_env("SPRITZ_MEMORY_MB=1", "atlas late.toml --grid 2x1 -o m.png", d);
  CHECK(m.code == 2);
  CHECK_THAT(m.err, Catch::Contains("at clock 1 s the effect can hold 5000 particles"));
  CHECK_FALSE(fs::exists(d / "m.png"));
}
