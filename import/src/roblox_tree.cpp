// What both Roblox file forms share (roblox_tree.h): lists of numbers and
// the attribute blob.
#include "roblox_tree.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace spritz::import_detail::roblox {

std::vector<double> split_numbers(const std::string& s, const SourceLoc& at,
                                  const std::string& what) {
  std::vector<double> out;
  const char* p = s.c_str();
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') ++p;
    if (!*p) break;
    char* end = nullptr;
    std::string word;
    const char* b = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') ++p;
    word.assign(b, p);
    if (word == "INF" || word == "inf")
      out.push_back(HUGE_VAL);
    else if (word == "-INF" || word == "-inf")
      out.push_back(-HUGE_VAL);
    else if (word == "NAN" || word == "nan")
      out.push_back(std::nan(""));
    else {
      const double v = std::strtod(word.c_str(), &end);
      if (end != word.c_str() + word.size())
        throw Error(at, what + " holds " + printable(word) + ", which is not a number");
      out.push_back(v);
    }
    if (out.size() > 100000) throw Error(at, what + " holds more than 100000 numbers");
  }
  return out;
}

// ---- Attributes (AttributesSerialize, rbx-dom's attribute blob) ----

std::map<std::string, double> numeric_attributes(const std::vector<uint8_t>& b) {
  std::map<std::string, double> out;
  size_t i = 0;
  const auto u32 = [&](uint32_t& v) {
    if (i + 4 > b.size()) return false;
    v = uint32_t(b[i]) | uint32_t(b[i + 1]) << 8 | uint32_t(b[i + 2]) << 16 |
        uint32_t(b[i + 3]) << 24;
    i += 4;
    return true;
  };
  uint32_t n = 0;
  if (!u32(n)) return out;
  for (uint32_t k = 0; k < n && k < 4096; ++k) {
    uint32_t len = 0;
    if (!u32(len) || i + len + 1 > b.size()) break;
    const std::string name(b.begin() + i, b.begin() + i + len);
    i += len;
    const uint8_t type = b[i++];
    size_t size = 0;
    uint32_t count = 0;
    switch (type) {
      case 0x02:
        if (!u32(len)) return out;
        size = len;
        break;
      case 0x03:
        size = 1;
        break;
      case 0x05:
      case 0x0E:
        size = 4;
        break;
      case 0x06:
      case 0x09:
      case 0x10:
      case 0x1B:
        size = 8;
        break;
      case 0x0F:
      case 0x11:
        size = 12;
        break;
      case 0x0A:
      case 0x1C:
        size = 16;
        break;
      case 0x17:
        if (!u32(count)) return out;
        size = size_t(count) * 12;
        break;
      case 0x19:
        if (!u32(count)) return out;
        size = size_t(count) * 20;
        break;
      default:
        return out;  // a type of unknown size: what came before stands
    }
    if (i + size > b.size()) break;
    if (type == 0x06) {
      double v;
      std::memcpy(&v, &b[i], 8);
      if (std::isfinite(v)) out[name] = v;
    } else if (type == 0x05) {
      float v;
      std::memcpy(&v, &b[i], 4);
      if (std::isfinite(v)) out[name] = v;
    }
    i += size;
  }
  return out;
}

}  // namespace spritz::import_detail::roblox
