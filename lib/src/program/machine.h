// The virtual machine (code.h): runs a compiled program's functions over a
// batch of particles, one lane each, instruction by instruction.
#pragma once

#include <cstdint>
#include <vector>

#include "compiled.h"
#include "sampler.h"
#include "spritz/curve.h"

namespace spritz::program {

// Where the children a program emits go (emit_subparticle(), model.md
// 11.8): lane `lane`'s child number `number` of its life (0, 1, ...), its
// record (kGodotEmittedSize numbers, compiled.h's kFGodotEmitted layout)
// and its FLAG_EMIT_* flags.
class EmitSink {
 public:
  virtual ~EmitSink() = default;
  virtual void take(uint32_t lane, uint32_t number, const double* record, uint32_t flags) = 0;
};

class Machine {
 public:
  // Sets up the registers for `batch` lanes: constants, then the prologue
  // (global consts, uniforms' defaults), then `uniforms` over the defaults
  // (uniforms[i] for compiled.uniforms[i]; an empty one keeps its default).
  Machine(const Compiled& c, uint32_t batch, const std::vector<std::vector<double>>& uniforms,
          uint32_t noise_field, const std::vector<Curve>* curves = nullptr,
          const std::vector<ColorCurve>* gradients = nullptr,
          const std::vector<Sampler>* samplers = nullptr);

  uint32_t batch() const { return batch_; }
  // The loop budget (kProgramLoopBudget unless a test sets a smaller one).
  void set_turn_budget(uint32_t turns) { budget_ = turns; }
  // emit_subparticle() (model.md 11.8): a lane emits at most `alive`
  // children born within `window` seconds before each birth (kFEmitAt) and
  // at most `total` in its life (0: the emitter has no sub-emitter for
  // them, and every call returns false, as in Godot); each is handed to
  // `sink` (null: counted, not kept).
  void set_emission(uint32_t alive, double window, uint64_t total, EmitSink* sink) {
    emit_alive_ = alive;
    emit_window_ = window;
    emit_total_ = total;
    sink_ = sink;
  }
  double* f(uint32_t slot) { return f_.data() + static_cast<size_t>(slot) * batch_; }
  uint32_t* u(uint32_t slot) { return u_.data() + static_cast<size_t>(slot) * batch_; }

  // Runs function `s` for lanes [0, n) whose kUMask word is 1. Throws
  // spritz::Error when a lane's loops pass kProgramLoopBudget turns.
  void run(Stage s, uint32_t n);
  // pose() with derivatives (compiled.h's pose_tangent).
  void run_pose_tangent(uint32_t n) { execute(c_.pose_tangent, n); }

 private:
  void execute(const std::vector<Instr>& code, uint32_t n);
  [[gnu::noinline]] void emit(const Instr& in, uint32_t n);
  [[noreturn]] void loop_error(uint32_t loop) const;

  const Compiled& c_;
  uint32_t batch_;
  uint32_t budget_ = kProgramLoopBudget;
  uint32_t emit_alive_ = 0;
  double emit_window_ = 0;
  uint64_t emit_total_ = 0;
  EmitSink* sink_ = nullptr;
  // Each lane's last emit_alive_ births, by number mod emit_alive_.
  std::vector<std::vector<double>> emitted_at_;
  const std::vector<Curve>* curves_;
  const std::vector<ColorCurve>* gradients_;
  const std::vector<Sampler>* samplers_;
  std::vector<double> f_;
  std::vector<uint32_t> u_;
};

}  // namespace spritz::program
