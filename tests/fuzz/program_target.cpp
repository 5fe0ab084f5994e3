// Program text (a Godot shader when it says shader_type particles) ->
// compile -> run start(), process() and pose() over a batch
// of 8 particles, and over each particle alone. A program that compiles
// must run without a crash or undefined behaviour, within its loop budget
// (an error at the loop otherwise), and every particle's results must be
// the same bits in the batch as alone: lanes never see each other.
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "fuzz.h"
#include "program/compiled.h"
#include "program/machine.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/program.h"

namespace {

using namespace spritz;
namespace pg = spritz::program;

constexpr uint32_t kLanes = 8;
// A small budget, so a runaway loop ends in milliseconds.
constexpr uint32_t kTurns = 20000;

void set_lane(pg::Machine& m, uint32_t l, uint32_t particle) {
  const double x = static_cast<double>(particle);
  m.u(pg::kUKey)[l] = particle * 2;
  m.u(pg::kUIndex)[l] = particle;
  m.u(pg::kUStream)[l] = particle_stream(3, particle);
  m.u(pg::kUMask)[l] = 1;
  m.u(pg::kUActive)[l] = 1;
  m.u(pg::kUTurns)[l] = 0;
  m.u(pg::kUEmitOpen)[l] = particle % 4 != 3;  // emit_subparticle() may emit, mostly
  m.u(pg::kUEmitCount)[l] = particle % 3;
  for (uint32_t s = 0; s < pg::kFBuiltins; ++s) m.f(s)[l] = 0.25 * x - 0.5 + 0.125 * s;
  m.f(pg::kFAge)[l] = 0.3 * x;
  m.f(pg::kFLifetime)[l] = 2.5;
  m.f(pg::kFDelta)[l] = 1.0 / 60;
}

// Each stage the program has, in order, over `lanes` lanes of `m` holding
// particles first..first + lanes; false when the loop budget stopped it.
bool run(pg::Machine& m, const pg::Compiled& c, uint32_t first, uint32_t lanes) {
  for (uint32_t l = 0; l < lanes; ++l) set_lane(m, l, first + l);
  try {
    for (int s = 0; s < kStages; ++s)
      if (c.has_stage[static_cast<size_t>(s)]) m.run(static_cast<Stage>(s), lanes);
    if (c.tangent_offset > 0) m.run_pose_tangent(lanes);
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return false;
  }
  return true;
}

bool same(double a, double b) {
  uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y || (a != a && b != b);  // NaNs may differ in payload only
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<const Program> p;
  try {
    std::vector<Diagnostic> warnings;
    // A text that says it is a Godot particle shader is compiled as one,
    // with its glue (docs/programs.md, "Godot particle shaders").
    const std::string_view text = fuzz::as_text(data, size);
    static const GodotDialect godot;
    const bool is_godot = text.find("shader_type particles") != std::string_view::npos;
    p = Program::compile(text, ProgramOrigin{"fuzz.glsl", 1, 1}, warnings, {},
                         is_godot ? &godot : nullptr);
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return 0;
  }
  const pg::Compiled& c = p->compiled();
  // Far fewer registers than a real program could take, so that one
  // execution stays small; the compiler's own limits are tested apart.
  if (static_cast<uint64_t>(c.f_slots) * kLanes > (1u << 22)) return 0;
  // Samplers bound in turn to nothing, a 3x2 image and a curve.
  static const ProgramImage image{
      3, 2, {0,     1, 2,     65535, 9000,  65535, 0,     1,     400, 500, 600, 700,
             65535, 0, 65535, 0,     12345, 23456, 34567, 45678, 1,   2,   3,   4}};
  static const Curve ramp = Curve::line(-2, 5);
  std::vector<pg::Sampler> samplers(c.samplers.size());
  for (size_t i = 0; i < samplers.size(); ++i) {
    samplers[i].info = c.samplers[i];
    if (i % 3 == 1) samplers[i].image = &image;
    if (i % 3 == 2) samplers[i].curve = &ramp;
  }
  pg::Machine batch(c, kLanes, {}, 77u, nullptr, nullptr, &samplers);
  batch.set_turn_budget(kTurns);
  batch.set_emission(2, 0.25, 9, nullptr);
  if (!run(batch, c, 0, kLanes)) return 0;
  for (uint32_t l = 0; l < kLanes; ++l) {
    pg::Machine one(c, 1, {}, 77u, nullptr, nullptr, &samplers);
    one.set_turn_budget(kTurns);
    one.set_emission(2, 0.25, 9, nullptr);
    FUZZ_REQUIRE(run(one, c, l, 1));
    // The built-in variables hold each particle's results (the other
    // registers are scratch).
    for (uint32_t s = 0; s < pg::kFBuiltins; ++s) FUZZ_REQUIRE(same(batch.f(s)[l], one.f(s)[0]));
    FUZZ_REQUIRE(batch.u(pg::kUActive)[l] == one.u(pg::kUActive)[0]);
    FUZZ_REQUIRE(batch.u(pg::kUEmitCount)[l] == one.u(pg::kUEmitCount)[0]);
  }
  return 0;
}
