// spritz preview's pure pieces: which Host headers it answers and how it
// reads a frame request (the server itself is driven in Chromium by
// tests/browser/preview.mjs, from cli_test.cpp).
#include "commands/preview.h"

#include <catch2/catch.hpp>

#include "spritz/error.h"

using namespace spritz;

TEST_CASE("the preview answers only to its loopback address and port", "[preview]") {
  CHECK(preview_host_allowed("127.0.0.1:8731", 8731));
  CHECK(preview_host_allowed("localhost:8731", 8731));
  CHECK(preview_host_allowed("LOCALHOST:8731", 8731));
  CHECK(preview_host_allowed("[::1]:8731", 8731));
  CHECK(preview_host_allowed("127.0.0.1", 80));  // the default port left out
  CHECK_FALSE(preview_host_allowed("127.0.0.1:8732", 8731));
  CHECK_FALSE(preview_host_allowed("127.0.0.1", 8731));
  CHECK_FALSE(preview_host_allowed("attacker.example:8731", 8731));  // DNS rebinding
  CHECK_FALSE(preview_host_allowed("127.0.0.1.attacker.example:8731", 8731));
  CHECK_FALSE(preview_host_allowed("", 8731));
  CHECK_FALSE(preview_host_allowed("127.0.0.1:8731 ", 8731));
}

TEST_CASE("frame requests are read strictly", "[preview]") {
  using P = std::multimap<std::string, std::string>;
  const PreviewQuery q = parse_preview_query(
      P{{"t", "1.25"}, {"seed", "7"}, {"size", "64x32"}, {"fps", "8"}, {"v", "3"}});
  CHECK(q.time == 1.25);
  CHECK(q.seed == 7);
  CHECK(q.size == "64x32");
  CHECK(q.fps == 8);
  CHECK(parse_preview_query(P{}).time == 0);
  CHECK_THROWS_WITH(parse_preview_query(P{{"t", "nan"}}), Catch::Contains("finite time"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"t", "1e10"}}), Catch::Contains("within ±1e9"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"t", "1s"}}), Catch::Contains("finite time"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"t", ""}}), Catch::Contains("finite time"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"seed", "-1"}}), Catch::Contains("seed must be"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"seed", "4294967296"}}), Catch::Contains("seed must"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"size", "../x"}}), Catch::Contains("size must be WxH"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"fps", "0"}}), Catch::Contains("fps must be"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"path", "/etc/passwd"}}),
                    Catch::Contains("unknown parameter 'path'"));
  CHECK_THROWS_WITH(parse_preview_query(P{{"t", "1"}, {"t", "2"}}), Catch::Contains("twice"));
}
