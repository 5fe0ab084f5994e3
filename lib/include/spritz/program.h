// Programs (docs/programs.md, model.md 11): per-particle functions users
// write in a small GLSL-like language, compiled once when an effect loads
// and run by a batched virtual machine, so a program's particle is still a
// pure function of its key and the clock.
//
// Why spritz has its own language rather than a library: none in Debian 12
// gives GLSL's syntax and types, batches of particles, the same bits on
// x86-64 and arm64 and forward derivatives together (LuaJIT fuses
// multiply-adds on arm64; ExprTk is not packaged; muparser has no vectors
// or statements). The compiler is lib/src/program/; its instruction set is
// lib/src/program/code.h.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/error.h"

namespace spritz {

// The three functions a program may define (model.md 11).
enum class Stage : uint8_t { kStart = 0, kProcess = 1, kPose = 2 };
inline constexpr int kStages = 3;

// The built-in variables (docs/programs.md), in the order of their float
// registers. Every one a program can write is a property it may own.
enum class ProgramVar : uint8_t {
  kPosition,   // vec2, design px, y up
  kVelocity,   // vec2, px/s
  kColor,      // vec4: rgb as the TOML writes colours, a = opacity
  kSize,       // vec2: w and h, design px
  kRotation,   // float, degrees counter-clockwise
  kEmission,   // float: light_emission
  kCustom,     // vec4, 0 at birth
  kUserdata1,  // vec4 .. kUserdata6
  kUserdata2,
  kUserdata3,
  kUserdata4,
  kUserdata5,
  kUserdata6,
  kActive,    // bool
  kLifetime,  // float, s: start() only
  kCount,
};

// Where a program's text came from, so that a message can point into the
// file that holds it: the text's first character is at (line, col) of
// `file` (a program inline in a TOML string starts where the string does).
struct ProgramOrigin {
  std::string file;
  uint32_t line = 1, col = 1;
};

// The names an effect gives a program besides its own: the emitter's
// `curves` and `gradients`, which curve(NAME, x) and gradient(NAME, x) read.
struct ProgramNames {
  std::vector<std::string> curves, gradients;
};

// A Godot particle shader run as written (docs/programs.md, "Godot particle
// shaders"; model.md 11.7): Godot's built-in variables (TRANSFORM, VELOCITY
// as a vec3, NUMBER, RESTART ..) in Godot's own units, mapped onto the
// particle by glue code spritz adds. The values are the emitter's `godot`
// table (docs/config.md).
struct GodotDialect {
  // The node's `amount`: Godot's INDEX is NUMBER mod amount.
  uint32_t amount = 1;
  // The node's speed_scale: DELTA and LIFETIME are in the node's seconds,
  // spritz's times this.
  double speed_scale = 1;
  // Godot's particle space to the canvas: a particle at p = TRANSFORM[3].xyz
  // is drawn at the emitter's birth place + (dot(to_canvas[0..2], p),
  // dot(to_canvas[3..5], p)) + offset, design px, y up.
  std::array<double, 6> to_canvas{1, 0, 0, 0, -1, 0};
  std::array<double, 2> offset{0, 0};
  // EMISSION_TRANSFORM, column-major (identity: local coordinates).
  std::array<double, 16> emission_transform{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
};

// A uniform as the program declares it.
struct UniformInfo {
  std::string name;
  std::string type;      // as written: "float", "vec4", "int" ...
  uint32_t scalars = 1;  // how many numbers it holds
  bool is_float = true;  // its numbers are floats (else int, uint or bool)
  bool is_bool = false;
  bool is_int = false;     // signed int (else uint when not float or bool)
  bool has_range = false;  // hint_range(min, max)
  double range_min = 0, range_max = 0;
};

// A `uniform sampler2D` as the program declares it (docs/programs.md,
// "Textures"): the hints that say how it reads.
struct SamplerInfo {
  std::string name;
  bool nearest = false;  // filter_nearest (and _mipmap): no bilinear blend
  bool repeat = false;   // repeat_enable: coordinates wrap instead of clamping
  // What it reads when the effect binds nothing to it: white (Godot's
  // default), or black / transparent (hint_default_black, hint_black,
  // hint_default_transparent).
  enum class Fallback : uint8_t { kWhite, kBlack, kTransparent } fallback = Fallback::kWhite;
};

// An image a sampler reads (docs/programs.md, "Textures"): the values the
// file stores, straight alpha, rows top to bottom, each channel as
// value * 65535 (an 8-bit value v is v * 257, so v / 255 exactly).
struct ProgramImage {
  int width = 0, height = 0;
  std::vector<uint16_t> rgba;
};

// Decodes an image file's bytes for a sampler (the library decodes no image
// formats itself: spritz::raster's decode_program_image does PNG). Throws
// spritz::Error naming `name` when the bytes do not decode.
using ProgramImageDecoder =
    std::function<ProgramImage(const std::vector<unsigned char>& bytes, const std::string& name)>;

namespace program {
struct Compiled;
class Machine;
}  // namespace program

// A compiled program: immutable, shared by every thread that runs it.
class Program {
 public:
  // Compiles `text`. Throws spritz::Error with every problem found (each at
  // its file:line:col, with the line and a caret); `warnings` gets the rest.
  static std::shared_ptr<const Program> compile(std::string_view text, const ProgramOrigin& origin,
                                                std::vector<Diagnostic>& warnings,
                                                const ProgramNames& names = {},
                                                const GodotDialect* godot = nullptr);
  ~Program();

  bool has(Stage s) const;
  // Whether any function writes `v` (the program owns it, model.md 11).
  bool writes(ProgramVar v) const;
  // Whether `render_mode disable_velocity` turns off process()'s move by
  // VELOCITY * DELTA after each step.
  bool moves_by_velocity() const;
  // Whether some function calls emit_subparticle() (a Godot 4 shader's
  // children, model.md 11.8).
  bool emits() const;
  const std::vector<UniformInfo>& uniforms() const;
  const std::vector<SamplerInfo>& samplers() const;
  const program::Compiled& compiled() const { return *compiled_; }
  // How many instructions each function compiled to (inspect, bench).
  size_t instructions(Stage s) const;

 private:
  Program();
  std::unique_ptr<program::Compiled> compiled_;
};

// The most loop turns one particle may take in one evaluation (all its
// loops, all its steps): past it, the run stops with an error naming the
// loop (docs/programs.md, "Limits").
inline constexpr uint32_t kProgramLoopBudget = 1u << 24;

}  // namespace spritz
