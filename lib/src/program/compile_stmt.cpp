// The program compiler's statements: declarations, if, loops and jumps,
// with the execution masks code.h describes. A branch or loop whose mask
// has no lane left is jumped over; a loop runs while any lane is in it.
#include "compiler.h"

namespace spritz::program {

void Compiler::push_scope() {
  scopes_.emplace_back();
  marks_.push_back({next_f_, next_u_});
}

void Compiler::pop_scope() {
  scopes_.pop_back();
  next_f_ = marks_.back().first;
  next_u_ = marks_.back().second;
  marks_.pop_back();
}

Variable& Compiler::declare(const std::string& n, const Type& t, Pos p) {
  for (const Variable& v : scopes_.back())
    if (v.name == n) {
      error(p, "'" + n + "' is already declared in this block" +
                   (v.pos.line > 0 ? " (at line " + std::to_string(v.pos.line) + ")" : ""));
      break;
    }
  Variable v;
  v.name = n;
  v.type = t;
  v.pos = p;
  v.regs = temp(t).regs;
  v.mask = mask_;
  scopes_.back().push_back(std::move(v));
  return scopes_.back().back();
}

void Compiler::block(const std::vector<StmtPtr>& body, bool new_scope) {
  if (new_scope) push_scope();
  for (const StmtPtr& s : body)
    if (s) statement(*s);
  if (new_scope) pop_scope();
}

// long: the dispatch over statement kinds, with the temporaries each
// statement frees and the mask left after a break, continue or return.
void Compiler::statement(const Stmt& s) {
  const bool outer_exited = exited_;
  exited_ = false;
  const uint32_t entry = mask_;
  const uint32_t wf = next_f_, wu = next_u_;
  bool compound = false;
  switch (s.kind) {
    case Stmt::Kind::kExpr:
      expr(*s.expr);
      break;
    case Stmt::Kind::kDecl:
      declaration(s);
      break;
    case Stmt::Kind::kBlock:
      compound = true;
      block(s.body, true);
      break;
    case Stmt::Kind::kIf:
      compound = true;
      if_statement(s);
      break;
    case Stmt::Kind::kFor:
    case Stmt::Kind::kWhile:
    case Stmt::Kind::kDo:
      compound = true;
      loop(s);
      break;
    case Stmt::Kind::kBreak:
    case Stmt::Kind::kContinue:
    case Stmt::Kind::kReturn:
      jump(s);
      break;
    case Stmt::Kind::kDiscard:
      error(s.pos, "discard is a fragment-shader feature; to end a particle, set ACTIVE = false");
      break;
    case Stmt::Kind::kSwitch:
    case Stmt::Kind::kEmpty:
      break;
  }
  if (s.kind != Stmt::Kind::kDecl) {
    next_f_ = wf;
    next_u_ = wu;
  }
  // After a compound statement some of whose lanes broke, continued or
  // returned, only the others go on.
  if (compound && exited_) after_exit(entry);
  exited_ = exited_ || outer_exited;
}

void Compiler::after_exit(uint32_t region_mask) {
  std::vector<uint32_t> exits;
  if (!loops_.empty() && loops_.back().function_depth == calls_.size()) {
    exits.push_back(loops_.back().broke);
    exits.push_back(loops_.back().continued);
  }
  exits.push_back(calls_.empty() ? entry_returned_ : calls_.back().returned);
  const Reg gone = new_u(), m = new_u();
  emit(Op::kUMov, gone.slot, exits[0]);
  for (size_t i = 1; i < exits.size(); ++i) emit(Op::kOr, gone.slot, gone.slot, exits[i]);
  emit(Op::kBNot, gone.slot, gone.slot);
  emit(Op::kAnd, m.slot, region_mask, gone.slot);
  mask_ = m.slot;
}

void Compiler::declaration(const Stmt& s) {
  for (const Declarator& d : s.names) {
    const Expr* size = d.array_size ? d.array_size.get() : s.type.array_size.get();
    const bool unsized = d.unsized || s.type.unsized;
    Type t = resolve(s.type, size, unsized && !d.init, d.init.get());
    if (t.is_error()) {
      if (d.init) expr(*d.init);
      continue;
    }
    if (t.base == Base::kVoid || t.base == Base::kSampler) {
      error(d.pos, "cannot declare a " + name_of(t) + " variable");
      continue;
    }
    if (s.is_const && !d.init) {
      error(d.pos, "the const '" + d.name + "' needs a value");
      continue;
    }
    Value init;
    if (unsized && d.init) {  // sized by its initializer
      init = expr(*d.init);
      if (init.type.is_error()) continue;
      if (!init.type.is_array() || init.type.element() != t) {
        error(d.pos, "cannot initialize " + name_of(t) + "[] '" + d.name + "' with a " +
                         name_of(init.type));
        continue;
      }
      t = init.type;
    }
    // The variable's registers first, so that the initializer's
    // temporaries are freed when the statement ends; the name is bound
    // after its initializer, which cannot see it (GLSL 4.60 4.2.2).
    Variable var;
    var.name = d.name;
    var.type = t;
    var.pos = d.pos;
    var.regs = temp(t).regs;
    var.mask = mask_;
    const uint32_t wf = next_f_, wu = next_u_;
    if (d.init && !unsized) init = expr(*d.init);
    if (d.init) init = convert(init, t, d.init->pos, "the value of '" + d.name + "'");
    for (size_t i = 0; i < var.regs.size(); ++i) {
      const Reg r = var.regs[i];
      const uint32_t src = init.type.is_error() || init.regs.size() != var.regs.size()
                               ? (r.f ? fconst(0).slot : uconst(0).slot)
                               : init.regs[i].slot;
      emit(r.f ? Op::kFMov : Op::kUMov, r.slot, src);
    }
    next_f_ = wf;
    next_u_ = wu;
    for (const Variable& other : scopes_.back())
      if (other.name == d.name) {
        error(d.pos, "'" + d.name + "' is already declared in this block (at line " +
                         std::to_string(other.pos.line) + ")");
        break;
      }
    scopes_.back().push_back(std::move(var));
    Variable* v = &scopes_.back().back();
    if (s.is_const) {
      v->is_const = true;
      v->read_only = "it is a const";
      v->const_init = d.init.get();
    }
  }
}

void Compiler::if_statement(const Stmt& s) {
  const Value c = expr(*s.cond);
  if (!c.type.is_error() && c.type != Type::scalar(Base::kBool))
    error(s.cond->pos, "the condition of if must be a bool, found " + name_of(c.type));
  const bool ok = !c.type.is_error() && c.type == Type::scalar(Base::kBool);
  const uint32_t entry = mask_;
  // Both masks before either branch runs: a branch may change the condition.
  const Reg mt = new_u(), mf = new_u();
  if (ok) {
    emit(Op::kAnd, mt.slot, entry, c.regs[0].slot);
    emit(Op::kBNot, mf.slot, c.regs[0].slot);
    emit(Op::kAnd, mf.slot, entry, mf.slot);
  }
  const size_t skip_then = code_->size();
  emit(Op::kJumpNone, 0, 0, mt.slot);
  mask_ = mt.slot;
  statement(*s.body[0]);
  if (skip_then < code_->size()) (*code_)[skip_then].a = static_cast<uint32_t>(code_->size());
  if (s.body.size() > 1) {
    const size_t skip_else = code_->size();
    emit(Op::kJumpNone, 0, 0, mf.slot);
    mask_ = mf.slot;
    statement(*s.body[1]);
    if (skip_else < code_->size()) (*code_)[skip_else].a = static_cast<uint32_t>(code_->size());
  }
  mask_ = entry;
}

// long: the three loops share one shape: a loop-carried mask, the budget's
// tick, the body under the mask, the lanes that broke or returned taken out.
void Compiler::loop(const Stmt& s) {
  push_scope();  // a for's own variables
  if (s.kind == Stmt::Kind::kFor && s.body.size() > 1 && s.body[1]) statement(*s.body[1]);
  const uint32_t entry = mask_;
  const Reg lm = new_u(), broke = new_u(), continued = new_u();
  emit(Op::kUMov, lm.slot, entry);
  emit(Op::kUMov, broke.slot, uconst(0).slot);
  const auto loop_id = static_cast<uint32_t>(out_.loops.size());
  out_.loops.push_back(LoopSite{s.pos, s.kind == Stmt::Kind::kFor     ? "for"
                                       : s.kind == Stmt::Kind::kWhile ? "while"
                                                                      : "do ... while"});
  loops_.push_back(LoopFrame{broke.slot, continued.slot, calls_.size()});
  const auto condition = [&]() {
    mask_ = lm.slot;
    const uint32_t wf = next_f_, wu = next_u_;
    const Value c = expr(*s.cond);
    if (!c.type.is_error() && c.type != Type::scalar(Base::kBool))
      error(s.cond->pos, "a loop's condition must be a bool, found " + name_of(c.type));
    else if (!c.type.is_error())
      emit(Op::kAnd, lm.slot, lm.slot, c.regs[0].slot);
    next_f_ = wf;
    next_u_ = wu;
  };
  const auto top = static_cast<uint32_t>(code_->size());
  size_t leave = 0;
  if (s.kind != Stmt::Kind::kDo) {
    if (s.cond) condition();
    leave = code_->size();
    emit(Op::kJumpNone, 0, 0, lm.slot);
  }
  emit(Op::kTick, 0, loop_id, lm.slot);
  emit(Op::kUMov, continued.slot, uconst(0).slot);
  mask_ = lm.slot;
  const size_t returns = returns_;
  const bool outer = exited_;
  statement(*s.body[0]);
  exited_ = outer || returns_ != returns;  // only a return leaves more than this loop
  {
    const Reg gone = new_u();
    emit(Op::kOr, gone.slot, broke.slot, calls_.empty() ? entry_returned_ : calls_.back().returned);
    emit(Op::kBNot, gone.slot, gone.slot);
    emit(Op::kAnd, lm.slot, lm.slot, gone.slot);
  }
  if (s.kind == Stmt::Kind::kFor && s.step) {
    mask_ = lm.slot;
    const uint32_t wf = next_f_, wu = next_u_;
    expr(*s.step);
    next_f_ = wf;
    next_u_ = wu;
  }
  if (s.kind == Stmt::Kind::kDo) {
    condition();
    emit(Op::kJumpAny, 0, top, lm.slot);
  } else {
    emit(Op::kJump, 0, top);
    if (leave < code_->size()) (*code_)[leave].a = static_cast<uint32_t>(code_->size());
  }
  loops_.pop_back();
  mask_ = entry;
  pop_scope();
}

void Compiler::jump(const Stmt& s) {
  if (s.kind == Stmt::Kind::kReturn) {
    if (calls_.empty()) {
      if (s.expr) {
        error(s.expr->pos, "start(), process() and pose() return nothing");
        expr(*s.expr);
      }
      emit(Op::kOr, entry_returned_, entry_returned_, mask_);
    } else {
      // By index: the returned expression may inline calls, which grow
      // calls_ (and may move its frames).
      const size_t at = calls_.size() - 1;
      if (s.expr) {
        const Value v = expr(*s.expr);
        const FunctionFrame& f = calls_[at];
        if (f.result_type.base == Base::kVoid) {
          error(s.expr->pos, f.f->name + "() returns void, so return takes no value");
        } else if (!v.type.is_error()) {
          const Value c = convert(v, f.result_type, s.expr->pos, "the value returned");
          if (!c.type.is_error()) {
            LValue lv;
            lv.type = calls_[at].result_type;
            for (const Reg r : calls_[at].result.regs) lv.scalars.push_back({Target{r, kAlways}});
            lv.ok = true;
            store(lv, c);
          }
        }
      } else if (calls_[at].result_type.base != Base::kVoid) {
        error(s.pos, calls_[at].f->name + "() must return a " + name_of(calls_[at].result_type));
      }
      const uint32_t returned = calls_[at].returned;
      emit(Op::kOr, returned, returned, mask_);
    }
    ++returns_;
  } else {
    if (loops_.empty() || loops_.back().function_depth != calls_.size()) {
      error(s.pos, std::string(s.kind == Stmt::Kind::kBreak ? "break" : "continue") +
                       " is not inside a loop");
      return;
    }
    const uint32_t acc =
        s.kind == Stmt::Kind::kBreak ? loops_.back().broke : loops_.back().continued;
    emit(Op::kOr, acc, acc, mask_);
  }
  mask_ = uconst(0).slot;
  exited_ = true;
}

}  // namespace spritz::program
