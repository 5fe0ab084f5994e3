#include "toml/preflight.h"

#include <cstdint>

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
