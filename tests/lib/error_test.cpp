#include "spritz/error.h"

#include <catch2/catch.hpp>
#include <string>

using namespace spritz;

TEST_CASE("printable escapes every byte a terminal would act on", "[error]") {
  CHECK(printable("plain text, 100% ASCII ~") == "plain text, 100% ASCII ~");
  // ESC[2J would clear the screen of whoever reads the message.
  CHECK(printable("\x1b[2J") == "\\x1b[2J");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("tab\there\nnew") == "tab\\x09here\\x0anew");
  CHECK(printable("\x7f\xff\xc3\xa9") == "\\x7f\\xff\\xc3\\xa9");
  CHECK(printable("") == "");
}

TEST_CASE("a diagnostic prints file:line:col, file, or the message alone", "[error]") {
  CHECK(Diagnostic{{"fx.toml", 3, 7}, "bad"}.to_string() == "fx.toml:3:7: bad");
  CHECK(Diagnostic{{"fx.toml", 0, 0}, "bad"}.to_string() == "fx.toml: bad");
  CHECK(Diagnostic{{}, "bad"}.to_string() == "bad");
  const Error e({Diagnostic{{"a", 1, 2}, "x"}, Diagnostic{{}, "y"}});
  CHECK(std::string(e.what()) == "a:1:2: x\ny");
  CHECK(e.diagnostics().size() == 2);
}
