// The program compiler's expressions: names, literals, operators, swizzles,
// indexing, constructors and calls, each to scalar code (code.h), and the
// stores that assignments make (masked where code.h says).
#include <algorithm>
#include <cstring>

#include "compiler.h"

namespace spritz::program {

// ---- registers and instructions

void Compiler::emit(Op op, uint32_t d, uint32_t a, uint32_t b, uint32_t c) {
  if (code_->size() >= instruction_limit_) {
    if (!too_big_)
      error(Pos{},
            "the program compiles to more than 1048576 instructions (its "
            "functions are inlined where they are called); make it smaller");
    too_big_ = true;
    return;
  }
  code_->push_back(Instr{op, d, a, b, c});
}

namespace {
constexpr uint32_t kMaxRegisters = 1u << 16;
}

Reg Compiler::new_f() {
  if (next_f_ >= kMaxRegisters) {
    if (!too_big_) error(Pos{}, "the program needs more than 65536 registers; make it smaller");
    too_big_ = true;
    return Reg{kFBuiltins, true};
  }
  const Reg r{next_f_++, true};
  out_.f_slots = std::max(out_.f_slots, next_f_);
  return r;
}

Reg Compiler::new_u() {
  if (next_u_ >= kMaxRegisters) {
    if (!too_big_) error(Pos{}, "the program needs more than 65536 registers; make it smaller");
    too_big_ = true;
    return Reg{kUBuiltins, false};
  }
  const Reg r{next_u_++, false};
  out_.u_slots = std::max(out_.u_slots, next_u_);
  return r;
}

Reg Compiler::fconst(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const auto it = fconsts_.find(bits);
  if (it != fconsts_.end()) return Reg{kConstant | it->second, true};
  const auto k = static_cast<uint32_t>(fconsts_.size());
  fconsts_.emplace(bits, k);
  out_.fconsts.push_back(FConst{k, v});
  return Reg{kConstant | k, true};
}

Reg Compiler::uconst(uint32_t v) {
  const auto it = uconsts_.find(v);
  if (it != uconsts_.end()) return Reg{kConstant | it->second, false};
  const auto k = static_cast<uint32_t>(uconsts_.size());
  uconsts_.emplace(v, k);
  out_.uconsts.push_back(UConst{k, v});
  return Reg{kConstant | k, false};
}

Value Compiler::temp(const Type& t) {
  Value v;
  v.type = t;
  const auto add = [&](const Type& one, auto& self) -> void {
    const uint32_t times = one.array > 0 ? one.array : 1;
    for (uint32_t k = 0; k < times; ++k) {
      if (one.base == Base::kStruct) {
        for (const StructType::Field& f : structs_[static_cast<size_t>(one.strukt)].fields)
          self(f.type, self);
      } else {
        for (uint32_t i = 0; i < one.components(); ++i)
          v.regs.push_back(one.base == Base::kFloat ? new_f() : new_u());
      }
    }
  };
  if (t.base != Base::kError && t.base != Base::kVoid && t.base != Base::kSampler) add(t, add);
  return v;
}

Value Compiler::component(const Value& v, uint32_t i) const {
  Value c;
  c.type = v.type.component();
  c.regs.push_back(v.regs[std::min<size_t>(i, v.regs.size() - 1)]);
  return c;
}

Value Compiler::splat(const Value& scalar, const Type& to) {
  Value v;
  v.type = to;
  v.regs.assign(count(to), scalar.regs.empty() ? Reg{} : scalar.regs[0]);
  return v;
}

// ---- conversions

Reg Compiler::convert_scalar(Reg r, Base from, Base to) {
  if (from == to) return r;
  if (to == Base::kFloat) {
    const Reg d = new_f();
    emit(from == Base::kInt ? Op::kIToF : Op::kUToF, d.slot, r.slot);
    return d;
  }
  if (to == Base::kBool) {
    const Reg d = new_u();
    if (from == Base::kFloat)
      emit(Op::kFNe, d.slot, r.slot, fconst(0).slot);
    else
      emit(Op::kToBool, d.slot, r.slot);
    return d;
  }
  if (from == Base::kFloat) {
    const Reg d = new_u();
    emit(to == Base::kInt ? Op::kFToI : Op::kFToU, d.slot, r.slot);
    return d;
  }
  return r;  // int, uint and bool share their bits
}

Value Compiler::convert(const Value& v, const Type& to, Pos p, const std::string& context) {
  if (v.type.is_error() || to.is_error()) return error_value();
  if (v.type == to) return v;
  const bool same_shape =
      v.type.is_plain() && to.is_plain() && v.type.rows == to.rows && v.type.cols == to.cols;
  if (same_shape && to.base == Base::kFloat &&
      (v.type.base == Base::kInt || v.type.base == Base::kUint)) {
    Value out;
    out.type = to;
    for (const Reg r : v.regs) out.regs.push_back(convert_scalar(r, v.type.base, Base::kFloat));
    return out;
  }
  if (same_shape && v.literal && to.base == Base::kUint && v.literal_int >= 0) {
    Value out;
    out.type = to;
    out.regs.push_back(uconst(static_cast<uint32_t>(v.literal_int)));
    return out;
  }
  error(p, context + ": expected " + name_of(to) + ", found " + name_of(v.type));
  return error_value();
}

// ---- names and literals

const Variable* Compiler::find(const std::string& n) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s)
    for (auto v = s->rbegin(); v != s->rend(); ++v)
      if (v->name == n) return &*v;
  return nullptr;
}

