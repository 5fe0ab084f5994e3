// The program language's built-in functions (docs/programs.md, "Built-in
// functions"): GLSL 4.60's angle, exponential, common, geometric, matrix and
// vector-relational functions (section 8), and spritz's rand and noise.
// Each is split into scalar instructions here; the machine defines each
// instruction (machine.cpp).
#include <algorithm>
#include <array>
#include <cstring>

#include "compiler.h"

namespace spritz::program {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Componentwise functions: their instruction for float, int and uint
// arguments (kFMov: none for that base), and how many arguments.
struct Componentwise {
  const char* name;
  int arity;
  Op f, i, u;
};
constexpr Op kNone = Op::kFMov;
constexpr std::array<Componentwise, 39> kComponentwise = {{
    {"sin", 1, Op::kFSin, kNone, kNone},
    {"cos", 1, Op::kFCos, kNone, kNone},
    {"tan", 1, Op::kFTan, kNone, kNone},
    {"asin", 1, Op::kFAsin, kNone, kNone},
    {"acos", 1, Op::kFAcos, kNone, kNone},
    {"atan", 1, Op::kFAtan, kNone, kNone},
    {"atan", 2, Op::kFAtan2, kNone, kNone},
    {"sinh", 1, Op::kFSinh, kNone, kNone},
    {"cosh", 1, Op::kFCosh, kNone, kNone},
    {"tanh", 1, Op::kFTanh, kNone, kNone},
    {"asinh", 1, Op::kFAsinh, kNone, kNone},
    {"acosh", 1, Op::kFAcosh, kNone, kNone},
    {"atanh", 1, Op::kFAtanh, kNone, kNone},
    {"exp", 1, Op::kFExp, kNone, kNone},
    {"exp2", 1, Op::kFExp2, kNone, kNone},
    {"log", 1, Op::kFLog, kNone, kNone},
    {"log2", 1, Op::kFLog2, kNone, kNone},
    {"pow", 2, Op::kFPow, kNone, kNone},
    {"sqrt", 1, Op::kFSqrt, kNone, kNone},
    {"inversesqrt", 1, Op::kFInvSqrt, kNone, kNone},
    {"floor", 1, Op::kFFloor, kNone, kNone},
    {"ceil", 1, Op::kFCeil, kNone, kNone},
    {"trunc", 1, Op::kFTrunc, kNone, kNone},
    {"round", 1, Op::kFRound, kNone, kNone},
    {"roundEven", 1, Op::kFRoundEven, kNone, kNone},
    {"fract", 1, Op::kFFract, kNone, kNone},
    {"mod", 2, Op::kFMod, kNone, kNone},
    {"abs", 1, Op::kFAbs, Op::kIAbs, kNone},
    {"sign", 1, Op::kFSign, Op::kISign, kNone},
    {"min", 2, Op::kFMin, Op::kIMin, Op::kUMin},
    {"max", 2, Op::kFMax, Op::kIMax, Op::kUMax},
    {"clamp", 3, Op::kFClamp, Op::kIClamp, Op::kUClamp},
    {"step", 2, Op::kFStep, kNone, kNone},
    {"smoothstep", 3, Op::kFSmooth, kNone, kNone},
    {"fma", 3, Op::kFFma, kNone, kNone},
    {"mix", 3, Op::kFMix, kNone, kNone},
    {"isnan", 1, Op::kFIsNan, kNone, kNone},
    {"isinf", 1, Op::kFIsInf, kNone, kNone},
    {"radians", 1, Op::kFMul, kNone, kNone},
}};

constexpr std::array<const char*, 30> kOthers = {"degrees",
                                                 "floatBitsToInt",
                                                 "floatBitsToUint",
                                                 "intBitsToFloat",
                                                 "uintBitsToFloat",
                                                 "length",
                                                 "distance",
                                                 "dot",
                                                 "cross",
                                                 "normalize",
                                                 "faceforward",
                                                 "reflect",
                                                 "refract",
                                                 "matrixCompMult",
                                                 "outerProduct",
                                                 "transpose",
                                                 "determinant",
                                                 "inverse",
                                                 "lessThan",
                                                 "lessThanEqual",
                                                 "greaterThan",
                                                 "greaterThanEqual",
                                                 "equal",
                                                 "notEqual",
                                                 "any",
                                                 "all",
                                                 "not",
                                                 "rand",
                                                 "noise",
                                                 "modf"};

}  // namespace

