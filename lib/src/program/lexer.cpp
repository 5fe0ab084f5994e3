// The program language's lexer: GLSL's tokens as Godot's shading language
// writes them, preprocessor lines kept whole for preprocess.cpp.
#include "lexer.h"

#include <array>
#include <cstdio>
#include <cstdlib>

namespace spritz::program {
namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}
bool hex_digit(char c) {
  return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Longest first, so "<<=" is not read as "<<" then "=".
constexpr std::array<std::string_view, 43> kPuncts = {
    "<<=", ">>=", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "==", "!=", "<=",
    ">=",  "&&",  "||", "^^", "<<", ">>", "+",  "-",  "*",  "/",  "%",  "=",  "<",  ">",  "!",
    "~",   "&",   "|",  "^",  "?",  ":",  ",",  ";",  ".",  "(",  ")",  "[",  "]"};

class Lexer {
 public:
  Lexer(std::string_view text, std::vector<LexError>& errors, Pos start = {1, 1},
        bool directives = true)
      : s_(text), errors_(errors), line_(start.line), col_(start.col), directives_(directives) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      skip_space_and_comments();
      Token t;
      t.pos = pos();
      if (i_ >= s_.size()) {
        out.push_back(t);
        return out;
      }
      const char c = s_[i_];
      if (c == '#') {
        if (!directives_ || (!out.empty() && out.back().pos.line == t.pos.line)) {
          error(t.pos, directives_ ? "a # directive must start its line"
                                   : "the # and ## macro operators are not supported");
          advance();
          continue;
        }
        advance();
        t.kind = Tok::kDirective;
        t.pos = pos();
        t.text = directive_line();
        out.push_back(std::move(t));
        continue;
      }
      if (ident_start(c)) {
        t.kind = Tok::kIdent;
        const size_t b = i_;
        while (i_ < s_.size() && ident_char(s_[i_])) advance();
        t.text = std::string(s_.substr(b, i_ - b));
      } else if (digit(c) || (c == '.' && i_ + 1 < s_.size() && digit(s_[i_ + 1]))) {
        number(t);
      } else if (c == '{' || c == '}') {
        t.kind = Tok::kPunct;
        t.text = std::string(1, c);
        advance();
      } else if (!punct(t)) {
        error(t.pos, stray(c));
        advance();
        continue;
      }
      out.push_back(std::move(t));
    }
  }

 private:
  Pos pos() const { return {line_, col_}; }
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else if ((static_cast<unsigned char>(s_[i_]) & 0xC0) != 0x80) {
      ++col_;  // one column per UTF-8 character, not per byte
    }
    ++i_;
  }
  void error(Pos p, std::string message) { errors_.push_back({p, std::move(message)}); }
  void skip_line() {
    while (i_ < s_.size() && s_[i_] != '\n') advance();
  }
  // The rest of a directive's line, a backslash before the newline joining
  // the next; comments become spaces.
  std::string directive_line() {
    std::string out;
    while (i_ < s_.size() && s_[i_] != '\n') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size() && (s_[i_ + 1] == '\n' || s_[i_ + 1] == '\r')) {
        advance();
        if (s_[i_] == '\r') advance();
        if (i_ < s_.size() && s_[i_] == '\n') advance();
        out += ' ';
      } else if (s_[i_] == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        skip_line();
      } else if (s_[i_] == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        const uint32_t before = line_;
        skip_space_and_comments();
        out += ' ';
        if (line_ != before) break;  // a comment across lines ends the directive
      } else {
        out += s_[i_];
        advance();
      }
    }
    return out;
  }

  static std::string stray(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x21 && u < 0x7f) return std::string("unexpected character '") + c + "'";
    char buf[48];
    std::snprintf(buf, sizeof buf, "unexpected byte 0x%02x", u);
    return buf;
  }

  void skip_space_and_comments() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance();
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '/') {
        skip_line();
      } else if (c == '/' && i_ + 1 < s_.size() && s_[i_ + 1] == '*') {
        const Pos p = pos();
        advance(), advance();
        while (i_ < s_.size() && !(s_[i_] == '*' && i_ + 1 < s_.size() && s_[i_ + 1] == '/'))
          advance();
        if (i_ >= s_.size()) {
          error(p, "this comment is never closed with */");
          return;
        }
        advance(), advance();
      } else {
        return;
      }
    }
  }

  // A number: decimal or 0x hex integers (u for unsigned), or a float with
  // a point and/or an exponent, or with an f suffix.
  void number(Token& t) {
    const size_t b = i_;
    if (s_[i_] == '0' && i_ + 1 < s_.size() && (s_[i_ + 1] == 'x' || s_[i_ + 1] == 'X')) {
      advance(), advance();
      while (i_ < s_.size() && hex_digit(s_[i_])) advance();
      integer_literal(t, b, 16);
      return;
    }
    bool is_float = false;
    while (i_ < s_.size() && digit(s_[i_])) advance();
    if (i_ < s_.size() && s_[i_] == '.') {
      is_float = true;
      advance();
      while (i_ < s_.size() && digit(s_[i_])) advance();
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t j = i_ + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && digit(s_[j])) {
        is_float = true;
        while (i_ < j) advance();
        while (i_ < s_.size() && digit(s_[i_])) advance();
      }
    }
    // A decimal integer with an f suffix is a float too, as Godot reads it
    // (`1024f`; GLSL itself wants a point).
    if (!is_float && i_ < s_.size() && (s_[i_] == 'f' || s_[i_] == 'F') &&
        !(i_ + 1 < s_.size() && ident_char(s_[i_ + 1])))
      is_float = true;
    if (!is_float) {
      integer_literal(t, b, 10);
      return;
    }
    t.kind = Tok::kFloat;
    t.text = std::string(s_.substr(b, i_ - b));
    t.number = std::strtod(t.text.c_str(), nullptr);
    if (i_ < s_.size() && (s_[i_] == 'f' || s_[i_] == 'F')) advance();
    end_of_number(t);
  }

  void integer_literal(Token& t, size_t b, int base) {
    t.text = std::string(s_.substr(b, i_ - b));
    t.kind = Tok::kInt;
    const std::string digits = base == 16 ? t.text.substr(2) : t.text;
    uint64_t v = 0;
    bool big = digits.empty();
    for (const char c : digits) {
      const uint64_t d =
          digit(c) ? static_cast<uint64_t>(c - '0') : static_cast<uint64_t>((c | 0x20) - 'a' + 10);
      v = v * static_cast<uint64_t>(base) + d;
      if (v > 0xFFFFFFFFull) big = true;
    }
    if (big) error(t.pos, "integer literal " + t.text + " does not fit in 32 bits");
    t.integer = big ? 0 : v;
    if (i_ < s_.size() && (s_[i_] == 'u' || s_[i_] == 'U')) {
      t.kind = Tok::kUint;
      advance();
    }
    end_of_number(t);
  }

  void end_of_number(const Token& t) {
    if (i_ < s_.size() && ident_char(s_[i_])) {
      error(t.pos, "malformed number '" + t.text + s_[i_] + "...'");
      while (i_ < s_.size() && ident_char(s_[i_])) advance();
    }
  }

  bool punct(Token& t) {
    for (const std::string_view p : kPuncts)
      if (s_.substr(i_, p.size()) == p) {
        t.kind = Tok::kPunct;
        t.text = std::string(p);
        for (size_t k = 0; k < p.size(); ++k) advance();
        return true;
      }
    return false;
  }

  std::string_view s_;
  std::vector<LexError>& errors_;
  size_t i_ = 0;
  uint32_t line_ = 1, col_ = 1;
  bool directives_ = true;
};

}  // namespace

std::vector<Token> lex(std::string_view text, std::vector<LexError>& errors) {
  return Lexer(text, errors).run();
}

std::vector<Token> lex_at(std::string_view text, Pos start, std::vector<LexError>& errors) {
  return Lexer(text, errors, start, false).run();
}

}  // namespace spritz::program
