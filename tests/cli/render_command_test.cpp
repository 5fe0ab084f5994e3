// `spritz render` end to end: frames, threads and kernels, seeds, chunks and resuming.
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

TEST_CASE("render with no effect draws the bundled default into out/", "[cli]") {
  const fs::path d = fresh_dir("default");
  const Run r = run_spritz("render -f 0-2 -q", d);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(fs::exists(d / "out/campfire_0000.png"));
  CHECK(fs::exists(d / "out/campfire_0002.png"));
  CHECK(no_temp_files(d));
}

TEST_CASE("render --time 3.2 equals frame 96 at 30 fps", "[cli]") {
  const fs::path d = fresh_dir("time");
  REQUIRE(run_spritz("render " + kConfigs + "/campfire.toml --time 3.2 -o t.png -q", d).code == 0);
  REQUIRE(run_spritz("render " + kConfigs + "/campfire.toml -f 96 -o f.png -q", d).code == 0);
  const auto a = spritz::decode_png(read_bytes(d / "t.png"), "t");
  const auto b = spritz::decode_png(read_bytes(d / "f.png"), "f");
  CHECK(a.rgba == b.rgba);
}

TEST_CASE("thread counts give byte-identical PNGs", "[cli]") {
  const fs::path d = fresh_dir("threads");
  for (const char* t : {"1", "2", "7"})
    REQUIRE(run_spritz("render " + kConfigs + "/campfire.toml -f 20,45 -o t" + t +
                           "_##.png -q --threads " + t,
                       d)
                .code == 0);
  CHECK(read_bytes(d / "t1_20.png") == read_bytes(d / "t2_20.png"));
  CHECK(read_bytes(d / "t1_45.png") == read_bytes(d / "t7_45.png"));
}

// SPRITZ_SIMD picks the sprite kernel; every one this CPU runs writes the
// same bytes. A kernel it cannot run, or a name that is no kernel, is an
// error before anything is drawn, never a silent fallback.
TEST_CASE("every SPRITZ_SIMD kernel renders byte-identical PNGs", "[cli]") {
  const fs::path d = fresh_dir("simd");
  std::vector<std::string> runnable;
  for (const std::string k : {"reference", "portable", "avx2", "avx512"}) {
    std::string version;
    const int code = shell("SPRITZ_SIMD=" + k + " '" SPRITZ_BINARY "' --version", &version);
    REQUIRE(code == 0);
    if (version.find("(sprite kernel: " + k + ")") != std::string::npos) {
      runnable.push_back(k);
      continue;
    }
    CHECK_THAT(version, Catch::Contains("this CPU cannot run the " + k + " sprite kernel"));
    std::string err;
    CHECK(shell("cd '" + d.string() + "' && SPRITZ_SIMD=" + k + " '" SPRITZ_BINARY "' render '" +
                    kConfigs + "/sparks.toml' -f 30 -o " + k + ".png 2>&1",
                &err) == 2);
    CHECK_THAT(err, Catch::StartsWith("spritz: SPRITZ_SIMD: this CPU cannot run the " + k));
    CHECK(!fs::exists(d / (k + ".png")));
  }
  REQUIRE(runnable.size() >= 2);  // reference and portable run everywhere
  for (const std::string& k : runnable) {
    std::string out;
    const std::string cmd = "cd '" + d.string() + "' && SPRITZ_SIMD=" + k +
                            " '" SPRITZ_BINARY "' render '" + kConfigs +
                            "/sparks.toml' -f 30 --size 160x120 -o " + k + ".png -q";
    REQUIRE(shell(cmd, &out) == 0);
  }
  for (const std::string& k : runnable) {
    INFO(k);
    CHECK(read_bytes(d / (k + ".png")) == read_bytes(d / "reference.png"));
  }
  // An unknown name: exit 2 with the list of kernels, and no file.
  for (const std::string sub : {"render", "atlas", "check"}) {
    INFO(sub);
    std::string out;
    const std::string cmd = "cd '" + d.string() + "' && SPRITZ_SIMD=avx3 '" SPRITZ_BINARY "' " +
                            sub + " '" + kConfigs + "/sparks.toml' " +
                            (sub == "check" ? "--golden g" : "-o bad.png") + " 2>&1";
    CHECK(shell(cmd, &out) == 2);
    CHECK(out ==
          "spritz: SPRITZ_SIMD: unknown sprite kernel 'avx3'; the kernels are reference, "
          "portable, avx2 and avx512\n");
    CHECK(!fs::exists(d / "bad.png"));
  }
  // The kernel in use is named by --version and in render's JSON summary
  // (for bug reports and farm logs).
  std::string version, summary;
  REQUIRE(shell("SPRITZ_SIMD=reference '" SPRITZ_BINARY "' --version", &version) == 0);
  CHECK_THAT(version, Catch::Contains("(sprite kernel: reference)"));
  REQUIRE(shell("cd '" + d.string() + "' && SPRITZ_SIMD=portable '" SPRITZ_BINARY "' render '" +
                    kConfigs + "/sparks.toml' -f 3 --size 32x32 -o j.png --json",
                &summary) == 0);
  CHECK_THAT(summary, Catch::Contains("\"kernel\":\"portable\","));
}

