// The program compiler's top level: structs, uniforms, global consts, the
// built-in variables, the entry functions start(), process() and pose(),
// messages for unknown names, and the constants placed after the stack.
#include <algorithm>
#include <array>
#include <set>

#include "compiler.h"
#include "parser.h"
#include "spritz/load.h"

namespace spritz::program {

// A body inlined at many calls reports each of its errors once.
void Compiler::error(Pos p, std::string message) {
  if (!reported_.insert({p.line, p.col, message}).second) return;
  errors.push_back(CompileError{p, std::move(message), false});
}

void Compiler::warn(Pos p, std::string message) {
  errors.push_back(CompileError{p, std::move(message), true});
}

Type Compiler::resolve(const TypeSpec& ts, const Expr* size, bool unsized, const Expr*) {
  Type t = type_from_name(ts.name, structs_);
  if (t.is_error()) {
    error(ts.pos, "unknown type '" + ts.name + "'");
    return t;
  }
  if (unsized) {
    error(ts.pos, "an array declared with [] needs a value to size it");
    return Type{};
  }
  if (size) {
    int64_t n;
    if (!const_int(*size, n)) {
      error(size->pos, "an array's size must be an integer constant");
      return Type{};
    }
    if (n < 1 || n > 4096) {
      error(size->pos, "an array's size must be 1 to 4096, found " + std::to_string(n));
      return Type{};
    }
    t.array = static_cast<uint32_t>(n);
  }
  return t;
}

// The value of an integer constant expression (array sizes, constant
// indices): literals, consts with such values, + - * / % and shifts.
bool Compiler::const_int(const Expr& e, int64_t& out, int depth) {
  if (depth > 32) return false;
  switch (e.kind) {
    case Expr::Kind::kInt:
    case Expr::Kind::kUint:
      out = static_cast<int64_t>(e.integer);
      if (e.kind == Expr::Kind::kInt && out > 2147483647) out -= 4294967296;
      return true;
    case Expr::Kind::kName: {
      const Variable* v = find(e.name);
      return v && v->is_const && v->const_init && v->type.is_integer() && v->type.is_scalar() &&
             const_int(*v->const_init, out, depth + 1);
    }
    case Expr::Kind::kUnary: {
      int64_t a;
      if ((e.op != "-" && e.op != "+") || !const_int(*e.args[0], a, depth + 1)) return false;
      out = e.op == "-" ? -a : a;
      return true;
    }
    case Expr::Kind::kBinary: {
      int64_t a, b;
      if (!const_int(*e.args[0], a, depth + 1) || !const_int(*e.args[1], b, depth + 1))
        return false;
      if (a < -(int64_t{1} << 32) || a > (int64_t{1} << 32) || b < -(int64_t{1} << 32) ||
          b > (int64_t{1} << 32))
        return false;
      if (e.op == "+")
        out = a + b;
      else if (e.op == "-")
        out = a - b;
      else if (e.op == "*")
        out = a * b;
      else if ((e.op == "/" || e.op == "%") && b != 0)
        out = e.op == "/" ? a / b : a % b;
      else if (e.op == "<<" && b >= 0 && b < 31)
        out = a * (int64_t{1} << b);
      else if (e.op == ">>" && b >= 0 && b < 31 && a >= 0)
        out = a >> b;
      else
        return false;
      return true;
    }
    default:
      return false;
  }
}

namespace {

// Godot's particle-shader built-ins and what a spritz program writes instead.
struct Foreign {
  const char* name;
  const char* instead;
};
constexpr std::array<Foreign, 21> kForeign = {{
    {"TRANSFORM", "POSITION, ROTATION and SIZE (2D, in canvas pixels, y up)"},
    {"RESTART", "start(), which runs once at birth"},
    {"RESTART_POSITION", "start()"},
    {"RESTART_ROT_SCALE", "start()"},
    {"RESTART_VELOCITY", "start()"},
    {"RESTART_COLOR", "start()"},
    {"RESTART_CUSTOM", "start()"},
    {"NUMBER", "KEY (the particle's key) or INDEX"},
    {"RANDOM_SEED", "KEY, or rand(k) for a random number"},
    {"EMISSION_TRANSFORM", "POSITION at birth (start() sees the emitter's place)"},
    {"EMITTER_VELOCITY", "VELOCITY"},
    {"INTERPOLATE_TO_END", "AGE / LIFETIME"},
    {"AMOUNT_RATIO", "the emitter's rate in the effect file"},
    {"ATTRACTOR_FORCE", "your own force in process() (spritz has no attractors)"},
    {"COLLIDED", "the emitter's collision table"},
    {"COLLISION_NORMAL", "the emitter's collision table"},
    {"COLLISION_DEPTH", "the emitter's collision table"},
    {"FRAGCOORD", "POSITION (a particle program has no fragments)"},
    {"UV", "nothing: a particle program has no fragments"},
    {"SCREEN_UV", "nothing: a particle program has no fragments"},
    {"VERTEX", "POSITION"},
}};

constexpr std::array<const char*, 7> kFragmentFunctions = {
    "dFdx", "dFdy", "fwidth", "dFdxCoarse", "dFdyCoarse", "dFdxFine", "dFdyFine"};

// Texture reads spritz does not have (it has texture, textureLod,
// texelFetch and textureSize).
constexpr std::array<const char*, 6> kTextureFunctions = {"textureGrad",      "textureProj",
                                                          "textureProjLod",   "textureOffset",
                                                          "texelFetchOffset", "textureGather"};

// The hints Godot's uniforms may carry that spritz reads or may ignore
// (docs/programs.md, "Uniforms").
bool accepted_hint(const std::string& name) {
  static const std::set<std::string> kAccepted = {"source_color",
                                                  "hint_color",
                                                  "hint_albedo",
                                                  "hint_black",
                                                  "hint_white",
                                                  "hint_black_albedo",
                                                  "hint_default_white",
                                                  "hint_default_black",
                                                  "hint_default_transparent",
                                                  "hint_normal",
                                                  "hint_aniso",
                                                  "hint_roughness_r",
                                                  "hint_roughness_g",
                                                  "hint_roughness_b",
                                                  "hint_roughness_a",
                                                  "hint_roughness_gray",
                                                  "hint_roughness_normal",
                                                  "filter_nearest",
                                                  "filter_linear",
                                                  "filter_nearest_mipmap",
                                                  "filter_linear_mipmap",
                                                  "filter_nearest_mipmap_anisotropic",
                                                  "filter_linear_mipmap_anisotropic",
                                                  "repeat_enable",
                                                  "repeat_disable",
                                                  "hint_enum",
                                                  "instance_index"};
  return kAccepted.count(name) > 0;
}

}  // namespace

void Compiler::unknown_name(const std::string& n, Pos p, bool function) {
  // Said once per place (an inlined body meets it at every call), before
  // the "did you mean" search, which is the costly part.
  if (!unknown_said_.insert({p.line, p.col}).second) return;
  for (const Foreign& f : kForeign)
    if (n == f.name) {
      error(p, n +
                   " is a Godot particle-shader built-in that spritz programs do not have; "
                   "use " +
                   f.instead + " (docs/programs.md, \"Coming from Godot\")");
      return;
    }
  if (function) {
    for (const char* t : kTextureFunctions)
      if (n == t) {
        error(p, n + "() is not supported; programs read textures with texture(), "
                     "textureLod(), texelFetch() and textureSize()");
        return;
      }
    for (const char* d : kFragmentFunctions)
      if (n == d) {
        error(p, n + "() is a fragment-shader derivative and has no meaning for a particle");
        return;
      }
  }
  // "Did you mean": the nearest visible name, function or built-in.
  std::vector<std::string> visible;
  for (const auto& s : scopes_)
    for (const Variable& v : s) visible.push_back(v.name);
  for (const auto& [fn, _] : functions_) visible.push_back(fn);
  for (const char* b :
       {"sin",       "cos",     "tan",         "atan",       "pow",        "exp",         "log",
        "sqrt",      "abs",     "sign",        "floor",      "ceil",       "fract",       "mod",
        "min",       "max",     "clamp",       "mix",        "step",       "smoothstep",  "length",
        "distance",  "dot",     "cross",       "normalize",  "reflect",    "rand",        "noise",
        "radians",   "degrees", "inversesqrt", "round",      "trunc",      "determinant", "inverse",
        "transpose", "texture", "textureLod",  "texelFetch", "textureSize"})
    visible.push_back(b);
  // Names of one or two letters are too short to guess at.
  const std::vector<std::string_view> candidates(visible.begin(), visible.end());
  const std::string best = n.size() < 3 ? std::string() : closest_match(n, candidates);
  std::string message = std::string(function ? "unknown function '" : "unknown name '") + n + "'";
  if (!best.empty()) message += "; did you mean '" + best + "'?";
  error(p, message);
}

void Compiler::declare_structs(const Unit&) {}

// long: the hints Godot's uniforms may carry, checked one by one.
void Compiler::check_uniform_hints(const UniformDecl& u, UniformInfo& info) {
  for (const UniformDecl::Hint& h : u.hints) {
    if (h.name == "hint_range") {
      int64_t lo, hi;
      std::vector<double> vals;
      for (const ExprPtr& a : h.args) {
        const Expr* x = a.get();
        bool neg = false;
        if (x->kind == Expr::Kind::kUnary && x->op == "-") {
          neg = true;
          x = x->args[0].get();
        }
        double v = 0;
        if (x->kind == Expr::Kind::kFloat)
          v = x->number;
        else if (const_int(*x, lo))
          v = static_cast<double>(lo);
        else {
          error(x->pos, "hint_range takes numbers");
          return;
        }
        vals.push_back(neg ? -v : v);
      }
      (void)hi;
      if (vals.size() < 2 || vals.size() > 3) {
        error(h.pos, "hint_range takes (min, max) or (min, max, step)");
        continue;
      }
      info.has_range = true;
      info.range_min = vals[0];
      info.range_max = vals[1];
    } else if (!accepted_hint(h.name)) {
      error(h.pos, "unknown uniform hint '" + h.name + "'");
    }
  }
}

// A sampler2D uniform: no registers; texture() and its kin name it, and the
// effect binds it to a curve, a gradient or an image (docs/programs.md,
// "Textures"). Its hints say how it filters, wraps and what it reads unbound.
void Compiler::declare_sampler(const UniformDecl& u, const Type& t) {
  if (t.is_array()) {
    error(u.pos, "arrays of samplers are not supported; declare one sampler2D uniform each");
    return;
  }
  if (u.init)
    error(u.init->pos,
          "a sampler2D has no default value: the effect binds it in the emitter's uniforms "
          "table (docs/programs.md, \"Textures\")");
  for (const SamplerInfo& other : out_.samplers)
    if (other.name == u.name) error(u.pos, "the uniform '" + u.name + "' is declared twice");
  SamplerInfo info;
  info.name = u.name;
  for (const UniformDecl::Hint& h : u.hints) {
    const std::string& n = h.name;
    if (n.rfind("filter_nearest", 0) == 0)
      info.nearest = true;
    else if (n == "repeat_enable")
      info.repeat = true;
    else if (n == "hint_black" || n == "hint_default_black" || n == "hint_black_albedo")
      info.fallback = SamplerInfo::Fallback::kBlack;
    else if (n == "hint_default_transparent")
      info.fallback = SamplerInfo::Fallback::kTransparent;
    else if (n == "hint_screen_texture" || n == "hint_depth_texture" ||
             n == "hint_normal_roughness_texture")
      error(h.pos, n + ": a particle program has no screen to read");
    else if (n == "hint_range" || n == "hint_enum")
      error(h.pos, n + " is a hint for numbers, not for a sampler2D");
    else if (!accepted_hint(n))
      error(h.pos, "unknown uniform hint '" + n + "'");
  }
  Variable& v = declare(u.name, t, u.pos);
  v.read_only = "it is a uniform (bind it in the emitter's uniforms table)";
  v.sampler = static_cast<int>(out_.samplers.size());
  out_.samplers.push_back(std::move(info));
}

void Compiler::declare_uniform(const UniformDecl& u) {
  const Type t = resolve(u.type, u.type.array_size.get(), u.type.unsized, nullptr);
  if (t.is_error()) return;
  if (t.base == Base::kSampler) return declare_sampler(u, t);
  if (t.base == Base::kStruct || t.base == Base::kVoid) {
    error(u.pos,
          "a uniform must be a number, vector, matrix or an array of them, not a " + name_of(t));
    return;
  }
  for (const UniformInfo& other : out_.uniforms)
    if (other.name == u.name) error(u.pos, "the uniform '" + u.name + "' is declared twice");
  Variable& v = declare(u.name, t, u.pos);
  v.read_only = "it is a uniform (set it in the emitter's uniforms table)";
  if (u.init) {
    const uint32_t wf = next_f_, wu = next_u_;
    const Value init = convert(expr(*u.init), t, u.init->pos, "the default of '" + u.name + "'");
    if (!init.type.is_error())
      for (size_t i = 0; i < v.regs.size(); ++i)
        emit(v.regs[i].f ? Op::kFMov : Op::kUMov, v.regs[i].slot, init.regs[i].slot);
    next_f_ = wf;
    next_u_ = wu;
  }
  UniformInfo info;
  info.name = u.name;
  info.type = name_of(t);
  info.scalars = count(t);
  info.is_float = t.base == Base::kFloat;
  info.is_bool = t.base == Base::kBool;
  info.is_int = t.base == Base::kInt;
  check_uniform_hints(u, info);
  out_.uniforms.push_back(info);
  out_.uniform_regs.push_back(v.regs);
}

void Compiler::add_builtin(const char* name, Type t, std::vector<Reg> regs, int builtin,
                           const char* read_only, uint32_t mask) {
  Variable v;
  v.name = name;
  v.type = t;
  v.regs = std::move(regs);
  v.mask = mask;
  v.builtin = builtin;
  if (read_only) v.read_only = read_only;
  scopes_.back().push_back(std::move(v));
}

std::vector<Reg> Compiler::float_regs(uint32_t at, uint32_t n) {
  std::vector<Reg> r;
  for (uint32_t i = 0; i < n; ++i) r.push_back(Reg{at + i, true});
  return r;
}

// The built-in variables (program.h, compiled.h) as variables of the entry
// function. In process() a step's writes are masked (lanes whose steps are
// done keep their state); in start() and pose() every lane runs.
void Compiler::declare_builtins(Stage s) {
  if (godot) return declare_godot_builtins(s);
  const uint32_t mask = s == Stage::kProcess ? kAlways : kUMask;
  const auto add = [&](const char* n, Type t, std::vector<Reg> regs, int builtin,
                       const char* read_only) {
    add_builtin(n, t, std::move(regs), builtin, read_only, mask);
  };
  const auto f = float_regs;
  const Type vec2 = Type::vector(Base::kFloat, 2), vec4 = Type::vector(Base::kFloat, 4);
  const Type fl = Type::scalar(Base::kFloat);
  add("POSITION", vec2, f(kFPosition, 2), static_cast<int>(ProgramVar::kPosition), nullptr);
  add("VELOCITY", vec2, f(kFVelocity, 2), static_cast<int>(ProgramVar::kVelocity), nullptr);
  add("COLOR", vec4, f(kFColor, 4), static_cast<int>(ProgramVar::kColor), nullptr);
  add("SIZE", vec2, f(kFSize, 2), static_cast<int>(ProgramVar::kSize), nullptr);
  add("ROTATION", fl, f(kFRotation, 1), static_cast<int>(ProgramVar::kRotation), nullptr);
  add("EMISSION", fl, f(kFEmission, 1), static_cast<int>(ProgramVar::kEmission), nullptr);
  add("CUSTOM", vec4, f(kFCustom, 4), static_cast<int>(ProgramVar::kCustom), nullptr);
  static const char* kUser[6] = {"USERDATA1", "USERDATA2", "USERDATA3",
                                 "USERDATA4", "USERDATA5", "USERDATA6"};
  for (uint32_t i = 0; i < 6; ++i)
    add(kUser[i], vec4, f(kFCustom + 4 * (i + 1), 4),
        static_cast<int>(ProgramVar::kUserdata1) + static_cast<int>(i), nullptr);
  add("ACTIVE", Type::scalar(Base::kBool), {Reg{kUActive, false}},
      static_cast<int>(ProgramVar::kActive), nullptr);
  const char* ro = "it is read-only (docs/programs.md, \"Built-in variables\")";
  add("AGE", fl, f(kFAge, 1), -1, ro);
  if (s == Stage::kStart)
    add("LIFETIME", fl, f(kFLifetime, 1), static_cast<int>(ProgramVar::kLifetime), nullptr);
  else
    add("LIFETIME", fl, f(kFLifetime, 1), -1,
        "a particle's lifetime is set once, in start() (docs/programs.md, \"Built-in "
        "variables\")");
  add("TIME", fl, f(kFTime, 1), -1, ro);
  add("BIRTH", fl, f(kFBirth, 1), -1, ro);
  add("DELTA", fl, f(kFDelta, 1), -1, ro);
  add("KEY", Type::scalar(Base::kUint), {Reg{kUKey, false}}, -1, ro);
  add("INDEX", Type::scalar(Base::kInt), {Reg{kUIndex, false}}, -1, ro);
}

// long: the order of a program's parts, each checked; the entry
// functions compiled; functions no entry calls still checked; constants
// placed after the stack.
void Compiler::compile(const Unit& unit) {
  if (!unit.shader_type.empty() && unit.shader_type != "particles")
    error(unit.shader_type_pos, "shader_type " + unit.shader_type +
                                    ": a spritz program is a particle program "
                                    "(shader_type particles, or no shader_type line)");
  for (const auto& [mode, pos] : unit.render_modes) {
    if (mode == "disable_velocity")
      out_.move_by_velocity = false;
    else if (mode == "keep_data" || mode == "disable_force" || mode == "collision_use_scale")
      warn(pos, "render_mode " + mode + " changes nothing in spritz");
    else
      error(pos, "unknown render_mode '" + mode + "' (spritz knows disable_velocity)");
  }
  if (godot) out_.move_by_velocity = false;  // the glue moves TRANSFORM (godot_glue.cpp)
  code_ = &out_.prologue;
  // The built-in constants in a scope of their own, outside the globals: a
  // program may declare its own (Godot 3 programs write `const float PI`).
  scopes_.emplace_back();
  const auto pi = [&](const char* n, double v) {
    Variable c;
    c.name = n;
    c.type = Type::scalar(Base::kFloat);
    c.regs = {fconst(v)};
    c.is_const = true;
    c.read_only = "it is a const";
    scopes_.back().push_back(std::move(c));
  };
  pi("PI", 3.14159265358979323846);
  pi("TAU", 6.28318530717958647692);
  pi("E", 2.71828182845904523536);
  scopes_.emplace_back();  // globals
  for (const auto& [kind, i] : unit.order) {
    if (kind == 0)
      declare_struct(unit.structs[i]);
    else if (kind == 1)
      declare_uniform(unit.uniforms[i]);
    else if (kind == 2)
      statement(*unit.globals[i]);
    else
      declare_function(unit.functions[i]);
  }
  const uint32_t globals_f = next_f_, globals_u = next_u_;
  static const char* kSpritzEntries[kStages] = {"start", "process", "pose"};
  static const char* kGlueEntries[kStages] = {"__s_start", "__s_process", "__s_pose"};
  const char* const* kEntries = godot ? kGlueEntries : kSpritzEntries;
  for (int s = 0; s < kStages; ++s) {
    const auto it = functions_.find(kEntries[s]);
    if (it == functions_.end()) continue;
    next_f_ = globals_f;
    next_u_ = globals_u;
    compile_entry(*it->second.front(), static_cast<Stage>(s));
  }
  check_uncalled(globals_f, globals_u);
  if (!out_.has_stage[0] && !out_.has_stage[1] && !out_.has_stage[2] && errors.empty())
    error(Pos{1, 1}, "the program defines none of start(), process() and pose()");
  out_.writes = writes_;
  out_.curves = static_cast<uint32_t>(names.curves.size());
  out_.gradients = static_cast<uint32_t>(names.gradients.size());
  place_constants();
}

void Compiler::declare_struct(const StructDecl& sd) {
  StructType st;
  st.name = sd.name;
  if (type_from_name(sd.name, structs_).base != Base::kError)
    error(sd.pos, "the type '" + sd.name + "' is already declared");
  for (const StructDecl::Field& f : sd.fields) {
    const Type t = resolve(f.type, f.type.array_size.get(), f.type.unsized, nullptr);
    if (t.base == Base::kVoid || t.base == Base::kSampler)
      error(f.pos, "a struct field cannot be a " + name_of(t));
    for (const StructType::Field& g : st.fields)
      if (g.name == f.name) error(f.pos, "the field '" + f.name + "' is declared twice");
    st.fields.push_back({f.name, t.is_error() ? Type::scalar(Base::kFloat) : t});
  }
  structs_.push_back(std::move(st));
}

void Compiler::declare_function(const Function& f) {
  static const std::set<std::string> kStagesNames = {"start", "process", "pose"};
  if (godot) {
    functions_[f.name].push_back(&f);  // godot_glue.cpp checked the entry points
    return;
  }
  if (f.name == "vertex")
    error(f.pos,
          "vertex() is Godot 3's particle function; a spritz program defines start() "
          "(at birth), process() (each step) and pose() (at the time asked for); "
          "`spritz import` translates Godot 3 programs");
  else if (f.name == "fragment" || f.name == "light")
    error(f.pos, f.name + "() belongs to canvas_item and spatial shaders, not to particles");
  if (kStagesNames.count(f.name) && (f.result.name != "void" || !f.params.empty()))
    error(f.pos, f.name + "() takes no parameters and returns void");
  if (f.result.name == "sampler2D" || f.result.name == "isampler2D")
    error(f.pos, f.name + "() cannot return a sampler2D: pass the uniform itself");
  if (is_builtin_type(f.name)) error(f.pos, "'" + f.name + "' is a type, not a function name");
  auto& list = functions_[f.name];
  if (kStagesNames.count(f.name) && !list.empty()) error(f.pos, f.name + "() is defined twice");
  list.push_back(&f);
}

void Compiler::compile_entry(const Function& f, Stage s) {
  std::vector<Instr>& code = out_.stage[static_cast<size_t>(s)];
  code_ = &code;
  out_.has_stage[static_cast<size_t>(s)] = true;
  stage_ = s;
  push_scope();
  declare_builtins(s);
  mask_ = kUMask;
  entry_returned_ = new_u().slot;
  emit(Op::kUMov, entry_returned_, uconst(0).slot);
  called_.insert(&f);
  block(f.body->body, true);
  pop_scope();
}

// Functions that no entry function calls are compiled once on their own,
// into code that is thrown away, so that their errors are reported too.
void Compiler::check_uncalled(uint32_t globals_f, uint32_t globals_u) {
  std::vector<Instr> scratch;
  for (const auto& [n, list] : functions_)
    for (const Function* f : list) {
      if (called_.count(f)) continue;
      next_f_ = globals_f;
      next_u_ = globals_u;
      code_ = &scratch;
      mask_ = kUMask;
      push_scope();
      std::vector<Value> params;
      for (const Param& p : f->params) {
        Variable& v = declare(
            p.name, resolve(p.type, p.type.array_size.get(), p.type.unsized, nullptr), p.pos);
        if (p.is_const) v.read_only = "it is a const parameter";
      }
      const Type rt = resolve(f->result, f->result.array_size.get(), f->result.unsized, nullptr);
      Value result = temp(rt);
      const Reg returned = new_u();
      calls_.push_back(FunctionFrame{f, returned.slot, result, rt});
      block(f->body->body, true);
      calls_.pop_back();
      pop_scope();
      scratch.clear();
    }
}

// Constants were numbered apart (kConstant | k): they go after the stack.
void Compiler::place_constants() {
  const uint32_t f0 = out_.f_slots, u0 = out_.u_slots;
  const auto place = [&](uint32_t& slot, char kind) {
    if (!(slot & kConstant)) return;
    slot = (slot & ~kConstant) + (kind == 'F' ? f0 : u0);
  };
  const auto fix = [&](std::vector<Instr>& code) {
    for (Instr& in : code) {
      const char* k = operand_kinds(in.op);
      uint32_t* ops[4] = {&in.d, &in.a, &in.b, &in.c};
      for (int i = 0; i < 4; ++i)
        if (k[i] == 'F' || k[i] == 'U') place(*ops[i], k[i]);
    }
  };
  fix(out_.prologue);
  for (auto& code : out_.stage) fix(code);
  for (FConst& c : out_.fconsts) c.slot += f0;
  for (UConst& c : out_.uconsts) c.slot += u0;
  out_.f_slots += static_cast<uint32_t>(out_.fconsts.size());
  out_.u_slots += static_cast<uint32_t>(out_.uconsts.size());
}

}  // namespace spritz::program
