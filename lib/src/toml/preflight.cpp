#include "toml/preflight.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "spritz/error.h"
#include "toml/keys.h"

namespace spritz::toml_load {

// Two mistakes that toml++ reports as "invalid utf-8 sequence" at 1:1: a file
// saved as UTF-16 (Windows editors do), and an image named where the effect
// goes (`spritz render out/fire_0001.png`). Both get a sentence that says what
// the file is.
void check_file_kind(std::string_view text, const std::string& source_name) {
  const SourceLoc start{source_name, 1, 1};
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  if (starts(std::string_view("\xFF\xFE\0\0", 4)) || starts(std::string_view("\0\0\xFE\xFF", 4)))
    throw Error(
        start,
        "this is UTF-32 text; effect files are UTF-8 (convert it, e.g. iconv -f UTF-32 -t UTF-8)");
  // UTF-16 without a byte-order mark: ASCII text with every other byte zero.
  const bool zeros_alternate = text.size() >= 4 && (text[0] == 0) != (text[1] == 0) &&
                               (text[2] == 0) == (text[0] == 0) && (text[3] == 0) == (text[1] == 0);
  if (starts("\xFF\xFE") || starts("\xFE\xFF") || zeros_alternate)
    throw Error(
        start,
        "this is UTF-16 text; effect files are UTF-8 (convert it, e.g. iconv -f UTF-16 -t UTF-8)");
  if (starts("\x89PNG\r\n\x1A\n"))
    throw Error(start, "this is a PNG image, not an effect file (TOML)");
}

// toml++ limits nested arrays and inline tables (256), but not dotted keys:
// a key of 50,000 parts (a.a.a...) crashes it by recursion, in the parser or
// when the tree is freed. So before parsing, every run of dot-separated
// tokens outside strings and comments is counted. Counting such runs rather
// than keys needs no grammar: a value never holds one of more than a few
// parts (1.5, a date's fraction), and quoted parts ("a.b".c) count once.
// long: one pass of a small lexer (strings, comments, bare keys, dots) whose
// states share the position counters; split, each piece would need them all.
void check_key_depth(std::string_view text, const std::string& source_name) {
  uint32_t line = 1, col = 1, run_line = 0, run_col = 0;
  int parts = 0;           // tokens in the current run
  bool after_dot = false;  // the run's last token is followed by a dot
  bool in_token = false;   // inside a bare token
  auto end_token = [&] { in_token = false; };
  auto start_token = [&] {
    if (after_dot) {
      ++parts;
      after_dot = false;
    } else {
      parts = 1;
      run_line = line;
      run_col = col;
    }
    if (parts > kMaxKeyParts)
      throw Error(SourceLoc{source_name, run_line, run_col},
                  "a dotted key of more than " + std::to_string(kMaxKeyParts) +
                      " parts; effect keys nest a few tables deep (emitter.shape.kind)");
  };
  auto bare = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {  // a comment, to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      end_token();
      parts = 0;
      after_dot = false;
    } else if (c == '"' || c == '\'') {
      // A string: one token. Multi-line strings ("""...""", '''...''') may
      // hold newlines; basic strings may escape their quote.
      end_token();
      start_token();
      const bool multi = text.substr(i, 3) == std::string(3, c);
      const std::string_view close =
          multi ? std::string_view(c == '"' ? "\"\"\"" : "'''") : std::string_view(&text[i], 1);
      i += multi ? 3 : 1;
      col += multi ? 3 : 1;
      while (i < text.size() && text.substr(i, close.size()) != close) {
        if (c == '"' && text[i] == '\\' && i + 1 < text.size()) {
          ++i;
          ++col;
        }
        if (text[i] == '\n') {
          ++line;
          col = 0;
        }
        ++i;
        ++col;
      }
      i += close.size() - 1;
      col += static_cast<uint32_t>(close.size()) - 1;
      // A multi-line string may end with one or two quotes of its own ("a"""").
      for (int extra = 0; multi && extra < 2 && i + 1 < text.size() && text[i + 1] == c; ++extra) {
        ++i;
        ++col;
      }
    } else if (bare(c)) {
      if (!in_token) {
        start_token();
        in_token = true;
      }
    } else if (c == '.') {
      end_token();
      after_dot = parts > 0;
    } else if (c == ' ' || c == '\t') {
      end_token();  // whitespace may surround the dots of a key
    } else {
      end_token();
      parts = 0;
      after_dot = false;
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
}

}  // namespace spritz::toml_load

namespace spritz::toml_load {
namespace {

// The code point of the UTF-8 sequence at text[i] and its length; length 0
// for invalid UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short).
std::pair<uint32_t, size_t> decode_utf8(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return {c, 1};
  size_t n = 0;
  uint32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2, cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3, cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4, cp = c & 0x07u;
  } else {
    return {0, 0};
  }
  if (text.size() - i < n) return {0, 0};
  for (size_t k = 1; k < n; ++k) {
    const auto d = static_cast<unsigned char>(text[i + k]);
    if ((d & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (d & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return {0, 0};
  return {cp, n};
}

std::string code_point_name(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

bool bare_key_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Whether toml++ 3.3's Unicode whitespace test (is_non_ascii_horizontal_
// whitespace, unicode_autogenerated.h) reaches __builtin_unreachable for
// `cp`: its table skips the switch for most blocks of 0x3FA code points from
// U+00A0, but not for the first and the last, whose cases it lacks.
bool whitespace_test_breaks(uint32_t cp) {
  if (cp <= 0xA0 || cp >= 0xFEFF || cp == 0x3000) return false;
  const uint32_t block = (cp - 0xA0) / 0x3FA;
  return block == 0 || block == 63;
}

// A string from its opening quote at text[i] to past its closing one. Its
// characters are free, except where toml++ tests them for whitespace: every
// character of a quoted key (a string followed by '=' or '.', or closing a
// table header), the character after a backslash in a multi-line basic
// string, and the first one after a line-ending backslash.
template <typename Fail, typename Advance, typename Where>
void check_string(std::string_view text, size_t& i, bool in_header, Fail fail, Advance advance,
                  Where where_now) {
  const char q = text[i];
  const bool multi = text.substr(i, 3) == std::string(3, q);
  const std::string_view close =
      multi ? std::string_view(q == '"' ? "\"\"\"" : "'''") : std::string_view(&text[i], 1);
  const auto broken_at = [&](size_t at) {
    return static_cast<unsigned char>(text[at]) >= 0x80 &&
           whitespace_test_breaks(decode_utf8(text, at).first);
  };
  const auto refuse = [&](size_t at, const char* where, SourceLoc loc) {
    fail(loc,
         "the character " + code_point_name(decode_utf8(text, at).first) + " " + where +
             ": toml++ 3.3, the TOML library spritz reads with, mishandles it there (write it as "
             "the escape \\u" +
             code_point_name(decode_utf8(text, at).first).substr(2) + " in a basic string)");
  };
  advance(i, multi ? 3 : 1);
  size_t first_broken = std::string_view::npos;
  SourceLoc broken_loc;
  while (i < text.size() && text.substr(i, close.size()) != close) {
    if (!multi && text[i] == '\n') return;  // toml++ reports the unterminated string
    if (first_broken == std::string_view::npos && broken_at(i)) {
      first_broken = i;
      broken_loc = where_now();
    }
    if (q == '"' && text[i] == '\\') {
      advance(i, 1);
      if (i >= text.size()) return;
      if (multi && broken_at(i)) refuse(i, "after a backslash", where_now());
      if (multi && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) {
        // A line-ending backslash: toml++ skips the whitespace after it.
        // (toml++ counts some non-ASCII spaces as whitespace too.)
        const auto space_at = [&](size_t at) {
          const char d = text[at];
          if (d == ' ' || d == '\t' || d == '\r' || d == '\n') return true;
          const uint32_t cp =
              static_cast<unsigned char>(d) >= 0x80 ? decode_utf8(text, at).first : 0;
          return cp == 0xA0 || cp == 0x1680 || cp == 0x180E || (cp >= 0x2000 && cp <= 0x200B) ||
                 cp == 0x202F || cp == 0x205F || cp == 0x2060 || cp == 0x3000 || cp == 0xFEFF;
        };
        while (i < text.size() && space_at(i)) advance(i, decode_utf8(text, i).second);
        if (i < text.size() && broken_at(i))
          refuse(i, "at the start of a continued line", where_now());
        continue;
      }
    }
    advance(i, 1);
  }
  advance(i, close.size());
  while (multi && i < text.size() && text[i] == q) advance(i, 1);  // """a"""" ends with a quote
  if (first_broken == std::string_view::npos) return;
  size_t next = i;
  while (next < text.size() && (text[next] == ' ' || text[next] == '\t')) ++next;
  const bool key = next < text.size() &&
                   (text[next] == '=' || text[next] == '.' || (in_header && text[next] == ']'));
  if (key) refuse(first_broken, "in a quoted key", broken_loc);
}

}  // namespace

// long: one pass of a small lexer (strings, comments, headers, keys, values,
// arrays and inline tables) whose states share the position counters, as in
// check_key_depth.
void check_toml_text(std::string_view text, const std::string& source_name) {
  uint32_t line = 1, col = 1;
  auto fail = [&](const std::string& message) {
    throw Error(SourceLoc{source_name, line, col}, message);
  };
  // Every byte first: the UTF-8 is valid, so positions below are characters.
  for (size_t i = 0; i < text.size();) {
    const auto [cp, n] = decode_utf8(text, i);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02X",
                    static_cast<unsigned>(static_cast<uint8_t>(text[i])));
      fail(std::string("invalid UTF-8 (byte ") + buf + "); effect files are UTF-8 text");
    }
    if (cp == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += n;
  }
  line = 1;
  col = 1;
  auto advance = [&](size_t& i, size_t n) {
    for (size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        ++col;
      }
    }
  };
  // The open '[' (arrays) and '{' (inline tables) of a value, and for each
  // level whether a value (not a key) comes next there; [0] is the top.
  std::string nest;
  std::vector<bool> in_value{false};
  bool line_start = true;    // only whitespace so far on this line
  bool value_start = false;  // a value may begin here ('=', an array's '[' or ',')
  bool bare = false;         // inside a bare value (a number, true, a date...)
  bool expect_name = false;  // a table header's '[' or '[[' was the last token
  bool in_header = false;    // on a table header's line
  // A UTF-8 byte-order mark may start the file (toml++ skips it).
  for (size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; i < text.size();) {
    const char c = text[i];
    if (expect_name && c != ' ' && c != '\t') {
      if (!bare_key_char(c) && c != '"' && c != '\'' && c != ']')
        fail("a table header needs a name: a bare key (letters, digits, _ and -) or a quoted one");
      expect_name = false;
    }
    // What ends a bare value: toml++ scans one character by character,
    // testing each (the non-ASCII ones too) for its end.
    if (bare && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' ||
                 c == '}' || c == '#'))
      bare = false;
    if (c == ' ' || c == '\t' || c == '\r') {
      advance(i, 1);
      continue;
    }
    if (c == '\n') {
      line_start = true;
      in_header = false;
      if (nest.empty()) in_value[0] = false;
      advance(i, 1);
      continue;
    }
    if (c == '#') {  // a comment, to the end of the line
      while (i < text.size() && text[i] != '\n') advance(i, 1);
      continue;
    }
    if (value_start && c == '}' && !nest.empty() && nest.back() == '[')
      fail("expected a value or ']' in this array, saw '}'");
    const bool at_value_start = value_start;
    value_start = false;
    const bool was_line_start = line_start;
    line_start = false;
    if (static_cast<unsigned char>(c) >= 0x80) {
      const uint32_t cp = decode_utf8(text, i).first;
      fail("the character " + code_point_name(cp) +
           " is outside a string or comment (TOML allows it only in those)");
    }
    if (bare) {
      advance(i, 1);
      continue;
    }
    const bool value = in_value.back();
    if (c == '"' || c == '\'') {  // a key, or a value's start (else toml++ stops at the quote)
      check_string(
          text, i, in_header,
          [&](const SourceLoc& at, const std::string& message) { throw Error(at, message); },
          advance,
          [&] {
            return SourceLoc{source_name, line, col};
          });
      continue;
    }
    if (c == '[' && nest.empty() && was_line_start && !value) {  // a table header
      advance(i, text.substr(i, 2) == "[[" ? 2 : 1);
      expect_name = true;
      in_header = true;
      continue;
    }
    if (c == '[' && value) {
      nest.push_back('[');
      in_value.push_back(true);
      value_start = true;
    } else if (c == '{' && value) {
      nest.push_back('{');
      in_value.push_back(false);
    } else if ((c == ']' || c == '}') && !nest.empty() && nest.back() == (c == ']' ? '[' : '{')) {
      nest.pop_back();
      in_value.pop_back();
    } else if (c == ',' && !nest.empty()) {
      in_value.back() = nest.back() == '[';  // the next element, or the next key
      value_start = nest.back() == '[';
    } else if (c == '=' && !value) {
      in_value.back() = true;
      value_start = true;
    } else if (value && (at_value_start || c != ']')) {
      bare = c != ']' && c != '}' && c != ',' && c != '=';
    }
    advance(i, 1);
  }
}

}  // namespace spritz::toml_load
