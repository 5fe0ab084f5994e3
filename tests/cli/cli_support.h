// What the command-line test files share (tests/cli/*_command_test.cpp,
// cli_test.cpp): scratch-folder checks, the bundled effects' folder, and
// whether the browser tests can run.
#pragma once

#include <catch2/catch.hpp>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/run.h"
#include "spritz/raster/png.h"

namespace spritz::test {

namespace fs = std::filesystem;

inline bool no_temp_files(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return false;
  return true;
}

inline const std::string kConfigs = std::string(SPRITZ_SOURCE_DIR) + "/configs";

inline size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
// tests/browser: its scripts, and why they cannot run here ("" when they can).
inline fs::path browser_tests() {
  return fs::path(SPRITZ_SOURCE_DIR) / "tests/browser";
}
inline std::string browser_tests_missing() {
  if (!fs::exists("/usr/bin/chromium"))
    return "needs Debian's chromium (scripts/build.sh --tests installs it)";
  if (shell("command -v node >/dev/null", nullptr) != 0) return "needs node";
  if (!fs::exists(browser_tests() / "node_modules/puppeteer-core"))
    return "needs tests/browser's npm packages (scripts/build.sh --tests runs npm ci)";
  return "";
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every PNG in `dir` (not the hidden temporaries) decodes; returns how many.
inline size_t whole_pngs(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '.' || e.path().extension() != ".png") continue;
    ++n;
    CHECK_NOTHROW(spritz::decode_png(read_bytes(e.path()), e.path().string()));
  }
  return n;
}

}  // namespace spritz::test
