// An emitter's animated stream rate (model.md 9.2): keyframes [t, r] over the
// effect clock joined by straight lines, held at the first key's rate before
// it and at the last key's after it. Stream particle i is born where the
// cumulative emission N(t) = integral of r from clock 0 to t reaches i, and
// the keys that can be alive at clock c are N(c - L_max) <= i <= N(c). N is
// piecewise quadratic, so a birth is the root of a quadratic in one segment:
// still closed form, with no state carried from frame to frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace spritz {

inline constexpr size_t kMaxRateKeys = 4096;

class RateCurve {
 public:
  // Keyframes as written: times non-decreasing (two equal times make a step),
  // rates finite and >= 0.
  std::vector<double> key_t, key_r;

  bool empty() const { return key_t.empty(); }
  // The rate the keys give at `clock`, held outside them; at a step, the
  // value before it when `before`, else the value after it.
  double key_value(double clock, bool before) const;

  // Prepares the curve for counting (after loading): rates above `cap` (the
  // Little's-law clamp P / L_max) are cut to it; a looped effect reads the
  // curve over one period `period` (> 0; 0 when not looped) and scales it so
  // that a period emits a whole number of particles, at most `max_per_period`.
  // Returns that whole number for a looped effect (the key period), else 0.
  uint64_t prepare(double cap, double period, double max_per_period);

  // N(clock): particles emitted by `clock` (0 for clock <= 0).
  double count(double clock) const;
  // The clock at which N first reaches i (i < N(infinity)).
  double birth(uint64_t i) const;
  // The largest rate after prepare() (the window's bound).
  double max_rate() const { return max_rate_; }

 private:
  // Knots over [0, span]: clock, rate there, N there. Not looped: the last
  // knot's rate holds after it. Looped: span is the period and the curve
  // repeats.
  std::vector<double> t_, r_, n_;
  double period_ = 0, per_period_ = 0, max_rate_ = 0;

  double count_in_span(double clock) const;   // clock in [0, span] (or beyond, not looped)
  double birth_in_span(double target) const;  // N^-1 over the knots
};

}  // namespace spritz