TEST_CASE("render -o - writes exactly width*height*4 bytes per frame", "[cli]") {
  const Run r = run_spritz("render " + kConfigs + "/campfire.toml -f 0-2 -o - --size 32x16");
  CHECK(r.code == 0);
  CHECK(r.out.size() == 32u * 16u * 4u * 3u);
}

TEST_CASE("render --json writes one frame event per frame and a summary", "[cli]") {
  const fs::path d = fresh_dir("json");
  const Run r = run_spritz("render " + kConfigs + "/campfire.toml -f 0-4 -o j_####.png --json", d);
  CHECK(r.code == 0);
  size_t frames = 0, summaries = 0;
  for (size_t at = 0; at < r.out.size();) {
    const size_t nl = r.out.find('\n', at);
    const std::string line = r.out.substr(at, nl - at);
    frames += line.find("{\"type\":\"frame\"") == 0;
    summaries += line.find("{\"type\":\"summary\",\"frames\":5") == 0;
    at = nl + 1;
  }
  CHECK(frames == 5);
  CHECK(summaries == 1);
}

TEST_CASE("a corrupt texture is named with its file:line:col", "[cli]") {
  const fs::path d = fresh_dir("texture");
  write(d / "bad.png", "not a png at all");
  write(d / "fx.toml", "[[emitter]]\ntexture = \"bad.png\"\n");
  const Run r = run_spritz("render fx.toml -f 0 -o x.png", d);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("fx.toml:2:11: cannot decode texture"));
  CHECK_THAT(r.err, Catch::Contains("bad.png"));
  CHECK_FALSE(fs::exists(d / "x.png"));
}

TEST_CASE("a billion-frame list streams instead of being held in memory", "[cli]") {
  // The reader closes after the first frame: spritz stops quietly, non-zero.
  const Run b =
      run_spritz_into("render " + kConfigs + "/campfire.toml -f 0-999999999 -o - --size 16x16",
                      "head -c 100 | wc -c", fresh_dir("billion"));
  CHECK(b.out.find("100") != std::string::npos);
  CHECK(b.code == 2);
  CHECK(b.err.empty());
}

TEST_CASE("no progress bar when stderr is not a terminal and -q prints nothing", "[cli]") {
  const fs::path d = fresh_dir("quiet");
  const Run loud = run_spritz("render " + kConfigs + "/sparks.toml -f 0-4 -o f_####.png", d);
  CHECK(loud.code == 0);
  CHECK(loud.err.find('\r') == std::string::npos);
  CHECK(loud.err.find("ETA") == std::string::npos);
  CHECK_THAT(loud.err, Catch::Contains("5 frames of sparks"));
  const Run quiet = run_spritz("render " + kConfigs + "/sparks.toml -f 0-4 -o g_####.png -q", d);
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
  CHECK(quiet.out.empty());
}

