// Godot particle shaders run as written: the glue spritz adds around them,
// and the built-in variables they see (godot_glue.h; model.md 11.7).
//
// What Godot does each frame for a particle slot (its particles shader,
// drivers/gles3 and renderer_rd, read for this; in our words):
// - Godot 3: on the frame a slot restarts, its data is cleared (TRANSFORM
//   the identity, VELOCITY and CUSTOM 0, COLOR white) unless keep_data;
//   then vertex() runs with RESTART true, then TRANSFORM's origin moves by
//   VELOCITY * DELTA unless disable_velocity. Later frames run vertex() and
//   the move with RESTART false.
// - Godot 4: first the origin moves by VELOCITY * DELTA (the velocity the
//   last frame left) for a particle already active; then, on the restart
//   frame, start() runs; then process() runs, every frame, the restart
//   frame included (RESTART true there).
// spritz's process() steps are those frames: step k covers [k h, (k + 1) h)
// of the particle's age and leaves the state Godot shows at the frame that
// ends it, so the glue makes a step one Godot frame; pose() runs the
// restart frame (with DELTA 0) when no step has, and turns the state into
// the particle. Each life starts from the cleared state (Godot 4 and
// keep_data keep the slot's previous life: spritz has none to keep).
#include "godot_glue.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "compiler.h"
#include "spritz/hash.h"

