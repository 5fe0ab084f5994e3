// `spritz preview` end to end, in Chromium.
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

TEST_CASE("preview: a program file's edits reload, and its errors show at their place", "[cli]") {
  // Over plain HTTP (bash's /dev/tcp): the page's state says which version
  // is shown and the errors of the file as it is now.
  const fs::path d = fresh_dir("preview-program");
  write(d / "fx.toml", "[[emitter]]\nrate = 10\nprogram = \"move.glsl\"\n");
  write(d / "move.glsl", "void pose() { POSITION.x = AGE * 10.0; }\n");
  const int port = 20000 + static_cast<int>(getpid() % 20000);
  const std::string script = R"(
set -u
port=)" + std::to_string(port) +
                             R"(
state() {
  exec 3<>/dev/tcp/127.0.0.1/$port || return 1
  printf 'GET /state HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$port" >&3
  cat <&3
  exec 3<&-
}
')" SPRITZ_BINARY R"(' preview fx.toml --port $port -q &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for i in $(seq 50); do state >/dev/null 2>&1 && break; sleep 0.1; done
state | grep -o '"version":[0-9]*'
sleep 1.1  # a later mtime, even on a file system that keeps seconds
printf 'void pose() {\n  POSITION.x = AGE * speeed;\n}\n' > move.glsl
for i in $(seq 50); do state | grep -q speeed && break; sleep 0.1; done
state | grep -o 'move.glsl:2:[0-9]*: unknown name .speeed.'
sleep 1.1
printf 'void pose() { POSITION.x = AGE * 20.0; }\n' > move.glsl
for i in $(seq 50); do state | grep -q '"errors":\[\]' && break; sleep 0.1; done
state | grep -o '"version":[0-9]*'
state | grep -o '"errors":\[\]'
)";
  write(d / "check.sh", script);
  std::string out;
  const int rc = shell("cd '" + d.string() + "' && bash check.sh 2>&1", &out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Catch::Contains("\"version\":1"));
  CHECK_THAT(out, Catch::Contains("move.glsl:2:22: unknown name 'speeed'"));
  CHECK_THAT(out, Catch::Contains("\"version\":3"));
  CHECK_THAT(out, Catch::Contains("\"errors\":[]"));
}
