// The NDJSON events: every line one JSON object, fields spelt as cli.md says.
#include "events.h"

#include <catch2/catch.hpp>

using namespace spritz;

TEST_CASE("render's events have cli.md's shapes", "[events]") {
  CHECK(events::frame(12, 0.4, 1.9, "out/f_0012.png", "", 118, 2.3104) ==
        "{\"type\":\"frame\",\"frame\":12,\"time\":0.4,\"clock\":1.9,\"path\":\"out/"
        "f_0012.png\",\"particles\":118,\"ms\":2.31}\n");
  CHECK(events::frame_skipped(13, 0.5, "o.png", events::seed_field(true, 7)) ==
        "{\"type\":\"frame\",\"frame\":13,\"time\":0.5,\"path\":\"o.png\",\"seed\":7,"
        "\"skipped\":true}\n");
  CHECK(events::frame_error(14, "cannot write \"x\"") ==
        "{\"type\":\"error\",\"frame\":14,\"message\":\"cannot write \\\"x\\\"\"}\n");
  CHECK(events::seed_field(false, 7).empty());
}

TEST_CASE("check's events have cli.md's shapes", "[events]") {
  CHECK(events::check("campfire", 0.333, "golden/campfire/0.333.png", "ok", 0, 0, 0, "", "") ==
        "{\"type\":\"check\",\"effect\":\"campfire\",\"time\":0.333,\"golden\":\"golden/"
        "campfire/0.333.png\",\"status\":\"ok\",\"different\":0,\"ratio\":0,\"max_channel_diff\":"
        "0,\"actual\":null,\"diff\":null}\n");
  CHECK(events::check_summary(27, 1, 0) ==
        "{\"type\":\"summary\",\"checked\":27,\"failed\":1,\"updated\":0}\n");
}
