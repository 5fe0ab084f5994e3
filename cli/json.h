// Small helpers for writing JSON by hand (the shapes are part of the CLI's
// contract, so they are spelled out where they are produced).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace spritz {

// Shortest text that reads back as the same double; null when not finite.
inline std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// `s` (UTF-8) as a JSON string. A byte that is not part of valid UTF-8 (a
// file name on Linux can hold any byte) becomes U+FFFD, so the output is
// always valid JSON. With `ascii`, every character beyond ASCII is written as
// a \u escape (a surrogate pair beyond U+FFFF): for PNG tEXt chunks, whose
// text is Latin-1.
inline std::string json_string(std::string_view s, bool ascii = false) {
  std::string out = "\"";
  auto escape = [&out](uint32_t u) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(u));
    out += buf;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const int extra = c >= 0xf0 && c < 0xf5   ? 3
                        : c >= 0xe0 && c < 0xf0 ? 2
                        : c >= 0xc2 && c < 0xe0 ? 1
                                                : -1;
      uint32_t u = extra == 3 ? c & 0x07u : extra == 2 ? c & 0x0fu : c & 0x1fu;
      bool ok = extra > 0 && i + static_cast<size_t>(extra) < s.size();
      for (int k = 1; ok && k <= extra; ++k) {
        const unsigned char cc = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
        ok = (cc & 0xc0) == 0x80;
        u = (u << 6) | (cc & 0x3fu);
      }
      ok = ok && u <= 0x10ffff && !(u >= 0xd800 && u <= 0xdfff) &&
           u >= (extra == 1   ? 0x80u
                 : extra == 2 ? 0x800u
                              : 0x10000u);
      if (!ok) {
        escape(0xfffd);
        continue;
      }
      if (!ascii) {
        out.append(s.substr(i, static_cast<size_t>(extra) + 1));
      } else if (u >= 0x10000) {
        escape(0xd800 + ((u - 0x10000) >> 10));
        escape(0xdc00 + ((u - 0x10000) & 0x3ff));
      } else {
        escape(u);
      }
      i += static_cast<size_t>(extra);
      continue;
    }
    const char ch = s[i];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

inline std::string hex64(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace spritz
