// Godot particle shaders run as written (docs/programs.md, "Godot particle
// shaders"; model.md 11.7). A Godot shader is compiled with Godot's
// built-in variables in place of spritz's (compile_unit.cpp,
// declare_godot_builtins) and with glue, written in the language itself,
// that spritz adds: its entry functions __s_start, __s_process and __s_pose
// set up Godot's cleared particle, run the shader's start() and process()
// (Godot 4) or vertex() (Godot 3) once a step as Godot runs them once a
// frame, and turn Godot's TRANSFORM and VELOCITY into the particle's place,
// size and turn.
#pragma once

#include <string>
#include <vector>

#include "ast.h"
#include "lexer.h"
#include "parser.h"
#include "spritz/program.h"

namespace spritz::program {

// Problems a Godot shader's tokens show before parsing: names with two
// underscores (GLSL reserves them; the glue's are such names), Godot
// features spritz does not run. Warnings go to `warnings`.
void check_godot_tokens(const std::vector<Token>& tokens, std::vector<ParseError>& errors,
                        std::vector<ParseError>& warnings);

// The glue's text for `unit`, a parsed Godot shader, and `g`, the emitter's
// mapping; errors for a shader whose entry functions Godot would refuse.
std::string godot_glue(const Unit& unit, const GodotDialect& g, std::vector<ParseError>& errors);

// Adds `glue`'s declarations to `unit`: its consts before the shader's own
// (a shader's global const may use EMISSION_TRANSFORM), its functions after.
void merge_glue(Unit& unit, Unit glue);

}  // namespace spritz::program
