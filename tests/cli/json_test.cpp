#include "json.h"

#include <catch2/catch.hpp>
#include <string>

using spritz::json_string;

TEST_CASE("json_string keeps UTF-8, escapes controls, and never emits invalid UTF-8", "[json]") {
  CHECK(json_string("a\"b\\c\n\t\r\x01") == "\"a\\\"b\\\\c\\n\\t\\r\\u0001\"");
  // Valid UTF-8 passes through as bytes, or as \u escapes (surrogate pairs
  // beyond U+FFFF) in ASCII mode.
  const std::string text = "\xC3\xB1 \xE2\x82\xAC \xF0\x9F\x94\xA5";  // ñ € 🔥
  CHECK(json_string(text) == "\"" + text + "\"");
  CHECK(json_string(text, true) == "\"\\u00f1 \\u20ac \\ud83d\\udd25\"");
  // A file name on Linux may hold any byte: each byte that is not valid
  // UTF-8 becomes U+FFFD in both modes, so the line stays valid JSON.
  for (bool ascii : {false, true}) {
    CHECK(json_string("x\xFF.toml", ascii) == "\"x\\ufffd.toml\"");
    CHECK(json_string("\xC3", ascii) == "\"\\ufffd\"");                        // cut short
    CHECK(json_string("\xC0\xAF", ascii) == "\"\\ufffd\\ufffd\"");             // overlong
    CHECK(json_string("\xED\xA0\x80", ascii) == "\"\\ufffd\\ufffd\\ufffd\"");  // surrogate
    CHECK(json_string("\xF4\x90\x80\x80", ascii) ==
          "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
  }
}
