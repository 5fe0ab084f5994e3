// The program language's built-in functions, continued: geometric
// (faceforward, reflect, refract), matrix, vector-relational, modf, and
// spritz's own rand(k) and noise(p) (docs/programs.md).
#include <string>
#include <vector>

#include "compiler.h"

namespace spritz::program {
namespace {

using Grid = Compiler::Grid;

bool plain_floats(const Value& v) {
  return v.type.is_plain() && !v.type.is_matrix() && v.type.base == Base::kFloat;
}

}  // namespace

Reg Compiler::dot_of(const Value& a, const Value& b) {
  const Reg d = new_f();
  emit(Op::kFMul, d.slot, a.regs[0].slot, b.regs[0].slot);
  for (size_t i = 1; i < a.regs.size(); ++i) {
    const Reg t = new_f();
    emit(Op::kFMul, t.slot, a.regs[i].slot, b.regs[i].slot);
    emit(Op::kFAdd, d.slot, d.slot, t.slot);
  }
  return d;
}

bool Compiler::geometric(const Expr& e, std::vector<Value>& args, Value& out) {
  const std::string& n = e.name;
  const size_t want = n == "reflect" ? 2 : 3;
  if (args.size() != want) {
    error(e.pos, n + "() takes " + std::to_string(want) + " arguments, found " +
                     std::to_string(args.size()));
    return true;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].type.is_integer())
      args[i] = convert(args[i], args[i].type.with_base(Base::kFloat), e.pos, n + "()");
    if (args[i].type.is_error()) return true;
  }
  const bool eta_scalar = n == "refract" && args[2].type == Type::scalar(Base::kFloat);
  for (size_t i = 0; i < args.size(); ++i)
    if (!plain_floats(args[i]) || (args[i].type != args[0].type && !(i == 2 && eta_scalar))) {
      error(e.pos, n + "() needs float vectors of one size" +
                       (n == "refract" ? std::string(" and a float eta") : ""));
      return true;
    }
  const Value& a = args[0];
  const Value& b = args[1];
  out = temp(a.type);
  if (n == "faceforward") {  // dot(Nref, I) < 0 ? N : -N
    const Reg d = dot_of(args[2], b), neg = new_u();
    emit(Op::kFLt, neg.slot, d.slot, fconst(0).slot);
    for (size_t i = 0; i < a.regs.size(); ++i) {
      const Reg m = new_f();
      emit(Op::kFNeg, m.slot, a.regs[i].slot);
      emit(Op::kFSel, out.regs[i].slot, a.regs[i].slot, m.slot, neg.slot);
    }
    return true;
  }
  const Reg d = dot_of(b, a);  // dot(N, I)
  if (n == "reflect") {        // I - 2 dot(N, I) N
    const Reg two_d = new_f();
    emit(Op::kFMul, two_d.slot, d.slot, fconst(2).slot);
    for (size_t i = 0; i < a.regs.size(); ++i) {
      const Reg t = new_f();
      emit(Op::kFMul, t.slot, two_d.slot, b.regs[i].slot);
      emit(Op::kFSub, out.regs[i].slot, a.regs[i].slot, t.slot);
    }
    return true;
  }
  // refract: k = 1 - eta^2 (1 - d^2); k < 0 ? 0 : eta I - (eta d + sqrt(k)) N
  const uint32_t eta = args[2].regs[0].slot;
  const Reg k = new_f(), t = new_f(), s = new_f(), neg = new_u();
  emit(Op::kFMul, t.slot, d.slot, d.slot);
  emit(Op::kFSub, t.slot, fconst(1).slot, t.slot);
  emit(Op::kFMul, k.slot, eta, eta);
  emit(Op::kFMul, k.slot, k.slot, t.slot);
  emit(Op::kFSub, k.slot, fconst(1).slot, k.slot);
  emit(Op::kFLt, neg.slot, k.slot, fconst(0).slot);
  emit(Op::kFSqrt, s.slot, k.slot);
  emit(Op::kFMul, t.slot, eta, d.slot);
  emit(Op::kFAdd, t.slot, t.slot, s.slot);
  for (size_t i = 0; i < a.regs.size(); ++i) {
    const Reg x = new_f(), y = new_f();
    emit(Op::kFMul, x.slot, eta, a.regs[i].slot);
    emit(Op::kFMul, y.slot, t.slot, b.regs[i].slot);
    emit(Op::kFSub, x.slot, x.slot, y.slot);
    emit(Op::kFSel, out.regs[i].slot, fconst(0).slot, x.slot, neg.slot);
  }
  return true;
}

