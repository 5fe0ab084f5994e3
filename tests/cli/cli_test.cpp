// What every command shares, end to end: arguments, inputs and outputs, signals, limits, modules.
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

TEST_CASE("bad input gives a clear message and exit 2 and writes nothing", "[cli]") {
  const fs::path d = fresh_dir("bad");
  write(d / "typo.toml", "[[emitter]]\nrat = 5\n");
  write(d / "empty.toml", "");
  write(d / "nan.toml", "[[emitter]]\nspeed = nan\n");
  fs::create_directories(d / "adir.toml");
  fs::create_symlink("loop_b.toml", d / "loop_a.toml");
  fs::create_symlink("loop_a.toml", d / "loop_b.toml");
  struct Case {
    std::string args, expect;
  };
  const Case cases[] = {
      {"render typo.toml", "typo.toml:2:1: unknown key 'rat' in [[emitter]]; did you mean 'rate'?"},
      {"render empty.toml", "empty.toml: the effect file is empty"},
      {"render nan.toml", "nan.toml:2:9: speed must be a finite number"},
      {"render missing.toml", "missing.toml: no such file"},
      {"render adir.toml", "adir.toml: is a directory"},
      {"render loop_a.toml", "loop_a.toml: cannot open: Too many levels of symbolic links"},
      {"render -o one.png", "add a frame token, e.g. -o one_####.png"},
      {"render --size 0x0", "--size 0x0: each value must be within [1, 16384]"},
      {"render --size 100000x100000", "each value must be within [1, 16384]"},
      {"render --scale nan", "--scale must be a positive number, got nan"},
      {"render --scale 0", "--scale must be a positive number, got 0"},
      {"render --scale 1e-9", "--scale 1e-09 gives a 0x0 canvas"},
      {"render -f 1-x", "A-BxS"},
      {"render --time 1,,2", "--time '1,,2': an item is empty"},
      {"render --set emitter.0.rate=abc", "--set emitter.0.rate=abc: rate must be a number"},
      {"render --set nonsense", "--set expects key.path=value"},
      {"render --chunk-index 4 --chunk-count 4", "--chunk-index must be within [0, 3]"},
      {"render --chunk-index 0 --chunk-count 0", "--chunk-count must be at least 1"},
      {"render --seed -1", "--seed must be within"},
      {"render --bogus", "spritz render: unknown option '--bogus'; see spritz render --help"},
      {"render --thread 2", "spritz render: unknown option '--thread' (did you mean '--threads'?)"},
      {"atlas fx.toml --gird=2x2",
       "spritz atlas: unknown option '--gird' (did you mean '--grid'?)"},
      {"", "Usage: spritz [OPTIONS] SUBCOMMAND"},
      {"rendr fx.toml",
       "spritz: unknown command 'rendr' (did you mean 'render'?); the commands are render, atlas"},
      {"fx.toml", "unknown command 'fx.toml'"},
      {"inspect empty.toml --time 1", "the effect file is empty"},
      {"validate typo.toml nan.toml", "nan.toml:2:9"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const Run r = run_spritz(c.args, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.expect));
  }
  // A --set error of any kind is placed like a file's: the override first.
  for (const char* set : {"emitter.9.rate=5", "emitter.0.rate=abc", "emitter..rate=1"}) {
    INFO(set);
    const Run r = run_spritz(std::string("render --set ") + set, d);
    CHECK_THAT(r.err, Catch::StartsWith(std::string("--set ") + set + ": "));
  }
  CHECK_FALSE(fs::exists(d / "out"));
  CHECK(no_temp_files(d));
}

