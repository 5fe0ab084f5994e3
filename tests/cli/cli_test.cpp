// End-to-end tests of the spritz binary: exit codes, files, messages.
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

#include "cli/run.h"
#include "io/textures.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"

namespace fs = std::filesystem;

namespace {

using namespace spritz::test;

bool no_temp_files(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return false;
  return true;
}

const std::string kConfigs = std::string(SPRITZ_SOURCE_DIR) + "/configs";

}  // namespace

TEST_CASE("render with no effect draws the bundled default into out/", "[cli]") {
  const fs::path d = fresh_dir("default");
  const Run r = run_spritz("render -f 0-2 -q", d);
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(fs::exists(d / "out/campfire_0000.png"));
  CHECK(fs::exists(d / "out/campfire_0002.png"));
  CHECK(no_temp_files(d));
}

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

TEST_CASE("inspect --json has the documented shape", "[cli]") {
  const Run r = run_spritz("inspect " + kConfigs + "/campfire.toml --time 1 --json --stats");
  CHECK(r.code == 0);
  for (const char* field :
       {"{\"time\": 1, \"clock\": 2.5, \"emitters\": [{\"name\": \"smoke\"",
        "\"key\": ", "\"age\": ", "\"life\": ", "\"x\": ", "\"vy\": ", "\"w\": ", "\"rotation\": ",
        "\"color\": [", "\"alpha\": ", "\"brightness\": ", "\"light_emission\": ", "\"cell\": ",
        "\"impacts\": 0}", "\"stats\": {\"window\": "}) {
    CHECK_THAT(r.out, Catch::Contains(field));
  }
  const Run table = run_spritz("inspect " + kConfigs + "/campfire.toml --time 1");
  CHECK(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("emitter flames:"));
  // A sub-emitter names its parent and event, in both forms.
  const Run sub = run_spritz("inspect " + kConfigs + "/fireworks.toml --time 2 --json");
  CHECK_THAT(
      sub.out,
      Catch::Contains(
          "{\"name\": \"burst\", \"parent\": \"rockets\", \"on\": \"death\", \"particles\": ["));
  const Run sub_table = run_spritz("inspect " + kConfigs + "/fireworks.toml --time 2");
  CHECK_THAT(sub_table.out,
             Catch::Contains("emitter trail_sparks (children of rockets, on life): "));
}

TEST_CASE("inspect counts each particle's impacts with its colliders", "[cli]") {
  const Run r = run_spritz("inspect " + kConfigs + "/bounce.toml --time 1.1 --json");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"impacts\": 0}"));
  CHECK_THAT(r.out, Catch::Contains("\"impacts\": 1}"));
  CHECK_THAT(r.out, Catch::Contains("\"impacts\": 2}"));
  const Run table = run_spritz("inspect " + kConfigs + "/bounce.toml --time 1.1");
  CHECK_THAT(table.out, Catch::Contains("color  impacts"));
  const Run splash = run_spritz("inspect " + kConfigs + "/splash.toml --time 1 --json");
  CHECK_THAT(splash.out, Catch::Contains("\"parent\": \"drops\", \"on\": \"collision\""));
  // A bad collider is located, exit 2, and nothing is written.
  const fs::path d = fresh_dir("collider");
  write(d / "c.toml",
        "[[emitter]]\ncolliders = [{ kind = \"circle\", center = [0, 0], radius = -1 }]\n");
  const Run bad = run_spritz("render c.toml -o out_####.png", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("c.toml:2:59: colliders[0].radius must be within (0, 1e9]"));
  CHECK_FALSE(fs::exists(d / "out_0000.png"));
}

TEST_CASE("inspect's table keeps its columns for huge values", "[cli]") {
  const fs::path d = fresh_dir("inspect_table");
  write(d / "far.toml",
        "[[emitter]]\nrate = 3\nspeed = -1e7\nlifetime = 100\nsize = 1e5\nrotation_speed = 1e6\n");
  const Run r = run_spritz("inspect far.toml --time 90", d);
  REQUIRE(r.code == 0);
  const size_t header = r.out.find("   key ");
  REQUIRE(header != std::string::npos);
  const size_t header_end = r.out.find('\n', header);
  const size_t colour_col = r.out.find("color", header) - r.out.rfind('\n', header) - 1;
  int rows = 0;
  for (size_t at = header_end + 1; at < r.out.size();) {
    const size_t end = r.out.find('\n', at);
    const std::string row = r.out.substr(at, end - at);
    at = end + 1;
    if (row.empty()) break;
    ++rows;
    INFO(row);
    CHECK(row.find('#') == colour_col);
  }
  CHECK(rows > 200);
}