TEST_CASE("chunks: the union of all chunks equals one full run", "[cli]") {
  const fs::path d = fresh_dir("chunks");
  for (int i = 0; i < 3; ++i)
    REQUIRE(run_spritz("render " + kConfigs +
                           "/explosion.toml -f 0-20x2 -o c/f_####.png -q --chunk-index " +
                           std::to_string(i) + " --chunk-count 3",
                       d)
                .code == 0);
  REQUIRE(run_spritz("render " + kConfigs + "/explosion.toml -f 0-20x2 -o full/f_####.png -q", d)
              .code == 0);
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(d / "full")) {
    ++n;
    CHECK(read_bytes(e.path()) == read_bytes(d / "c" / e.path().filename()));
  }
  CHECK(n == 11);
  CHECK(std::distance(fs::directory_iterator(d / "c"), fs::directory_iterator()) == 11);
}

TEST_CASE(
    "skip-existing resumes: only missing frames are rendered and the result equals a full run",
    "[cli]") {
  const fs::path d = fresh_dir("resume");
  REQUIRE(run_spritz("render " + kConfigs + "/snow.toml -f 0-9 -o full/f_##.png -q", d).code == 0);
  REQUIRE(run_spritz("render " + kConfigs + "/snow.toml -f 0-4 -o part/f_##.png -q", d).code == 0);
  const Run r = run_spritz(
      "render " + kConfigs + "/snow.toml -f 0-9 -o part/f_##.png --skip-existing --json", d);
  CHECK(r.code == 0);
  CHECK(count_of(r.out, "\"skipped\":true") == 5);
  CHECK(count_of(r.out, "\"ms\":") == 5);
  CHECK_THAT(r.out, Catch::Contains("\"frames\":10,\"rendered\":5,\"skipped\":5,\"failed\":0"));
  for (int f = 0; f < 10; ++f) {
    const std::string name = (f < 10 ? "f_0" : "f_") + std::to_string(f) + ".png";
    CHECK(read_bytes(d / "full" / name) == read_bytes(d / "part" / name));
  }
  // Only a file counts as done: a folder where a frame should be is an error.
  fs::create_directories(d / "odd/f_03.png");
  const Run odd =
      run_spritz("render " + kConfigs + "/snow.toml -f 3 -o odd/f_##.png --skip-existing -q", d);
  CHECK(odd.code == 2);
  CHECK_THAT(odd.err, Catch::Contains("cannot write odd/f_03.png: it is a directory"));
}

TEST_CASE("seeds render one variant per seed and need a {seed} token", "[cli]") {
  const fs::path d = fresh_dir("seeds");
  const Run r = run_spritz(
      "render " + kConfigs + "/confetti.toml --seeds 3-5 -f 10 -o v/s{seed}.png --json", d);
  CHECK(r.code == 0);
  CHECK(count_of(r.out, "\"seed\":") == 3);
  CHECK(fs::exists(d / "v/s3.png"));
  CHECK(fs::exists(d / "v/s5.png"));
  CHECK(read_bytes(d / "v/s3.png") != read_bytes(d / "v/s4.png"));
  REQUIRE(
      run_spritz("render " + kConfigs + "/confetti.toml --seed 4 -f 10 -o one.png -q", d).code ==
      0);
  CHECK(spritz::decode_png(read_bytes(d / "one.png"), "one").rgba ==
        spritz::decode_png(read_bytes(d / "v/s4.png"), "s4").rgba);
  const Run bad = run_spritz("render " + kConfigs + "/confetti.toml --seeds 1-3 -f 0 -o x.png", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("put {seed} in the output pattern"));
}

