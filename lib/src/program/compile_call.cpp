// The program compiler's calls: constructors (GLSL 4.60 5.4), user
// functions (inlined at the call, with in, out and inout parameters), and
// the hand-off to the built-in functions (builtins.cpp).
#include <algorithm>

#include "compiler.h"
#include "parser.h"

namespace spritz::program {

Value Compiler::call(const Expr& e) {
  if (e.array_type) {
    std::vector<Value> args;
    for (const ExprPtr& a : e.args) args.push_back(expr(*a));
    const Type t = resolve(*e.array_type, e.array_type->array_size.get(), false, nullptr);
    if (t.is_error()) return error_value();
    Type sized = t;
    if (e.array_type->unsized) sized.array = static_cast<uint32_t>(args.size());
    return construct(e, sized, args);
  }
  const Type t = type_from_name(e.name, structs_);
  if (!t.is_error() && functions_.count(e.name) == 0) {
    std::vector<Value> args;
    for (const ExprPtr& a : e.args) args.push_back(expr(*a));
    return construct(e, t, args);
  }
  const auto user = functions_.find(e.name);
  if (user != functions_.end()) return user_call(e, user->second);
  if (e.name == "curve" || e.name == "gradient") return effect_curve(e);
  if (e.name == "texture" || e.name == "textureLod" || e.name == "texelFetch" ||
      e.name == "textureSize")
    return sampler_call(e);
  if (godot && e.name == "emit_subparticle") {
    if (!godot3) return emit_subparticle(e);
    error(e.pos,
          "emit_subparticle() is Godot 4's: a Godot 3 particle shader (vertex()) has no "
          "sub-emitter to emit to");
    for (const ExprPtr& a : e.args) expr(*a);
    return error_value();
  }
  if (!is_builtin_function(e.name)) {
    unknown_name(e.name, e.pos, true);
    for (const ExprPtr& a : e.args) expr(*a);  // their own errors still count
    return error_value();
  }
  std::vector<Value> args;
  bool bad = false;
  for (const ExprPtr& a : e.args) {
    // modf's second argument is an out parameter: builtins.cpp takes its lvalue.
    if (e.name == "modf" && &a == &e.args.back() && e.args.size() == 2) {
      args.push_back(Value{});
      continue;
    }
    args.push_back(expr(*a));
    bad = bad || args.back().type.is_error();
  }
  if (bad) return error_value();
  Value out;
  builtin_call(e, args, out);
  return out;
}

// Godot 4's emit_subparticle(mat4 xform, vec3 velocity, vec4 color, vec4
// custom, uint flags), a bool (model.md 11.8): the arguments copied into
// one record of consecutive registers (compiled.h's kFGodotEmitted layout),
// then kEmit for the lanes running here.
Value Compiler::emit_subparticle(const Expr& e) {
  const Type params[5] = {Type::matrix(4), Type::vector(Base::kFloat, 3),
                          Type::vector(Base::kFloat, 4), Type::vector(Base::kFloat, 4),
                          Type::scalar(Base::kUint)};
  std::vector<Value> args;
  bool bad = false;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = expr(*e.args[i]);
    if (i < 5)
      v = convert(v, params[i], e.args[i]->pos,
                  "argument " + std::to_string(i + 1) + " of emit_subparticle()");
    bad = bad || v.type.is_error();
    args.push_back(std::move(v));
  }
  if (e.args.size() != 5) {
    error(e.pos,
          "emit_subparticle() takes 5 arguments (mat4 xform, vec3 velocity, vec4 color, "
          "vec4 custom, uint flags), not " +
              std::to_string(e.args.size()));
    return error_value();
  }
  if (bad) return error_value();
  std::vector<uint32_t> record;
  for (size_t i = 0; i < 4; ++i)
    for (const Reg& r : args[i].regs) record.push_back(r.slot);
  const uint32_t first = new_f().slot;
  for (size_t i = 1; i < record.size(); ++i) new_f();  // consecutive: the stack grows by one
  for (size_t i = 0; i < record.size(); ++i)
    emit(Op::kFMov, first + static_cast<uint32_t>(i), record[i]);
  Value out = temp(Type::scalar(Base::kBool));
  emit(Op::kEmit, out.regs[0].slot, first, args[4].regs[0].slot, mask_);
  out_.emits = true;
  return out;
}

