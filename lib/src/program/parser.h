// The program language's parser: tokens to a syntax tree (ast.h).
#pragma once

#include <string>
#include <vector>

#include "ast.h"
#include "lexer.h"

namespace spritz::program {

struct ParseError {
  Pos pos;
  std::string message;
};

// Parses a whole program. Every syntax error is added to `errors` (parsing
// resumes at the next statement or declaration), so one run reports them all.
Unit parse(const std::vector<Token>& tokens, std::vector<ParseError>& errors);

// Whether `name` is one of the language's type names (float .. mat4, void,
// sampler2D).
bool is_builtin_type(const std::string& name);

}  // namespace spritz::program