TEST_CASE("an unwritable output directory is an error before rendering", "[cli]") {
  const fs::path d = fresh_dir("unwritable");
  write(d / "blocker", "a file where a directory should be");
  const Run r = run_spritz("render -f 0-1 -o blocker/f_#.png", d);
  CHECK(r.code == 2);
  CHECK_THAT(r.err,
             Catch::Contains(
                 "cannot create output directory blocker: blocker is a file, not a directory"));
  // A file name over 255 bytes is refused before drawing, not frame by frame.
  const Run long_name = run_spritz("render -f 0-3 -o " + std::string(250, 'c') + "_####.png", d);
  CHECK(long_name.code == 2);
  CHECK_THAT(long_name.err,
             Catch::Contains("its file name is 259 bytes, over the 255 a file system allows"));
  CHECK(long_name.err.find("frame 0") == std::string::npos);
  const Run deep = run_spritz("render -f 0-1 -o blocker/a/b/f_#.png", d);
  CHECK_THAT(deep.err,
             Catch::Contains("cannot create output directory blocker/a/b: blocker is a file"));
  CHECK(no_temp_files(d));
}

TEST_CASE("an empty argument or option value is an error, not a default", "[cli]") {
  // `spritz render "$FX"` with FX unset must not render the bundled campfire.
  const fs::path d = fresh_dir("empty");
  const std::string fx = kConfigs + "/sparks.toml";
  const std::pair<std::string, std::string> cases[] = {
      {"render '' -f 0 -o x.png", "spritz render: argument EFFECT is empty"},
      {"render " + fx + " -f 0 -o ''", "spritz render: option -o,--output is empty"},
      {"render " + fx + " -f 0 -o x.png --set ''", "spritz render: option --set is empty"},
      {"atlas " + fx + " -o ''", "spritz atlas: option -o,--output is empty"},
      {"inspect '' --time 1", "spritz inspect: argument EFFECT is empty"},
      {"validate " + fx + " ''", "spritz validate: argument EFFECTS is empty"},
      {"diff x.png ''", "spritz diff: argument B is empty"},
      {"check " + fx + " --golden ''", "spritz check: option --golden is empty"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Run r = run_spritz(args, d);
    CHECK(r.code == 2);
    CHECK(r.err == message + "\n");
  }
  CHECK(fs::is_empty(d));
}

TEST_CASE("output lost on stdout is an error, a reader that leaves is not", "[cli]") {
  SPRITZ_SKIP_UNLESS(fs::exists("/dev/full"), "/dev/full is missing on this machine");
  const fs::path d = fresh_dir("stdout");
  // A full disk: stdio's buffered output and render's raw frames alike.
  for (const char* args : {"inspect CFG --time 1 --json", "inspect CFG --time 1", "validate CFG",
                           "render CFG -f 0 -o x.png --json -q", "render CFG -f 0-2 -o -"}) {
    std::string a = args;
    a.replace(a.find("CFG"), 3, kConfigs + "/campfire.toml");
    INFO(a);
    const Run r = run_spritz(a + " >/dev/full", d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("spritz: cannot write ") && Catch::Contains("to stdout"));
  }
  CHECK_THAT(run_spritz("render " + kConfigs + "/campfire.toml -f 0-2 -o - >/dev/full", d).err,
             Catch::Contains("No space left on device"));
  // A reader that stops early (more than a pipe's 64 KB of JSON): quiet, 2.
  const Run r = run_spritz_into(
      "inspect " + kConfigs + "/campfire.toml --time 3 --json --set emitter.0.rate=3000",
      "head -c 10", d);
  CHECK(r.out.size() == 10);
  CHECK(r.code == 2);
  CHECK(r.err.empty());
}

TEST_CASE("an interrupted render leaves no partial PNG and no temporary files", "[cli]") {
  const fs::path d = fresh_dir("interrupt");
  const std::string cmd = "cd '" + d.string() + "' && ('" SPRITZ_BINARY "' render " + kConfigs +
                          "/campfire.toml -f 0-100000 -o f_######.png --size 512x512 -q & pid=$!; "
                          // Interrupt once a few frames are written (a slow sanitizer build
                          // may take seconds to get there), mid-way through the run.
                          "i=0; while [ $(ls | grep -c '\\.png$') -lt 3 ] && [ $i -lt 600 ]; do "
                          "sleep 0.05; i=$((i+1)); done; "
                          "kill -TERM $pid; wait $pid; echo $?)";
  // (SIGTERM: a shell starts a background job with SIGINT ignored, and
  // spritz keeps a signal inherited as ignored.)
  FILE* p = popen(cmd.c_str(), "r");
  char buf[64] = {};
  fgets(buf, sizeof buf, p);
  pclose(p);
  CHECK(std::string(buf).find("143") == 0);
  size_t pngs = 0;
  for (const auto& e : fs::directory_iterator(d)) {
    if (e.path().extension() != ".png") continue;
    ++pngs;
    CHECK_NOTHROW(spritz::decode_png(read_bytes(e.path()), e.path().string()));
  }
  CHECK(pngs > 0);
  CHECK(no_temp_files(d));
}

TEST_CASE("renders interrupted at any moment leave no temporary file", "[cli]") {
  // Tiny frames written as fast as two threads go, each run stopped after
  // 10-90 ms: a signal lands while another thread is between registering a
  // temporary file and creating it often enough to catch a handler that
  // does not wait for it (21 files left in 300 such runs, before).
  const fs::path d = fresh_dir("interrupt_race");
  const std::string cmd =
      "exec 2>/dev/null; cd '" + d.string() +
      "' && for i in $(seq 1 40); do '" SPRITZ_BINARY "' render " + kConfigs +
      "/campfire.toml -f 0-100000 -o f_######.png --size 24x24 -q --threads 2 & pid=$!; "
      "sleep 0.0$((i % 9 + 1)); kill -TERM $pid; wait $pid; "
      "[ $? -eq 143 ] || echo bad; done; echo done";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[64];
  while (fgets(buf, sizeof buf, p)) out += buf;
  pclose(p);
  CHECK(out == "done\n");  // every run died by SIGTERM
  CHECK(no_temp_files(d));
}

TEST_CASE("the version flag names the program", "[cli]") {
  const Run r = run_spritz("--version");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("spritz 0."));
}