// curve(NAME, x) and gradient(NAME, x): the emitter's `curves` and
// `gradients` (docs/programs.md), NAME a bare name the effect declares.
Value Compiler::effect_curve(const Expr& e) {
  const bool colour = e.name == "gradient";
  const std::vector<std::string>& declared = colour ? names.gradients : names.curves;
  const std::string table = colour ? "gradients" : "curves";
  if (e.args.size() != 2 || e.args[0]->kind != Expr::Kind::kName) {
    error(e.pos,
          e.name + "(NAME, x) takes the name of one of the emitter's " + table + " and a float");
    for (const ExprPtr& a : e.args) expr(*a);
    return error_value();
  }
  const std::string& n = e.args[0]->name;
  uint32_t index = 0;
  while (index < declared.size() && declared[index] != n) ++index;
  Value x = expr(*e.args[1]);
  if (index == declared.size()) {
    std::string known;
    for (const std::string& d : declared) known += (known.empty() ? "" : ", ") + d;
    error(e.args[0]->pos, "the emitter has no " + std::string(colour ? "gradient" : "curve") +
                              " named '" + n + "'" +
                              (known.empty() ? "; declare it in its " + table + " table"
                                             : " (its " + table + ": " + known + ")"));
    return error_value();
  }
  if (x.type.is_error()) return x;
  x = convert(x, Type::scalar(Base::kFloat), e.args[1]->pos, e.name + "()'s x");
  if (x.type.is_error()) return x;
  Value out = temp(colour ? Type::vector(Base::kFloat, 3) : Type::scalar(Base::kFloat));
  if (colour) {
    for (uint32_t ch = 0; ch < 3; ++ch)
      emit(Op::kGradient, out.regs[ch].slot, x.regs[0].slot, index, ch);
  } else {
    emit(Op::kCurve, out.regs[0].slot, x.regs[0].slot, index);
  }
  return out;
}

// texture(s, uv [, bias]), textureLod(s, uv, lod), texelFetch(s, ivec2,
// lod) and textureSize(s, lod) (docs/programs.md, "Textures"): the sampler
// is a uniform known when the program compiles, one instruction per
// channel. A bias or level is checked and otherwise ignored: samplers have
// one level.
Value Compiler::sampler_call(const Expr& e) {
  std::vector<Value> args;
  for (const ExprPtr& a : e.args) args.push_back(expr(*a));
  for (const Value& a : args)
    if (a.type.is_error()) return error_value();
  const std::string& n = e.name;
  const bool size = n == "textureSize", fetch = n == "texelFetch";
  const size_t least = size || n == "texture" ? 2 : 3;
  const size_t most = size ? 2 : 3;
  const char* shape = size                ? "textureSize(sampler2D, int lod)"
                      : fetch             ? "texelFetch(sampler2D, ivec2, int lod)"
                      : n == "textureLod" ? "textureLod(sampler2D, vec2, float lod)"
                                          : "texture(sampler2D, vec2 [, float bias])";
  if (args.size() < least || args.size() > most || args[0].type.base != Base::kSampler ||
      args[0].type.is_array() || args[0].sampler < 0) {
    error(e.pos, std::string("this call does not fit ") + shape +
                     (args.empty() || args[0].type.base == Base::kSampler
                          ? ""
                          : "; its first argument must name a sampler2D uniform"));
    return error_value();
  }
  const uint32_t s = 4 * static_cast<uint32_t>(args[0].sampler);
  const Type ivec2 = Type::vector(Base::kInt, 2);
  const Type last = size || fetch ? Type::scalar(Base::kInt) : Type::scalar(Base::kFloat);
  if (args.size() == most) {
    const Value lod = convert(args.back(), last, e.args.back()->pos, n + "()'s last argument");
    if (lod.type.is_error()) return lod;
    args.back() = lod;
  }
  if (size) {
    Value out = temp(ivec2);
    for (uint32_t k = 0; k < 2; ++k)
      emit(Op::kTexSize, out.regs[k].slot, args[1].regs[0].slot, 0, s + k);
    return out;
  }
  const Value at = convert(args[1], fetch ? ivec2 : Type::vector(Base::kFloat, 2), e.args[1]->pos,
                           n + "()'s coordinates");
  if (at.type.is_error()) return at;
  Value out = temp(Type::vector(Base::kFloat, 4));
  for (uint32_t k = 0; k < 4; ++k)
    emit(fetch ? Op::kTexel : Op::kTexture, out.regs[k].slot, at.regs[0].slot, at.regs[1].slot,
         s + k);
  return out;
}