bool Compiler::is_builtin_function(const std::string& name) const {
  for (const Componentwise& c : kComponentwise)
    if (name == c.name) return true;
  for (const char* n : kOthers)
    if (name == n) return true;
  return false;
}

namespace {

// The shape componentwise arguments share: the one vector size among them
// (scalars are spread over it); 0 when two vector sizes differ.
uint8_t common_rows(const std::vector<Value>& args) {
  uint8_t rows = 1;
  for (const Value& a : args) {
    if (a.type.rows == 1) continue;
    if (rows != 1 && a.type.rows != rows) return 0;
    rows = a.type.rows;
  }
  return rows;
}

std::string signature(const std::string& name, const std::vector<Value>& args, const Compiler& c) {
  std::string s = name + "(";
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + c.name_of(args[i].type);
  return s + ")";
}

}  // namespace

Value Compiler::float_op(Op op, const std::vector<Value>& args) {
  const uint8_t rows = common_rows(args);
  Value out = temp(Type::vector(Base::kFloat, rows));
  if (rows == 1) out.type = Type::scalar(Base::kFloat);
  for (uint32_t i = 0; i < rows; ++i) {
    const auto at = [&](size_t k) {
      return k < args.size() ? args[k].regs[args[k].type.rows == 1 ? 0 : i].slot : 0u;
    };
    emit(op, out.regs[i].slot, at(0), at(1), at(2));
  }
  return out;
}

Value Compiler::word_op(Op op, const Type& result, const std::vector<Value>& args) {
  Value out = temp(result);
  for (uint32_t i = 0; i < result.components(); ++i) {
    const auto at = [&](size_t k) {
      return k < args.size() ? args[k].regs[args[k].type.rows == 1 ? 0 : i].slot : 0u;
    };
    emit(op, out.regs[i].slot, at(0), at(1), at(2));
  }
  return out;
}

namespace {

struct Call {
  Compiler& c;
  const Expr& e;
  std::vector<Value>& args;

  bool arity(size_t n) {
    if (args.size() == n) return true;
    c.error(e.pos, e.name + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                       ", found " + std::to_string(args.size()));
    return false;
  }
  void wrong() {
    c.error(e.pos, "no " + signature(e.name, args, c) +
                       " built-in: see docs/programs.md for the "
                       "types " +
                       e.name + "() takes");
  }
  // Every argument a float scalar or vector (ints and uints converted).
  bool floats() {
    for (size_t k = 0; k < args.size(); ++k) {
      Value& a = args[k];
      if (!a.type.is_plain() || a.type.is_matrix() || a.type.base == Base::kBool) {
        wrong();
        return false;
      }
      if (a.type.base != Base::kFloat)
        a = c.convert(a, a.type.with_base(Base::kFloat), e.pos,
                      "argument " + std::to_string(k + 1));
    }
    if (common_rows(args) == 0) {
      c.error(e.pos, signature(e.name, args, c) + ": the vectors' sizes differ");
      return false;
    }
    return true;
  }
  // Float vectors of one size (geometric functions), scalars allowed.
  bool same_vectors() {
    if (!floats()) return false;
    for (const Value& a : args)
      if (a.type != args[0].type) {
        c.error(e.pos, signature(e.name, args, c) + ": the arguments' types differ");
        return false;
      }
    return true;
  }
  Value scalar_f() { return c.temp(Type::scalar(Base::kFloat)); }
  Reg f() { return c.new_f(); }
  Reg dot(const Value& a, const Value& b) {
    const Reg d = f();
    c.emit(Op::kFMul, d.slot, a.regs[0].slot, b.regs[0].slot);
    for (size_t i = 1; i < a.regs.size(); ++i) {
      const Reg t = f();
      c.emit(Op::kFMul, t.slot, a.regs[i].slot, b.regs[i].slot);
      c.emit(Op::kFAdd, d.slot, d.slot, t.slot);
    }
    return d;
  }
  Value scale(const Value& v, uint32_t s) {
    Value out = c.temp(v.type);
    for (size_t i = 0; i < v.regs.size(); ++i)
      c.emit(Op::kFMul, out.regs[i].slot, v.regs[i].slot, s);
    return out;
  }
  Value combine(Op op, const Value& a, const Value& b) {
    Value out = c.temp(a.type);
    for (size_t i = 0; i < a.regs.size(); ++i)
      c.emit(op, out.regs[i].slot, a.regs[i].slot, b.regs[i].slot);
    return out;
  }
};

}  // namespace

