// Numbers in messages, written once for every message of the library.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace spritz {

// `v` in the fewest significant digits (at least 6, as %g) that read back as
// the same double, so a message never shows a value the rule accepts in place
// of the one it refused (0.9999999999999999 is not "1").
inline std::string fmt_number(double v) {
  char buf[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace spritz
