// Forward derivatives of compiled code (docs/programs.md, model.md 11.1):
// where pose() sets a particle's position and nothing sets its velocity,
// the velocity is the exact derivative of that position with respect to
// the clock. This pass rewrites a function's code so that next to every
// float register r a tangent register r + N (N the float registers before
// the pass) carries dr/dclock, by the chain rule on each instruction
// (dual numbers, one instruction at a time).
//
// Each float instruction d = op(a, b, c) becomes
//     R  = op(a, b, c)             the result, into a scratch register
//     TT = op'(a, b, c, R, a', b', c')
//     d  = R;  d' = TT
// so that no rule reads a register its own instruction has overwritten
// (the compiler writes d = d + t). Word instructions are kept as they are;
// a float made from words (int to float, rand) has derivative 0.
#include <cmath>

#include "compiled.h"

namespace spritz::program {
namespace {

constexpr double kLn2 = 0.69314718055994530942;

class Tangent {
 public:
  Tangent(Compiled& c, uint32_t n) : c_(c), n_(n), scratch_(2 * n) {}

  std::vector<Instr> run(const std::vector<Instr>& code) {
    std::vector<uint32_t> at(code.size() + 1);
    std::vector<std::pair<size_t, uint32_t>> jumps;  // (new index, old target)
    for (size_t pc = 0; pc < code.size(); ++pc) {
      at[pc] = static_cast<uint32_t>(out_.size());
      const Instr& in = code[pc];
      const char* k = operand_kinds(in.op);
      if (k[1] == 'J') jumps.emplace_back(out_.size(), in.a);
      if (k[0] != 'F') {
        out_.push_back(in);
        continue;
      }
      next_ = scratch_;
      const uint32_t r = temp();
      out_.push_back(Instr{in.op, r, in.a, in.b, in.c});
      const uint32_t tt = rule(in, r);
      move(in.d, r);
      move(t(in.d), tt);
    }
    at[code.size()] = static_cast<uint32_t>(out_.size());
    for (const auto& [i, target] : jumps) out_[i].a = at[target];
    return std::move(out_);
  }

  uint32_t registers() const { return most_; }

 private:
  uint32_t t(uint32_t r) const { return r + n_; }
  uint32_t temp() {
    const uint32_t r = next_++;
    if (next_ > most_) most_ = next_;
    return r;
  }
  uint32_t k(double v) {
    for (const FConst& f : c_.fconsts)
      if (f.value == v && !std::signbit(f.value) == !std::signbit(v)) return f.slot;
    // New constants go after everything; their slots are placed by the caller.
    extra_.push_back(v);
    return kPending + static_cast<uint32_t>(extra_.size() - 1);
  }
  uint32_t emit(Op op, uint32_t a, uint32_t b = 0, uint32_t c = 0) {
    const uint32_t d = temp();
    out_.push_back(Instr{op, d, a, b, c});
    return d;
  }
  void move(uint32_t d, uint32_t a) { out_.push_back(Instr{Op::kFMov, d, a, 0, 0}); }
  uint32_t mul(uint32_t a, uint32_t b) { return emit(Op::kFMul, a, b); }
  uint32_t add(uint32_t a, uint32_t b) { return emit(Op::kFAdd, a, b); }
  uint32_t sub(uint32_t a, uint32_t b) { return emit(Op::kFSub, a, b); }
  uint32_t div(uint32_t a, uint32_t b) { return emit(Op::kFDiv, a, b); }
  uint32_t sel_lt(uint32_t x, uint32_t y, uint32_t if_lt, uint32_t else_) {
    const uint32_t m = utemp();
    out_.push_back(Instr{Op::kFLt, m, x, y, 0});
    return emit(Op::kFSel, if_lt, else_, m);
  }
  uint32_t utemp() { return c_.u_slots + 0; }  // one word register the pass adds