TEST_CASE("an effect can come from stdin", "[cli]") {
  const fs::path d = fresh_dir("stdin");
  const Run r = run_spritz("render - -f 0 -o s.png -q < " + kConfigs + "/snow.toml", d);
  CHECK(r.code == 0);
  CHECK(fs::exists(d / "s.png"));
  // Unnamed, it is "stdin" (not "<stdin>", a name a shell cannot type).
  write(d / "unnamed.toml", "[[emitter]]\nrate = 10\n");
  const Run unnamed = run_spritz("render - -f 0 -q < unnamed.toml", d);
  CHECK(unnamed.code == 0);
  CHECK(fs::exists(d / "out" / "stdin_0000.png"));
}

TEST_CASE("a seed sweep can read its effect from stdin", "[cli]") {
  const fs::path d = fresh_dir("stdin_seeds");
  const Run r =
      run_spritz("render - --seeds 1-3 -f 0 -o s{seed}.png -q < " + kConfigs + "/confetti.toml", d);
  CHECK(r.code == 0);
  CHECK(fs::exists(d / "s1.png"));
  CHECK(fs::exists(d / "s3.png"));
}

TEST_CASE("a sequence on several threads gives the same frames, reported in list order", "[cli]") {
  const fs::path d = fresh_dir("pipeline");
  const std::string list = " -f 7,2,0-1,9 --size 96x64 --json";
  const Run one =
      run_spritz("render " + kConfigs + "/sparks.toml" + list + " -o a_##.png --threads 1", d);
  const Run three =
      run_spritz("render " + kConfigs + "/sparks.toml" + list + " -o b_##.png --threads 3", d);
  REQUIRE(one.code == 0);
  REQUIRE(three.code == 0);
  std::vector<std::string> order;
  for (size_t at = 0; (at = three.out.find("\"frame\":", at)) != std::string::npos; at += 8)
    order.push_back(three.out.substr(at + 8, three.out.find(',', at) - at - 8));
  CHECK(order == std::vector<std::string>{"7", "2", "0", "1", "9"});
  for (const char* f : {"07", "02", "00", "01", "09"})
    CHECK(read_bytes(d / ("a_" + std::string(f) + ".png")) ==
          read_bytes(d / ("b_" + std::string(f) + ".png")));
  // Raw frames to stdout come out in list order too.
  const Run raw1 =
      run_spritz("render " + kConfigs + "/sparks.toml -f 5-0 --size 32x32 -o - --threads 1", d);
  const Run raw2 =
      run_spritz("render " + kConfigs + "/sparks.toml -f 5-0 --size 32x32 -o - --threads 2", d);
  CHECK(raw1.code == 0);
  CHECK(raw1.out.size() == 6u * 32u * 32u * 4u);
  CHECK(raw1.out == raw2.out);
}

TEST_CASE("a full disk stops the run after the frames already started: --skip-existing resumes",
          "[cli]") {
  SPRITZ_SKIP_UNLESS(fs::exists("/dev/full"), "/dev/full is missing on this machine");
  for (const std::string threads : {"1", "2"}) {
    const fs::path d = fresh_dir("disk_full_" + threads);
    // Frame 3's file is a link to /dev/full, whose writes fail with ENOSPC,
    // as a full disk's do. Every later frame would meet the same disk.
    fs::create_symlink("/dev/full", d / "w_03.png");
    const Run r =
        run_spritz("render " + kConfigs +
                       "/snow.toml -f 0-199 --size 32x32 -o w_##.png --json --threads " + threads,
                   d);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::Contains("{\"type\":\"error\",\"frame\":3,\"message\":\"cannot write "
                                      "w_03.png: No space left on device\"}"));
    CHECK_THAT(r.out, Catch::Contains("\"out_of_space\":true"));
    CHECK_THAT(r.err, Catch::Contains("stopped: the disk is full"));
    // Frames started before the failure was seen are finished and reported;
    // at most a window of 2 per thread, not the 196 that follow.
    size_t written = 0;
    for (int f = 0; f < 200; ++f) {
      char name[16];
      std::snprintf(name, sizeof name, "w_%02d.png", f);
      if (f != 3 && fs::is_regular_file(d / name)) ++written;
    }
    CHECK(written >= 3);
    CHECK(written <= 3 + 4 * std::stoul(threads));
    CHECK(r.out.find("\"rendered\":" + std::to_string(written) + ",") != std::string::npos);
    CHECK(no_temp_files(d));
    // Space freed: the same command with --skip-existing renders the rest.
    fs::remove(d / "w_03.png");
    const Run resume = run_spritz("render " + kConfigs +
                                      "/snow.toml -f 0-199 --size 32x32 -o w_##.png --json "
                                      "--skip-existing --threads " +
                                      threads,
                                  d);
    CHECK(resume.code == 0);
    CHECK_THAT(resume.out, Catch::Contains("\"skipped\":" + std::to_string(written) + ","));
    CHECK_THAT(resume.out, Catch::Contains("\"out_of_space\":false"));
  }
}