namespace spritz::program {
namespace {

// The language's atan(y, x) (spritz's own, as every program's), named apart
// so that the check for C library calls does not take the glue's text for one.
constexpr const char* kAtan = "atan";

// A double as a float literal of the language, exactly (17 digits).
std::string lit(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  std::string s = b;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return "(" + s + ")";
}

const Function* find(const Unit& u, const std::string& name) {
  for (const Function& f : u.functions)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

void check_godot_tokens(const std::vector<Token>& tokens, std::vector<ParseError>& errors,
                        std::vector<ParseError>& warnings) {
  bool warned_collision = false;
  for (const Token& t : tokens) {
    if (t.kind != Tok::kIdent) continue;
    if (t.text.find("__") != std::string::npos)
      errors.push_back({t.pos, "'" + t.text +
                                   "': names with two underscores in a row are reserved (GLSL "
                                   "reserves them; spritz's glue for Godot shaders uses them)"});
    else if (!warned_collision && (t.text == "COLLIDED" || t.text == "COLLISION_NORMAL" ||
                                   t.text == "COLLISION_DEPTH")) {
      warned_collision = true;
      warnings.push_back({t.pos, t.text +
                                     ": spritz has no Godot particle colliders, so COLLIDED is "
                                     "always false (and COLLISION_NORMAL, COLLISION_DEPTH 0)"});
    }
  }
}

// long: the glue is one text, written in the order it runs.
std::string godot_glue(const Unit& unit, const GodotDialect& g, std::vector<ParseError>& errors) {
  const Function* vertex = find(unit, "vertex");
  const Function* start = find(unit, "start");
  const Function* process = find(unit, "process");
  for (const char* other : {"fragment", "light"})
    if (const Function* f = find(unit, other))
      errors.push_back({f->pos, std::string(other) +
                                    "() belongs to canvas_item and spatial shaders, not to "
                                    "particles"});
  if (vertex && (start || process))
    errors.push_back({vertex->pos,
                      "vertex() is Godot 3's particle function and start()/process() Godot "
                      "4's: a shader has one or the other"});
  if (!vertex && !start && !process)
    errors.push_back({Pos{1, 1},
                      "the shader defines none of start() and process() (Godot 4) or vertex() "
                      "(Godot 3)"});
  for (const Function* f : {vertex, start, process})
    if (f && (f->result.name != "void" || !f->params.empty()))
      errors.push_back({f->pos, f->name + "() takes no parameters and returns void"});
  bool moves = true;
  for (const auto& [mode, pos] : unit.render_modes)
    if (mode == "disable_velocity") moves = false;

  const auto& m = g.to_canvas;
  // The map's scale (design px a unit): a quad's size is its basis's
  // length in 3D times this, whatever the view (a blade of grass seen from
  // above keeps its height).
  const double scale = 0.5 * (std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) +
                              std::sqrt(m[3] * m[3] + m[4] * m[4] + m[5] * m[5]));
  std::string s;
  s += "const mat4 EMISSION_TRANSFORM = mat4(";
  for (int i = 0; i < 16; ++i) s += (i ? ", " : "") + lit(g.emission_transform[i]);
  s += ");\n";
  s += "const vec3 EMITTER_VELOCITY = vec3(0.0);\n"
       "const float AMOUNT_RATIO = 1.0;\n"
       "const float INTERPOLATE_TO_END = 0.0;\n"
       "const vec3 ATTRACTOR_FORCE = vec3(0.0);\n"
       "const bool COLLIDED = false;\n"
       "const vec3 COLLISION_NORMAL = vec3(0.0);\n"
       "const float COLLISION_DEPTH = 0.0;\n"
       "const uint FLAG_EMIT_POSITION = 1u;\n"
       "const uint FLAG_EMIT_ROT_SCALE = 2u;\n"
       "const uint FLAG_EMIT_VELOCITY = 4u;\n"
       "const uint FLAG_EMIT_COLOR = 8u;\n"
       "const uint FLAG_EMIT_CUSTOM = 16u;\n";
  // Particle space to the canvas (design px, y up), relative to the birth place.
  s += "vec2 __s_to_canvas(vec3 p) {\n  return vec2(dot(vec3(" + lit(m[0]) + ", " + lit(m[1]) +
       ", " + lit(m[2]) + "), p), dot(vec3(" + lit(m[3]) + ", " + lit(m[4]) + ", " + lit(m[5]) +
       "), p));\n}\n";
  // model.md 2's M, for RANDOM_SEED.
  s += "uint __s_mix(uint x) {\n"
       "  uint z = x + 0x9E3779B9u;\n"
       "  z = (z ^ (z >> 16u)) * 0x21F0AAADu;\n"
       "  z = (z ^ (z >> 15u)) * 0x735A2D97u;\n"
       "  return z ^ (z >> 15u);\n}\n";
  // A slot's restart: Godot's cleared particle, or for a child that
  // emit_subparticle() emitted, what it gave where its flags say so (the
  // rest cleared, with its RESTART_* true). Its place then hangs from the
  // parent's particle space (model.md 11.8).
  s += "void __s_start() {\n"
       "  __g_base = __s_size;\n"
       "  __g_anchor = __s_position;\n"
       "  uint __ef = __s_emitted_flags;\n"
       "  bool __child = (__ef & 0x80000000u) != 0u;\n"
       "  bool __p = __child && (__ef & 1u) != 0u, __rs = __child && (__ef & 2u) != 0u;\n"
       "  bool __v = __child && (__ef & 4u) != 0u, __c = __child && (__ef & 8u) != 0u;\n"
       "  bool __cu = __child && (__ef & 16u) != 0u;\n"
       "  TRANSFORM = mat4(1.0);\n"
       "  if (__rs) { TRANSFORM[0] = __s_emitted_xform[0]; TRANSFORM[1] = __s_emitted_xform[1]; "
       "TRANSFORM[2] = __s_emitted_xform[2]; }\n"
       "  if (__p) { TRANSFORM[3] = __s_emitted_xform[3]; __g_anchor = __s_emitted_origin - vec2(" +
       lit(g.offset[0]) + ", " + lit(g.offset[1]) +
       "); }\n"
       "  VELOCITY = __v ? __s_emitted_velocity : vec3(0.0);\n"
       "  COLOR = __c ? __s_emitted_color : vec4(1.0);\n"
       "  if (__cu) CUSTOM = __s_emitted_custom;\n"
       "  __g_restart = true;\n"
       "  __g_restart_position = !__p;\n"
       "  __g_restart_rot_scale = !__rs;\n"
       "  __g_restart_velocity = !__v;\n"
       "  __g_restart_color = !__c;\n"
       "  __g_restart_custom = !__cu;\n"
       "  __g_number = __s_key >> 1u;\n"
       "  __g_index = __g_number % " +
       std::to_string(g.amount) +
       "u;\n"
       "  __g_seed = __s_mix(__s_emitter_seed ^ (" +
       std::to_string(static_cast<uint32_t>(Channel::kGodotRandomSeed) + 1) +
       "u * 0x85EBCA77u));\n"
       "  __g_lifetime = __s_lifetime * " +
       lit(g.speed_scale) + ";\n}\n";
  // One Godot frame of the particle, dt spritz seconds long.
  s += "void __s_frame(float dt) {\n  __g_delta = dt * " + lit(g.speed_scale) + ";\n";
  if (vertex) {
    s += "  vertex();\n";
    if (moves) s += "  TRANSFORM[3].xyz += VELOCITY * __g_delta;\n";
  } else {
    std::string first = start ? "start();" : "";
    std::string later = moves ? "TRANSFORM[3].xyz += VELOCITY * __g_delta;" : "";
    s += "  if (__g_restart) {" + first + "} else {" + later + "}\n";
    if (process) s += "  process();\n";
  }
  s += "  __g_restart = false;\n"
       "  __g_restart_position = false;\n"
       "  __g_restart_rot_scale = false;\n"
       "  __g_restart_velocity = false;\n"
       "  __g_restart_color = false;\n"
       "  __g_restart_custom = false;\n}\n";
  s += "void __s_process() {\n  __s_frame(__s_delta);\n}\n";
  s += "void __s_pose() {\n"
       "  if (__g_restart) __s_frame(0.0);\n"
       "  vec2 b0 = __s_to_canvas(TRANSFORM[0].xyz), b1 = __s_to_canvas(TRANSFORM[1].xyz);\n"
       "  __s_position = __g_anchor + __s_to_canvas(TRANSFORM[3].xyz) + vec2(" +
       lit(g.offset[0]) + ", " + lit(g.offset[1]) +
       ");\n"
       "  __s_velocity = __s_to_canvas(VELOCITY) * " +
       lit(g.speed_scale) +
       ";\n"
       "  __s_size = __g_base * vec2(length(TRANSFORM[0].xyz), length(TRANSFORM[1].xyz)) * " +
       lit(scale) +
       ";\n"
       "  __s_rotation = degrees(" +
       kAtan + "(b0.y, b0.x));\n}\n";
  return s;
}

void merge_glue(Unit& unit, Unit glue) {
  std::vector<std::pair<int, size_t>> order;
  const size_t globals = unit.globals.size(), functions = unit.functions.size();
  for (const auto& [kind, i] : glue.order)
    if (kind == 2) order.emplace_back(2, globals + i);
  for (const auto& entry : unit.order) order.push_back(entry);
  for (const auto& [kind, i] : glue.order)
    if (kind == 3) order.emplace_back(3, functions + i);
  for (StmtPtr& g : glue.globals) unit.globals.push_back(std::move(g));
  for (Function& f : glue.functions) unit.functions.push_back(std::move(f));
  unit.order = std::move(order);
}

// Godot's built-in variables (its particle shader reference), backed by
// the particle's registers where spritz has the same thing (COLOR, CUSTOM,
// USERDATA, ACTIVE, TIME) and by the Godot registers of compiled.h where it
// does not; and, for the glue alone (names no shader may write), spritz's
// own under __s_ names and Godot's read-only ones writable under __g_.
void Compiler::declare_godot_builtins(Stage s) {
  const uint32_t mask = s == Stage::kProcess ? kAlways : kUMask;
  const auto add = [&](const char* n, Type t, std::vector<Reg> regs, int builtin,
                       const char* read_only) {
    add_builtin(n, t, std::move(regs), builtin, read_only, mask);
  };
  const auto f = float_regs;
  const auto w = [](uint32_t at) { return std::vector<Reg>{Reg{at, false}}; };
  const Type fl = Type::scalar(Base::kFloat), v2 = Type::vector(Base::kFloat, 2),
             v3 = Type::vector(Base::kFloat, 3), v4 = Type::vector(Base::kFloat, 4),
             b = Type::scalar(Base::kBool), ui = Type::scalar(Base::kUint),
             in = Type::scalar(Base::kInt);
  const auto pv = [](ProgramVar v) { return static_cast<int>(v); };
  const char* ro = "it is read-only in Godot's particle shaders";
  add("TRANSFORM", Type::matrix(4), f(kFGodotTransform, 16), -1, nullptr);
  add("VELOCITY", v3, f(kFGodotVelocity, 3), -1, nullptr);
  add("COLOR", v4, f(kFColor, 4), pv(ProgramVar::kColor), nullptr);
  add("CUSTOM", v4, f(kFCustom, 4), pv(ProgramVar::kCustom), nullptr);
  static const char* kUser[6] = {"USERDATA1", "USERDATA2", "USERDATA3",
                                 "USERDATA4", "USERDATA5", "USERDATA6"};
  for (uint32_t i = 0; i < 6; ++i)
    add(kUser[i], v4, f(kFCustom + 4 * (i + 1), 4),
        pv(ProgramVar::kUserdata1) + static_cast<int>(i), nullptr);
  add("ACTIVE", b, w(kUActive), pv(ProgramVar::kActive), nullptr);
  add("LIFETIME", fl, f(kFGodotLifetime, 1), -1, ro);
  add("DELTA", fl, f(kFGodotDelta, 1), -1, ro);
  add("TIME", fl, f(kFTime, 1), -1, ro);
  add("NUMBER", ui, w(kUGodotNumber), -1, ro);
  add("INDEX", godot3 ? in : ui, w(kUGodotIndex), -1, ro);
  add("RANDOM_SEED", ui, w(kUGodotSeed), -1, ro);
  add("RESTART", b, w(kUGodotRestart), -1, ro);
  static const char* kParts[5] = {"POSITION", "ROT_SCALE", "VELOCITY", "COLOR", "CUSTOM"};
  for (uint32_t i = 0; i < 5; ++i) {
    const std::string part = kParts[i];
    add_builtin(("RESTART_" + part).c_str(), b, w(kUGodotRestartParts + i), -1, ro, mask);
    std::string lower = part;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    add_builtin(("__g_restart_" + lower).c_str(), b, w(kUGodotRestartParts + i), -1, nullptr, mask);
  }
  // The glue's own.
  add("__s_position", v2, f(kFPosition, 2), pv(ProgramVar::kPosition), nullptr);
  add("__s_velocity", v2, f(kFVelocity, 2), pv(ProgramVar::kVelocity), nullptr);
  add("__s_size", v2, f(kFSize, 2), pv(ProgramVar::kSize), nullptr);
  add("__s_rotation", fl, f(kFRotation, 1), pv(ProgramVar::kRotation), nullptr);
  add("__s_lifetime", fl, f(kFLifetime, 1), -1, ro);
  add("__s_delta", fl, f(kFDelta, 1), -1, ro);
  add("__s_key", ui, w(kUKey), -1, ro);
  add("__s_emitter_seed", ui, w(kUEmitterSeed), -1, ro);
  add("__g_base", v2, f(kFGodotBase, 2), -1, nullptr);
  add("__g_anchor", v2, f(kFGodotAnchor, 2), -1, nullptr);
  add("__g_delta", fl, f(kFGodotDelta, 1), -1, nullptr);
  add("__g_lifetime", fl, f(kFGodotLifetime, 1), -1, nullptr);
  add("__g_restart", b, w(kUGodotRestart), -1, nullptr);
  add("__g_number", ui, w(kUGodotNumber), -1, nullptr);
  add("__g_index", ui, w(kUGodotIndex), -1, nullptr);
  add("__g_seed", ui, w(kUGodotSeed), -1, nullptr);
  add("__s_emitted_flags", ui, w(kUGodotEmittedFlags), -1, ro);
  add("__s_emitted_xform", Type::matrix(4), f(kFGodotEmitted, 16), -1, ro);
  add("__s_emitted_velocity", v3, f(kFGodotEmitted + 16, 3), -1, ro);
  add("__s_emitted_color", v4, f(kFGodotEmitted + 19, 4), -1, ro);
  add("__s_emitted_custom", v4, f(kFGodotEmitted + 23, 4), -1, ro);
  add("__s_emitted_origin", v2, f(kFGodotEmittedOrigin, 2), -1, ro);
}

}  // namespace spritz::program