TEST_CASE("help has examples", "[cli]") {
  for (const char* cmd : {"--help", "render --help", "inspect --help", "validate --help"}) {
    const Run r = run_spritz(cmd);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("Examples:"));
  }
}

TEST_CASE("a binary without its modules says which and where, and writes nothing", "[cli]") {
  // OpenEXR and the preview's server are modules loaded on first use
  // (cli/io/module.h): a copy of the binary alone still renders PNGs, and
  // refuses .exr and preview with the places it looked.
  const fs::path d = fresh_dir("modules");
  fs::copy_file(SPRITZ_BINARY_FILE, d / "spritz");  // the binary itself, not an emulator's wrapper
  const std::string fx = kConfigs + "/campfire.toml";
  std::string out;
  CHECK(shell("cd '" + d.string() +
                  "' && SPRITZ_MODULE_DIR= " SPRITZ_RUN_PREFIX "./spritz render '" + fx +
                  "' --time 1 -o f.png -q",
              &out) == 0);
  CHECK(fs::exists(d / "f.png"));
  const int code =
      shell("cd '" + d.string() + "' && SPRITZ_MODULE_DIR= " SPRITZ_RUN_PREFIX "./spritz render '" +
                fx + "' --time 1 -o f.exr -q 2> err.txt",
            &out);
  CHECK(code == 2);
  CHECK(!fs::exists(d / "f.exr"));
  std::ifstream err(d / "err.txt");
  const std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("spritz-exr.so") &&
                       Catch::Contains((d / "spritz-exr.so").string()) &&
                       Catch::Contains("not there"));
  // SPRITZ_MODULE_DIR is looked in first.
  CHECK(shell("cd '" + d.string() + "' && SPRITZ_MODULE_DIR='" +
                  fs::path(SPRITZ_BINARY_FILE).parent_path().string() +
                  "' " SPRITZ_RUN_PREFIX "./spritz render '" + fx + "' --time 1 -o f.exr -q",
              &out) == 0);
  CHECK(fs::exists(d / "f.exr"));
}