  // long: the chain rule for each float instruction of code.h.
  uint32_t rule(const Instr& in, uint32_t r) {
    const uint32_t a = in.a, b = in.b, c = in.c;
    const uint32_t A = t(a), B = t(b), C = t(c), zero = k(0), one = k(1);
    switch (in.op) {
      case Op::kFMov:
      case Op::kFFract:
        return emit(Op::kFMov, A);
      case Op::kFNeg:
        return emit(Op::kFNeg, A);
      case Op::kFAdd:
        return add(A, B);
      case Op::kFSub:
        return sub(A, B);
      case Op::kFMul:
        return add(mul(A, b), mul(a, B));
      case Op::kFDiv:
        return div(sub(A, mul(r, B)), b);
      case Op::kFMin:
        return sel_lt(b, a, B, A);
      case Op::kFMax:
        return sel_lt(a, b, B, A);
      case Op::kFAbs:
        return mul(A, emit(Op::kFSign, a));
      case Op::kFSign:
      case Op::kFFloor:
      case Op::kFCeil:
      case Op::kFTrunc:
      case Op::kFRound:
      case Op::kFRoundEven:
      case Op::kFStep:
      case Op::kIToF:
      case Op::kUToF:
      case Op::kBitsF:
      case Op::kRand:
        return emit(Op::kFMov, zero);
      case Op::kFMod:
        return sub(A, mul(B, emit(Op::kFFloor, div(a, b))));
      case Op::kFSqrt:
        return div(A, mul(r, k(2)));
      case Op::kFInvSqrt:
        return mul(div(mul(A, r), a), k(-0.5));
      case Op::kFSin:
        return mul(emit(Op::kFCos, a), A);
      case Op::kFCos:
        return emit(Op::kFNeg, mul(emit(Op::kFSin, a), A));
      case Op::kFTan:
        return mul(add(one, mul(r, r)), A);
      case Op::kFAsin:
        return div(A, emit(Op::kFSqrt, sub(one, mul(a, a))));
      case Op::kFAcos:
        return emit(Op::kFNeg, div(A, emit(Op::kFSqrt, sub(one, mul(a, a)))));
      case Op::kFAtan:
        return div(A, add(one, mul(a, a)));
      case Op::kFAtan2:  // the angle of (x = b, y = a)
        return div(sub(mul(b, A), mul(a, B)), add(mul(a, a), mul(b, b)));
      case Op::kFSinh:
        return mul(emit(Op::kFCosh, a), A);
      case Op::kFCosh:
        return mul(emit(Op::kFSinh, a), A);
      case Op::kFTanh:
        return mul(sub(one, mul(r, r)), A);
      case Op::kFAsinh:
        return div(A, emit(Op::kFSqrt, add(mul(a, a), one)));
      case Op::kFAcosh:
        return div(A, emit(Op::kFSqrt, sub(mul(a, a), one)));
      case Op::kFAtanh:
        return div(A, sub(one, mul(a, a)));
      case Op::kFExp:
        return mul(r, A);
      case Op::kFExp2:
        return mul(mul(r, k(kLn2)), A);
      case Op::kFLog:
        return div(A, a);
      case Op::kFLog2:
        return div(A, mul(a, k(kLn2)));
      case Op::kFPow:
        return pow_rule(a, b, r, A, B);
      case Op::kFFma:
        return add(add(mul(A, b), mul(a, B)), C);
      case Op::kFSmooth: {  // t = (x - e0) / (e1 - e0) clamped; R = t^2 (3 - 2t)
        const uint32_t w = sub(b, a), u = sub(c, a);
        const uint32_t tc = emit(Op::kFClamp, div(u, w), zero, one);
        const uint32_t slope = mul(mul(k(6), tc), sub(one, tc));
        const uint32_t dt = div(sub(sub(C, A), mul(div(u, w), sub(B, A))), w);
        return mul(slope, dt);
      }
      case Op::kFClamp: {  // min(max(x = a, lo = b), hi = c)
        const uint32_t lo = sel_lt(a, b, B, A);
        const uint32_t mx = emit(Op::kFMax, a, b);
        return sel_lt(c, mx, C, lo);
      }
      case Op::kFMix:  // a (1 - c) + b c
        return add(add(mul(A, sub(one, c)), mul(B, c)), mul(sub(b, a), C));
      case Op::kFSel:
        return emit(Op::kFSel, A, B, c);
      case Op::kNoise:
        return noise_rule(a, b, c, A, B, C);
      case Op::kCurve: {  // the curve's own slope
        const uint32_t slope = temp();
        out_.push_back(Instr{Op::kCurveSlope, slope, a, in.b, 0});
        return mul(slope, A);
      }
      case Op::kGradient: {  // a centred difference of step 2^-20
        const uint32_t above = add(a, k(1.0 / 1048576)), below = sub(a, k(1.0 / 1048576));
        const uint32_t up = temp(), down = temp();
        out_.push_back(Instr{Op::kGradient, up, above, in.b, in.c});
        out_.push_back(Instr{Op::kGradient, down, below, in.b, in.c});
        return mul(mul(sub(up, down), k(524288.0)), A);
      }
      case Op::kTexture: {  // centred differences of step 2^-20 along u and v
        const uint32_t h = k(1.0 / 1048576);
        const uint32_t u1 = temp(), u0 = temp(), v1 = temp(), v0 = temp();
        out_.push_back(Instr{Op::kTexture, u1, add(a, h), b, in.c});
        out_.push_back(Instr{Op::kTexture, u0, sub(a, h), b, in.c});
        out_.push_back(Instr{Op::kTexture, v1, a, add(b, h), in.c});
        out_.push_back(Instr{Op::kTexture, v0, a, sub(b, h), in.c});
        return mul(add(mul(sub(u1, u0), A), mul(sub(v1, v0), B)), k(524288.0));
      }
      default:
        return emit(Op::kFMov, zero);
    }
  }