Value Compiler::name(const Expr& e) {
  const Variable* v = find(e.name);
  if (!v) {
    unknown_name(e.name, e.pos, false);
    return error_value();
  }
  Value out{v->type, v->regs};
  out.sampler = v->sampler;
  return out;
}

Value Compiler::literal(const Expr& e) {
  Value v;
  switch (e.kind) {
    case Expr::Kind::kFloat:
      v.type = Type::scalar(Base::kFloat);
      v.regs.push_back(fconst(e.number));
      return v;
    case Expr::Kind::kUint:
      v.type = Type::scalar(Base::kUint);
      v.regs.push_back(uconst(static_cast<uint32_t>(e.integer)));
      return v;
    case Expr::Kind::kBool:
      v.type = Type::scalar(Base::kBool);
      v.regs.push_back(uconst(static_cast<uint32_t>(e.integer)));
      return v;
    default:
      break;
  }
  // An int: a decimal literal past 2^31 - 1 is an error, a hex one is its
  // bits (0xFFFFFFFF is -1), as GLSL says.
  const bool hex = e.name.size() > 1 && (e.name[1] == 'x' || e.name[1] == 'X');
  if (!hex && e.integer > 2147483647u) {
    error(e.pos,
          "the int literal " + e.name + " is past 2147483647; write " + e.name + "u for a uint");
    return error_value();
  }
  v.type = Type::scalar(Base::kInt);
  v.regs.push_back(uconst(static_cast<uint32_t>(e.integer)));
  v.literal = true;
  v.literal_int = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(e.integer)));
  return v;
}

Value Compiler::expr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kInt:
    case Expr::Kind::kUint:
    case Expr::Kind::kFloat:
    case Expr::Kind::kBool:
      return literal(e);
    case Expr::Kind::kName:
      return name(e);
    case Expr::Kind::kUnary:
      if (e.op == "++" || e.op == "--") return incdec(e);
      return unary(e);
    case Expr::Kind::kPostfix:
      return incdec(e);
    case Expr::Kind::kBinary:
      if (e.op == "&&" || e.op == "||" || e.op == "^^") return logical(e);
      return binary(e);
    case Expr::Kind::kAssign:
      return assign(e);
    case Expr::Kind::kTernary:
      return ternary(e);
    case Expr::Kind::kCall:
      return call(e);
    case Expr::Kind::kMember:
      return member(e);
    case Expr::Kind::kIndex:
      return index(e);
    case Expr::Kind::kComma:
      expr(*e.args[0]);
      return expr(*e.args[1]);
  }
  return error_value();
}

// Whether evaluating `e` for lanes that do not need it is harmless: it
// stores nothing. Such operands of && || ?: are computed for every lane;
// others run under a mask.
bool Compiler::pure(const Expr& e) const {
  if (e.kind == Expr::Kind::kAssign || e.kind == Expr::Kind::kPostfix ||
      (e.kind == Expr::Kind::kUnary && (e.op == "++" || e.op == "--")))
    return false;
  if (e.kind == Expr::Kind::kCall && functions_.count(e.name) > 0) return false;
  if (e.kind == Expr::Kind::kCall && e.name == "emit_subparticle") return false;  // it emits
  for (const ExprPtr& a : e.args)
    if (!pure(*a)) return false;
  return true;
}

// ---- operators