TEST_CASE("an output that is a FIFO, a symbolic link or a directory is never replaced", "[cli]") {
  const fs::path d = fresh_dir("special_out");
  // A FIFO (as /dev/null or /dev/stdout would be): written into, still a FIFO.
  REQUIRE(run_spritz("render " + kConfigs + "/sparks.toml -f 5 -o ref.png -q", d).code == 0);
  REQUIRE(mkfifo((d / "p").c_str(), 0644) == 0);
  std::string out;
  CHECK(shell("cd '" + d.string() +
                  "' && { timeout 20 cat p > got.png & '" SPRITZ_BINARY "' render " + kConfigs +
                  "/sparks.toml -f 5 -o p -q; s=$?; wait; exit $s; }",
              &out) == 0);
  CHECK(fs::is_fifo(d / "p"));
  CHECK(read_bytes(d / "got.png") == read_bytes(d / "ref.png"));
  // A symbolic link: the link stays, the file it points to (missing folders
  // and all) is written.
  fs::create_symlink("sub/real.png", d / "link.png");
  CHECK(run_spritz("render " + kConfigs + "/sparks.toml -f 5 -o link.png -q", d).code == 0);
  CHECK(fs::is_symlink(d / "link.png"));
  CHECK(read_bytes(d / "sub/real.png") == read_bytes(d / "ref.png"));
  // A directory, or a name ending in '/': an error, nothing written.
  fs::create_directories(d / "dir");
  const Run dir = run_spritz("render " + kConfigs + "/sparks.toml -f 5 -o dir -q", d);
  CHECK(dir.code == 2);
  CHECK_THAT(dir.err, Catch::Contains("cannot write dir: it is a directory"));
  const Run slash = run_spritz("render " + kConfigs + "/sparks.toml -f 5 -o new/ -q", d);
  CHECK(slash.code == 2);
  CHECK_THAT(slash.err, Catch::Contains("the name ends in '/'"));
  CHECK(fs::is_empty(d / "dir"));
  // A file name of 255 bytes, the most there may be: its temporary name is cut
  // to fit, not refused with "File name too long".
  const std::string longest = std::string(251, 'n') + ".png";
  CHECK(run_spritz("render " + kConfigs + "/sparks.toml -f 5 -o " + longest + " -q", d).code == 0);
  CHECK(read_bytes(d / longest) == read_bytes(d / "ref.png"));
  CHECK(no_temp_files(d));
}

