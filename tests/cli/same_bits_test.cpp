// The same bytes on every CPU (docs/rendering.md, "Determinism"): every
// bundled effect's particles (inspect --json) and pixels (EXR and 16-bit PNG
// stills) at
// three times hash to the committed list tests/same-bits.txt
// (scripts/same-bits.sh), under every glibc CPU level this machine can
// pretend to be (GLIBC_TUNABLES turns AVX2, FMA and AVX-512 off, which makes
// glibc pick other code for sin, exp, pow, ...) crossed with every sprite
// kernel it runs (SPRITZ_SIMD). scripts/test-arm64.sh runs the same test
// under qemu, so arm64 is held to the same list.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "cli_support.h"

using namespace spritz::test;

namespace {

std::vector<std::string> runnable_kernels() {
  std::vector<std::string> kernels;
  for (const std::string k : {"reference", "portable", "avx2", "avx512"}) {
    std::string version;
    REQUIRE(shell("SPRITZ_SIMD=" + k + " '" SPRITZ_BINARY "' --version 2>&1", &version) == 0);
    if (version.find("(sprite kernel: " + k + ")") != std::string::npos) kernels.push_back(k);
  }
  return kernels;
}

// Every output's hash under `tunables`, for each kernel, against the list.
void check_same_bits(const std::string& tunables) {
  const std::string expected = read_text(std::string(SPRITZ_SOURCE_DIR) + "/tests/same-bits.txt");
  REQUIRE(count_of(expected, "\n") == 198);  // 21 effects and a Godot shader, 3 times, 3 kinds
  for (const std::string& k : runnable_kernels()) {
    INFO("GLIBC_TUNABLES=" << tunables << " SPRITZ_SIMD=" << k);
    std::string got;
    REQUIRE(shell("GLIBC_TUNABLES=" + tunables + " SPRITZ_SIMD=" + k + " '" SPRITZ_SOURCE_DIR +
                      "/scripts/same-bits.sh' '" SPRITZ_BINARY "'",
                  &got) == 0);
    CHECK(got == expected);
  }
}

bool cpu_has(const std::string& flag) {
  const std::string cpuinfo = read_text("/proc/cpuinfo");
  return cpuinfo.find(" " + flag + " ") != std::string::npos ||
         cpuinfo.find(" " + flag + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE("same bits: every bundled effect hashes to tests/same-bits.txt", "[cli]") {
  check_same_bits("");
}

#if defined(__x86_64__)
TEST_CASE("same bits: the same hashes with glibc's AVX2 and FMA code turned off", "[cli]") {
  check_same_bits("glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4");
}

TEST_CASE("same bits: the same hashes with glibc's AVX-512 code turned off", "[cli]") {
  if (!cpu_has("avx512f")) {
    SUCCEED("this CPU has no AVX-512: glibc never picks AVX-512 code here");
    return;
  }
  check_same_bits("glibc.cpu.hwcaps=-AVX512F");
}
#endif
