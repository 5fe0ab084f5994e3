// The program language's tokens (docs/programs.md): identifiers, keywords,
// numbers, operators, each with its line and column in the program text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spritz::program {

// A place in the program text, 1-based.
struct Pos {
  uint32_t line = 0, col = 0;
};

enum class Tok {
  kEnd,
  kIdent,
  kInt,    // 12, 0x1F
  kUint,   // 12u
  kFloat,  // 1.0, .5, 1e3, 2.0f
  kPunct,  // an operator or punctuation; `text` says which
  // A preprocessor line (preprocess.h): `text` is what follows its '#' (a
  // line ending in \ continued), `pos` where that starts.
  kDirective,
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;
  Pos pos;
  double number = 0;     // kFloat
  uint64_t integer = 0;  // kInt, kUint (checked against 32 bits by the compiler)
};

struct LexError {
  Pos pos;
  std::string message;
};

// Splits `text` into tokens, comments dropped; the last token is kEnd. A
// line whose first character is '#' is one kDirective token. Problems (a
// stray character, an unclosed comment) are added to `errors` and lexing
// goes on.
std::vector<Token> lex(std::string_view text, std::vector<LexError>& errors);

// The same for a directive's text, which starts at `start` and has no
// directives of its own.
std::vector<Token> lex_at(std::string_view text, Pos start, std::vector<LexError>& errors);

}  // namespace spritz::program