// The determinant of a square grid by cofactor expansion along row 0.
Reg Compiler::determinant_of(const Grid& m) {
  const size_t n = m.size();
  if (n == 1) return Reg{m[0][0], true};
  const Reg d = new_f();
  if (n == 2) {
    const Reg t = new_f();
    emit(Op::kFMul, d.slot, m[0][0], m[1][1]);
    emit(Op::kFMul, t.slot, m[0][1], m[1][0]);
    emit(Op::kFSub, d.slot, d.slot, t.slot);
    return d;
  }
  for (size_t c = 0; c < n; ++c) {
    const Reg minor = determinant_of(minor_of(m, 0, c));
    const Reg t = new_f();
    emit(Op::kFMul, t.slot, m[0][c], minor.slot);
    if (c == 0)
      emit(Op::kFMov, d.slot, t.slot);
    else
      emit(c % 2 ? Op::kFSub : Op::kFAdd, d.slot, d.slot, t.slot);
  }
  return d;
}

Grid Compiler::minor_of(const Grid& m, size_t row, size_t col) {
  Grid out;
  for (size_t r = 0; r < m.size(); ++r) {
    if (r == row) continue;
    out.emplace_back();
    for (size_t c = 0; c < m.size(); ++c)
      if (c != col) out.back().push_back(m[r][c]);
  }
  return out;
}

// long: the five matrix functions, each a few lines over the grid of a
// column-major matrix.
bool Compiler::matrix_function(const Expr& e, std::vector<Value>& args, Value& out) {
  const std::string& n = e.name;
  const size_t want = n == "matrixCompMult" || n == "outerProduct" ? 2 : 1;
  if (args.size() != want) {
    error(e.pos, n + "() takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") +
                     ", found " + std::to_string(args.size()));
    return true;
  }
  if (n == "outerProduct") {
    if (!plain_floats(args[0]) || args[0].type != args[1].type || args[0].type.rows < 2) {
      error(e.pos, "outerProduct() takes two float vectors of one size (2 to 4)");
      return true;
    }
    const uint32_t s = args[0].type.rows;
    out = temp(Type::matrix(static_cast<int>(s)));
    for (uint32_t c = 0; c < s; ++c)
      for (uint32_t r = 0; r < s; ++r)
        emit(Op::kFMul, out.regs[c * s + r].slot, args[0].regs[r].slot, args[1].regs[c].slot);
    return true;
  }
  for (const Value& a : args)
    if (!a.type.is_matrix() || a.type != args[0].type) {
      error(e.pos, n + "() takes " + (want == 2 ? "two matrices of one size" : "a matrix") +
                       ", found " + name_of(a.type));
      return true;
    }
  const uint32_t s = args[0].type.rows;
  Grid g(s, std::vector<uint32_t>(s));
  for (uint32_t c = 0; c < s; ++c)
    for (uint32_t r = 0; r < s; ++r) g[r][c] = args[0].regs[c * s + r].slot;
  if (n == "matrixCompMult") {
    out = temp(args[0].type);
    for (size_t i = 0; i < out.regs.size(); ++i)
      emit(Op::kFMul, out.regs[i].slot, args[0].regs[i].slot, args[1].regs[i].slot);
  } else if (n == "transpose") {
    out = temp(args[0].type);
    for (uint32_t c = 0; c < s; ++c)
      for (uint32_t r = 0; r < s; ++r) emit(Op::kFMov, out.regs[c * s + r].slot, g[c][r]);
  } else if (n == "determinant") {
    out = Value{Type::scalar(Base::kFloat), {determinant_of(g)}};
  } else {  // inverse: the adjugate over the determinant
    const Reg det = determinant_of(g);
    out = temp(args[0].type);
    for (uint32_t c = 0; c < s; ++c)
      for (uint32_t r = 0; r < s; ++r) {
        // inverse[c][r] (column c, row r) = cofactor(c, r) / det
        const Reg minor = determinant_of(minor_of(g, c, r));
        const uint32_t d = out.regs[c * s + r].slot;
        emit((r + c) % 2 ? Op::kFNeg : Op::kFMov, d, minor.slot);
        emit(Op::kFDiv, d, d, det.slot);
      }
  }
  return true;
}

