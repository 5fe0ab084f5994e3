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

// Splits `text` into tokens, comments dropped; the last token is kEnd.
// Problems (a stray character, an unclosed comment, a preprocessor line)
// are added to `errors` and lexing goes on.
std::vector<Token> lex(std::string_view text, std::vector<LexError>& errors);

}  // namespace spritz::program
