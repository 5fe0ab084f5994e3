// What the fuzz targets share. Each target is one LLVMFuzzerTestOneInput,
// built two ways (tests/fuzz/CMakeLists.txt): with libFuzzer under clang
// (SPRITZ_FUZZ=ON, scripts/fuzz.sh), and with replay_main.cpp in every
// build, so the normal suite replays the seeds and tests/fuzz/regressions/.
//
// A target accepts exactly one kind of failure from spritz: a spritz::Error
// (a clean refusal with a message). Anything else (another exception, a
// crash, a sanitizer report, a failed FUZZ_REQUIRE) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#define FUZZ_REQUIRE(cond)                                                               \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace spritz::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace spritz::fuzz
