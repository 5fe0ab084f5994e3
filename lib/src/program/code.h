// The virtual machine's instruction set (docs/programs.md, "How programs
// run"). A compiled program is straight scalar code over two register
// files, one of doubles (float) and one of 32-bit words (int, uint, bool):
// vectors, matrices, arrays and structs are split into scalars when the
// program compiles, and every user function is inlined. Each instruction
// runs over a whole batch of particles (one lane each) before the next,
// so the cost of dispatching it is shared by the batch. Control flow that
// differs between lanes is run with masks: a mask is a word register of
// 0/1 per lane, and a store into a variable that outlives the masked
// region is a select.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lexer.h"

namespace spritz::program {

enum class Op : uint8_t {
  // Float (F registers): d = op(a, b, c).
  kFMov,
  kFNeg,
  kFAdd,
  kFSub,
  kFMul,
  kFDiv,
  kFMin,
  kFMax,
  kFAbs,
  kFSign,
  kFFloor,
  kFCeil,
  kFTrunc,
  kFRound,
  kFRoundEven,
  kFFract,
  kFMod,
  kFSqrt,
  kFInvSqrt,
  kFSin,
  kFCos,
  kFTan,
  kFAsin,
  kFAcos,
  kFAtan,
  kFAtan2,
  kFSinh,
  kFCosh,
  kFTanh,
  kFAsinh,
  kFAcosh,
  kFAtanh,
  kFExp,
  kFExp2,
  kFLog,
  kFLog2,
  kFPow,
  kFFma,
  kFStep,
  kFSmooth,
  kFClamp,
  kFMix,
  // Float comparisons and tests, into a word: d = a op b.
  kFLt,
  kFLe,
  kFEq,
  kFNe,
  kFIsNan,
  kFIsInf,
  // Selects: d = c ? a : b (c a word register).
  kFSel,
  kUSel,
  // Conversions.
  kIToF,
  kUToF,
  kFToI,
  kFToU,
  kFBits,
  kBitsF,
  // Words (U registers), wrapping as GLSL's 32-bit int and uint.
  kUMov,
  kIAdd,
  kISub,
  kIMul,
  kIDiv,
  kUDiv,
  kIMod,
  kUMod,
  kINeg,
  kAnd,
  kOr,
  kXor,
  kNot,
  kShl,
  kIShr,
  kUShr,
  kILt,
  kULt,
  kILe,
  kULe,
  kIEq,
  kINe,
  kIMin,
  kUMin,
  kIMax,
  kUMax,
  kIAbs,
  kISign,
  kIClamp,
  kUClamp,
  kToBool,
  kBNot,
  // spritz's own: d = unit(STREAM, channel a) (model.md 2), d = noise(a, b).
  kRand,
  kNoise,
  // Control: jump to `a` always, when no lane of mask `b` is set, when any is.
  kJump,
  kJumpNone,
  kJumpAny,
  // One more turn of loop `a` for the lanes of mask `b`: each lane counts its
  // turns, and a lane past the budget stops the run with loop a's error.
  kTick,
  // The effect's curves (docs/programs.md): d = curve b at a; its slope
  // there; channel c (0 r, 1 g, 2 b) of gradient b at a.
  kCurve,
  kCurveSlope,
  kGradient,
  // Samplers (docs/programs.md, "Textures"); c is 4 s + k for sampler s and
  // channel or axis k. d = channel k of texture(s, vec2(a, b)); d = channel
  // k of texelFetch(s, ivec2(a, b)); d = axis k of textureSize(s, lod a).
  kTexture,
  kTexel,
  kTexSize,
  // Godot's emit_subparticle() (model.md 11.8): d = 1 for the lanes of mask
  // c that emit a child with the record of float registers a .. a + 26
  // (compiled.h's kFGodotEmitted layout) and the flags in word b; 0 for the
  // rest. A lane emits when its step is whole (kUEmitOpen) and it has
  // emitted fewer than the machine's limit this life (kUEmitCount).
  kEmit,
};

// b and c of kCurve, kCurveSlope and kGradient, and c of the sampler
// instructions, are numbers, not registers.
struct Instr {
  Op op;
  uint32_t d = 0, a = 0, b = 0, c = 0;
};

// A register file's slot for a constant: filled once when a machine is set
// up, never written by code.
struct FConst {
  uint32_t slot;
  double value;
};
struct UConst {
  uint32_t slot;
  uint32_t value;
};

// A loop the budget watches, for its error message.
struct LoopSite {
  Pos pos;
  std::string what;  // "for", "while", "do"
};

// One entry function's code (start, process or pose); `prologue` code
// (global consts, uniforms' defaults) runs before it.
struct Code {
  std::vector<Instr> instrs;
};

}  // namespace spritz::program