// long: GLSL's constructor rules, one branch per kind of type built: a
// scalar, a vector, a matrix, a struct, an array.
Value Compiler::construct(const Expr& e, const Type& t, std::vector<Value>& args) {
  for (const Value& a : args)
    if (a.type.is_error()) return error_value();
  const std::string what = name_of(t);
  if (t.base == Base::kVoid || t.base == Base::kSampler) {
    error(e.pos, "cannot construct a " + what);
    return error_value();
  }
  if (t.is_array() || t.base == Base::kStruct) {
    const size_t want =
        t.is_array() ? t.array : structs_[static_cast<size_t>(t.strukt)].fields.size();
    if (args.size() != want) {
      error(e.pos, what + "(...) takes " + std::to_string(want) + " arguments, found " +
                       std::to_string(args.size()));
      return error_value();
    }
    Value out;
    out.type = t;
    for (size_t i = 0; i < args.size(); ++i) {
      const Type ft =
          t.is_array() ? t.element() : structs_[static_cast<size_t>(t.strukt)].fields[i].type;
      const Value v = convert(args[i], ft, e.args[i]->pos,
                              "argument " + std::to_string(i + 1) + " of " + what + "(...)");
      if (v.type.is_error()) return v;
      out.regs.insert(out.regs.end(), v.regs.begin(), v.regs.end());
    }
    return out;
  }
  // Scalars, vectors, matrices: from the scalars of plain arguments.
  for (size_t i = 0; i < args.size(); ++i)
    if (!args[i].type.is_plain()) {
      error(e.args[i]->pos, "cannot build a " + what + " from a " + name_of(args[i].type));
      return error_value();
    }
  if (args.empty()) {
    error(e.pos, what + "(...) needs at least one argument");
    return error_value();
  }
  const uint32_t n = t.components();
  Value out;
  out.type = t;
  const auto conv = [&](const Value& v, uint32_t i) {
    return convert_scalar(v.regs[i], v.type.base, t.base);
  };
  if (args.size() == 1 && args[0].type.is_scalar()) {
    const Reg r = conv(args[0], 0);
    if (t.is_matrix()) {  // a diagonal matrix
      for (uint32_t c = 0; c < t.cols; ++c)
        for (uint32_t rr = 0; rr < t.rows; ++rr) out.regs.push_back(c == rr ? r : fconst(0));
    } else {
      out.regs.assign(n, r);
    }
    return out;
  }
  if (args.size() == 1 && args[0].type.is_matrix() && t.is_matrix()) {
    const Type& s = args[0].type;
    for (uint32_t c = 0; c < t.cols; ++c)
      for (uint32_t r = 0; r < t.rows; ++r)
        out.regs.push_back(c < s.cols && r < s.rows ? args[0].regs[c * s.rows + r]
                                                    : fconst(c == r ? 1 : 0));
    return out;
  }
  uint32_t before_last = 0;
  for (size_t i = 0; i + 1 < args.size(); ++i) before_last += args[i].type.components();
  const uint32_t total = before_last + args.back().type.components();
  if (total < n || before_last >= n || (t.is_matrix() && total != n) ||
      (t.is_scalar() && args.size() > 1)) {
    error(e.pos, what + "(...) needs " + std::to_string(n) + " components, found " +
                     std::to_string(total) + (total > n ? " (too many arguments)" : ""));
    return error_value();
  }
  for (const Value& a : args)
    for (uint32_t i = 0; i < a.type.components() && out.regs.size() < n; ++i)
      out.regs.push_back(conv(a, i));
  return out;
}

namespace {
// How well argument types fit a function's parameters: 0 exactly, 1 with
// implicit conversions (int to float), -1 not at all.
int fit(const std::vector<Type>& args, const Function& f, const std::vector<Type>& params,
        const std::vector<bool>& literal) {
  if (args.size() != f.params.size()) return -1;
  int score = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == params[i]) continue;
    const Type& a = args[i];
    const Type& p = params[i];
    const bool widen =
        f.params[i].qualifier == "in" && a.is_plain() && p.is_plain() && a.rows == p.rows &&
        a.cols == p.cols &&
        ((p.base == Base::kFloat && (a.base == Base::kInt || a.base == Base::kUint)) ||
         (p.base == Base::kUint && literal[i]));
    if (!widen) return -1;
    score = 1;
  }
  return score;
}
}  // namespace