TEST_CASE("a --set texture path is relative to the effect file, and the message says so", "[cli]") {
  const fs::path d = fresh_dir("set_texture");
  fs::create_directories(d / "fx");
  write(d / "fx/e.toml", "[[emitter]]\nrate = 5\n");
  const std::vector<uint8_t> px(4 * 4 * 4, 255);
  const std::vector<uint8_t> png = spritz::encode_png(px.data(), 4, 4);
  std::ofstream(d / "t.png", std::ios::binary)
      .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  const Run r = run_spritz("validate fx/e.toml --set 'emitter.0.texture=\"t.png\"'", d);
  CHECK(r.code == 2);
  CHECK_THAT(
      r.err,
      Catch::Contains("texture file not found: fx/t.png (t.png is in the working directory, but a "
                      "texture path is relative to the effect file, in --set too"));
  CHECK(run_spritz("validate fx/e.toml --set 'emitter.0.texture=\"../t.png\"'", d).code == 0);
  CHECK(run_spritz(
            "validate fx/e.toml --set 'emitter.0.texture=\"" + (d / "t.png").string() + "\"'", d)
            .code == 0);
  // Written in the file, a missing texture gets no such hint.
  write(d / "fx/e.toml", "[[emitter]]\nrate = 5\ntexture = \"t.png\"\n");
  const Run in_file = run_spritz("validate fx/e.toml", d);
  CHECK_THAT(in_file.err, Catch::Contains("texture file not found: fx/t.png\n"));
}

TEST_CASE("the progress bar fits a narrow terminal and clears its line for a message", "[cli]") {
  std::string ignored;
  if (shell("command -v script >/dev/null", &ignored) != 0) return;
  const fs::path d = fresh_dir("progress");
  fs::create_directories(d / "w_03.png");  // frame 3 cannot be written
  std::string out;
  // script(1) gives spritz a terminal of 40 columns on stderr.
  const std::string cmd =
      "cd '" + d.string() + "' && script -qec \"stty cols 40; '" SPRITZ_BINARY "' render " +
      kConfigs + "/snow.toml -f 0-40 --size 32x32 -o w_##.png --threads 1\" /dev/null";
  CHECK(shell(cmd, &out) == 2);
  size_t bars = 0;
  for (size_t at = 0; at < out.size();) {
    size_t next = out.find('\r', at);
    if (next == std::string::npos) next = out.size();
    std::string segment = out.substr(at, next - at);
    at = next + 1;
    const size_t clear = segment.find("\033[K");
    if (segment.find(" frames ") == std::string::npos || clear == std::string::npos) continue;
    ++bars;
    CHECK(clear <= 39);  // a progress line never wraps, so \r can redraw it
  }
  CHECK(bars >= 1);
  CHECK_THAT(out, Catch::Contains("\r\033[Kspritz: frame 3: cannot write w_03.png"));
}