Value Compiler::unary(const Expr& e) {
  const Value a = expr(*e.args[0]);
  if (a.type.is_error()) return a;
  const Type& t = a.type;
  if (e.op == "+" || e.op == "-") {
    if (!t.is_numeric()) {
      error(e.pos, "unary " + e.op + " needs a number, vector or matrix, found " + name_of(t));
      return error_value();
    }
    if (e.op == "+") return a;
    Value out = temp(t);
    for (size_t i = 0; i < a.regs.size(); ++i)
      emit(t.base == Base::kFloat ? Op::kFNeg : Op::kINeg, out.regs[i].slot, a.regs[i].slot);
    return out;
  }
  if (e.op == "!") {
    if (!(t.is_bool() && t.is_scalar())) {
      error(e.pos, "! needs a bool, found " + name_of(t) + (t.is_bool() ? " (use not())" : ""));
      return error_value();
    }
    Value out = temp(t);
    emit(Op::kBNot, out.regs[0].slot, a.regs[0].slot);
    return out;
  }
  // ~
  if (!t.is_integer() || t.is_matrix()) {
    error(e.pos, "~ needs an int or uint (or a vector of them), found " + name_of(t));
    return error_value();
  }
  Value out = temp(t);
  for (size_t i = 0; i < a.regs.size(); ++i) emit(Op::kNot, out.regs[i].slot, a.regs[i].slot);
  return out;
}

Value Compiler::incdec(const Expr& e) {
  const LValue lv = lvalue(*e.args[0]);
  if (!lv.ok) return error_value();
  if (!lv.type.is_numeric()) {
    error(e.pos, e.op + " needs a number or vector, found " + name_of(lv.type));
    return error_value();
  }
  const Value old = load(lv);
  Value before = temp(lv.type);  // a copy: the store below changes old's registers
  for (size_t i = 0; i < old.regs.size(); ++i)
    emit(old.regs[i].f ? Op::kFMov : Op::kUMov, before.regs[i].slot, old.regs[i].slot);
  Value after = temp(lv.type);
  const bool up = e.op == "++";
  for (size_t i = 0; i < old.regs.size(); ++i) {
    if (old.regs[i].f)
      emit(up ? Op::kFAdd : Op::kFSub, after.regs[i].slot, old.regs[i].slot, fconst(1).slot);
    else
      emit(up ? Op::kIAdd : Op::kISub, after.regs[i].slot, old.regs[i].slot, uconst(1).slot);
  }
  store(lv, after);
  return e.kind == Expr::Kind::kPostfix ? before : after;
}

namespace {
bool is_word_base(Base b) {
  return b == Base::kInt || b == Base::kUint || b == Base::kBool;
}
}  // namespace

