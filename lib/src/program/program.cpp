// Program: the public face of the compiler (spritz/program.h). Compiling
// is lexing, parsing and checking with code generation; every problem is
// reported at its place in the file that holds the program, with the line
// and a caret under the place.
#include "spritz/program.h"

#include <string>

#include "compiled.h"
#include "compiler.h"
#include "godot_glue.h"
#include "lexer.h"
#include "parser.h"
#include "preprocess.h"

namespace spritz {
namespace {

// Line `line` (1-based) of `text`, without its end.
std::string_view line_of(std::string_view text, uint32_t line) {
  size_t at = 0;
  for (uint32_t l = 1; l < line; ++l) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return {};
    at = nl + 1;
  }
  size_t end = text.find('\n', at);
  if (end == std::string_view::npos) end = text.size();
  if (end > at && text[end - 1] == '\r') --end;
  return text.substr(at, end - at);
}

// The message, then the line and a caret under column `col` (tabs kept, so
// that the caret lines up in a terminal).
Diagnostic located(const ProgramOrigin& o, std::string_view text, program::Pos p,
                   std::string message) {
  Diagnostic d;
  d.loc.file = o.file;
  if (p.line > 0) {
    d.loc.line = o.line + p.line - 1;
    d.loc.col = p.line == 1 ? o.col + p.col - 1 : p.col;
    const std::string_view line = line_of(text, p.line);
    if (!line.empty() && line.size() < 400) {
      std::string caret;
      uint32_t col = 1;
      for (size_t i = 0; i < line.size() && col < p.col; ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        if ((c & 0xC0) == 0x80) continue;
        caret += line[i] == '\t' ? '\t' : ' ';
        ++col;
      }
      message += "\n    " + printable(line) + "\n    " + caret + "^";
    }
  }
  d.message = std::move(message);
  return d;
}

// A Godot shader's glue (godot_glue.h), parsed and added to its unit. The
// glue's tokens have no place in the file (line 0).
void add_glue(program::Unit& unit, const GodotDialect& g,
              std::vector<program::ParseError>& errors) {
  const std::string glue = program::godot_glue(unit, g, errors);
  if (!errors.empty()) return;
  std::vector<program::LexError> lex_errors;
  std::vector<program::Token> tokens = program::lex(glue, lex_errors);
  for (program::Token& t : tokens) t.pos = program::Pos{};
  std::vector<program::ParseError> glue_errors;
  program::Unit parsed = program::parse(tokens, glue_errors);
  if (!lex_errors.empty() || !glue_errors.empty())
    throw Error("internal error: spritz's glue for Godot shaders does not parse: " +
                (lex_errors.empty() ? glue_errors[0].message : lex_errors[0].message));
  program::merge_glue(unit, std::move(parsed));
}

}  // namespace

Program::Program() : compiled_(std::make_unique<program::Compiled>()) {}
Program::~Program() = default;

std::shared_ptr<const Program> Program::compile(std::string_view text, const ProgramOrigin& origin,
                                                std::vector<Diagnostic>& warnings,
                                                const ProgramNames& names,
                                                const GodotDialect* godot) {
  std::shared_ptr<Program> p(new Program());
  p->compiled_->origin = origin;
  std::vector<Diagnostic> errors;
  if (!valid_utf8(text))
    throw Error(SourceLoc{origin.file, origin.line, origin.col}, "the program is not valid UTF-8");
  std::vector<program::LexError> lex_errors;
  const std::vector<program::Token> tokens =
      program::preprocess(program::lex(text, lex_errors), lex_errors);
  for (const auto& e : lex_errors) errors.push_back(located(origin, text, e.pos, e.message));
  std::vector<program::ParseError> parse_errors, glue_warnings;
  if (godot) program::check_godot_tokens(tokens, parse_errors, glue_warnings);
  program::Unit unit = program::parse(tokens, parse_errors);
  if (godot && parse_errors.empty()) add_glue(unit, *godot, parse_errors);
  for (const auto& e : parse_errors) errors.push_back(located(origin, text, e.pos, e.message));
  for (const auto& e : glue_warnings) warnings.push_back(located(origin, text, e.pos, e.message));
  if (errors.empty()) {
    program::Compiler c(*p->compiled_);
    c.names = names;
    c.godot = godot != nullptr;
    for (const program::Function& f : unit.functions) c.godot3 = c.godot3 || f.name == "vertex";
    c.compile(unit);
    for (const auto& e : c.errors)
      (e.warning ? warnings : errors).push_back(located(origin, text, e.pos, e.message));
  }
  if (!errors.empty()) {
    sort_by_location(errors);
    throw Error(std::move(errors));
  }
  // Where pose() places the particle and nothing sets its velocity, the
  // velocity is the position's derivative (model.md 11.1).
  const program::Compiled& c = *p->compiled_;
  const auto wrote = [&](ProgramVar v) { return (c.writes >> static_cast<uint32_t>(v)) & 1u; };
  if (c.has_stage[static_cast<size_t>(Stage::kPose)] &&
      !c.has_stage[static_cast<size_t>(Stage::kProcess)] && wrote(ProgramVar::kPosition) &&
      !wrote(ProgramVar::kVelocity))
    program::add_pose_tangents(*p->compiled_);
  program::verify(*p->compiled_);
  return p;
}

bool Program::has(Stage s) const {
  return compiled_->has_stage[static_cast<size_t>(s)];
}

bool Program::writes(ProgramVar v) const {
  return (compiled_->writes >> static_cast<uint32_t>(v)) & 1u;
}

bool Program::moves_by_velocity() const {
  return compiled_->move_by_velocity;
}

bool Program::emits() const {
  return compiled_->emits;
}

const std::vector<UniformInfo>& Program::uniforms() const {
  return compiled_->uniforms;
}

const std::vector<SamplerInfo>& Program::samplers() const {
  return compiled_->samplers;
}

size_t Program::instructions(Stage s) const {
  return compiled_->stage[static_cast<size_t>(s)].size();
}

}  // namespace spritz