TEST_CASE("motion blur: same bytes on any thread count and frame order, loops stay seamless",
          "[cli]") {
  const fs::path d = fresh_dir("blur");
  const std::string ring =
      "render " + kConfigs + "/magic_ring.toml --size 64x64 -q --set canvas.motion_blur.shutter=1 ";
  REQUIRE(run_spritz(ring + "-f 0-2,59,60 -o a_##.png --threads 2", d).code == 0);
  REQUIRE(run_spritz(ring + "-f 60,59,2-0 -o b_##.png --threads 1", d).code == 0);
  for (const char* f : {"00", "01", "02", "59", "60"})
    CHECK(read_bytes(d / ("a_" + std::string(f) + ".png")) ==
          read_bytes(d / ("b_" + std::string(f) + ".png")));
  auto pixels = [&](const std::string& name) {
    return spritz::decode_png(read_bytes(d / name), name).rgba;
  };
  // One period (60 frames) on, the same pixels: frame 0's early samples are
  // frame 59's late ones.
  CHECK(pixels("a_60.png") == pixels("a_00.png"));
  // The blur shows.
  REQUIRE(
      run_spritz("render " + kConfigs + "/magic_ring.toml --size 64x64 -q -f 1 -o sharp_##.png", d)
          .code == 0);
  CHECK(pixels("sharp_01.png") != pixels("a_01.png"));
  // Baked into a flipbook, the blurred loop has no seam.
  const Run atlas =
      run_spritz("atlas " + kConfigs +
                     "/fire_loop.toml -o fire.png --grid 4x2 --cell 64x64 --max-seam 0 "
                     "--set canvas.motion_blur.samples=4",
                 d);
  CHECK(atlas.code == 0);
  CHECK_THAT(atlas.err, Catch::Contains("loop seam 0"));
  const Run bad = run_spritz(ring + "-f 0 -o c.png --set canvas.motion_blur.samples=0", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("canvas.motion_blur.samples must be within [1, 256], got 0"));
  CHECK_FALSE(fs::exists(d / "c.png"));
}

TEST_CASE("render warns that --fps does nothing with --time unless motion blur uses it", "[cli]") {
  const fs::path d = fresh_dir("fps_time");
  const std::string base =
      "render " + kConfigs + "/sparks.toml --size 32x32 --time 0.5 -o a.png --fps 60";
  const Run plain = run_spritz(base, d);
  CHECK(plain.code == 0);
  CHECK_THAT(plain.err, Catch::Contains("warning: --fps does nothing with --time"));
  const Run blurred = run_spritz(base + " --set canvas.motion_blur.samples=2", d);
  CHECK(blurred.code == 0);
  CHECK_THAT(blurred.err, !Catch::Contains("warning"));
  CHECK(run_spritz(base + " -q", d).err.empty());
}

TEST_CASE("skip-existing renders again a frame a machine crash left empty or cut", "[cli]") {
  const fs::path d = fresh_dir("resume_cut");
  const std::string snow = "render " + kConfigs + "/snow.toml --size 48x48 -f 0-5 -q -o ";
  REQUIRE(run_spritz(snow + "full/f_##.png", d).code == 0);
  REQUIRE(run_spritz(snow + "part/f_##.png", d).code == 0);
  // What ext4 can keep after a power cut: an empty file, a cut one, a tail
  // that is not the end of a PNG; and a file that is not a PNG at all.
  std::vector<uint8_t> whole = read_bytes(d / "part/f_01.png");
  { std::ofstream(d / "part/f_00.png", std::ios::trunc); }
  std::ofstream(d / "part/f_01.png", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(whole.data()),
             static_cast<std::streamsize>(whole.size() / 2));
  whole = read_bytes(d / "part/f_02.png");
  whole.back() ^= 1;
  std::ofstream(d / "part/f_02.png", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(whole.data()),
             static_cast<std::streamsize>(whole.size()));
  write(d / "part/f_03.png", "hello");
  const Run r =
      run_spritz("render " + kConfigs +
                     "/snow.toml --size 48x48 -f 0-5 -o part/f_##.png --skip-existing --json",
                 d);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"frames\":6,\"rendered\":4,\"skipped\":2,\"failed\":0"));
  for (const char* f : {"00", "01", "02", "03", "04", "05"})
    CHECK(read_bytes(d / "full" / ("f_" + std::string(f) + ".png")) ==
          read_bytes(d / "part" / ("f_" + std::string(f) + ".png")));
  // Radiance HDR: an empty file is rendered again, a whole one is kept.
  REQUIRE(run_spritz(snow + "h_##.hdr", d).code == 0);
  { std::ofstream(d / "h_04.hdr", std::ios::trunc); }
  const Run hdr = run_spritz(
      "render " + kConfigs + "/snow.toml --size 48x48 -f 0-5 -o h_##.hdr --skip-existing --json",
      d);
  CHECK_THAT(hdr.out, Catch::Contains("\"rendered\":1,\"skipped\":5"));
  CHECK(fs::file_size(d / "h_04.hdr") > 100);
}

