// A compiled program as the compiler leaves it and the machine runs it:
// code for each function, the register files' layout and sizes, constants.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "code.h"
#include "spritz/program.h"

namespace spritz::program {

// The built-in variables' registers (program.h's ProgramVar, then the
// read-only ones). Float registers:
inline constexpr uint32_t kFPosition = 0;  // x, y
inline constexpr uint32_t kFVelocity = 2;
inline constexpr uint32_t kFColor = 4;  // r, g, b, a
inline constexpr uint32_t kFSize = 8;   // w, h
inline constexpr uint32_t kFRotation = 10;
inline constexpr uint32_t kFEmission = 11;
inline constexpr uint32_t kFCustom = 12;  // 4 each: CUSTOM, USERDATA1 .. 6
inline constexpr uint32_t kFAge = 40;
inline constexpr uint32_t kFLifetime = 41;
inline constexpr uint32_t kFTime = 42;
inline constexpr uint32_t kFBirth = 43;
inline constexpr uint32_t kFDelta = 44;
// A Godot shader's own state (godot_glue.cpp), kept between its steps:
inline constexpr uint32_t kFGodotTransform = 45;  // TRANSFORM, 16, column-major
inline constexpr uint32_t kFGodotVelocity = 61;   // VELOCITY, 3
inline constexpr uint32_t kFGodotBase = 64;       // the quad's size before TRANSFORM, 2
inline constexpr uint32_t kFGodotAnchor = 66;     // the birth place particle space hangs from, 2
inline constexpr uint32_t kFGodotDelta = 68;      // DELTA, node seconds
inline constexpr uint32_t kFGodotLifetime = 69;   // LIFETIME, node seconds
// What emit_subparticle() gave a child (model.md 11.8), read by its start:
// the transform (16, column-major), velocity (3), color (4) and custom (4),
// the record kEmit takes; then the canvas point the parent's particle space
// hangs from (2).
inline constexpr uint32_t kFGodotEmitted = 70;
inline constexpr uint32_t kGodotEmittedSize = 27;
inline constexpr uint32_t kFGodotEmittedOrigin = 97;
inline constexpr uint32_t kFEmitAt = 99;  // where this step ends: a child's birth
inline constexpr uint32_t kFBuiltins = 100;
// Word registers:
inline constexpr uint32_t kUActive = 0;
inline constexpr uint32_t kUKey = 1;
inline constexpr uint32_t kUIndex = 2;
inline constexpr uint32_t kUStream = 3;        // the particle's stream st (model.md 2)
inline constexpr uint32_t kUMask = 4;          // the lanes a function runs for
inline constexpr uint32_t kUTurns = 5;         // loop turns this evaluation (the budget)
inline constexpr uint32_t kUNoiseField = 6;    // the emitter's noise field (channel 37)
inline constexpr uint32_t kUGodotRestart = 7;  // a Godot shader's RESTART
inline constexpr uint32_t kUGodotNumber = 8;   // NUMBER
inline constexpr uint32_t kUGodotIndex = 9;    // INDEX
inline constexpr uint32_t kUGodotSeed = 10;    // RANDOM_SEED
inline constexpr uint32_t kUEmitterSeed = 11;  // the emitter's seed s_e (model.md 2)
// The FLAG_EMIT_* a child was emitted with, bit 31 set for an emitted child.
inline constexpr uint32_t kUGodotEmittedFlags = 12;
inline constexpr uint32_t kUGodotEmittedChild = 0x80000000u;
// RESTART_POSITION, _ROT_SCALE, _VELOCITY, _COLOR, _CUSTOM (5).
inline constexpr uint32_t kUGodotRestartParts = 13;
inline constexpr uint32_t kUEmitCount = 18;  // emit_subparticle() calls that emitted, this life
inline constexpr uint32_t kUEmitOpen = 19;   // 1: this step may emit (a whole step)
inline constexpr uint32_t kUBuiltins = 20;

// A scalar's register: which file, which slot.
struct Reg {
  uint32_t slot = 0;
  bool f = true;
};

struct Compiled {
  ProgramOrigin origin;
  std::vector<Instr> prologue;  // global consts and uniforms' defaults
  std::array<std::vector<Instr>, kStages> stage;
  std::array<bool, kStages> has_stage{};
  uint32_t f_slots = kFBuiltins, u_slots = kUBuiltins;
  std::vector<FConst> fconsts;
  std::vector<UConst> uconsts;
  std::vector<LoopSite> loops;
  std::vector<UniformInfo> uniforms;
  std::vector<std::vector<Reg>> uniform_regs;  // each uniform's scalars
  uint32_t writes = 0;                         // bit ProgramVar: written by some function
  bool move_by_velocity = true;
  bool emits = false;                  // some function calls emit_subparticle() (a Godot 4 shader)
  uint32_t curves = 0, gradients = 0;  // how many the effect names (ProgramNames)
  std::vector<SamplerInfo> samplers;   // the sampler2D uniforms, in the order declared
  // pose() with forward derivatives (tangent.cpp), when pose() places the
  // particle and nothing sets its velocity: the tangent of float register r
  // is register r + tangent_offset. 0 and empty otherwise.
  uint32_t tangent_offset = 0;
  std::vector<Instr> pose_tangent;
};

// Adds pose_tangent to `c` (and the registers it needs).
void add_pose_tangents(Compiled& c);

// What an instruction's operands are: 'F' a float register, 'U' a word
// register, 'J' an instruction index, 'L' a loop, 'C' a curve, 'G' a
// gradient, 'I' a small number, 'S' a sampler's channel (4 s + k), '-'
// unused. For d, a, b, c.
const char* operand_kinds(Op op);

// The code as text, one instruction a line (tests, debugging).
std::string disassemble(const std::vector<Instr>& code);

// Throws spritz::Error when any operand is out of its register file or
// code: the machine trusts the compiler, and this holds it to that.
void verify(const Compiled& c);

}  // namespace spritz::program
