// Skipping a test whose requirement this machine lacks, visibly.
//
// Catch2 v2 has no skip, so a test prints a line that CTest's
// SKIP_REGULAR_EXPRESSION (tests/CMakeLists.txt) reports as "Not Run" with the
// reason, rather than a pass that checked nothing. Under CI=true the
// requirement is installed by scripts/build.sh --tests, so a skip there would
// hide a gap: it fails instead.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

namespace spritz::test {

inline bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::strcmp(ci, "true") == 0;
}

}  // namespace spritz::test

// Use as a statement: SPRITZ_SKIP_UNLESS(fs::exists("/dev/full"), "needs /dev/full");
#define SPRITZ_SKIP_UNLESS(condition, reason)                                   \
  do {                                                                          \
    if (!(condition)) {                                                         \
      if (spritz::test::under_ci()) FAIL("required under CI=true: " << reason); \
      std::cout << "SPRITZ_SKIP: " << reason << std::endl;                      \
      return;                                                                   \
    }                                                                           \
  } while (0)

// For data no install step provides (the shared corpus of other tools'
// effect files, which may not be copied into the project): a visible skip
// even under CI=true, as SPRITZ_SKIP_HARDWARE_UNLESS below.
#define SPRITZ_SKIP_DATA_UNLESS(condition, reason) SPRITZ_SKIP_HARDWARE_UNLESS(condition, reason)

// The shared corpus: $SPRITZ_CORPUS, else ../shared/corpus beside the source.
inline std::string spritz_corpus_dir(const std::string& source_dir) {
  const char* env = std::getenv("SPRITZ_CORPUS");
  return env && *env ? std::string(env) : source_dir + "/../shared/corpus";
}

// For a CPU feature, which no install step can add: a visible skip even
// under CI=true (the suite still runs every kernel the machine has).
#define SPRITZ_SKIP_HARDWARE_UNLESS(condition, reason)     \
  do {                                                     \
    if (!(condition)) {                                    \
      std::cout << "SPRITZ_SKIP: " << reason << std::endl; \
      return;                                              \
    }                                                      \
  } while (0)
