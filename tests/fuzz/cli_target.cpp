// The command-line grammars: frame lists (-f), seed lists (--seeds), sizes
// (--size, --grid, --cell), output patterns (-o) and overrides (--set). The
// first byte picks the grammar, the rest is the argument as a user would
// type it (the seeds in tests/fuzz/seeds/cli/ start with the grammar's digit).
#include <string>
#include <vector>

#include "frames.h"
#include "fuzz.h"
#include "spritz/error.h"
#include "spritz/load.h"

namespace {

using namespace spritz;

constexpr const char* kEffect = R"([effect]
duration = 2
[[emitter]]
name = "flames"
rate = 30
lifetime = [0.5, 1]
)";

void frames(const std::string& arg) {
  const FrameList list = parse_frames(arg);
  const uint64_t n = list.size();
  FUZZ_REQUIRE(n > 0);
  (void)list.at(0);
  (void)list.at(n - 1);
  (void)list.at(n / 2);
  check_frame_times(list, 30);
  const auto [begin, end] = chunk_slice(n, 2, 3);
  FUZZ_REQUIRE(begin <= end && end <= n);
}

void seeds(const std::string& arg) {
  const std::vector<uint32_t> s = parse_seeds(arg, 1000);
  FUZZ_REQUIRE(!s.empty() && s.size() <= 1000);
}

void sizes(const std::string& arg) {
  int w = 0, h = 0;
  try {
    parse_size(arg, &w, &h);
    FUZZ_REQUIRE(w >= 1 && w <= 16384 && h >= 1 && h <= 16384);
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
  }
  parse_pair(arg, "--grid", 256, &w, &h);
  FUZZ_REQUIRE(w >= 1 && w <= 256 && h >= 1 && h <= 256);
}

void pattern(const std::string& arg) {
  const OutputPattern p(arg);
  for (int64_t f : {int64_t{0}, int64_t{-7}, int64_t{123456789}, INT64_MAX, INT64_MIN}) {
    const std::string name = p.format(f);
    FUZZ_REQUIRE(!name.empty() || arg.empty());
  }
}

void set(const std::string& arg) {
  LoadOptions options;
  options.overrides = {arg};
  (void)load_effect(kEffect, "fuzz.toml", ".", options);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string arg(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 5) {
      case 0:
        frames(arg);
        break;
      case 1:
        seeds(arg);
        break;
      case 2:
        sizes(arg);
        break;
      case 3:
        pattern(arg);
        break;
      default:
        set(arg);
        break;
    }
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
  }
  return 0;
}