TEST_CASE("no output replaces a file the run reads", "[cli]") {
  const fs::path d = fresh_dir("inputs");
  fs::copy_file(kConfigs + "/sparks.toml", d / "fx.toml");
  fs::copy_file(kConfigs + "/sparks.toml", d / "f1.toml");
  const std::vector<uint8_t> effect = read_bytes(d / "fx.toml");
  REQUIRE(run_spritz("render fx.toml -f 0 -o tex.png -q", d).code == 0);
  REQUIRE(run_spritz("render fx.toml -f 9 -o b.png -q", d).code == 0);
  const std::vector<uint8_t> texture = read_bytes(d / "tex.png");
  write(d / "tex.toml", "[[emitter]]\ntexture = \"tex.png\"\n");
  struct Case {
    std::string args, path;
  };
  const Case cases[] = {
      {"render fx.toml --time 1 -o fx.toml", "fx.toml"},     // a typo'd -o
      {"render f1.toml -f 0-2 -o f%d.toml", "f1.toml"},      // a pattern that names it
      {"render tex.toml -f 0 -o tex.png", "tex.png"},        // a texture
      {"atlas fx.toml -o s.png --meta fx.toml", "fx.toml"},  // before the sheet is drawn
      {"diff tex.png b.png -o tex.png", "tex.png"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const Run r = run_spritz(c.args + " -q", d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("cannot write " + c.path + ": it is an input of this run"));
  }
  CHECK(read_bytes(d / "fx.toml") == effect);
  CHECK(read_bytes(d / "f1.toml") == effect);
  CHECK(read_bytes(d / "tex.png") == texture);
  CHECK_FALSE(fs::exists(d / "s.png"));
  // Through a symbolic link, too.
  fs::create_symlink("fx.toml", d / "link.toml");
  CHECK(run_spritz("render fx.toml --time 1 -o link.toml -q", d).code == 2);
  CHECK(read_bytes(d / "fx.toml") == effect);
}

TEST_CASE(
    "the output's extension picks the format, in any case: formats spritz cannot write are refused",
    "[cli]") {
  const fs::path d = fresh_dir("extensions");
  const std::string fx = kConfigs + "/sparks.toml";
  CHECK(run_spritz("render " + fx + " --time 1 -q -o upper.HDR", d).code == 0);
  const std::vector<uint8_t> hdr = read_bytes(d / "upper.HDR");
  REQUIRE(hdr.size() > 10);
  CHECK(std::string(hdr.begin(), hdr.begin() + 10) == "#?RADIANCE");
  CHECK(run_spritz("render " + fx + " --time 1 -q -o upper.PNG", d).code == 0);
  CHECK(read_bytes(d / "upper.PNG").at(1) == 'P');

  // PNG bytes under a .jpg name, or a "video" that is one PNG, would mislead
  // whatever reads them next.
  for (const std::string name : {"a.jpg", "a.JPEG", "a.tiff", "a.webp"}) {
    const Run r = run_spritz("render " + fx + " --time 1 -o " + name, d);
    CHECK(r.code == 2);
    CHECK(r.err.find("spritz writes PNG, Radiance HDR (.hdr) or OpenEXR (.exr)") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(d / name));
  }
  const Run video = run_spritz("render " + fx + " -f 0-9 -o fire.mp4", d);
  CHECK(video.code == 2);
  CHECK(video.err.find("not video; pipe raw frames into ffmpeg with -o -") != std::string::npos);
  const Run sheet = run_spritz("atlas " + fx + " -o sheet.hdr", d);
  CHECK(sheet.code == 2);
  CHECK(sheet.err.find("only PNG can be written here") != std::string::npos);
  CHECK(run_spritz("diff upper.PNG upper.PNG -q -o d.tga", d).code == 2);
  CHECK_FALSE(fs::exists(d / "sheet.hdr"));
  CHECK_FALSE(fs::exists(d / "d.tga"));

  // The suggested fix for several frames keeps the extension and its case.
  CHECK(run_spritz("render " + fx + " -f 0-2 -o x.HDR", d).err.find("e.g. -o x_####.HDR") !=
        std::string::npos);
  CHECK(run_spritz("render " + fx + " -f 0-2 -o x.png", d).err.find("e.g. -o x_####.png") !=
        std::string::npos);
  CHECK(run_spritz("render " + fx + " -f 0-2 -o x", d).err.find("e.g. -o x_####.png") !=
        std::string::npos);
}

TEST_CASE("a frame that cannot be written fails alone: the others are written", "[cli]") {
  const fs::path d = fresh_dir("pipeline_fail");
  fs::create_directories(d / "w_03.png");  // a directory where frame 3 should go
  const Run r = run_spritz(
      "render " + kConfigs + "/snow.toml -f 0-5 --size 64x64 -o w_##.png --json --threads 2", d);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("{\"type\":\"error\",\"frame\":3,"));
  CHECK_THAT(r.out, Catch::Contains("\"frames\":6,\"rendered\":5,\"skipped\":0,\"failed\":1"));
  CHECK_THAT(r.out, Catch::Contains(",\"peak_memory_mb\":"));
  for (const char* f : {"00", "01", "02", "04", "05"})
    CHECK(fs::is_regular_file(d / ("w_" + std::string(f) + ".png")));
  CHECK(fs::is_directory(d / "w_03.png"));
}

