// `spritz validate` end to end: problems, warnings and their positions.
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

TEST_CASE("validate accepts every bundled effect", "[cli]") {
  const Run r = run_spritz("validate " + kConfigs + "/*.toml");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("campfire.toml: ok"));
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