// long: the vector-relational functions, then modf, rand and noise.
bool Compiler::relational(const Expr& e, std::vector<Value>& args, Value& out) {
  const std::string& n = e.name;
  const auto arity = [&](size_t want) {
    if (args.size() == want) return true;
    error(e.pos, n + "() takes " + std::to_string(want) + " argument" + (want == 1 ? "" : "s") +
                     ", found " + std::to_string(args.size()));
    return false;
  };
  if (n == "lessThan" || n == "lessThanEqual" || n == "greaterThan" || n == "greaterThanEqual" ||
      n == "equal" || n == "notEqual") {
    if (!arity(2)) return true;
    const Type& t = args[0].type;
    const bool eq = n == "equal" || n == "notEqual";
    if (!t.is_vector() || args[1].type != t || (t.base == Base::kBool && !eq)) {
      error(e.pos, n + "() takes two vectors of one type, found " + name_of(t) + " and " +
                       name_of(args[1].type));
      return true;
    }
    const bool swap = n == "greaterThan" || n == "greaterThanEqual";
    const bool strict = n == "lessThan" || n == "greaterThan";
    out = temp(Type::vector(Base::kBool, t.rows));
    for (uint32_t i = 0; i < t.rows; ++i) {
      const uint32_t x = args[swap ? 1 : 0].regs[i].slot, y = args[swap ? 0 : 1].regs[i].slot;
      const uint32_t d = out.regs[i].slot;
      Op op;
      if (eq)
        op = t.base == Base::kFloat ? Op::kFEq : Op::kIEq;
      else if (t.base == Base::kFloat)
        op = strict ? Op::kFLt : Op::kFLe;
      else if (t.base == Base::kInt)
        op = strict ? Op::kILt : Op::kILe;
      else
        op = strict ? Op::kULt : Op::kULe;
      emit(op, d, x, y);
      if (n == "notEqual") emit(Op::kBNot, d, d);
    }
    return true;
  }
  if (n == "any" || n == "all" || n == "not") {
    if (!arity(1)) return true;
    const Type& t = args[0].type;
    if (!t.is_vector() || t.base != Base::kBool) {
      error(e.pos, n + "() takes a bvec, found " + name_of(t));
      return true;
    }
    if (n == "not") {
      out = temp(t);
      for (uint32_t i = 0; i < t.rows; ++i) emit(Op::kBNot, out.regs[i].slot, args[0].regs[i].slot);
      return true;
    }
    out = temp(Type::scalar(Base::kBool));
    const uint32_t d = out.regs[0].slot;
    emit(Op::kUMov, d, args[0].regs[0].slot);
    for (uint32_t i = 1; i < t.rows; ++i)
      emit(n == "any" ? Op::kOr : Op::kAnd, d, d, args[0].regs[i].slot);
    return true;
  }
  if (n == "modf") {
    if (!arity(2)) return true;
    if (args[0].type.is_integer())
      args[0] = convert(args[0], args[0].type.with_base(Base::kFloat), e.pos, "modf()");
    const LValue whole = lvalue(*e.args[1]);
    if (args[0].type.is_error() || !whole.ok) return true;
    if (!plain_floats(args[0]) || whole.type != args[0].type) {
      error(e.pos, "modf(x, out i) takes a float or vector x and an i of its type");
      return true;
    }
    Value t = temp(args[0].type);
    out = temp(args[0].type);
    for (size_t i = 0; i < t.regs.size(); ++i) {
      emit(Op::kFTrunc, t.regs[i].slot, args[0].regs[i].slot);
      emit(Op::kFSub, out.regs[i].slot, args[0].regs[i].slot, t.regs[i].slot);
    }
    store(whole, t);
    return true;
  }
  if (n == "rand") {
    if (!arity(1)) return true;
    if (!args[0].type.is_scalar() || !args[0].type.is_integer()) {
      error(e.pos, "rand(k) takes an int or uint channel k, found " + name_of(args[0].type));
      return true;
    }
    out = temp(Type::scalar(Base::kFloat));
    emit(Op::kRand, out.regs[0].slot, args[0].regs[0].slot);
    return true;
  }
  // noise
  if (!arity(1)) return true;
  const Type& t = args[0].type;
  if (!(t.base == Base::kFloat || t.is_integer()) || !(t.is_vector() || t.is_scalar()) ||
      t.rows > 3) {
    error(e.pos, "noise(p) takes a float, vec2 or vec3, found " + name_of(t));
    return true;
  }
  const Value p = convert(args[0], t.with_base(Base::kFloat), e.pos, "noise()");
  out = temp(Type::scalar(Base::kFloat));
  const uint32_t zero = fconst(0).slot;
  emit(Op::kNoise, out.regs[0].slot, p.regs[0].slot, t.rows > 1 ? p.regs[1].slot : zero,
       t.rows > 2 ? p.regs[2].slot : zero);
  return true;
}

}  // namespace spritz::program
