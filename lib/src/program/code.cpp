// What each instruction's operands are, and the check that holds compiled
// code to its register files (compiled.h).
#include <string>

#include "compiled.h"
#include "spritz/error.h"

namespace spritz::program {

// long: one line per instruction of code.h.
const char* operand_kinds(Op op) {
  switch (op) {
    case Op::kFMov:
    case Op::kFNeg:
    case Op::kFAbs:
    case Op::kFSign:
    case Op::kFFloor:
    case Op::kFCeil:
    case Op::kFTrunc:
    case Op::kFRound:
    case Op::kFRoundEven:
    case Op::kFFract:
    case Op::kFSqrt:
    case Op::kFInvSqrt:
    case Op::kFSin:
    case Op::kFCos:
    case Op::kFTan:
    case Op::kFAsin:
    case Op::kFAcos:
    case Op::kFAtan:
    case Op::kFSinh:
    case Op::kFCosh:
    case Op::kFTanh:
    case Op::kFAsinh:
    case Op::kFAcosh:
    case Op::kFAtanh:
    case Op::kFExp:
    case Op::kFExp2:
    case Op::kFLog:
    case Op::kFLog2:
      return "FF--";
    case Op::kFAdd:
    case Op::kFSub:
    case Op::kFMul:
    case Op::kFDiv:
    case Op::kFMin:
    case Op::kFMax:
    case Op::kFMod:
    case Op::kFAtan2:
    case Op::kFPow:
    case Op::kFStep:
      return "FFF-";
    case Op::kFFma:
    case Op::kFSmooth:
    case Op::kFClamp:
    case Op::kFMix:
    case Op::kNoise:
      return "FFFF";
    case Op::kFLt:
    case Op::kFLe:
    case Op::kFEq:
    case Op::kFNe:
      return "UFF-";
    case Op::kFIsNan:
    case Op::kFIsInf:
    case Op::kFToI:
    case Op::kFToU:
    case Op::kFBits:
      return "UF--";
    case Op::kFSel:
      return "FFFU";
    case Op::kUSel:
      return "UUUU";
    case Op::kIToF:
    case Op::kUToF:
    case Op::kBitsF:
    case Op::kRand:
      return "FU--";
    case Op::kUMov:
    case Op::kINeg:
    case Op::kNot:
    case Op::kIAbs:
    case Op::kISign:
    case Op::kToBool:
    case Op::kBNot:
      return "UU--";
    case Op::kIAdd:
    case Op::kISub:
    case Op::kIMul:
    case Op::kIDiv:
    case Op::kUDiv:
    case Op::kIMod:
    case Op::kUMod:
    case Op::kAnd:
    case Op::kOr:
    case Op::kXor:
    case Op::kShl:
    case Op::kIShr:
    case Op::kUShr:
    case Op::kILt:
    case Op::kULt:
    case Op::kILe:
    case Op::kULe:
    case Op::kIEq:
    case Op::kINe:
    case Op::kIMin:
    case Op::kUMin:
    case Op::kIMax:
    case Op::kUMax:
      return "UUU-";
    case Op::kIClamp:
    case Op::kUClamp:
      return "UUUU";
    case Op::kJump:
      return "-J--";
    case Op::kJumpNone:
    case Op::kJumpAny:
      return "-JU-";
    case Op::kTick:
      return "-LU-";
    case Op::kCurve:
    case Op::kCurveSlope:
      return "FFC-";
    case Op::kGradient:
      return "FFGI";
    case Op::kTexture:
      return "FFFS";
    case Op::kTexel:
      return "FUUS";
    case Op::kTexSize:
      return "UU-S";
    case Op::kEmit:
      return "UFUU";
  }
  return "----";
}

std::string disassemble(const std::vector<Instr>& code) {
  static const char* kNames[] = {
      "FMov",       "FNeg",    "FAdd",   "FSub",   "FMul",       "FDiv",     "FMin",
      "FMax",       "FAbs",    "FSign",  "FFloor", "FCeil",      "FTrunc",   "FRound",
      "FRoundEven", "FFract",  "FMod",   "FSqrt",  "FInvSqrt",   "FSin",     "FCos",
      "FTan",       "FAsin",   "FAcos",  "FAtan",  "FAtan2",     "FSinh",    "FCosh",
      "FTanh",      "FAsinh",  "FAcosh", "FAtanh", "FExp",       "FExp2",    "FLog",
      "FLog2",      "FPow",    "FFma",   "FStep",  "FSmooth",    "FClamp",   "FMix",
      "FLt",        "FLe",     "FEq",    "FNe",    "FIsNan",     "FIsInf",   "FSel",
      "USel",       "IToF",    "UToF",   "FToI",   "FToU",       "FBits",    "BitsF",
      "UMov",       "IAdd",    "ISub",   "IMul",   "IDiv",       "UDiv",     "IMod",
      "UMod",       "INeg",    "And",    "Or",     "Xor",        "Not",      "Shl",
      "IShr",       "UShr",    "ILt",    "ULt",    "ILe",        "ULe",      "IEq",
      "INe",        "IMin",    "UMin",   "IMax",   "UMax",       "IAbs",     "ISign",
      "IClamp",     "UClamp",  "ToBool", "BNot",   "Rand",       "Noise",    "Jump",
      "JumpNone",   "JumpAny", "Tick",   "Curve",  "CurveSlope", "Gradient", "Texture",
      "Texel",      "TexSize", "Emit"};
  std::string out;
  for (size_t pc = 0; pc < code.size(); ++pc) {
    const Instr& in = code[pc];
    const char* k = operand_kinds(in.op);
    out += std::to_string(pc) + ": " + kNames[static_cast<size_t>(in.op)];
    const uint32_t ops[4] = {in.d, in.a, in.b, in.c};
    for (int i = 0; i < 4; ++i)
      if (k[i] != '-')
        out += std::string(" ") +
               (k[i] == 'J'   ? "@"
                : k[i] == 'L' ? "loop"
                              : std::string(1, k[i])) +
               std::to_string(ops[i]);
    out += "\n";
  }
  return out;
}

void verify(const Compiled& c) {
  const auto check = [&](const std::vector<Instr>& code, const char* what) {
    for (size_t pc = 0; pc < code.size(); ++pc) {
      const Instr& in = code[pc];
      const char* k = operand_kinds(in.op);
      const uint32_t ops[4] = {in.d, in.a, in.b, in.c};
      for (int i = 0; i < 4; ++i) {
        bool bad = (k[i] == 'F' && ops[i] >= c.f_slots) || (k[i] == 'U' && ops[i] >= c.u_slots) ||
                   (k[i] == 'J' && ops[i] > code.size()) ||
                   (k[i] == 'L' && ops[i] >= c.loops.size()) ||
                   (k[i] == 'C' && ops[i] >= c.curves) || (k[i] == 'G' && ops[i] >= c.gradients) ||
                   (k[i] == 'I' && ops[i] > 2) || (k[i] == 'S' && ops[i] / 4 >= c.samplers.size());
        // kEmit reads a record of kGodotEmittedSize registers from a.
        if (in.op == Op::kEmit && i == 1 && ops[i] + kGodotEmittedSize > c.f_slots) bad = true;
        if (bad)
          throw Error("internal error: instruction " + std::to_string(pc) + " of " + what +
                      " has operand " + std::to_string(i) + " out of range; please report it");
      }
    }
  };
  check(c.prologue, "the prologue");
  for (const auto& code : c.stage) check(code, "a function");
  check(c.pose_tangent, "pose() with derivatives");
}

}  // namespace spritz::program