// long: a dispatch over GLSL's built-in functions by name; each branch
// checks its arguments' types and emits the scalar code.
bool Compiler::builtin_call(const Expr& e, std::vector<Value>& args, Value& out) {
  Call k{*this, e, args};
  const std::string& n = e.name;
  out = error_value();
  // Componentwise functions, by name and argument count.
  for (const Componentwise& cw : kComponentwise) {
    if (n != cw.name || args.size() != static_cast<size_t>(cw.arity)) continue;
    const bool words = std::all_of(args.begin(), args.end(), [](const Value& a) {
      return a.type.is_plain() && !a.type.is_matrix() &&
             (a.type.base == Base::kInt || a.type.base == Base::kUint);
    });
    if (words && (cw.i != kNone || cw.u != kNone)) {
      const Base b = args[0].type.base;
      for (Value& a : args) a = convert(a, a.type.with_base(b), e.pos, n + "()");
      const uint8_t rows = common_rows(args);
      const Op op = b == Base::kInt ? cw.i : cw.u;
      if (rows == 0 || op == kNone) {
        k.wrong();
        return true;
      }
      out = word_op(op, Type::vector(b, rows).rows == 1 ? Type::scalar(b) : Type::vector(b, rows),
                    args);
      return true;
    }
    if (n == "mix" && args[2].type.base == Base::kBool) {  // mix(x, y, bvec): a select
      if (!k.floats() && args[0].type.base == Base::kFloat) return true;
      Value sel = args[2];
      const uint8_t rows = args[0].type.rows;
      if (args[1].type != args[0].type || sel.type.rows != rows) {
        k.wrong();
        return true;
      }
      out = temp(args[0].type);
      for (uint32_t i = 0; i < rows; ++i)
        emit(Op::kFSel, out.regs[i].slot, args[1].regs[i].slot, args[0].regs[i].slot,
             sel.regs[i].slot);
      return true;
    }
    if (!k.floats()) return true;
    if (n == "radians" || n == "degrees") {
      const Value s{Type::scalar(Base::kFloat), {fconst(n == "radians" ? kPi / 180 : 180 / kPi)}};
      out = float_op(Op::kFMul, {args[0], s});
      return true;
    }
    if (n == "isnan" || n == "isinf") {
      const uint8_t rows = args[0].type.rows;
      out = temp(rows == 1 ? Type::scalar(Base::kBool) : Type::vector(Base::kBool, rows));
      for (uint32_t i = 0; i < rows; ++i) emit(cw.f, out.regs[i].slot, args[0].regs[i].slot);
      return true;
    }
    out = float_op(cw.f, args);
    return true;
  }
  if (n == "degrees") {
    if (!k.arity(1) || !k.floats()) return true;
    const Value s{Type::scalar(Base::kFloat), {fconst(180 / kPi)}};
    out = float_op(Op::kFMul, {args[0], s});
    return true;
  }
  for (const Componentwise& cw : kComponentwise)
    if (n == cw.name) {
      k.arity(static_cast<size_t>(cw.arity));
      return true;
    }
  return builtin_call_more(e, args, out);
}

