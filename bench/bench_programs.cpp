// P1: programs (docs/programs.md) against the built-in model they can
// stand for, and the virtual machine's own rate, in one run:
//   a) a pose() program recomputing configs/sparks.toml's motion and curves
//      (bench/scenes/sparks_program.toml) against the built-in evaluation,
//   b) a process() program doing model.md 6.1's radial and tangential
//      integration (bench/scenes/swirl_program.toml) against the native
//      integrator, both at 60 steps a second,
//   c) straight-line arithmetic: a 200-instruction chain of multiplies and
//      adds over batches of 64 lanes, operations a second on one core.
#include <string>
#include <vector>

#include "bench.h"
#include "program/compiled.h"
#include "program/machine.h"
#include "spritz/program.h"

namespace spritz::bench {
namespace {

// Particles a second... as ns a particle: the best evaluation of `fx` at a
// clock with about 100,000 particles alive.
double ns_per_particle(const Effect& fx, double clock, size_t& alive) {
  Frame f;
  evaluate(fx, clock, f);  // warm
  const double s = best_seconds_alternating(
      {[&] { return seconds_of([&] { evaluate(fx, clock, f); }); }}, g_quick ? 0.3 : 1.0)[0];
  alive = f.emitters[0].particles.size();
  return s / static_cast<double>(alive) * 1e9;
}

Effect scaled(const std::string& relative, bool with_program) {
  Effect fx = load_source_effect(relative);
  Emitter& em = fx.emitters[0];
  if (!with_program) em.program = nullptr;
  return fx;
}

std::string straight_line_program() {
  std::string body = "void pose() {\n  float a = AGE, b = LIFETIME, c = TIME;\n";
  for (int i = 0; i < 50; ++i) body += "  a = a * b + c; c = c * a + b;\n";
  return body + "  CUSTOM.x = a + c;\n}\n";
}

}  // namespace

void Bench::programs() {
  std::printf("\nP1  programs: against the built-in model, and the machine's rate\n");
  // a, b: the effects' rates raised so about 100,000 particles are alive.
  const auto more = [](Effect& fx, double rate) {
    for (Emitter& em : fx.emitters) {
      em.rate_per_s = rate;
      em.stream_rate_per_s = rate;
      em.max_particles = 1000000;
    }
  };
  Effect sparks = scaled("bench/scenes/sparks_program.toml", false);
  Effect sparks_p = scaled("bench/scenes/sparks_program.toml", true);
  Effect swirl = load_source_effect("bench/scenes/swirl_native.toml");
  Effect swirl_p = scaled("bench/scenes/swirl_program.toml", true);
  more(sparks, 100000), more(sparks_p, 100000), more(swirl, 70000), more(swirl_p, 70000);
  size_t n1, n2, n3, n4;
  const double a0 = ns_per_particle(sparks, 1.5, n1), a1 = ns_per_particle(sparks_p, 1.5, n2);
  const double b0 = ns_per_particle(swirl, 3.0, n3), b1 = ns_per_particle(swirl_p, 3.0, n4);
  std::printf(
      "    a) sparks, pose() for motion and curves: %.0f ns/particle built in, %.0f with "
      "the program (%zu particles): %.2fx\n",
      a0, a1, n1, a1 / a0);
  std::printf(
      "    b) radial + tangential, process() at 60 steps/s: %.0f ns/particle native, %.0f "
      "with the program (%zu particles): %.2fx\n",
      b0, b1, n3, b1 / b0);
  // c: the machine alone.
  std::vector<Diagnostic> warnings;
  const auto p = Program::compile(straight_line_program(), ProgramOrigin{"bench", 1, 1}, warnings);
  program::Machine m(p->compiled(), 64, {}, 1u);
  for (uint32_t l = 0; l < 64; ++l) {
    m.f(program::kFAge)[l] = 0.5 + l * 1e-3;
    m.f(program::kFLifetime)[l] = 0.25;
    m.f(program::kFTime)[l] = 0.125;
  }
  const size_t instrs = p->instructions(Stage::kPose);
  constexpr int kBatches = 20000;
  const double s = best_seconds_alternating({[&] {
                                              return seconds_of([&] {
                                                for (int i = 0; i < kBatches; ++i)
                                                  m.run(Stage::kPose, 64);
                                              });
                                            }},
                                            g_quick ? 0.3 : 1.0)[0];
  const double ops = static_cast<double>(instrs) * 64 * kBatches / s;
  std::printf(
      "    c) straight-line arithmetic: %zu instructions x 64 lanes, %.0f million "
      "operations/s on one core\n",
      instrs, ops / 1e6);
  json.raw("P1", "{\"sparks_ns\": " + num(a0) + ", \"sparks_program_ns\": " + num(a1) +
                     ", \"sparks_ratio\": " + num(a1 / a0) + ", \"forces_ns\": " + num(b0) +
                     ", \"forces_program_ns\": " + num(b1) + ", \"forces_ratio\": " + num(b1 / b0) +
                     ", \"machine_mops\": " + num(ops / 1e6, 4) + "}");
}

}  // namespace spritz::bench