TEST_CASE("turbulence and ribbons from the command line: same bytes in any order, seamless",
          "[cli]") {
  const fs::path d = fresh_dir("turbulence");
  auto pixels = [&](const std::string& name) {
    return spritz::decode_png(read_bytes(d / name), name).rgba;
  };
  // fireflies (turbulence, 6 s loop) and wisps (turbulence and ribbons, 4 s
  // loop), at 30 fps.
  for (const auto& [name, period] :
       {std::pair<std::string, int>{"fireflies", 180}, {"wisps", 120}}) {
    INFO(name);
    const std::string fx = "render " + kConfigs + "/" + name + ".toml --size 96x96 -q ";
    const std::string p = std::to_string(period);
    REQUIRE(run_spritz(fx + "-f 0-2,30," + p + " -o " + name + "_a_###.png --threads 2", d).code ==
            0);
    REQUIRE(run_spritz(fx + "-f " + p + ",30,2-0 -o " + name + "_b_###.png --threads 1", d).code ==
            0);
    char last[8];
    std::snprintf(last, sizeof last, "%03d", period);
    for (const std::string& f : std::vector<std::string>{"000", "001", "002", "030", last})
      CHECK(read_bytes(d / (name + "_a_" + f + ".png")) ==
            read_bytes(d / (name + "_b_" + f + ".png")));
    // One period on, the same pixels.
    CHECK(pixels(name + "_a_" + last + ".png") == pixels(name + "_a_000.png"));
    // The noise moves the particles: without it the frame differs.
    REQUIRE(run_spritz(fx + "-f 30 -o " + name +
                           "_still_###.png --set "
                           "emitter.0.turbulence.amplitude=0",
                       d)
                .code == 0);
    CHECK(pixels(name + "_still_030.png") != pixels(name + "_a_030.png"));
    const Run atlas = run_spritz("atlas " + kConfigs + "/" + name + ".toml -o " + name +
                                     "_sheet.png --grid 4x2 --cell 48x48 --max-seam 0",
                                 d);
    CHECK(atlas.code == 0);
    CHECK_THAT(atlas.err, Catch::Contains("loop seam 0"));
  }
  // The ribbons are strips, not ghosts.
  REQUIRE(run_spritz("render " + kConfigs +
                         "/wisps.toml --size 96x96 -q -f 30 -o ghosts_###.png --set "
                         "emitter.0.trail.style=ghosts",
                     d)
              .code == 0);
  CHECK(pixels("ghosts_030.png") != pixels("wisps_a_030.png"));
  write(d / "bad.toml", "[[emitter]]\nturbulence = { amplitude = 5, sped = 2 }\n");
  const Run bad = run_spritz("render bad.toml -f 0 -o c.png", d);
  CHECK(bad.code == 2);
  CHECK_THAT(
      bad.err,
      Catch::Contains("bad.toml:2:31: unknown key 'sped' in turbulence; did you mean 'speed'?"));
  write(d / "bad2.toml", "[[emitter]]\ntrail = { style = \"strip\" }\n");
  const Run bad2 = run_spritz("render bad2.toml -f 0 -o c.png", d);
  CHECK(bad2.code == 2);
  CHECK_THAT(bad2.err,
             Catch::Contains("bad2.toml:2:19: trail.style must be \"ghosts\" or \"ribbon\""));
  CHECK_FALSE(fs::exists(d / "c.png"));
}

