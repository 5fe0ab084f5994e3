#include "toml/text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "spritz/load.h"

namespace spritz::toml_load {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

std::string quoted_list(const Keys& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) out += i + 1 == words.size() ? " or " : ", ";
    out += '"';
    out += words[i];
    out += '"';
  }
  return out;
}

std::string toml_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

std::string quoted_excerpt(std::string_view s) {
  if (s.size() <= 48) return toml_quote(s);
  size_t n = 40;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return toml_quote(s.substr(0, n)) + "...";
}

const char* effect_name_problem(std::string_view s) {
  if (s.empty()) return "is empty; leave the key out to use the file's name";
  if (s == "." || s == "..")
    return "is a directory name; the name is part of file names (out/<name>_####.png, "
           "golden/<name>/)";
  if (has_control(s)) return "holds a control character";
  if (s.find_first_of(kNameForbidden) != std::string_view::npos)
    return "may not hold '/', '\\', '#' or '%': the name is part of file names "
           "(out/<name>_####.png, golden/<name>/)";
  if (s.size() > kMaxNameBytes)
    return "is longer than 200 bytes: the name is part of file names (out/<name>_####.png), "
           "which hold at most 255";
  return nullptr;
}

const char* emitter_name_problem(std::string_view s) {
  if (s.empty()) return "is empty; leave the key out for emitter<index>";
  if (has_control(s)) return "holds a control character";
  if (s.find('.') != std::string_view::npos)
    return "may not hold '.': --set addresses an emitter as emitter.<name>.<key>";
  if (std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return "is a number, which --set would read as an emitter's index (emitter.<index>.<key>)";
  return nullptr;
}

}  // namespace spritz::toml_load

namespace spritz {

std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
  size_t best = std::numeric_limits<size_t>::max();
  std::string_view best_word;
  for (std::string_view c : candidates) {
    const size_t d = toml_load::edit_distance(word, c);
    if (d < best) {
      best = d;
      best_word = c;
    }
  }
  const size_t allowed = std::max<size_t>(2, word.size() / 3);
  return best <= allowed ? std::string(best_word) : std::string();
}

}  // namespace spritz
