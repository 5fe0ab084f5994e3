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