// The CLI reads texture files once, with the cap of effect files, and hands
// the bytes to the raster library; a texture over the cap is refused at its
// texture key before anything is drawn.
TEST_CASE("a texture file over 64 MiB is refused at its key, and nothing is written", "[cli]") {
  const fs::path d = fresh_dir("texture_cap");
  write(d / "fx.toml", "[[emitter]]\nrate = 5\ntexture = \"big.png\"\n");
  fs::resize_file(
      [&] {
        std::ofstream(d / "big.png");
        return d / "big.png";
      }(),
      (size_t{64} << 20) + 1);
  for (const std::string cmd : {"validate fx.toml", "render fx.toml -o out.png",
                                "atlas fx.toml -o sheet.png", "inspect fx.toml --time 1"}) {
    INFO(cmd);
    const Run r = run_spritz(cmd, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("fx.toml:3:11: texture big.png: is too large for a texture "
                                      "(64 MiB at most)"));
  }
  CHECK(!fs::exists(d / "out.png"));
  CHECK(!fs::exists(d / "sheet.png"));
}

TEST_CASE("a decompression-bomb texture is refused from its header, at once", "[cli]") {
  const fs::path d = fresh_dir("bomb");
  // A 16384x16384 IHDR and a few bytes of data: stb would allocate 1 GiB
  // and spritz 17 GB of texels before finding the data short.
  std::string png("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\x40\0\0\0\x40\0\x08\x06\0\0\0\0\0\0\0", 33);
  png += std::string("\0\0\0\x02IDATxx\0\0\0\0\0\0\0\0IEND\xae\x42\x60\x82", 26);
  write(d / "bomb.png", png);
  write(d / "bomb.toml", "[[emitter]]\nrate = 5\ntexture = \"bomb.png\"\n");
  const auto t0 = std::chrono::steady_clock::now();
  const Run r = run_spritz("render bomb.toml -f 0 -o b.png", d);
  const Run v = run_spritz("validate bomb.toml", d);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("bomb.toml:3:11: texture bomb.png (16384x16384) would take "
                                      "17071 MB with its mip levels, more than the texture memory "
                                      "limit of 2048 MB (SPRITZ_TEXTURE_MEMORY_MB=N raises it"));
  CHECK(v.code == 2);
  CHECK(v.err == r.err);
  CHECK_FALSE(fs::exists(d / "b.png"));
  const Run bad = run_spritz_env("SPRITZ_TEXTURE_MEMORY_MB=lots", "validate bomb.toml", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("SPRITZ_TEXTURE_MEMORY_MB must be a whole number of "
                                      "megabytes from 1 to 999999999, got 'lots'"));
}

TEST_CASE("a program's NaN particles are not drawn, and the run says so once", "[cli]") {
  const fs::path d = fresh_dir("program-nan");
  write(d / "nan.toml", R"([canvas]
size = [32, 32]
[[emitter]]
rate = 20
lifetime = 2
program = """
void pose() { if (INDEX % 2 == 0) POSITION.x = sqrt(-1.0); }
"""
)");
  const Run r = run_spritz("render nan.toml -f 0-5 -o f_#.png", d);
  CHECK(r.code == 0);
  CHECK(count_of(r.err, "warning: programs left") == 1);
  CHECK_THAT(r.err,
             Catch::Contains("particles NaN or infinite over the frames; they were not drawn"));
  const Run stats = run_spritz("inspect nan.toml --time 1 --stats", d);
  CHECK_THAT(stats.out, Catch::Contains("dropped by its program 1"));  // 10 or 11 of 21
}