TEST_CASE("validate accepts every bundled effect", "[cli]") {
  const Run r = run_spritz("validate " + kConfigs + "/*.toml");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("campfire.toml: ok"));
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

TEST_CASE("diff: exit codes, limits, size mismatch and the diff image", "[cli]") {
  const fs::path d = fresh_dir("diff");
  std::vector<uint8_t> px(4 * 4 * 4, 0);
  for (size_t i = 3; i < px.size(); i += 4) px[i] = 255;
  const auto write_png = [&](const fs::path& p, const std::vector<uint8_t>& v, int w, int h) {
    const auto png = spritz::encode_png(v.data(), w, h);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  };
  write_png(d / "a.png", px, 4, 4);
  auto changed = px;
  changed[(2 * 4 + 1) * 4] = 255;
  changed[(3 * 4 + 3) * 4 + 1] = 255;
  write_png(d / "b.png", changed, 4, 4);
  write_png(d / "small.png", std::vector<uint8_t>(2 * 2 * 4, 255), 2, 2);

  CHECK(run_spritz("diff a.png a.png", d).code == 0);
  const Run r = run_spritz("diff a.png b.png -o out/d.png", d);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("2 of 16 pixels differ (12.5%)"));
  CHECK_THAT(r.out, Catch::Contains("max channel diff 255"));
  CHECK(fs::exists(d / "out/d.png"));
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 2", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 1", d).code == 1);
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 2 --max-diff-ratio 0.125", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-diff-pixels 2 --max-diff-ratio 0.12", d).code == 1);
  const Run j = run_spritz("diff a.png b.png --json", d);
  CHECK_THAT(j.out, Catch::Contains("\"different\":2"));
  const Run m = run_spritz("diff a.png small.png", d);
  CHECK(m.code == 3);
  CHECK_THAT(m.err, Catch::Contains("a.png is 4x4 but small.png is 2x2"));
  CHECK(run_spritz("diff a.png nothing.png", d).code == 2);
  CHECK(run_spritz("diff a.png b.png --threshold 2", d).code == 2);
  // Limits out of range are usage errors (2), never a silent "different" (1):
  // a NaN ratio compared false with every count.
  for (const char* bad :
       {"--max-diff-ratio nan", "--max-diff-ratio -0.5", "--max-diff-ratio 1.5"}) {
    const Run r2 = run_spritz(std::string("diff a.png a.png ") + bad, d);
    CHECK(r2.code == 2);
    CHECK_THAT(r2.err, Catch::Contains("--max-diff-ratio must be within [0, 1]"));
  }
  const Run neg = run_spritz("diff a.png a.png --max-diff-pixels -5", d);
  CHECK(neg.code == 2);
  CHECK_THAT(neg.err, Catch::Contains("spritz: --max-diff-pixels must not be negative"));
}