  // d(a^b) = b a^(b-1) a' + a^b log(a) b', each term 0 where its tangent
  // is 0 (so a constant exponent of a negative base stays finite).
  uint32_t pow_rule(uint32_t a, uint32_t b, uint32_t r, uint32_t A, uint32_t B) {
    const uint32_t zero = k(0);
    const uint32_t t1 = mul(mul(b, emit(Op::kFPow, a, sub(b, k(1)))), A);
    const uint32_t m1 = utemp();
    out_.push_back(Instr{Op::kFNe, m1, A, zero, 0});
    const uint32_t s1 = emit(Op::kFSel, t1, zero, m1);
    const uint32_t t2 = mul(mul(r, emit(Op::kFLog, a)), B);
    out_.push_back(Instr{Op::kFNe, m1, B, zero, 0});
    const uint32_t s2 = emit(Op::kFSel, t2, zero, m1);
    return add(s1, s2);
  }

  // The noise's slope along each input by a centred difference of step
  // 2^-20 (its error is far below a pixel per second).
  uint32_t noise_rule(uint32_t a, uint32_t b, uint32_t c, uint32_t A, uint32_t B, uint32_t C) {
    const uint32_t h = k(1.0 / 1048576), inv = k(524288.0);
    uint32_t sum = k(0);
    const uint32_t in[3] = {a, b, c}, tan[3] = {A, B, C};
    for (int i = 0; i < 3; ++i) {
      uint32_t p[3] = {a, b, c}, m[3] = {a, b, c};
      p[i] = add(in[i], h);
      m[i] = sub(in[i], h);
      const uint32_t up = emit(Op::kNoise, p[0], p[1], p[2]);
      const uint32_t down = emit(Op::kNoise, m[0], m[1], m[2]);
      sum = add(sum, mul(mul(sub(up, down), inv), tan[i]));
    }
    return sum;
  }

 public:
  static constexpr uint32_t kPending = 0x40000000u;
  std::vector<double> extra_;

 private:
  Compiled& c_;
  uint32_t n_, scratch_, next_ = 0, most_ = 0;
  std::vector<Instr> out_;
};

}  // namespace

void add_pose_tangents(Compiled& c) {
  const uint32_t n = c.f_slots;
  Tangent pass(c, n);
  std::vector<Instr> code = pass.run(c.stage[static_cast<size_t>(Stage::kPose)]);
  // Registers: [0, n) the program's, [n, 2n) their tangents, then the
  // pass's scratch, then its new constants; one more word register.
  const uint32_t top = std::max(pass.registers(), 2 * n);
  for (Instr& in : code) {
    const char* kinds = operand_kinds(in.op);
    uint32_t* ops[4] = {&in.d, &in.a, &in.b, &in.c};
    for (int i = 0; i < 4; ++i)
      if (kinds[i] == 'F' && *ops[i] >= Tangent::kPending && *ops[i] < 2 * Tangent::kPending)
        *ops[i] = top + (*ops[i] - Tangent::kPending);
  }
  for (size_t i = 0; i < pass.extra_.size(); ++i)
    c.fconsts.push_back(FConst{top + static_cast<uint32_t>(i), pass.extra_[i]});
  c.f_slots = top + static_cast<uint32_t>(pass.extra_.size());
  c.u_slots += 1;
  c.tangent_offset = n;
  c.pose_tangent = std::move(code);
}

}  // namespace spritz::program