// long: the geometric, matrix, vector-relational, bit-cast and spritz
// functions, one branch each.
bool Compiler::builtin_call_more(const Expr& e, std::vector<Value>& args, Value& out) {
  Call k{*this, e, args};
  const std::string& n = e.name;
  if (n == "floatBitsToInt" || n == "floatBitsToUint") {
    if (!k.arity(1) || !k.floats()) return true;
    const Base b = n == "floatBitsToInt" ? Base::kInt : Base::kUint;
    const uint8_t rows = args[0].type.rows;
    out = temp(rows == 1 ? Type::scalar(b) : Type::vector(b, rows));
    for (uint32_t i = 0; i < rows; ++i) emit(Op::kFBits, out.regs[i].slot, args[0].regs[i].slot);
    return true;
  }
  if (n == "intBitsToFloat" || n == "uintBitsToFloat") {
    if (!k.arity(1)) return true;
    const Base b = n == "intBitsToFloat" ? Base::kInt : Base::kUint;
    if (!args[0].type.is_plain() || args[0].type.is_matrix() || args[0].type.base != b) {
      Value conv = convert(args[0], args[0].type.with_base(b), e.pos, n + "()");
      if (conv.type.is_error()) return true;
      args[0] = conv;
    }
    const uint8_t rows = args[0].type.rows;
    out = temp(rows == 1 ? Type::scalar(Base::kFloat) : Type::vector(Base::kFloat, rows));
    for (uint32_t i = 0; i < rows; ++i) emit(Op::kBitsF, out.regs[i].slot, args[0].regs[i].slot);
    return true;
  }
  if (n == "length" || n == "normalize") {
    if (!k.arity(1) || !k.floats()) return true;
    const Reg d2 = k.dot(args[0], args[0]);
    const Reg len = new_f();
    emit(Op::kFSqrt, len.slot, d2.slot);
    if (n == "length") {
      out = Value{Type::scalar(Base::kFloat), {len}};
      return true;
    }
    out = temp(args[0].type);
    for (size_t i = 0; i < out.regs.size(); ++i)
      emit(Op::kFDiv, out.regs[i].slot, args[0].regs[i].slot, len.slot);
    return true;
  }
  if (n == "distance" || n == "dot") {
    if (!k.arity(2) || !k.same_vectors()) return true;
    if (n == "dot") {
      out = Value{Type::scalar(Base::kFloat), {k.dot(args[0], args[1])}};
      return true;
    }
    const Value d = k.combine(Op::kFSub, args[0], args[1]);
    const Reg len = new_f();
    emit(Op::kFSqrt, len.slot, k.dot(d, d).slot);
    out = Value{Type::scalar(Base::kFloat), {len}};
    return true;
  }
  if (n == "cross") {
    if (!k.arity(2) || !k.same_vectors()) return true;
    if (args[0].type.rows != 3) {
      k.wrong();
      return true;
    }
    out = temp(args[0].type);
    const auto r = [&](int v, int i) {
      return args[static_cast<size_t>(v)].regs[static_cast<size_t>(i)].slot;
    };
    for (int i = 0; i < 3; ++i) {
      const int a = (i + 1) % 3, b = (i + 2) % 3;
      const Reg t = new_f();
      emit(Op::kFMul, out.regs[static_cast<size_t>(i)].slot, r(0, a), r(1, b));
      emit(Op::kFMul, t.slot, r(0, b), r(1, a));
      emit(Op::kFSub, out.regs[static_cast<size_t>(i)].slot, out.regs[static_cast<size_t>(i)].slot,
           t.slot);
    }
    return true;
  }
  if (n == "faceforward" || n == "reflect" || n == "refract") return geometric(e, args, out);
  if (n == "matrixCompMult" || n == "outerProduct" || n == "transpose" || n == "determinant" ||
      n == "inverse")
    return matrix_function(e, args, out);
  return relational(e, args, out);
}

}  // namespace spritz::program