Value Compiler::binary(const Expr& e) {
  const Value a = expr(*e.args[0]);
  const Value b = expr(*e.args[1]);
  if (a.type.is_error() || b.type.is_error()) return error_value();
  const std::string& op = e.op;
  if (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=")
    return comparison(op, a, b, e.pos);
  return arithmetic(op, a, b, e.pos);
}

// long: one rule per operator group (GLSL 4.60 5.9): the implicit
// conversions, the shapes that combine, then one instruction per component.
Value Compiler::arithmetic(const std::string& op, const Value& a0, const Value& b0, Pos p) {
  Value a = a0, b = b0;
  const bool bits = op == "&" || op == "|" || op == "^";
  const bool shift = op == "<<" || op == ">>";
  const std::string both = name_of(a.type) + " " + op + " " + name_of(b.type);
  if (!a.type.is_numeric() || !b.type.is_numeric()) {
    error(p, "cannot apply " + op + " to " + both);
    return error_value();
  }
  if (!shift && a.type.base != b.type.base) {
    // int and uint to float; an int literal to uint.
    const auto widen = [&](Value& v, Base to) {
      Type t = v.type.with_base(to);
      v = convert(v, t, p, "in " + both);
    };
    if (a.type.base == Base::kFloat)
      widen(b, Base::kFloat);
    else if (b.type.base == Base::kFloat)
      widen(a, Base::kFloat);
    else if (a.literal && b.type.base == Base::kUint)
      widen(a, Base::kUint);
    else if (b.literal && a.type.base == Base::kUint)
      widen(b, Base::kUint);
    else {
      error(p, "cannot apply " + op + " to " + both + "; convert one with int() or uint()");
      return error_value();
    }
    if (a.type.is_error() || b.type.is_error()) return error_value();
  }
  const Base base = a.type.base;
  if ((bits || shift || op == "%") && (!a.type.is_integer() || !b.type.is_integer())) {
    error(p, op + " needs ints or uints, found " + both +
                 (op == "%" ? "; use mod(x, y) for floats" : ""));
    return error_value();
  }
  if (op == "*" && (a.type.is_matrix() || b.type.is_matrix()) && !a.type.is_scalar() &&
      !b.type.is_scalar())
    return matrix_product(a, b);
  // Shapes: equal, or one side a scalar.
  Type result;
  if (a.type.is_scalar())
    result = b.type.with_base(shift ? b.type.base : base);
  else
    result = a.type;
  if (shift) result = a.type.is_scalar() ? b.type.with_base(a.type.base) : a.type;
  const bool fits = a.type.is_scalar() || b.type.is_scalar() ||
                    (a.type.rows == b.type.rows && a.type.cols == b.type.cols);
  if (!fits || (shift && a.type.is_scalar() && !b.type.is_scalar())) {
    error(p, "cannot apply " + op + " to " + both + ": their sizes differ");
    return error_value();
  }
  Op fop = Op::kFAdd, wop = Op::kIAdd;
  const bool sign = base == Base::kInt;
  if (op == "+")
    fop = Op::kFAdd, wop = Op::kIAdd;
  else if (op == "-")
    fop = Op::kFSub, wop = Op::kISub;
  else if (op == "*")
    fop = Op::kFMul, wop = Op::kIMul;
  else if (op == "/")
    fop = Op::kFDiv, wop = sign ? Op::kIDiv : Op::kUDiv;
  else if (op == "%")
    wop = sign ? Op::kIMod : Op::kUMod;
  else if (op == "&")
    wop = Op::kAnd;
  else if (op == "|")
    wop = Op::kOr;
  else if (op == "^")
    wop = Op::kXor;
  else if (op == "<<")
    wop = Op::kShl;
  else if (op == ">>")
    wop = sign ? Op::kIShr : Op::kUShr;
  Value out = temp(result);
  for (size_t i = 0; i < out.regs.size(); ++i) {
    const uint32_t x = a.regs[a.type.is_scalar() ? 0 : i].slot;
    const uint32_t y = b.regs[b.type.is_scalar() ? 0 : i].slot;
    emit(result.base == Base::kFloat ? fop : wop, out.regs[i].slot, x, y);
  }
  return out;
}

// m * v, v * m and m * m in linear algebra (column-major: m[c][r]).
Value Compiler::matrix_product(const Value& a, const Value& b) {
  const Type& ta = a.type;
  const Type& tb = b.type;
  // a as rows x inner, b as inner x cols: a vector on the left is a row,
  // on the right a column.
  const uint32_t a_rows = ta.is_vector() ? 1 : ta.rows;
  const uint32_t inner = ta.is_vector() ? ta.rows : ta.cols;
  const uint32_t b_inner = tb.is_vector() ? tb.rows : tb.rows;
  const uint32_t b_cols = tb.is_vector() ? 1 : tb.cols;
  if (inner != b_inner || ta.base != Base::kFloat || tb.base != Base::kFloat) {
    error(Pos{}, "cannot multiply " + name_of(ta) + " by " + name_of(tb));
    return error_value();
  }
  const auto at = [&](const Value& v, const Type& t, uint32_t r, uint32_t c) {
    if (t.is_vector()) return v.regs[&v == &a ? c : r].slot;
    return v.regs[c * t.rows + r].slot;
  };
  Type result;
  if (ta.is_vector())
    result = Type::vector(Base::kFloat, static_cast<int>(b_cols));
  else if (tb.is_vector())
    result = Type::vector(Base::kFloat, static_cast<int>(a_rows));
  else
    result = Type::matrix(static_cast<int>(a_rows));
  Value out = temp(result);
  for (uint32_t c = 0; c < b_cols; ++c)
    for (uint32_t r = 0; r < a_rows; ++r) {
      const uint32_t d = out.regs[c * a_rows + r].slot;
      emit(Op::kFMul, d, at(a, ta, r, 0), at(b, tb, 0, c));
      for (uint32_t k = 1; k < inner; ++k) {
        const Reg t = new_f();
        emit(Op::kFMul, t.slot, at(a, ta, r, k), at(b, tb, k, c));
        emit(Op::kFAdd, d, d, t.slot);
      }
    }
  return out;
}

Value Compiler::comparison(const std::string& op, const Value& a0, const Value& b0, Pos p) {
  Value a = a0, b = b0;
  const std::string both = name_of(a.type) + " " + op + " " + name_of(b.type);
  if (a.type != b.type) {
    if (a.type.base == Base::kFloat && is_word_base(b.type.base) && b.type.base != Base::kBool)
      b = convert(b, a.type, p, "in " + both);
    else if (b.type.base == Base::kFloat && is_word_base(a.type.base) && a.type.base != Base::kBool)
      a = convert(a, b.type, p, "in " + both);
    else if (a.literal && b.type.base == Base::kUint)
      a = convert(a, b.type, p, "in " + both);
    else if (b.literal && a.type.base == Base::kUint)
      b = convert(b, a.type, p, "in " + both);
    else {
      error(p, "cannot compare " + both);
      return error_value();
    }
    if (a.type.is_error() || b.type.is_error()) return error_value();
  }
  Value out = temp(Type::scalar(Base::kBool));
  const uint32_t d = out.regs[0].slot;
  if (op == "==" || op == "!=") {
    if (a.type.base == Base::kSampler || a.regs.empty()) {
      error(p, "cannot compare " + both);
      return error_value();
    }
    for (size_t i = 0; i < a.regs.size(); ++i) {
      const uint32_t t = i == 0 ? d : new_u().slot;
      emit(a.regs[i].f ? Op::kFEq : Op::kIEq, t, a.regs[i].slot, b.regs[i].slot);
      if (i > 0) emit(Op::kAnd, d, d, t);
    }
    if (op == "!=") emit(Op::kBNot, d, d);
    return out;
  }
  if (!a.type.is_scalar() || !a.type.is_numeric()) {
    error(p, "cannot compare " + both + " with " + op +
                 (a.type.is_vector() ? "; use lessThan() and the like for vectors" : ""));
    return error_value();
  }
  const bool swap = op == ">" || op == ">=";
  const bool strict = op == "<" || op == ">";
  const uint32_t x = (swap ? b : a).regs[0].slot, y = (swap ? a : b).regs[0].slot;
  Op o;
  if (a.type.base == Base::kFloat)
    o = strict ? Op::kFLt : Op::kFLe;
  else if (a.type.base == Base::kInt)
    o = strict ? Op::kILt : Op::kILe;
  else
    o = strict ? Op::kULt : Op::kULe;
  emit(o, d, x, y);
  return out;
}

Value Compiler::logical(const Expr& e) {
  const Value a = expr(*e.args[0]);
  const Type b_bool = Type::scalar(Base::kBool);
  if (!a.type.is_error() && a.type != b_bool) {
    error(e.args[0]->pos, "the left of " + e.op + " must be a bool, found " + name_of(a.type));
    return error_value();
  }
  Value b;
  if (e.op == "^^" || pure(*e.args[1])) {
    b = expr(*e.args[1]);
  } else {
    // Only the lanes that need it evaluate the right side (GLSL's short
    // circuit): its stores are masked.
    const uint32_t saved = mask_;
    const Reg m = new_u();
    if (e.op == "&&") {
      emit(Op::kAnd, m.slot, mask_, a.regs.empty() ? 0 : a.regs[0].slot);
    } else {
      const Reg na = new_u();
      emit(Op::kBNot, na.slot, a.regs.empty() ? 0 : a.regs[0].slot);
      emit(Op::kAnd, m.slot, mask_, na.slot);
    }
    mask_ = m.slot;
    b = expr(*e.args[1]);
    mask_ = saved;
  }
  if (a.type.is_error() || b.type.is_error()) return error_value();
  if (b.type != b_bool) {
    error(e.args[1]->pos, "the right of " + e.op + " must be a bool, found " + name_of(b.type));
    return error_value();
  }
  Value out = temp(b_bool);
  const uint32_t x = a.regs[0].slot, y = b.regs[0].slot, d = out.regs[0].slot;
  if (e.op == "^^")
    emit(Op::kXor, d, x, y);
  else if (e.op == "&&")
    emit(Op::kUSel, d, y, x, x);  // a ? b : a
  else
    emit(Op::kUSel, d, x, y, x);  // a ? a : b
  return out;
}

Value Compiler::ternary(const Expr& e) {
  const Value c = expr(*e.args[0]);
  if (!c.type.is_error() && c.type != Type::scalar(Base::kBool)) {
    error(e.args[0]->pos, "the condition of ?: must be a bool, found " + name_of(c.type));
    return error_value();
  }
  const uint32_t cr = c.regs.empty() ? 0 : c.regs[0].slot;
  Value x, y;
  if (pure(*e.args[1]) && pure(*e.args[2])) {
    x = expr(*e.args[1]);
    y = expr(*e.args[2]);
  } else {
    const uint32_t saved = mask_;
    const Reg mt = new_u(), nc = new_u(), mf = new_u();
    emit(Op::kAnd, mt.slot, mask_, cr);
    emit(Op::kBNot, nc.slot, cr);
    emit(Op::kAnd, mf.slot, mask_, nc.slot);
    mask_ = mt.slot;
    x = expr(*e.args[1]);
    mask_ = mf.slot;
    y = expr(*e.args[2]);
    mask_ = saved;
  }
  if (c.type.is_error() || x.type.is_error() || y.type.is_error()) return error_value();
  if (x.type != y.type) {
    if (x.type.base == Base::kFloat)
      y = convert(y, x.type, e.pos, "the two sides of ?:");
    else
      x = convert(x, y.type, e.pos, "the two sides of ?:");
    if (x.type.is_error() || y.type.is_error()) return error_value();
  }
  Value out = temp(x.type);
  for (size_t i = 0; i < out.regs.size(); ++i)
    emit(out.regs[i].f ? Op::kFSel : Op::kUSel, out.regs[i].slot, x.regs[i].slot, y.regs[i].slot,
         cr);
  return out;
}

// ---- assignment

Value Compiler::assign(const Expr& e) {
  const LValue lv = lvalue(*e.args[0]);
  Value v = expr(*e.args[1]);
  if (!lv.ok || v.type.is_error()) return error_value();
  if (e.op != "=") {
    const std::string op = e.op.substr(0, e.op.size() - 1);
    const Value old = load(lv);
    v = arithmetic(op, old, v, e.pos);
    if (v.type.is_error()) return v;
    if (v.type != lv.type) {
      error(e.pos, "the result of " + name_of(lv.type) + " " + op + " " + name_of(v.type) + " is " +
                       name_of(v.type) + ", which cannot be stored in " + name_of(lv.type));
      return error_value();
    }
  }
  v = convert(v, lv.type, e.pos, "cannot assign this value");
  if (v.type.is_error()) return v;
  store(lv, v);
  return v;
}

void Compiler::store(const LValue& lv, const Value& v0) {
  Value v = v0;
  // A source register that is also a destination (v = v.yx) is copied first.
  bool alias = false;
  for (const auto& group : lv.scalars)
    for (const Target& t : group)
      for (const Reg r : v.regs)
        if (r.slot == t.reg.slot && r.f == t.reg.f) alias = true;
  if (alias) {
    Value c = temp(v.type);
    for (size_t i = 0; i < v.regs.size(); ++i)
      emit(v.regs[i].f ? Op::kFMov : Op::kUMov, c.regs[i].slot, v.regs[i].slot);
    v = c;
  }
  if (lv.var && lv.var->builtin >= 0) writes_ |= 1u << lv.var->builtin;
  const bool plain = lv.var && lv.var->mask == mask_;
  for (size_t j = 0; j < lv.scalars.size() && j < v.regs.size(); ++j)
    for (const Target& t : lv.scalars[j]) {
      const uint32_t src = v.regs[j].slot;
      if (plain && t.guard == kAlways) {
        emit(t.reg.f ? Op::kFMov : Op::kUMov, t.reg.slot, src);
        continue;
      }
      uint32_t m = mask_;
      if (t.guard != kAlways) {
        m = new_u().slot;
        emit(Op::kAnd, m, mask_, t.guard);
      }
      emit(t.reg.f ? Op::kFSel : Op::kUSel, t.reg.slot, src, t.reg.slot, m);
    }
}

Value Compiler::load(const LValue& lv) {
  Value out;
  out.type = lv.type;
  for (const auto& group : lv.scalars) {
    if (group.size() == 1 && group[0].guard == kAlways) {
      out.regs.push_back(group[0].reg);
      continue;
    }
    const Reg d = group[0].reg.f ? new_f() : new_u();
    emit(d.f ? Op::kFMov : Op::kUMov, d.slot, group[0].reg.slot);
    for (size_t k = 1; k < group.size(); ++k)
      emit(d.f ? Op::kFSel : Op::kUSel, d.slot, group[k].reg.slot, d.slot, group[k].guard);
    out.regs.push_back(d);
  }
  return out;
}

LValue Compiler::lvalue(const Expr& e) {
  LValue lv;
  if (e.kind == Expr::Kind::kName) {
    const Variable* v = find(e.name);
    if (!v) {
      unknown_name(e.name, e.pos, false);
      return lv;
    }
    if (!v->read_only.empty()) {
      error(e.pos, "cannot assign to " + e.name + ": " + v->read_only);
      return lv;
    }
    lv.type = v->type;
    lv.var = v;
    for (const Reg r : v->regs) lv.scalars.push_back({Target{r, kAlways}});
    lv.ok = !v->type.is_error();
    return lv;
  }
  if (e.kind == Expr::Kind::kMember && e.op.empty()) {
    LValue base = lvalue(*e.args[0]);
    if (!base.ok) return lv;
    if (base.type.base == Base::kStruct && !base.type.is_array()) {
      const StructType& st = structs_[static_cast<size_t>(base.type.strukt)];
      uint32_t at = 0;
      for (const StructType::Field& f : st.fields) {
        const uint32_t n = count(f.type);
        if (f.name == e.name) {
          lv.type = f.type;
          lv.var = base.var;
          lv.scalars.assign(base.scalars.begin() + at, base.scalars.begin() + at + n);
          lv.ok = true;
          return lv;
        }
        at += n;
      }
      error(e.pos, st.name + " has no field '" + e.name + "'");
      return lv;
    }
    if (!(base.type.is_vector() || base.type.is_scalar())) {
      error(e.pos, "cannot take ." + e.name + " of " + name_of(base.type));
      return lv;
    }
    std::vector<uint32_t> idx;
    if (!swizzle(e.name, base.type.rows, idx, e.pos)) return lv;
    for (size_t i = 0; i < idx.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (idx[i] == idx[j]) {
          error(e.pos, "cannot assign to ." + e.name + ": it names a component twice");
          return lv;
        }
    lv.type = idx.size() == 1 ? base.type.component()
                              : Type::vector(base.type.base, static_cast<int>(idx.size()));
    lv.var = base.var;
    for (const uint32_t i : idx) lv.scalars.push_back(base.scalars[i]);
    lv.ok = true;
    return lv;
  }
  if (e.kind == Expr::Kind::kIndex) {
    LValue base = lvalue(*e.args[0]);
    if (!base.ok) return lv;
    return index_lvalue(std::move(base), *e.args[1], e.pos);
  }
  error(e.pos, "cannot assign to this expression");
  return lv;
}

// ---- members, swizzles, indexing

bool Compiler::swizzle(const std::string& s, uint32_t size, std::vector<uint32_t>& out, Pos p) {
  static const char* kSets[3] = {"xyzw", "rgba", "stpq"};
  int set = -1;
  for (const char c : s) {
    int found = -1;
    for (int k = 0; k < 3 && found < 0; ++k) {
      const char* at = std::strchr(kSets[k], c);
      if (at && c != 0) {
        if (set >= 0 && set != k) {
          error(p, "the swizzle ." + s + " mixes component sets (xyzw, rgba, stpq)");
          return false;
        }
        set = k;
        found = static_cast<int>(at - kSets[k]);
      }
    }
    if (found < 0 || static_cast<uint32_t>(found) >= size) {
      error(p, "." + s + " is not a field or a swizzle of a " +
                   (size == 1 ? std::string("scalar") : "vector of " + std::to_string(size)));
      return false;
    }
    out.push_back(static_cast<uint32_t>(found));
  }
  if (out.empty() || out.size() > 4) {
    error(p, "a swizzle has 1 to 4 components, ." + s + " has " + std::to_string(s.size()));
    return false;
  }
  return true;
}

Value Compiler::member(const Expr& e) {
  const Value base = expr(*e.args[0]);
  if (base.type.is_error()) return base;
  if (e.op == "()") {
    if (e.name != "length" || !base.type.is_array()) {
      error(e.pos, "." + e.name + "() is not a method of " + name_of(base.type) +
                       " (only arrays have one: .length())");
      return error_value();
    }
    Value v;
    v.type = Type::scalar(Base::kInt);
    v.regs.push_back(uconst(base.type.array));
    v.literal = true;
    v.literal_int = base.type.array;
    return v;
  }
  if (base.type.base == Base::kStruct && !base.type.is_array()) {
    const StructType& st = structs_[static_cast<size_t>(base.type.strukt)];
    uint32_t at = 0;
    for (const StructType::Field& f : st.fields) {
      const uint32_t n = count(f.type);
      if (f.name == e.name)
        return Value{f.type, std::vector<Reg>(base.regs.begin() + at, base.regs.begin() + at + n)};
      at += n;
    }
    error(e.pos, st.name + " has no field '" + e.name + "'");
    return error_value();
  }
  if (!(base.type.is_vector() || base.type.is_scalar()) || base.type.base == Base::kSampler) {
    error(e.pos, "cannot take ." + e.name + " of " + name_of(base.type));
    return error_value();
  }
  std::vector<uint32_t> idx;
  if (!swizzle(e.name, base.type.rows, idx, e.pos)) return error_value();
  Value v;
  v.type = idx.size() == 1 ? base.type.component()
                           : Type::vector(base.type.base, static_cast<int>(idx.size()));
  for (const uint32_t i : idx) v.regs.push_back(base.regs[i]);
  return v;
}

namespace {
// What indexing `t` gives, and how many of them there are.
bool indexable(const Type& t, Type& element, uint32_t& n) {
  if (t.is_array()) {
    element = t.element();
    n = t.array;
  } else if (t.is_matrix()) {
    element = Type::vector(Base::kFloat, t.rows);
    n = t.cols;
  } else if (t.is_vector()) {
    element = t.component();
    n = t.rows;
  } else {
    return false;
  }
  return true;
}
}  // namespace

// An index into n elements, clamped to [0, n - 1] (docs/programs.md:
// an index out of range reads and writes the nearest element).
Reg Compiler::clamped_index(const Value& i, uint32_t n, Pos p) {
  if (!i.type.is_scalar() || !i.type.is_integer()) {
    error(p, "an index must be an int or uint, found " + name_of(i.type));
    return Reg{0, false};
  }
  const Reg d = new_u();
  if (i.type.base == Base::kInt)
    emit(Op::kIClamp, d.slot, i.regs[0].slot, uconst(0).slot, uconst(n - 1).slot);
  else
    emit(Op::kUMin, d.slot, i.regs[0].slot, uconst(n - 1).slot);
  return d;
}

Value Compiler::index(const Expr& e) {
  const Value base = expr(*e.args[0]);
  Type element;
  uint32_t n = 0;
  if (base.type.is_error()) return base;
  if (!indexable(base.type, element, n)) {
    error(e.pos, "cannot index " + name_of(base.type));
    return error_value();
  }
  const uint32_t stride = count(element);
  int64_t k;
  if (const_int(*e.args[1], k)) {
    if (k < 0 || k >= n) {
      error(e.args[1]->pos, "index " + std::to_string(k) + " is out of range for " +
                                name_of(base.type) + " (0 to " + std::to_string(n - 1) + ")");
      return error_value();
    }
    const auto at = static_cast<size_t>(k) * stride;
    return Value{element,
                 std::vector<Reg>(base.regs.begin() + static_cast<ptrdiff_t>(at),
                                  base.regs.begin() + static_cast<ptrdiff_t>(at + stride))};
  }
  const Value i = expr(*e.args[1]);
  if (i.type.is_error()) return i;
  const Reg ci = clamped_index(i, n, e.args[1]->pos);
  Value out = temp(element);
  for (uint32_t el = 0; el < n; ++el) {
    const Reg g = new_u();
    if (el > 0) emit(Op::kIEq, g.slot, ci.slot, uconst(el).slot);
    for (uint32_t j = 0; j < stride; ++j) {
      const Reg src = base.regs[el * stride + j];
      const Reg dst = out.regs[j];
      if (el == 0)
        emit(dst.f ? Op::kFMov : Op::kUMov, dst.slot, src.slot);
      else
        emit(dst.f ? Op::kFSel : Op::kUSel, dst.slot, src.slot, dst.slot, g.slot);
    }
  }
  return out;
}

LValue Compiler::index_lvalue(LValue base, const Expr& index_expr, Pos p) {
  LValue lv;
  Type element;
  uint32_t n = 0;
  if (!indexable(base.type, element, n)) {
    error(p, "cannot index " + name_of(base.type));
    return lv;
  }
  const uint32_t stride = count(element);
  lv.type = element;
  lv.var = base.var;
  int64_t k;
  if (const_int(index_expr, k)) {
    if (k < 0 || k >= n) {
      error(index_expr.pos, "index " + std::to_string(k) + " is out of range for " +
                                name_of(base.type) + " (0 to " + std::to_string(n - 1) + ")");
      return lv;
    }
    const auto at = static_cast<size_t>(k) * stride;
    lv.scalars.assign(base.scalars.begin() + static_cast<ptrdiff_t>(at),
                      base.scalars.begin() + static_cast<ptrdiff_t>(at + stride));
    lv.ok = true;
    return lv;
  }
  const Value i = expr(index_expr);
  if (i.type.is_error()) return lv;
  const Reg ci = clamped_index(i, n, index_expr.pos);
  lv.scalars.resize(stride);
  for (uint32_t el = 0; el < n; ++el) {
    const Reg g = new_u();
    emit(Op::kIEq, g.slot, ci.slot, uconst(el).slot);
    for (uint32_t j = 0; j < stride; ++j)
      for (Target t : base.scalars[el * stride + j]) {
        if (t.guard == kAlways) {
          t.guard = g.slot;
        } else {
          const Reg both = new_u();
          emit(Op::kAnd, both.slot, t.guard, g.slot);
          t.guard = both.slot;
        }
        lv.scalars[j].push_back(t);
      }
  }
  lv.ok = true;
  return lv;
}

}  // namespace spritz::program
