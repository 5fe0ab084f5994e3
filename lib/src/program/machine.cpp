// The virtual machine: every instruction of code.h over lanes [0, n), one
// loop per instruction (the compiler vectorises most of them), with the
// semantics docs/programs.md states. Everything is defined for every input:
// integer division by zero gives 0, shift counts are taken mod 32, a float
// out of an integer's range saturates (NaN gives 0).
#include "machine.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/noise.h"

namespace spritz::program {
namespace {

int32_t as_int(uint32_t u) {
  return static_cast<int32_t>(u);  // two's complement (GCC, Clang: modular)
}
uint32_t as_word(int32_t i) {
  return static_cast<uint32_t>(i);
}

// GLSL min and max: min(x, y) = y < x ? y : x, so a NaN y is passed over.
double fmin_glsl(double x, double y) {
  return y < x ? y : x;
}
double fmax_glsl(double x, double y) {
  return x < y ? y : x;
}

double sign_of(double x) {
  return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
}

// GLSL float to int: toward zero, saturated, NaN 0 (GLSL leaves these open).
uint32_t float_to_int(double x) {
  if (!(x == x)) return 0;
  if (x <= -2147483648.0) return as_word(std::numeric_limits<int32_t>::min());
  if (x >= 2147483647.0) return as_word(std::numeric_limits<int32_t>::max());
  return as_word(static_cast<int32_t>(x));
}
uint32_t float_to_uint(double x) {
  if (!(x > 0)) return 0;  // NaN and negatives
  if (x >= 4294967295.0) return 0xFFFFFFFFu;
  return static_cast<uint32_t>(x);
}

// floatBitsToUint: the value rounded to a 32-bit float, its bits. Beyond
// the float range it is rounded to +-infinity as IEEE says, written out
// because a C++ cast of such a double is undefined.
uint32_t float_bits(double x) {
  constexpr double kMax = 3.4028234663852886e38;       // FLT_MAX
  constexpr double kOverflow = 3.4028235677973366e38;  // FLT_MAX + half an ulp
  float f;
  if (x != x) {
    return std::signbit(x) ? 0xFFC00000u : 0x7FC00000u;
  } else if (std::fabs(x) >= kOverflow) {
    f = x > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
  } else if (std::fabs(x) > kMax) {
    f = x > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  } else {
    f = static_cast<float>(x);
  }
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
double bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return static_cast<double>(f);
}

double fsinh(double x) {
  const double a = std::fabs(x);
  if (a > 710) return x > 0 ? HUGE_VAL : -HUGE_VAL;
  const double t = math::expm1(a);
  return std::copysign(0.5 * (t + t / (t + 1)), x);
}
double fcosh(double x) {
  const double a = std::fabs(x);
  if (a > 710) return HUGE_VAL;
  const double e = math::exp(a);
  return 0.5 * (e + 1 / e);
}
double ftanh(double x) {
  const double a = std::fabs(x);
  if (a > 20) return std::copysign(1.0, x);
  const double t = math::expm1(2 * a);
  return std::copysign(t / (t + 2), x);
}
double fasinh(double x) {
  const double a = std::fabs(x);
  if (a > 268435456.0) return std::copysign(math::log(a) + 0.69314718055994530942, x);
  return std::copysign(math::log1p(a + a * a / (1 + std::sqrt(1 + a * a))), x);
}
double facosh(double x) {
  if (x < 1) return std::numeric_limits<double>::quiet_NaN();
  if (x > 268435456.0) return math::log(x) + 0.69314718055994530942;
  const double t = x - 1;
  return math::log1p(t + std::sqrt(2 * t + t * t));
}
double fatanh(double x) {
  const double a = std::fabs(x);
  return std::copysign(0.5 * math::log1p(2 * a / (1 - a)), x);
}

double smooth(double e0, double e1, double x) {
  double t = (x - e0) / (e1 - e0);
  t = fmin_glsl(fmax_glsl(t, 0.0), 1.0);
  return t * t * (3 - 2 * t);
}

uint32_t idiv(uint32_t a, uint32_t b) {
  const int32_t x = as_int(a), y = as_int(b);
  if (y == 0) return 0;
  if (y == -1) return 0u - a;  // wraps INT_MIN / -1 to INT_MIN
  return as_word(x / y);
}
uint32_t imod(uint32_t a, uint32_t b) {
  const int32_t x = as_int(a), y = as_int(b);
  if (y == 0 || y == -1) return 0;
  return as_word(x % y);
}
uint32_t ishr(uint32_t a, uint32_t s) {
  s &= 31;
  return as_int(a) < 0 ? ~(~a >> s) : a >> s;
}

// A program's own stream (docs/programs.md, rand): the particle's stream
// st hashed once more, so that program channels meet no model channel.
inline constexpr uint32_t kProgramSalt = 0x50524F47u;  // "PROG"
double program_unit(uint32_t st, uint32_t k) {
  return unit_raw(mix32(st ^ kProgramSalt), k);
}

}  // namespace

Machine::Machine(const Compiled& c, uint32_t batch,
                 const std::vector<std::vector<double>>& uniforms, uint32_t noise_field,
                 const std::vector<Curve>* curves, const std::vector<ColorCurve>* gradients,
                 const std::vector<Sampler>* samplers)
    : c_(c), batch_(batch), curves_(curves), gradients_(gradients), samplers_(samplers) {
  if ((curves ? curves->size() : 0) < c.curves ||
      (gradients ? gradients->size() : 0) < c.gradients ||
      (samplers ? samplers->size() : 0) < c.samplers.size())
    throw Error("internal error: a program runs without the curves it was compiled with");
  f_.assign(static_cast<size_t>(c.f_slots) * batch, 0.0);
  u_.assign(static_cast<size_t>(c.u_slots) * batch, 0u);
  for (const FConst& k : c.fconsts) std::fill_n(f(k.slot), batch, k.value);
  for (const UConst& k : c.uconsts) std::fill_n(u(k.slot), batch, k.value);
  std::fill_n(u(kUMask), batch, 1u);
  std::fill_n(u(kUNoiseField), batch, noise_field);
  execute(c.prologue, batch);
  for (size_t i = 0; i < c.uniforms.size() && i < uniforms.size(); ++i) {
    const std::vector<double>& v = uniforms[i];
    if (v.empty()) continue;
    const UniformInfo& info = c.uniforms[i];
    for (size_t j = 0; j < c.uniform_regs[i].size() && j < v.size(); ++j) {
      const Reg r = c.uniform_regs[i][j];
      if (r.f) {
        std::fill_n(f(r.slot), batch, v[j]);
      } else {
        const uint32_t w = info.is_bool  ? (v[j] != 0 ? 1u : 0u)
                           : info.is_int ? float_to_int(v[j])
                                         : float_to_uint(v[j]);
        std::fill_n(u(r.slot), batch, w);
      }
    }
  }
}

void Machine::run(Stage s, uint32_t n) {
  execute(c_.stage[static_cast<size_t>(s)], n);
}

void Machine::loop_error(uint32_t loop) const {
  const LoopSite& site = c_.loops[loop];
  SourceLoc loc{c_.origin.file, c_.origin.line + site.pos.line - 1,
                site.pos.line == 1 ? c_.origin.col + site.pos.col - 1 : site.pos.col};
  throw Error(loc, "this " + site.what + " loop ran more than " + std::to_string(budget_) +
                       " turns for one particle in one evaluation (the program's loop budget, "
                       "docs/programs.md); check its condition");
}

#define LANES for (uint32_t l = 0; l < n; ++l)
#define FD F(in.d)
#define FA F(in.a)
#define FB F(in.b)
#define FC F(in.c)
#define UD U(in.d)
#define UA U(in.a)
#define UB U(in.b)
#define UC U(in.c)
#define F_UNARY(expr)     \
  {                       \
    double* d = FD;       \
    const double* a = FA; \
    LANES d[l] = (expr);  \
  }                       \
  break
#define F_BINARY(expr)             \
  {                                \
    double* d = FD;                \
    const double *a = FA, *b = FB; \
    LANES d[l] = (expr);           \
  }                                \
  break
#define F_TERNARY(expr)                     \
  {                                         \
    double* d = FD;                         \
    const double *a = FA, *b = FB, *c = FC; \
    LANES d[l] = (expr);                    \
  }                                         \
  break
#define F_COMPARE(expr)            \
  {                                \
    uint32_t* d = UD;              \
    const double *a = FA, *b = FB; \
    LANES d[l] = (expr) ? 1u : 0u; \
  }                                \
  break
#define U_UNARY(expr)       \
  {                         \
    uint32_t* d = UD;       \
    const uint32_t* a = UA; \
    LANES d[l] = (expr);    \
  }                         \
  break
#define U_BINARY(expr)               \
  {                                  \
    uint32_t* d = UD;                \
    const uint32_t *a = UA, *b = UB; \
    LANES d[l] = (expr);             \
  }                                  \
  break
#define U_TERNARY(expr)                       \
  {                                           \
    uint32_t* d = UD;                         \
    const uint32_t *a = UA, *b = UB, *c = UC; \
    LANES d[l] = (expr);                      \
  }                                           \
  break

// kEmit (code.h), out of line: the rare instruction keeps the loop of
// execute() as tight as it was without it.
void Machine::emit(const Instr& in, uint32_t n) {
  const auto F = [this](uint32_t s) { return f(s); };
  const auto U = [this](uint32_t s) { return u(s); };
  uint32_t* d = UD;
  const uint32_t *flags = UB, *mask = UC, *open = U(kUEmitOpen);
  uint32_t* count = U(kUEmitCount);
  const double* at = F(kFEmitAt);
  if (emitted_at_.size() < batch_) emitted_at_.resize(batch_);
  LANES {
    // Room when fewer than emit_alive_ of its children can be alive
    // at this birth: the one emit_alive_ emissions back is gone.
    const uint32_t slot = emit_alive_ > 0 ? count[l] % emit_alive_ : 0;
    std::vector<double>& born = emitted_at_[l];
    const bool room =
        emit_alive_ > 0 && count[l] < emit_total_ &&
        (count[l] < emit_alive_ || (slot < born.size() && born[slot] + emit_window_ <= at[l]));
    d[l] = mask[l] && open[l] && room ? 1u : 0u;
    if (!d[l]) continue;
    if (born.size() <= slot) born.resize(slot + 1);
    born[slot] = at[l];
    if (sink_) {
      double record[kGodotEmittedSize];
      for (uint32_t i = 0; i < kGodotEmittedSize; ++i) record[i] = F(in.a + i)[l];
      sink_->take(l, count[l], record, flags[l]);
    }
    ++count[l];
  }
}

// long: one case per instruction of code.h, each a loop over the lanes; a
// table of functions would cost a call per instruction and lane.
void Machine::execute(const std::vector<Instr>& code, uint32_t n) {
  const auto F = [this](uint32_t s) { return f(s); };
  const auto U = [this](uint32_t s) { return u(s); };
  const size_t size = code.size();
  size_t pc = 0;
  while (pc < size) {
    const Instr& in = code[pc++];
    switch (in.op) {
      case Op::kFMov:
        F_UNARY(a[l]);
      case Op::kFNeg:
        F_UNARY(-a[l]);
      case Op::kFAdd:
        F_BINARY(a[l] + b[l]);
      case Op::kFSub:
        F_BINARY(a[l] - b[l]);
      case Op::kFMul:
        F_BINARY(a[l] * b[l]);
      case Op::kFDiv:
        F_BINARY(a[l] / b[l]);
      case Op::kFMin:
        F_BINARY(fmin_glsl(a[l], b[l]));
      case Op::kFMax:
        F_BINARY(fmax_glsl(a[l], b[l]));
      case Op::kFAbs:
        F_UNARY(std::fabs(a[l]));
      case Op::kFSign:
        F_UNARY(sign_of(a[l]));
      case Op::kFFloor:
        F_UNARY(std::floor(a[l]));
      case Op::kFCeil:
        F_UNARY(std::ceil(a[l]));
      case Op::kFTrunc:
        F_UNARY(std::trunc(a[l]));
      case Op::kFRound:
        F_UNARY(std::round(a[l]));
      case Op::kFRoundEven:
        F_UNARY(std::nearbyint(a[l]));
      case Op::kFFract:
        F_UNARY(a[l] - std::floor(a[l]));
      case Op::kFMod:
        F_BINARY(a[l] - b[l] * std::floor(a[l] / b[l]));
      case Op::kFSqrt:
        F_UNARY(std::sqrt(a[l]));
      case Op::kFInvSqrt:
        F_UNARY(1 / std::sqrt(a[l]));
      case Op::kFSin:
        F_UNARY(math::sin(a[l]));
      case Op::kFCos:
        F_UNARY(math::cos(a[l]));
      case Op::kFTan:
        F_UNARY(math::tan(a[l]));
      case Op::kFAsin:
        F_UNARY(math::asin(a[l]));
      case Op::kFAcos:
        F_UNARY(math::acos(a[l]));
      case Op::kFAtan:
        F_UNARY(math::atan(a[l]));
      case Op::kFAtan2:
        F_BINARY(math::atan2(a[l], b[l]));
      case Op::kFSinh:
        F_UNARY(fsinh(a[l]));
      case Op::kFCosh:
        F_UNARY(fcosh(a[l]));
      case Op::kFTanh:
        F_UNARY(ftanh(a[l]));
      case Op::kFAsinh:
        F_UNARY(fasinh(a[l]));
      case Op::kFAcosh:
        F_UNARY(facosh(a[l]));
      case Op::kFAtanh:
        F_UNARY(fatanh(a[l]));
      case Op::kFExp:
        F_UNARY(math::exp(a[l]));
      case Op::kFExp2:
        F_UNARY(math::exp2(a[l]));
      case Op::kFLog:
        F_UNARY(math::log(a[l]));
      case Op::kFLog2:
        F_UNARY(math::log2(a[l]));
      case Op::kFPow:
        F_BINARY(math::pow(a[l], b[l]));
      case Op::kFFma:
        F_TERNARY(std::fma(a[l], b[l], c[l]));
      case Op::kFStep:
        F_BINARY(b[l] < a[l] ? 0.0 : 1.0);
      case Op::kFSmooth:
        F_TERNARY(smooth(a[l], b[l], c[l]));
      case Op::kFClamp:
        F_TERNARY(fmin_glsl(fmax_glsl(a[l], b[l]), c[l]));
      case Op::kFMix:
        F_TERNARY(a[l] * (1 - c[l]) + b[l] * c[l]);
      case Op::kFLt:
        F_COMPARE(a[l] < b[l]);
      case Op::kFLe:
        F_COMPARE(a[l] <= b[l]);
      case Op::kFEq:
        F_COMPARE(a[l] == b[l]);
      case Op::kFNe:
        F_COMPARE(a[l] != b[l]);
      case Op::kFIsNan:
      case Op::kFIsInf: {
        uint32_t* d = UD;
        const double* a = FA;
        if (in.op == Op::kFIsNan)
          LANES d[l] = a[l] != a[l] ? 1u : 0u;
        else
          LANES d[l] = std::fabs(a[l]) == HUGE_VAL ? 1u : 0u;
        break;
      }
      case Op::kFSel: {
        double* d = FD;
        const double *a = FA, *b = FB;
        const uint32_t* c = UC;
        LANES d[l] = c[l] ? a[l] : b[l];
        break;
      }
      case Op::kUSel:
        U_TERNARY(c[l] ? a[l] : b[l]);
      case Op::kIToF: {
        double* d = FD;
        const uint32_t* a = UA;
        LANES d[l] = static_cast<double>(as_int(a[l]));
        break;
      }
      case Op::kUToF: {
        double* d = FD;
        const uint32_t* a = UA;
        LANES d[l] = static_cast<double>(a[l]);
        break;
      }
      case Op::kBitsF: {
        double* d = FD;
        const uint32_t* a = UA;
        LANES d[l] = bits_float(a[l]);
        break;
      }
      case Op::kFToI:
      case Op::kFToU:
      case Op::kFBits: {
        uint32_t* d = UD;
        const double* a = FA;
        if (in.op == Op::kFToI)
          LANES d[l] = float_to_int(a[l]);
        else if (in.op == Op::kFToU)
          LANES d[l] = float_to_uint(a[l]);
        else
          LANES d[l] = float_bits(a[l]);
        break;
      }
      case Op::kUMov:
        U_UNARY(a[l]);
      case Op::kIAdd:
        U_BINARY(a[l] + b[l]);
      case Op::kISub:
        U_BINARY(a[l] - b[l]);
      case Op::kIMul:
        U_BINARY(a[l] * b[l]);
      case Op::kIDiv:
        U_BINARY(idiv(a[l], b[l]));
      case Op::kUDiv:
        U_BINARY(b[l] == 0 ? 0u : a[l] / b[l]);
      case Op::kIMod:
        U_BINARY(imod(a[l], b[l]));
      case Op::kUMod:
        U_BINARY(b[l] == 0 ? 0u : a[l] % b[l]);
      case Op::kINeg:
        U_UNARY(0u - a[l]);
      case Op::kAnd:
        U_BINARY(a[l] & b[l]);
      case Op::kOr:
        U_BINARY(a[l] | b[l]);
      case Op::kXor:
        U_BINARY(a[l] ^ b[l]);
      case Op::kNot:
        U_UNARY(~a[l]);
      case Op::kShl:
        U_BINARY(a[l] << (b[l] & 31u));
      case Op::kIShr:
        U_BINARY(ishr(a[l], b[l]));
      case Op::kUShr:
        U_BINARY(a[l] >> (b[l] & 31u));
      case Op::kILt:
        U_BINARY(as_int(a[l]) < as_int(b[l]) ? 1u : 0u);
      case Op::kULt:
        U_BINARY(a[l] < b[l] ? 1u : 0u);
      case Op::kILe:
        U_BINARY(as_int(a[l]) <= as_int(b[l]) ? 1u : 0u);
      case Op::kULe:
        U_BINARY(a[l] <= b[l] ? 1u : 0u);
      case Op::kIEq:
        U_BINARY(a[l] == b[l] ? 1u : 0u);
      case Op::kINe:
        U_BINARY(a[l] != b[l] ? 1u : 0u);
      case Op::kIMin:
        U_BINARY(as_int(b[l]) < as_int(a[l]) ? b[l] : a[l]);
      case Op::kUMin:
        U_BINARY(b[l] < a[l] ? b[l] : a[l]);
      case Op::kIMax:
        U_BINARY(as_int(a[l]) < as_int(b[l]) ? b[l] : a[l]);
      case Op::kUMax:
        U_BINARY(a[l] < b[l] ? b[l] : a[l]);
      case Op::kIAbs:
        U_UNARY(as_int(a[l]) < 0 ? 0u - a[l] : a[l]);
      case Op::kISign:
        U_UNARY(as_int(a[l]) > 0 ? 1u : (as_int(a[l]) < 0 ? 0xFFFFFFFFu : 0u));
      case Op::kIClamp: {
        uint32_t* d = UD;
        const uint32_t *a = UA, *b = UB, *c = UC;
        LANES {
          const int32_t lo = as_int(a[l]) < as_int(b[l]) ? as_int(b[l]) : as_int(a[l]);
          d[l] = as_word(as_int(c[l]) < lo ? as_int(c[l]) : lo);
        }
        break;
      }
      case Op::kUClamp:
        U_TERNARY(c[l] < (a[l] < b[l] ? b[l] : a[l]) ? c[l] : (a[l] < b[l] ? b[l] : a[l]));
      case Op::kToBool:
        U_UNARY(a[l] != 0 ? 1u : 0u);
      case Op::kBNot:
        U_UNARY(a[l] ^ 1u);
      case Op::kRand: {
        double* d = FD;
        const uint32_t *a = UA, *st = U(kUStream);
        LANES d[l] = program_unit(st[l], a[l]);
        break;
      }
      case Op::kNoise: {
        double* d = FD;
        const double *a = FA, *b = FB, *c = FC;
        const uint32_t* field = U(kUNoiseField);
        LANES d[l] = gradient_noise(field[l], a[l], b[l], c[l]).value;
        break;
      }
      case Op::kJump:
        pc = in.a;
        break;
      case Op::kJumpNone:
      case Op::kJumpAny: {
        const uint32_t* m = UB;
        bool any = false;
        LANES any = any || m[l] != 0;
        if (any == (in.op == Op::kJumpAny)) pc = in.a;
        break;
      }
      case Op::kCurve:
      case Op::kCurveSlope: {
        double* d = FD;
        const double* a = FA;
        const Curve& cv = (*curves_)[in.b];
        if (in.op == Op::kCurve)
          LANES d[l] = cv.evaluate(a[l], 0);
        else
          LANES d[l] = cv.slope(a[l], 0);
        break;
      }
      case Op::kGradient: {
        double* d = FD;
        const double* a = FA;
        const ColorCurve& g = (*gradients_)[in.b];
        LANES {
          const Rgb c = g.evaluate(a[l], 0);
          d[l] = in.c == 0 ? c.r : (in.c == 1 ? c.g : c.b);
        }
        break;
      }
      case Op::kTexture: {
        double* d = FD;
        const double *a = FA, *b = FB;
        const Sampler& s = (*samplers_)[in.c / 4];
        LANES d[l] = sample(s, a[l], b[l], in.c % 4);
        break;
      }
      case Op::kTexel: {
        double* d = FD;
        const uint32_t *a = UA, *b = UB;
        const Sampler& s = (*samplers_)[in.c / 4];
        LANES d[l] = texel(s, static_cast<int32_t>(a[l]), static_cast<int32_t>(b[l]), in.c % 4);
        break;
      }
      case Op::kTexSize: {
        uint32_t* d = UD;
        const uint32_t* a = UA;
        const Sampler& s = (*samplers_)[in.c / 4];
        LANES d[l] = static_cast<uint32_t>(texture_size(s, static_cast<int32_t>(a[l]), in.c % 4));
        break;
      }
      case Op::kEmit:
        emit(in, n);
        break;
      case Op::kTick: {
        const uint32_t* m = UB;
        uint32_t* turns = U(kUTurns);
        bool over = false;
        LANES {
          turns[l] += m[l];
          over = over || turns[l] > budget_;
        }
        if (over) loop_error(in.a);
        break;
      }
    }
  }
}

}  // namespace spritz::program