TEST_CASE("an effect too big for the machine's memory is refused at once, not killed by the system",
          "[cli]") {
  const fs::path d = fresh_dir("too_big");
  std::string text;
  // A billion particles alive at 5 s: about 400 GB to draw, more than any
  // budget below and more than half of this machine's memory.
  for (int i = 0; i < 100; ++i)
    text += "[[emitter]]\nname = \"e" + std::to_string(i) +
            "\"\nrate = 1e9\nmax_particles = 10000000\nlifetime = 5\n";
  write(d / "big.toml", text);
  // A rendered frame holds none of these particles (they are drawn as they
  // are evaluated, Frame::defer_above): the work limit refuses it instead.
  const char* memory = "the effect can hold 1000000100 particles, more than the";
  const char* work = "a frame would evaluate and draw 1000000100 particle samples";
  for (const auto& [cmd, says] : std::vector<std::pair<std::string, const char*>>{
           {"render big.toml --time 5 -o big.png", work},
           {"inspect big.toml --time 5", memory},
           {"atlas big.toml --time 5 --seeds 1 -o sheet.png", memory}}) {
    INFO(cmd);
    const Run r = run_spritz_env("SPRITZ_MEMORY_MB=4096", cmd, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains(says));
  }
  CHECK_FALSE(fs::exists(d / "big.png"));
  CHECK_FALSE(fs::exists(d / "sheet.png"));
  // The budget, not the host, decides: 10,000 particles fit in 64 MB and
  // not in 1 MB, whatever this machine has (inspect holds one frame, at
  // spritz::kBytesPerParticle each).
  write(d / "small.toml", "[[emitter]]\nrate = 2000\nlifetime = 5\nmax_particles = 10000\n");
  CHECK(run_spritz_env("SPRITZ_MEMORY_MB=64", "inspect small.toml --time 5", d).code == 0);
  const uint64_t one_mb_limit = (uint64_t{1} << 20) / spritz::kBytesPerParticle;
  const Run small = run_spritz_env("SPRITZ_MEMORY_MB=1", "inspect small.toml --time 5", d);
  CHECK(small.code == 2);
  CHECK_THAT(small.err, Catch::Contains("more than the " + std::to_string(one_mb_limit) + " that"));
  for (const std::string bad : {"0", "-5", "lots", ""}) {
    const Run r =
        run_spritz_env("SPRITZ_MEMORY_MB='" + bad + "'", "inspect small.toml --time 1", d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("SPRITZ_MEMORY_MB must be a whole number of megabytes"));
  }
}

// Found by the hostile command lines of the fuzzing issue: seed and frame
// lists whose size passed 2^64, and a frame width that overflowed stoi.
TEST_CASE("huge frame and seed lists and frame widths are refused, never a crash", "[cli]") {
  const fs::path d = fresh_dir("huge_lists");
  const std::string quarter = "0-4611686018427387903";
  const std::string seeds = quarter + "," + quarter + "," + quarter + "," + quarter;
  for (const std::string& cmd :
       {"atlas " + kConfigs + "/sparks.toml --seeds " + seeds + " -o s.png",
        "render " + kConfigs + "/sparks.toml --seeds " + seeds + " -o 'r_{seed}_#.png'",
        "render " + kConfigs +
            "/sparks.toml -f -4611686018427387904-4611686018427387904 -o f_#.png",
        "render " + kConfigs + "/sparks.toml -f 0 -o 'f_%99999999999d.png'"}) {
    INFO(cmd);
    const Run r = run_spritz(cmd, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("spritz: "));
    CHECK_THAT(r.err, !Catch::Contains("stoi"));
  }
  CHECK(fs::is_empty(d));
}

// nohup (or `trap '' HUP`) makes a render survive its terminal closing: a
// signal inherited as ignored stays ignored. spritz used to install its
// handler over it, so a hang-up killed the render (exit 129).
TEST_CASE("a render started with SIGHUP ignored survives a hang-up", "[cli]") {
  const fs::path d = fresh_dir("nohup");
  const std::string cmd =
      "cd '" + d.string() + "' && (trap '' HUP; '" SPRITZ_BINARY "' render " + kConfigs +
      "/campfire.toml -f 0-59 -o f_##.png --size 128x128 -q & pid=$!; "
      "i=0; while [ $(ls | grep -c '\\.png$') -lt 2 ] && [ $i -lt 600 ]; do sleep 0.02; "
      "i=$((i+1)); done; kill -HUP $pid; wait $pid; echo $?)";
  std::string out;
  REQUIRE(shell(cmd, &out) == 0);
  CHECK(out == "0\n");
  size_t pngs = 0;
  for (const auto& e : fs::directory_iterator(d)) pngs += e.path().extension() == ".png";
  CHECK(pngs == 60);
  CHECK(no_temp_files(d));
}