// --max-channel-diff gates the largest channel difference whatever the
// perceptual threshold and pixel counts allow: 0 is an exact comparison.
TEST_CASE("diff and check: --max-channel-diff makes a comparison exact", "[cli]") {
  const fs::path d = fresh_dir("channel_gate");
  std::vector<uint8_t> px(8 * 8 * 4, 200);
  const auto write_png = [&](const fs::path& p, const std::vector<uint8_t>& v) {
    const auto png = spritz::encode_png(v.data(), 8, 8);
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  };
  write_png(d / "a.png", px);
  px[(3 * 8 + 5) * 4 + 2] = 203;  // one blue channel 3 levels up: far under the YIQ threshold
  write_png(d / "b.png", px);
  CHECK(run_spritz("diff a.png b.png", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-channel-diff 3", d).code == 0);
  CHECK(run_spritz("diff a.png b.png --max-channel-diff 2", d).code == 1);
  const Run exact =
      run_spritz("diff a.png b.png --max-channel-diff 0 --max-diff-pixels 99 --json", d);
  CHECK(exact.code == 1);
  CHECK_THAT(exact.out,
             Catch::Contains("\"max_channel_diff\":3,") && Catch::Contains("\"same\":false"));
  CHECK(run_spritz("diff a.png a.png --max-channel-diff 0", d).code == 0);
  for (const char* bad : {"-1", "256"}) {
    const Run r = run_spritz(std::string("diff a.png a.png --max-channel-diff ") + bad, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--max-channel-diff must be within 0..255"));
  }

  // check: the command line, else [check] max_channel_diff, else no gate.
  const std::string fx = kConfigs + "/sparks.toml";
  REQUIRE(run_spritz("check '" + fx + "' --golden g --update -q", d).code == 0);
  const fs::path golden = d / "g" / "sparks" / "0.333.png";
  spritz::DecodedPng g = spritz::decode_png(read_bytes(golden), golden.string());
  for (size_t i = 0; i < g.rgba.size(); i += 4)
    if (g.rgba[i + 3] > 0 && g.rgba[i] < 250) {
      g.rgba[i] += 2;  // one pixel's red channel 2 levels up
      break;
    }
  const auto png = spritz::encode_png(g.rgba.data(), g.width, g.height);
  std::ofstream(golden, std::ios::binary)
      .write(reinterpret_cast<const char*>(png.data()), static_cast<std::streamsize>(png.size()));
  CHECK(run_spritz("check '" + fx + "' --golden g -q --out o", d).code == 0);
  const Run strict = run_spritz("check '" + fx + "' --golden g -q --out o --max-channel-diff 1", d);
  CHECK(strict.code == 1);
  CHECK_THAT(strict.err, Catch::Contains("max channel diff 2"));
  CHECK(run_spritz("check '" + fx + "' --golden g -q --out o --max-channel-diff 2", d).code == 0);
  // The same effect with [check] max_channel_diff = 1: the file's gate holds.
  fs::create_directories(d / "gated");
  std::ifstream in(fx);
  write(d / "gated" / "sparks.toml",
        std::string(std::istreambuf_iterator<char>(in), {}) + "\n[check]\nmax_channel_diff = 1\n");
  CHECK(run_spritz("check gated/sparks.toml --golden g -q --out o", d).code == 1);
  CHECK(run_spritz("check gated/sparks.toml --golden g -q --out o --max-channel-diff 2", d).code ==
        0);
  const std::string emitter = "[[emitter]]\nrate = 1\n";
  write(d / "gated.toml", emitter + "[check]\nmax_channel_diff = 0\n");
  CHECK(run_spritz("validate gated.toml", d).code == 0);
  write(d / "bad.toml", emitter + "[check]\nmax_channel_diff = 300\n");
  const Run bad = run_spritz("validate bad.toml", d);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("bad.toml:4:20: check.max_channel_diff") &&
                          Catch::Contains("within 0..255"));
}

TEST_CASE("check: update then check passes and a changed effect fails with images", "[cli]") {
  const fs::path d = fresh_dir("check");
  write(d / "fx.toml",
        "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[check]\ntimes = [0.5]\n[[emitter]]\nrate = 20\nspeed = 10\nsize = 6\n");
  const Run missing = run_spritz("check fx.toml --golden g --out res", d);
  CHECK(missing.code == 1);
  CHECK_THAT(missing.err, Catch::Contains("run with --update"));
  const Run update = run_spritz("check fx.toml --golden g --update", d);
  CHECK(update.code == 0);
  CHECK_THAT(update.err, Catch::Contains("1 checked, 0 failed, 1 golden written"));
  CHECK(fs::exists(d / "g/dot/0.500.png"));
  const Run pass = run_spritz("check fx.toml --golden g --threads 3", d);
  CHECK(pass.code == 0);
  CHECK_THAT(pass.err, Catch::Contains("ok   dot @ 0.500: identical\n"));
  CHECK_THAT(pass.err, Catch::Contains("1 checked, 0 failed"));
  write(d / "fx.toml",
        "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[check]\ntimes = [0.5]\n[[emitter]]\nrate = 20\nspeed = 10\nsize = 9\n");
  const Run fail = run_spritz("check fx.toml --golden g --out res", d);
  CHECK(fail.code == 1);
  CHECK_THAT(fail.err, Catch::Contains("FAIL dot @ 0.500"));
  CHECK_THAT(fail.err, Catch::Contains("px differ"));
  CHECK_THAT(fail.err, Catch::Contains(", worst at ("));
  CHECK_THAT(fail.err, !Catch::Contains("999"));
  CHECK(fs::exists(d / "res/dot_0.500.actual.png"));
  CHECK(fs::exists(d / "res/dot_0.500.diff.png"));
  // A generous tolerance on the command line lets it pass.
  CHECK(
      run_spritz("check fx.toml --golden g --max-diff-ratio 1 --max-diff-pixels 100000", d).code ==
      0);
  // A golden left from earlier check times is named, not silently skipped.
  fs::copy_file(d / "g/dot/0.500.png", d / "g/dot/0.750.png");
  const Run stale = run_spritz("check fx.toml --golden g --max-diff-ratio 1", d);
  CHECK(stale.code == 0);
  CHECK_THAT(stale.err,
             Catch::Contains(
                 "warning: g/dot/0.750.png is not a check time of dot, so it is never compared"));
  CHECK(run_spritz("check fx.toml --golden g --max-diff-ratio 1 -q", d).err.empty());
}

TEST_CASE("check: two check times never share one golden", "[cli]") {
  const fs::path d = fresh_dir("check_labels");
  // 0.5001 and 0.5004 are both 0.500.png: the second golden would replace
  // the first, and 0.5001 would then pass against 0.5004's image.
  write(d / "fx.toml",
        "[effect]\nname = \"dot\"\n[check]\ntimes = [0.5001, 0.5004]\n[[emitter]]\n");
  const Run same = run_spritz("check fx.toml --golden g --update", d);
  CHECK(same.code == 2);
  CHECK_THAT(same.err,
             Catch::Contains(
                 "fx.toml:4:18: check time 0.5004 and 0.5001 would share the golden 0.500.png"));
  // The default times of a 1 ms effect (1/6, 1/2 and 5/6 ms) would, too.
  write(d / "short.toml", "[effect]\nname = \"short\"\nduration = 0.001\n[[emitter]]\n");
  const Run short_fx = run_spritz("check short.toml --golden g --update", d);
  CHECK(short_fx.code == 2);
  CHECK_THAT(short_fx.err, Catch::Contains("would share golden names"));
  // Two files with one effect name would share a golden folder.
  fs::create_directories(d / "other");
  write(d / "ok.toml", "[effect]\nname = \"dot\"\n[[emitter]]\n");
  write(d / "other/ok.toml", "[effect]\nname = \"dot\"\n[[emitter]]\nrate = 50\n");
  const Run twins = run_spritz("check ok.toml other/ok.toml --golden g --update", d);
  CHECK(twins.code == 2);
  CHECK_THAT(twins.err, Catch::Contains("ok.toml and other/ok.toml are both named \"dot\""));
  // A file where a folder is expected is an error before anything is drawn.
  const Run golden_file = run_spritz("check ok.toml --golden ok.toml", d);
  CHECK(golden_file.code == 2);
  CHECK_THAT(golden_file.err, Catch::Contains("--golden ok.toml is not a directory"));
  const Run out_file = run_spritz("check ok.toml --golden g --out ok.toml", d);
  CHECK(out_file.code == 2);
  CHECK_THAT(out_file.err, Catch::Contains("--out ok.toml is not a directory"));
  CHECK_FALSE(fs::exists(d / "g"));
}

namespace {
size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
// tests/browser: its scripts, and why they cannot run here ("" when they can).
fs::path browser_tests() {
  return fs::path(SPRITZ_SOURCE_DIR) / "tests/browser";
}
std::string browser_tests_missing() {
  if (!fs::exists("/usr/bin/chromium"))
    return "needs Debian's chromium (scripts/build.sh --tests installs it)";
  if (shell("command -v node >/dev/null", nullptr) != 0) return "needs node";
  if (!fs::exists(browser_tests() / "node_modules/puppeteer-core"))
    return "needs tests/browser's npm packages (scripts/build.sh --tests runs npm ci)";
  return "";
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

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

TEST_CASE("preview: a scrub shows render --time's bytes, edits and errors show live, in Chromium",
          "[cli]") {
  // tests/browser/preview.mjs starts spritz preview on a copy of torch.toml,
  // checks the server's refusals, drives the page in headless Chromium,
  // edits and breaks the file, and stops the server with SIGINT.
  const fs::path browser = browser_tests();
  const std::string missing = browser_tests_missing();
  SPRITZ_SKIP_UNLESS(missing.empty(), missing);
  const fs::path d = fresh_dir("preview");
  fs::copy_file(kConfigs + "/torch.toml", d / "torch.toml");
  std::string out;
  const int rc = shell("node '" + (browser / "preview.mjs").string() + "' '" SPRITZ_BINARY "' '" +
                           (d / "torch.toml").string() + "' 2>&1",
                       &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Catch::Contains("all checks passed"));
  CHECK(count_of(out, "ok   ") == 27);
  // preview watches a file, and never stdin.
  const Run in = run_spritz("preview -", d);
  CHECK(in.code == 2);
  CHECK_THAT(in.err, Catch::Contains("preview watches a file"));
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
  spritz::FrameRenderer r(
      fx, 256, 256, 1, spritz::effect_textures(fx, spritz::canvas_view(fx.canvas, 256, 256).scale));
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

TEST_CASE("a binary without its modules says which and where, and writes nothing", "[cli]") {
  // OpenEXR and the preview's server are modules loaded on first use
  // (cli/io/module.h): a copy of the binary alone still renders PNGs, and
  // refuses .exr and preview with the places it looked.
  const fs::path d = fresh_dir("modules");
  fs::copy_file(SPRITZ_BINARY, d / "spritz");
  const std::string fx = kConfigs + "/campfire.toml";
  std::string out;
  CHECK(shell("cd '" + d.string() + "' && SPRITZ_MODULE_DIR= ./spritz render '" + fx +
                  "' --time 1 -o f.png -q",
              &out) == 0);
  CHECK(fs::exists(d / "f.png"));
  const int code = shell("cd '" + d.string() + "' && SPRITZ_MODULE_DIR= ./spritz render '" + fx +
                             "' --time 1 -o f.exr -q 2> err.txt",
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
                  fs::path(SPRITZ_BINARY).parent_path().string() + "' ./spritz render '" + fx +
                  "' --time 1 -o f.exr -q",
              &out) == 0);
  CHECK(fs::exists(d / "f.exr"));
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

TEST_CASE("check reports for CI: JUnit XML, GitHub annotations and stale goldens", "[cli]") {
  const fs::path d = fresh_dir("check_reports");
  const std::string fx =
      "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
      "[check]\ntimes = [0.25, 0.5]\n[[emitter]]\nrate = 20\nspeed = 10\n";
  write(d / "fx.toml", fx + "size = 6\n");
  REQUIRE(run_spritz("check fx.toml --golden g --update", d).code == 0);
  write(d / "fx.toml", fx + "size = 9\n");
  fs::copy_file(d / "g/dot/0.500.png", d / "g/dot/0.750.png");
  // JUnit: a suite for the effect, a case per time with the figures, and
  // with --fail-on-stale the stale golden as a failing case.
  const Run r = run_spritz_env("GITHUB_ACTIONS=true",
                               "check fx.toml --golden g --out res --junit out/report.xml "
                               "--fail-on-stale",
                               d);
  CHECK(r.code == 1);
  const std::string xml = read_text(d / "out/report.xml");
  CHECK_THAT(xml, Catch::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
  CHECK_THAT(xml, Catch::Contains("<testsuites name=\"spritz check\" tests=\"3\" failures=\"3\">"));
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"dot\" tests=\"3\" failures=\"3\">"));
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"spritz.check.dot\" name=\"dot @ 0.250\" "
                                  "file=\"fx.toml\">"));
  CHECK_THAT(xml, Catch::Contains("<failure type=\"different\" message=\""));
  CHECK_THAT(xml, Catch::Contains("px differ"));
  CHECK_THAT(xml, Catch::Contains("actual: res/dot_0.250.actual.png"));
  CHECK_THAT(xml, Catch::Contains("name=\"dot stale 0.750.png\""));
  CHECK_THAT(r.err, Catch::Contains("FAIL dot: stale golden: g/dot/0.750.png"));
  // One annotation per failure, on the [check] times line (line 7, column 9).
  CHECK(count_of(r.out, "::error file=fx.toml,line=7,col=9,title=spritz check%3A dot") == 3);
  CHECK_THAT(r.out, Catch::Contains("title=spritz check%3A dot @ 0.500::different: "));
  // Without [check] times the annotation points at [effect]; passing checks
  // are cases without failures; without the flag a stale golden warns only.
  write(d / "fx2.toml",
        "\n[effect]\nname = \"two\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[[emitter]]\nrate = 20\n");
  REQUIRE(run_spritz("check fx2.toml --golden g --update", d).code == 0);
  write(d / "fx2.toml",
        "\n[effect]\nname = \"two\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[[emitter]]\nrate = 20\nsize = 20\n");
  const Run two =
      run_spritz_env("GITHUB_ACTIONS=true", "check fx2.toml --golden g --junit j.xml", d);
  CHECK(two.code == 1);
  CHECK_THAT(two.out, Catch::Contains("::error file=fx2.toml,line=2,col=1,"));
  write(d / "fx2.toml",
        "\n[effect]\nname = \"two\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
        "[[emitter]]\nrate = 20\n");
  const Run ok =
      run_spritz_env("GITHUB_ACTIONS=false", "check fx2.toml --golden g --junit j.xml", d);
  CHECK(ok.code == 0);
  CHECK(ok.out.empty());
  CHECK_THAT(read_text(d / "j.xml"), Catch::Contains("tests=\"3\" failures=\"0\""));
  CHECK_THAT(read_text(d / "j.xml"), Catch::Contains("name=\"two @ 0.167\" file=\"fx2.toml\"/>"));
  const Run warn = run_spritz("check fx.toml --golden g --max-diff-ratio 1 --junit w.xml", d);
  CHECK(warn.code == 0);
  CHECK_THAT(read_text(d / "w.xml"), Catch::Contains("failures=\"0\""));
}

TEST_CASE("check --report writes a static HTML report that Chromium opens from file://", "[cli]") {
  const fs::path d = fresh_dir("check_report");
  const std::string fx =
      "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
      "[check]\ntimes = [0.25, 0.5, 0.75]\n[[emitter]]\nrate = 20\nspeed = 10\n";
  write(d / "fx.toml", fx + "size = 6\n");
  REQUIRE(run_spritz("check fx.toml --golden g --update", d).code == 0);
  // Two frames change, one golden goes missing, one is stale.
  write(d / "fx.toml",
        fx + "size = 9\n[[emitter]]\nrate = 0\nbursts = [{ time = 0.7, count = 1 }]\n");
  fs::rename(d / "g/dot/0.750.png", d / "g/dot/0.900.png");
  const Run r = run_spritz("check fx.toml --golden g --out res --report rep", d);
  CHECK(r.code == 1);
  const std::string page = read_text(d / "rep/index.html");
  CHECK_THAT(page, Catch::StartsWith("<!doctype html>"));
  CHECK(count_of(page, "<section class=\"fail\"") == 2);
  CHECK_THAT(page, Catch::Contains("<img src=\"img/dot___0.250.expected.png\""));
  CHECK_THAT(page, Catch::Contains("<img src=\"img/dot___0.250.diff.png\""));
  CHECK_THAT(page, Catch::Contains("tolerances: threshold 0.1"));
  CHECK_THAT(page, Catch::Contains("fx.toml:7:9"));
  CHECK_THAT(page, Catch::Contains("<li>dot @ 0.750: g/dot/0.750.png</li>"));
  CHECK_THAT(page, Catch::Contains("<li>g/dot/0.900.png</li>"));
  CHECK(page.find(d.string()) == std::string::npos);  // every path relative to the report
  CHECK(fs::exists(d / "rep/img/dot___0.500.actual.png"));
  const fs::path browser = browser_tests();
  const std::string missing = browser_tests_missing();
  SPRITZ_SKIP_UNLESS(missing.empty(), missing);
  std::string out;
  const int rc = shell(
      "node '" + (browser / "report.mjs").string() + "' '" + (d / "rep").string() + "' 2 1 2>&1",
      &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Catch::Contains("all checks passed"));
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

TEST_CASE("validate --json lists every problem with its position", "[cli]") {
  const fs::path d = fresh_dir("validate_json");
  write(d / "bad.toml", "[[emitter]]\nrate = -1\nspread = 999\n");
  const Run r = run_spritz("validate bad.toml " + kConfigs + "/snow.toml --json", d);
  CHECK(r.code == 2);
  CHECK_THAT(
      r.out,
      Catch::Contains(
          "{\"type\":\"validate\",\"path\":\"bad.toml\",\"ok\":false,\"problems\":[{\"file\":\"bad."
          "toml\",\"line\":2,\"col\":8,\"message\":\"rate must be non-negative, got -1\"},"));
  CHECK_THAT(r.out, Catch::Contains("snow.toml\",\"ok\":true,\"problems\":[],\"warnings\":[]}"));
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

TEST_CASE("render writes Radiance HDR when the pattern ends in .hdr", "[cli]") {
  const fs::path d = fresh_dir("hdr");
  const Run r = run_spritz("render " + kConfigs + "/sparks.toml -f 10-11 -o h_##.hdr -q", d);
  CHECK(r.code == 0);
  const std::vector<uint8_t> bytes = read_bytes(d / "h_10.hdr");
  REQUIRE(bytes.size() > 64);
  CHECK(std::string(bytes.begin(), bytes.begin() + 10) == "#?RADIANCE");
  CHECK(fs::exists(d / "h_11.hdr"));
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

TEST_CASE("warnings: printed once with their position, in validate's JSON, and not with -q",
          "[cli]") {
  const fs::path d = fresh_dir("warnings");
  write(d / "fx.toml",
        "[[emitter]]\nname = \"ghost\"\ntransparency = 1\n[[emitter]]\nname = \"ok\"\n");
  const std::string warning = "fx.toml:3:16: warning: emitter 'ghost' is invisible";
  const Run v = run_spritz("validate fx.toml", d);
  CHECK(v.code == 0);  // a warning is not a problem
  CHECK_THAT(v.out, Catch::Contains("fx.toml: ok"));
  CHECK_THAT(v.err, Catch::Contains(warning));
  const Run j = run_spritz("validate fx.toml --json", d);
  CHECK_THAT(j.out, Catch::Contains("\"ok\":true,\"problems\":[],\"warnings\":[{\"file\":\"fx."
                                    "toml\",\"line\":3,\"col\":16,"));
  const Run r = run_spritz("render fx.toml --seeds 1-3 -f 0 -o s{seed}_#.png", d);
  CHECK(r.code == 0);
  CHECK(count_of(r.err, "warning:") == 1);  // once, not once per seed
  CHECK(run_spritz("render fx.toml -f 0 -o q_#.png -q", d).err.empty());
  CHECK(run_spritz("validate fx.toml --json", d).err.empty());
  // Particles that never reach the canvas (placed as if y were down from a
  // corner, far outside): said after the run.
  write(d / "off.toml", "[[emitter]]\nposition = [2000, 0]\nrate = 10\n");
  const Run off = run_spritz("render off.toml -f 10-20 -o off_##.png", d);
  CHECK(off.code == 0);
  CHECK_THAT(off.err, Catch::Contains(
                          "warning: no particle touched the canvas (62 particles over 11 frames)"));
  CHECK(
      run_spritz("render " + kConfigs + "/sparks.toml -f 0-5 -o s_##.png", d).err.find("warning") ==
      std::string::npos);
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
  for (const std::string cmd : {"render big.toml --time 5 -o big.png", "inspect big.toml --time 5",
                                "atlas big.toml --time 5 --seeds 1 -o sheet.png"}) {
    INFO(cmd);
    const Run r = run_spritz_env("SPRITZ_MEMORY_MB=4096", cmd, d);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("the effect can hold 1000000100 particles, more than the"));
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

TEST_CASE("inspect lists an emitter's particles, not their trail ghosts", "[cli]") {
  const fs::path d = fresh_dir("inspect_trail");
  const Run json = run_spritz("inspect " + kConfigs + "/comets.toml --time 1 --json --stats", d);
  REQUIRE(json.code == 0);
  const size_t comets = json.out.find("\"name\": \"comets\"");
  const size_t sparks = json.out.find("\"name\": \"sparks\"");
  REQUIRE(comets != std::string::npos);
  REQUIRE(sparks != std::string::npos);
  const std::string first = json.out.substr(comets, sparks - comets);
  const size_t alive = first.find("\"alive\": ");
  REQUIRE(alive != std::string::npos);
  const size_t listed = count_of(first, "\"key\": ");
  CHECK(listed > 3);
  CHECK(std::to_string(listed) == first.substr(alive + 9, first.find('}', alive) - alive - 9));
  const Run table = run_spritz("inspect " + kConfigs + "/comets.toml --time 1", d);
  CHECK_THAT(table.out, Catch::Contains("emitter comets: " + std::to_string(listed) + " alive"));
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

TEST_CASE("check --update writes only the goldens whose pixels change", "[cli]") {
  const fs::path d = fresh_dir("check_update");
  const std::string fx =
      "[effect]\nname = \"dot\"\nduration = 1\n[canvas]\nsize = [32, 32]\n"
      "[check]\ntimes = [0.25, 0.75]\n[[emitter]]\nrate = 20\nspeed = 10\n";
  write(d / "fx.toml", fx + "size = 6\n");
  const Run first = run_spritz("check fx.toml --golden g --update", d);
  CHECK(first.code == 0);
  CHECK_THAT(first.err, Catch::Contains("new  dot @ 0.250\n"));
  CHECK_THAT(first.err, Catch::Contains("2 goldens written"));
  const auto before = read_bytes(d / "g/dot/0.250.png");
  // A comment changes the effect's hash in the PNG's text, not its pixels:
  // nothing is written, so the goldens' files and history stay as they were.
  write(d / "fx.toml", "# a comment\n" + fx + "size = 6\n");
  const Run again = run_spritz("check fx.toml --golden g --update --json", d);
  CHECK(again.code == 0);
  CHECK_THAT(again.out, Catch::Contains("\"status\":\"ok\""));
  CHECK_THAT(again.out, Catch::Contains("\"updated\":0}"));
  CHECK(read_bytes(d / "g/dot/0.250.png") == before);
  // A golden that no longer decodes, and a change that moves pixels, are written.
  write(d / "g/dot/0.750.png", "not a png");
  const Run repair = run_spritz("check fx.toml --golden g --update", d);
  CHECK(repair.code == 0);
  CHECK_THAT(repair.err, Catch::Contains("ok   dot @ 0.250: unchanged\n"));
  CHECK_THAT(repair.err, Catch::Contains("upd  dot @ 0.750\n"));
  CHECK_THAT(repair.err, Catch::Contains("1 golden written"));
  write(d / "fx.toml", fx + "size = 9\n");
  const Run changed = run_spritz("check fx.toml --golden g --update", d);
  CHECK_THAT(changed.err, Catch::Contains("upd  dot @ 0.250\n"));
  CHECK_THAT(changed.err, Catch::Contains("2 goldens written"));
  CHECK(read_bytes(d / "g/dot/0.250.png") != before);
  CHECK(run_spritz("check fx.toml --golden g", d).code == 0);
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

// The fuzzing issue's hostile conditions: every one ends in a clear message
// or whole files, never a crash or a partial file.
namespace {

// Every PNG in `dir` (not the hidden temporaries) decodes; returns how many.
size_t whole_pngs(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '.' || e.path().extension() != ".png") continue;
    ++n;
    CHECK_NOTHROW(spritz::decode_png(read_bytes(e.path()), e.path().string()));
  }
  return n;
}

}  // namespace

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