// long: a call inlined: the overload chosen, the arguments bound to fresh
// parameter variables, the body compiled under the call's mask, out and
// inout parameters copied back.
Value Compiler::user_call(const Expr& e, const std::vector<const Function*>& overloads) {
  // Past the size limit nothing more is inlined: calls that call calls
  // would otherwise walk an exponential number of bodies.
  if (too_big_) return error_value();
  // Bodies that emit nothing (their errors, or calls cut short) walk the
  // same exponential tree: their number is bounded too.
  if (++inlined_ > kMaxInlined) {
    error(e.pos, "calls inline to more than 32768 function bodies; make the program smaller");
    too_big_ = true;
    return error_value();
  }
  // Arguments: values for `in`, lvalues for out and inout (the chosen
  // overload decides; overloads share qualifiers or are told apart by type).
  std::vector<Value> values(e.args.size());
  std::vector<LValue> places(e.args.size());
  std::vector<Type> types(e.args.size());
  std::vector<bool> literal(e.args.size());
  const Function* first = overloads.front();
  for (size_t i = 0; i < e.args.size(); ++i) {
    const bool out = i < first->params.size() && first->params[i].qualifier != "in";
    if (out) {
      places[i] = lvalue(*e.args[i]);
      types[i] = places[i].type;
      if (!places[i].ok) return error_value();
      if (first->params[i].qualifier == "inout") values[i] = load(places[i]);
    } else {
      values[i] = expr(*e.args[i]);
      types[i] = values[i].type;
      literal[i] = values[i].literal;
      if (values[i].type.is_error()) return error_value();
    }
  }
  const Function* f = nullptr;
  std::vector<Type> params;
  int best = 2;
  for (const Function* g : overloads) {
    std::vector<Type> ps;
    for (const Param& p : g->params)
      ps.push_back(resolve(p.type, p.type.array_size.get(), p.type.unsized, nullptr));
    const int s = fit(types, *g, ps, literal);
    if (s >= 0 && s < best) {
      best = s;
      f = g;
      params = ps;
    }
  }
  if (!f) {
    std::string got;
    for (const Type& t : types) got += (got.empty() ? "" : ", ") + name_of(t);
    std::string want;
    for (const Function* g : overloads) {
      std::string ps;
      for (const Param& p : g->params) ps += (ps.empty() ? "" : ", ") + p.type.name;
      want += "\n  " + e.name + "(" + ps + ")";
    }
    error(e.pos, "no " + e.name + "() takes (" + got + "); there is:" + want);
    return error_value();
  }
  for (const FunctionFrame& fr : calls_)
    if (fr.f == f) {
      error(e.pos, e.name +
                       "() calls itself (through the calls it makes); programs cannot "
                       "recurse: write a loop");
      return error_value();
    }
  if (calls_.size() >= 64) {
    error(e.pos, "calls nest more than 64 deep");
    return error_value();
  }
  called_.insert(f);
  const Type rt = resolve(f->result, f->result.array_size.get(), f->result.unsized, nullptr);
  Value result = temp(rt);
  for (const Reg r : result.regs)
    emit(r.f ? Op::kFMov : Op::kUMov, r.slot, r.f ? fconst(0).slot : uconst(0).slot);
  const Reg returned = new_u();
  emit(Op::kUMov, returned.slot, uconst(0).slot);
  push_scope();
  std::vector<const Variable*> bound;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Param& p = f->params[i];
    Variable& v = declare(p.name, params[i], p.pos);
    if (p.is_const) v.read_only = "it is a const parameter";
    if (params[i].base == Base::kSampler) {  // bound to the argument's sampler, no registers
      v.sampler = values[i].sampler;
      v.read_only = "it is a sampler";
      bound.push_back(&v);
      continue;
    }
    bound.push_back(&v);
    LValue lv;
    lv.type = v.type;
    lv.var = &v;
    for (const Reg r : v.regs) lv.scalars.push_back({Target{r, kAlways}});
    lv.ok = true;
    if (p.qualifier == "out") {
      for (const Reg r : v.regs)
        emit(r.f ? Op::kFMov : Op::kUMov, r.slot, r.f ? fconst(0).slot : uconst(0).slot);
    } else {
      store(lv, convert(values[i], params[i], e.args[i]->pos, "argument " + std::to_string(i + 1)));
    }
  }
  const uint32_t call_mask = mask_;
  calls_.push_back(FunctionFrame{f, returned.slot, result, rt});
  const bool exited = exited_;
  block(f->body->body, true);
  exited_ = exited;
  calls_.pop_back();
  mask_ = call_mask;
  for (size_t i = 0; i < f->params.size(); ++i)
    if (f->params[i].qualifier != "in") store(places[i], Value{bound[i]->type, bound[i]->regs});
  pop_scope();
  return result;
}

}  // namespace spritz::program