// Found by the fuzzing issue: /dev/zero was read up to the 1 GiB cap (14 s)
// before "too large", and a texture behind a link loop said "not found".
TEST_CASE("devices are refused at once, a pipe is read, a link loop is named", "[cli]") {
  const fs::path d = fresh_dir("devices");
  const auto t0 = std::chrono::steady_clock::now();
  const Run zero_diff = run_spritz("diff /dev/zero /dev/zero", d);
  const Run zero_fx = run_spritz("validate /dev/zero", d);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  CHECK(zero_diff.code == 2);
  CHECK(zero_diff.err == "/dev/zero: is a device, not an image\n");
  CHECK(zero_fx.code == 2);
  CHECK_THAT(zero_fx.err, Catch::Contains("/dev/zero: is a device, not an effect file"));
  // An effect from a pipe (process substitution) renders.
  std::string out;
  CHECK(shell("cd '" + d.string() + "' && bash -c \"'" SPRITZ_BINARY "' render <(cat '" + kConfigs +
                  "/sparks.toml') -f 0 -o p.png -q\"",
              &out) == 0);
  CHECK(fs::exists(d / "p.png"));
  fs::create_symlink("loop_b", d / "loop_a");
  fs::create_symlink("loop_a", d / "loop_b");
  write(d / "loop.toml", "[[emitter]]\nrate = 5\ntexture = \"loop_a\"\n");
  const Run loop = run_spritz("validate loop.toml", d);
  CHECK(loop.code == 2);
  CHECK_THAT(loop.err, Catch::Contains("loop.toml:3:11: cannot open texture loop_a: Too many "
                                       "levels of symbolic links"));
}

TEST_CASE("two runs writing the same files at once leave whole, identical files", "[cli]") {
  const fs::path d = fresh_dir("two_runs");
  const std::string render =
      "'" SPRITZ_BINARY "' render " + kConfigs + "/campfire.toml -f 0-29 --size 96x96 -q -o ";
  std::string out;
  CHECK(shell("cd '" + d.string() + "' && (" + render + "f_##.png & " + render +
                  "f_##.png & wait) && " + render + "ref/f_##.png && echo done",
              &out) == 0);
  CHECK(out == "done\n");
  CHECK(whole_pngs(d) == 30);
  for (int f = 0; f < 30; ++f) {
    const std::string name = "f_" + std::string(f < 10 ? "0" : "") + std::to_string(f) + ".png";
    CHECK(read_bytes(d / name) == read_bytes(d / "ref" / name));
  }
  CHECK(no_temp_files(d));
}

TEST_CASE("a run killed with SIGKILL mid-write leaves whole frames only", "[cli]") {
  const fs::path d = fresh_dir("sigkill");
  std::string out;
  // SIGKILL cannot be caught: what is on disk is what the writes left.
  const int code = shell("cd '" + d.string() + "' && ('" SPRITZ_BINARY "' render " + kConfigs +
                             "/campfire.toml -f 0-100000 -o k_######.png --size 384x384 -q & "
                             "pid=$!; i=0; while [ $(ls | grep -c '^k_.*\\.png$') -lt 4 ] && "
                             "[ $i -lt 600 ]; do sleep 0.02; i=$((i+1)); done; "
                             "kill -KILL $pid; wait $pid; echo $?)",
                         &out);
  CHECK(code == 0);
  CHECK(out == "137\n");
  const size_t whole = whole_pngs(d);
  CHECK(whole >= 4);
  // Only hidden temporaries, one per frame in flight at most, can remain:
  // --skip-existing renders past them and a later run's names never clash.
  size_t temps = 0;
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string()[0] == '.') ++temps;
  CHECK(temps <= 4);
  const Run resume =
      run_spritz("render " + kConfigs + "/campfire.toml -f 0-" + std::to_string(whole + 3) +
                     " -o k_######.png --size 384x384 -q --skip-existing",
                 d);
  CHECK(resume.code == 0);
  CHECK(whole_pngs(d) == whole + 4);
}

