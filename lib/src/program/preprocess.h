// The program language's preprocessor (docs/programs.md, "Preprocessor"):
// the part of GLSL's that Godot's shading language has and real particle
// shaders use. #define (object-like and function-like), #undef, #if,
// #ifdef, #ifndef, #elif, #else, #endif and #error, over the lexer's
// tokens. Not #include (a program is one file), nor the # and ## operators.
#pragma once

#include <string>
#include <vector>

#include "lexer.h"

namespace spritz::program {

// The tokens with directives carried out and macros expanded; an expanded
// token takes the place of the name that was expanded, so that a message
// points at the use. Problems go to `errors`.
std::vector<Token> preprocess(const std::vector<Token>& tokens, std::vector<LexError>& errors);

}  // namespace spritz::program
