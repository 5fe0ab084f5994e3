#include "frames.h"

#include <catch2/catch.hpp>

#include "frames.h"
#include "spritz/error.h"
#include "spritz/load.h"

using namespace spritz;

namespace {
std::vector<int64_t> expand(const FrameList& l) {
  std::vector<int64_t> v;
  for (uint64_t i = 0; i < l.size(); ++i) v.push_back(l.at(i));
  return v;
}
}  // namespace

TEST_CASE("the frame grammar: N A-B A-BxS lists and negatives", "[frames]") {
  CHECK(expand(parse_frames("5")) == std::vector<int64_t>{5});
  CHECK(expand(parse_frames("0-3")) == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(expand(parse_frames("0-10x5")) == std::vector<int64_t>{0, 5, 10});
  CHECK(expand(parse_frames("0-9x4")) == std::vector<int64_t>{0, 4, 8});
  CHECK(expand(parse_frames("1,3,7-8")) == std::vector<int64_t>{1, 3, 7, 8});
  CHECK(expand(parse_frames("-10--8")) == std::vector<int64_t>{-10, -9, -8});
  CHECK(expand(parse_frames("-2-1")) == std::vector<int64_t>{-2, -1, 0, 1});
  CHECK(expand(parse_frames("3-0")) == std::vector<int64_t>{3, 2, 1, 0});  // backwards
  CHECK(expand(parse_frames("-3")) == std::vector<int64_t>{-3});
}

TEST_CASE("malformed frame lists explain the grammar", "[frames]") {
  for (const char* bad :
       {"", "a", "1-", "1--", "1-5x0", "1-5x-2", "1,,2", "1-5y2", "3.5", "99999999999999999999"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_frames(bad), Catch::Contains("A-BxS"));
  }
}

TEST_CASE("a billion frames are not expanded", "[frames]") {
  const FrameList l = parse_frames("0-999999999,5");
  CHECK(l.size() == 1000000001ull);
  CHECK(l.at(999999999) == 999999999);
  CHECK(l.at(1000000000) == 5);
}

TEST_CASE("frame times are held to --time's ±1e9 s", "[frames]") {
  CHECK_NOTHROW(check_frame_times(parse_frames("0-30000000000"), 30));  // 1e9 s exactly
  CHECK_NOTHROW(check_frame_times(parse_frames("-30000000000-5"), 30));
  // A stepped range ends at its last element, not at the bound it names.
  CHECK_NOTHROW(check_frame_times(parse_frames("0-30000000029x30"), 30));
  CHECK_THROWS_WITH(check_frame_times(parse_frames("0-59,30000000001"), 30),
                    Catch::StartsWith("frame 30000000001 at 30 fps") && Catch::Contains("±1e9 s"));
  CHECK_THROWS_WITH(check_frame_times(parse_frames("30000000030-0"), 30),
                    Catch::StartsWith("frame 30000000030 at 30 fps"));
  CHECK_THROWS_WITH(check_frame_times(parse_frames("-30000000001"), 30),
                    Catch::StartsWith("frame -30000000001 at 30 fps"));
  // A tiny fps makes a small frame number far in time.
  CHECK_THROWS_WITH(check_frame_times(parse_frames("1"), 1e-300), Catch::Contains("1e+300 s"));
}

TEST_CASE("chunks are contiguous and near-equal and cover the list", "[frames]") {
  for (uint64_t total : {0ull, 1ull, 7ull, 60ull, 1000000007ull}) {
    for (uint64_t n : {1ull, 2ull, 3ull, 7ull, 64ull}) {
      uint64_t next = 0;
      for (uint64_t i = 0; i < n; ++i) {
        const auto [b, e] = chunk_slice(total, i, n);
        CHECK(b == next);
        CHECK(e - b <= total / n + 1);
        next = e;
      }
      CHECK(next == total);
    }
  }
}

TEST_CASE("output patterns: #### and printf tokens", "[frames]") {
  CHECK(OutputPattern("out/f_####.png").format(7) == "out/f_0007.png");
  CHECK(OutputPattern("out/f_####.png").format(-7) == "out/f_-0007.png");
  CHECK(OutputPattern("f#.png").format(123) == "f123.png");
  CHECK(OutputPattern("f_%04d.png").format(42) == "f_0042.png");
  CHECK(OutputPattern("f_%04d.png").format(-42) == "f_-042.png");
  CHECK(OutputPattern("f_%d.png").format(5) == "f_5.png");
  // As ffmpeg's image2 reads %4d: zeros, never spaces in a file name.
  CHECK(OutputPattern("f_%4d.png").format(42) == "f_0042.png");
  CHECK(OutputPattern("f_%4d.png").format(-42) == "f_-042.png");
  CHECK(OutputPattern("100%%_%03d.png").format(5) == "100%_005.png");
  CHECK_FALSE(OutputPattern("single.png").has_token());
  CHECK(OutputPattern("single.png").format(3) == "single.png");
  CHECK_THROWS_WITH(OutputPattern("a_##_##.png"), Catch::Contains("more than one"));
  CHECK_THROWS_WITH(OutputPattern("a_%s.png"), Catch::Contains("only %d"));
  CHECK_THROWS_WITH(OutputPattern("a_%d_##.png"), Catch::Contains("both"));
}

TEST_CASE("frames in flight: one per thread, unless pixels or particles would take over 1 GiB",
          "[frames]") {
  const FramePlan small = plan_frames(2, 1000, 512, 512, 3000);
  CHECK(small.workers == 2);
  CHECK(small.raster_threads == 1);
  CHECK(plan_frames(2, 1, 512, 512, 3000).workers == 1);  // one frame: strips
  // Ten million particles take about 3 GB a frame: one frame at a time.
  const FramePlan crowded = plan_frames(2, 1000, 64, 64, 10'000'000);
  CHECK(crowded.workers == 1);
  CHECK(crowded.raster_threads == 2);
  const FramePlan huge = plan_frames(4, 1000, 16384, 16384, 0);
  CHECK(huge.workers == 1);
  CHECK(huge.raster_threads == 4);
}

TEST_CASE("a ribbon's segments count in a particle's memory", "[frames]") {
  const Effect plain = load_effect("[[emitter]]\ntrail = { count = 8 }\n", "t.toml", ".");
  const Effect ribbon =
      load_effect("[[emitter]]\ntrail = { count = 8, style = \"ribbon\" }\n", "t.toml", ".");
  CHECK(bytes_per_particle(plain) == kBytesPerParticle);
  CHECK(bytes_per_particle(ribbon) == kBytesPerParticle + sizeof(RibbonSegment));
  CHECK(particle_limit(1, bytes_per_particle(ribbon)) < particle_limit(1));
  // 900,000 particles fit two frames in flight in 1 GiB, but not with
  // their segments.
  CHECK(plan_frames(2, 1000, 64, 64, 900'000).workers == 2);
  CHECK(plan_frames(2, 1000, 64, 64, 900'000, false, bytes_per_particle(ribbon)).workers == 1);
}

TEST_CASE("time lists split at commas into decimal seconds, and an empty or odd item is named",
          "[frames]") {
  CHECK(parse_times({"0.5,1, 1.5", "+2", "-1e3"}) == std::vector<double>{0.5, 1, 1.5, 2, -1000});
  const std::pair<const char*, const char*> bad[] = {
      {"1,,2", "--time '1,,2': an item is empty"},
      {"1,", "an item is empty"},
      {"", "an item is empty"},
      {"0x10", "'0x10' is not a number of seconds"},
      {"1,abc", "'abc' is not a number of seconds"},
      {"1e", "'1e' is not a number of seconds"},
      {"nan", "'nan' is not a finite time within ±1e9 s"},
      {"2e9", "'2e9' is not a finite time"},
  };
  for (const auto& [text, message] : bad) {
    INFO(text);
    CHECK_THROWS_WITH(parse_times({text}), Catch::Contains(message));
  }
}

// Frame numbers reach ±2^62: spans, offsets and list sizes are computed
// without overflow (a list's size once wrapped at 2^64, so four huge seed
// ranges counted as 4 and crashed atlas).
TEST_CASE("frame lists at the edges of 64 bits neither overflow nor wrap", "[frames]") {
  const int64_t big = int64_t{1} << 62;
  const FrameRange whole{-big, big, 1};
  CHECK(whole.count() == (uint64_t{1} << 63) + 1);
  CHECK(whole.at(0) == -big);
  CHECK(whole.at(uint64_t{1} << 63) == big);
  const FrameRange down{big, -big, big};
  CHECK(down.count() == 3);
  CHECK(down.at(1) == 0);
  CHECK(down.at(2) == -big);
  CHECK_THROWS_WITH(parse_frames("-4611686018427387904-4611686018427387904"),
                    Catch::Contains("more than 2^62 frames"));
  CHECK_THROWS_WITH(parse_frames("0-4611686018427387903,0-4611686018427387903"),
                    Catch::Contains("more than 2^62 frames"));
  CHECK(parse_frames("0-4611686018427387903").size() == uint64_t{1} << 62);
  const std::string quarter = "0-4611686018427387903";
  CHECK_THROWS_WITH(parse_seeds(quarter + "," + quarter + "," + quarter + "," + quarter, 1000000),
                    "--seeds: at most 1000000 seeds at once");
  CHECK_THROWS_WITH(parse_seeds("0-2000000", 1000000),
                    "--seeds: at most 1000000 seeds at once, got 2000001");
}

TEST_CASE("a frame token is at most 32 digits wide, #### or %0Nd", "[frames]") {
  CHECK(OutputPattern("f_%032d.png").format(5).size() == 2 + 32 + 4);
  CHECK(OutputPattern(std::string("f_") + std::string(32, '#') + ".png").format(-5) ==
        "f_-" + std::string(31, '0') + "5.png");
  CHECK_THROWS_WITH(OutputPattern("f_%99999999999d.png"),
                    Catch::Contains("asks for more than 32 digits; at most 32"));
  CHECK_THROWS_WITH(OutputPattern("f_%33d.png"), Catch::Contains("at most 32"));
  CHECK_THROWS_WITH(OutputPattern(std::string("f_") + std::string(40, '#') + ".png"),
                    Catch::Contains("asks for 40 digits; at most 32"));
}