TEST_CASE("a read-only output directory is refused before drawing", "[cli]") {
  const fs::path d = fresh_dir("read_only");
  fs::create_directory(d / "ro");
  // Root writes through permission bits, so root needs a read-only mount.
  if (geteuid() == 0) {
    std::string out;
    const bool mounted =
        shell("mount -t tmpfs -o ro,size=1m tmpfs '" + (d / "ro").string() + "' 2>&1", &out) == 0;
    SPRITZ_SKIP_UNLESS(mounted, "cannot mount a read-only tmpfs here: " + out);
  } else {
    fs::permissions(d / "ro", fs::perms::owner_read | fs::perms::owner_exec);
  }
  const Run r = run_spritz("render " + kConfigs + "/sparks.toml -f 0-3 -o ro/f_#.png", d);
  std::string ignored;
  if (geteuid() == 0) shell("umount '" + (d / "ro").string() + "'", &ignored);
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("spritz: output directory ro is not writable: "));
  CHECK(fs::is_empty(d / "ro"));
}

// Found by the fuzzing issue: a 256-sample motion-blur frame of 100,000
// particles with 64-ghost trails was still drawing after 300 s. Its work is
// known before any sample is evaluated, and over the limit it is refused.
TEST_CASE("a frame's work is estimated before drawing and refused over the limit", "[cli]") {
  const fs::path d = fresh_dir("work");
  write(d / "heavy.toml",
        "[effect]\nduration = 2\n[canvas]\nmotion_blur = { samples = 256 }\n[check]\n"
        "times = [1.5]\n[[emitter]]\nrate = 100000\nlifetime = 1\nmax_particles = 100000\n"
        "trail = { count = 64, length = 0.3 }\n");
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string cmd : {"render heavy.toml --time 1.5 -o h.png",
                                "atlas heavy.toml --grid 2x1 --cell 32x32 -o sheet.png",
                                "check heavy.toml --golden g --update"}) {
    INFO(cmd);
    const Run r = run_spritz(cmd, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("particle samples (the particles and trail ghosts that can "
                                      "be alive, over 256 motion-blur samples), more than the "
                                      "work limit of 100000000; lower the motion-blur samples, "
                                      "trail counts or rates, or raise the limit with "
                                      "SPRITZ_WORK_LIMIT=N"));
  }
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK_FALSE(fs::exists(d / "h.png"));
  CHECK_FALSE(fs::exists(d / "sheet.png"));
  // The limit is the user's: a small one refuses a small frame, and a bad
  // value is named.
  const Run small = run_spritz_env("SPRITZ_WORK_LIMIT=10",
                                   "render " + kConfigs + "/sparks.toml --time 1 -o s.png", d);
  CHECK(small.code == 2);
  CHECK_THAT(small.err, Catch::Contains("more than the work limit of 10;"));
  // The PNG is written while it is drawn (streamed): a frame refused once
  // its temporary file is open leaves neither it nor the target behind.
  CHECK_FALSE(fs::exists(d / "s.png"));
  for (const auto& entry : fs::directory_iterator(d))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
  const Run bad = run_spritz_env("SPRITZ_WORK_LIMIT=-3", "render heavy.toml --time 1 -o h.png", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("SPRITZ_WORK_LIMIT must be a whole number of particle "
                                      "samples from 1 to 999999999999999999, got '-3'"));
  CHECK(run_spritz_env("SPRITZ_WORK_LIMIT=100000",
                       "render " + kConfigs + "/sparks.toml --time 1 -o s.png -q", d)
            .code == 0);
}

TEST_CASE("a named FIFO is read as an effect file, and an empty one is a message", "[cli]") {
  const fs::path d = fresh_dir("fifo_effect");
  REQUIRE(mkfifo((d / "fx.toml").c_str(), 0644) == 0);
  std::string out;
  // A writer feeds it, as a generator script would.
  CHECK(shell("cd '" + d.string() + "' && (cat '" + kConfigs + "/sparks.toml' > fx.toml &) && '" +
                  SPRITZ_BINARY "' render fx.toml --time 0.5 -o f.png -q && echo ok",
              &out) == 0);
  CHECK(out == "ok\n");
  CHECK_NOTHROW(spritz::decode_png(read_bytes(d / "f.png"), "f.png"));
  // A writer that closes at once: the file is empty, which is an error.
  const int code = shell(
      "cd '" + d.string() + "' && (: > fx.toml &) && '" + SPRITZ_BINARY + "' validate fx.toml 2>&1",
      &out);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("fx.toml"));
}
