// A reference check of real Godot particle shaders: four hand-written
// programs of the development corpus, imported and run by spritz, against a
// small frame simulator here that follows Godot's documentation of particle
// frames (docs/programs.md, "Godot particle shaders"; model.md 11.7), not
// the importer or the glue. Each program's logic is restated in C++ below;
// all four files are MIT-licensed (corpus SOURCES.md):
//   fenixnix/Ascii ParticalTestbed.shader (Godot 3, vertex(), RESTART),
//   godotengine/godot-demo-projects particle_fish.gdshader (Godot 4, start()),
//   w84death/the-islands-of-shaders insects_particles.shader (Godot 3, TIME),
//   gdquest-demos/godot-shaders particle_bridge_particle.shader (Godot 3, DELTA).
// The corpus files themselves are read from ../shared/corpus, never copied.
//
// The simulator's frames: on the grid of the step h, the first from the
// birth to the first grid point at or after it (TIME the birth), then one
// per h (TIME the frame's start), then the rest to the clock. Godot 3 runs
// vertex() (RESTART on the first frame) and then moves TRANSFORM's origin
// by VELOCITY * DELTA; Godot 4 moves it first (not on the first frame),
// runs start() on the first frame and process() on every one.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "import/import_support.h"
#include "skip.h"
#include "spritz/elementary.h"
#include "spritz/eval.h"
#include "spritz/hash.h"

using namespace spritz;
using namespace spritz::test;

namespace {

const fs::path kCorpus = fs::path(spritz_corpus_dir(SPRITZ_SOURCE_DIR)) / "godot-shaders";
constexpr double kH = 1.0 / 60;

// A Godot particle: TRANSFORM column-major, VELOCITY, CUSTOM.
struct GodotState {
  double t[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  double v[3] = {0, 0, 0};
  double custom[4] = {0, 0, 0, 0};
  bool restart = true;
};

// What a frame sees: its DELTA and TIME.
using Frame3 = std::function<void(GodotState&, double delta, double time)>;

// The grid's points k h: the first at or after t, the last at or before it.
double first_point(double t) {
  double k = std::ceil(t / kH);
  if ((k - 1) * kH >= t) k -= 1;
  if (k * kH < t) k += 1;
  return k;
}
double last_point(double t) {
  double k = std::floor(t / kH);
  if ((k + 1) * kH <= t) k += 1;
  if (k * kH > t) k -= 1;
  return k;
}

// Every frame from `birth` to `c`, each run as Godot 3 (vertex(), then the
// move) or Godot 4 (the move but on the first frame, then the shader).
GodotState simulate(double birth, double c, bool godot4, const Frame3& shader) {
  GodotState s;
  const auto frame = [&](double delta, double time) {
    if (godot4 && !s.restart)
      for (int i = 0; i < 3; ++i) s.t[12 + i] += s.v[i] * delta;
    shader(s, delta, time);
    if (!godot4)
      for (int i = 0; i < 3; ++i) s.t[12 + i] += s.v[i] * delta;
    s.restart = false;
  };
  const double k0 = first_point(birth);
  if (c < k0 * kH) {
    frame(c - birth, birth);
    return s;
  }
  frame(k0 * kH - birth, birth);
  const double last = last_point(c);
  for (double k = k0 + 1; k <= last; ++k) frame(kH, (k - 1) * kH);
  if (c - last * kH > 0) frame(c - last * kH, last * kH);
  return s;
}

// Godot's particle-shader random helpers, as the documentation gives them
// and these shaders copy them.
uint32_t godot_hash(uint32_t x) {
  x = ((x >> 16) ^ x) * 73244475u;
  x = ((x >> 16) ^ x) * 73244475u;
  return (x >> 16) ^ x;
}
double rand_from_seed(uint32_t seed) {
  int32_t s = static_cast<int32_t>(seed);
  if (s == 0) s = 305420679;
  const int32_t k = s / 127773;
  s = 16807 * (s - k * 127773) - 2836 * k;
  if (s < 0) s += 2147483647;
  return static_cast<double>(static_cast<uint32_t>(s) % 65536u) / 65535.0;
}

double fract(double x) {
  return x - std::floor(x);
}
double glsl_mod(double x, double y) {
  return x - y * std::floor(x / y);
}

struct Case {
  const char* file;
  const char* view;
  bool godot4;
  // The shader's frame for the particle numbered `number`.
  std::function<Frame3(uint32_t number, uint32_t index, uint32_t seed)> program;
};

// Imports `c.file` and checks every particle's place (and the sizes its
// basis gives) at three clocks against the simulator.
void check_against_simulator(const Case& c) {
  ImportOptions o;
  o.view = c.view;
  const fs::path path = kCorpus / c.file;
  const Effect fx = load_imported(import_path(path, o), path);
  const Emitter& em = fx.emitters.at(0);
  const GodotDialect& g = *em.program->godot;
  const uint32_t seed = mix32(em.seed ^ ((38u + 1u) * 0x85EBCA77u));  // RANDOM_SEED, model.md 11.7
  const auto& m = g.to_canvas;
  const double scale = 0.5 * (std::sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) +
                              std::sqrt(m[3] * m[3] + m[4] * m[4] + m[5] * m[5]));
  size_t checked = 0;
  for (const double clock : {0.3, 1.05, 2.5 + kH / 3}) {
    const Frame f = evaluate(fx, clock);
    for (const Particle& q : f.emitters[0].particles) {
      const uint32_t number = static_cast<uint32_t>(q.key) >> 1;
      const GodotState s =
          simulate(q.birth_s, clock, c.godot4, c.program(number, number % g.amount, seed));
      const double* p = s.t + 12;
      INFO(c.file << " clock " << clock << " number " << number);
      CHECK(q.x == Approx(em.position.x + m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + g.offset[0])
                       .margin(1e-6));
      CHECK(q.y == Approx(em.position.y + m[3] * p[0] + m[4] * p[1] + m[5] * p[2] + g.offset[1])
                       .margin(1e-6));
      const double h = std::sqrt(s.t[4] * s.t[4] + s.t[5] * s.t[5] + s.t[6] * s.t[6]);
      CHECK(q.h == Approx(em.size_px.evaluate(0, 0) * h * scale).margin(1e-6));
      ProgramState st;  // CUSTOM as the shader left it
      REQUIRE(program_state(fx, em, q, clock, st));
      for (int i = 0; i < 4; ++i) CHECK(st.values[i] == Approx(s.custom[i]).margin(1e-9));
      ++checked;
    }
  }
  CHECK(checked > 30);
}

}  // namespace

TEST_CASE("four real Godot shaders agree with a frame simulator at three times",
          "[import][godot][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(fs::exists(kCorpus), "needs the shared corpus of Godot shaders at " +
                                                   kCorpus.string() + " (or $SPRITZ_CORPUS)");
  // Godot 3: scattered in a box on the first frame, then drifting along z
  // at a speed that swings with TIME (seen from the side, z shows).
  check_against_simulator(
      {"fenixnix__Ascii__ParticalTestbed.shader", "side", false,
       [](uint32_t number, uint32_t, uint32_t seed) {
         return [=](GodotState& s, double, double time) {
           if (s.restart) {
             s.custom[0] = rand_from_seed(godot_hash(number + 1u + seed));
             s.t[12] = (rand_from_seed(godot_hash(number + 27u + seed)) * 2.0 - 1.0) * 20.0;
             s.t[13] = (rand_from_seed(godot_hash(number + 43u + seed)) * 2.0 - 1.0) * 20.0;
             s.t[14] = (rand_from_seed(godot_hash(number + 111u + seed)) * 2.0 - 1.0) * 20.0;
           } else {
             s.v[2] = math::cos(time + s.custom[0] * 6.28) * 4.0 + 6.0;
             s.custom[1] = s.v[2] * 0.1;
           }
         };
       }});
  // Godot 4, start() only: a fish placed at random, swimming along z at a
  // speed set once from TIME at its birth.
  check_against_simulator(
      {"godotengine__godot-demo-projects__particle_fish.gdshader", "side", true,
       [](uint32_t number, uint32_t, uint32_t seed) {
         return [=](GodotState& s, double, double time) {
           if (!s.restart) return;
           s.custom[0] = rand_from_seed(godot_hash(number + 1u + seed));
           s.t[12] = (rand_from_seed(godot_hash(number + 27u + seed)) * 5.0 - 1.0) * 40.0;
           s.t[13] = (rand_from_seed(godot_hash(number + 43u + seed)) * 5.0 - 1.0) * 40.0;
           s.t[14] = (rand_from_seed(godot_hash(number + 111u + seed)) * 0.0 - 1.0) * 40.0;
           s.v[2] = math::cos(time + s.custom[0] * 6.28) * 4.0 + 6.0;
           s.custom[3] = s.v[2] * 0.1;
           s.custom[0] = rand_from_seed(godot_hash(number + 151u + seed));
           s.custom[1] = rand_from_seed(godot_hash(number + 173u + seed));
           s.custom[2] = rand_from_seed(godot_hash(number + 208u + seed));
         };
       }});
  // Godot 3, every frame: insects over a grid by INDEX, flying and flapping
  // with TIME (the height map unbound reads white, 1).
  check_against_simulator({"w84death__the-islands-of-shaders__insects_particles.shader", "top",
                           false, [](uint32_t, uint32_t index, uint32_t) {
                             return [=](GodotState& s, double, double time) {
                               const double rows = 32, spacing = 1, flapping = 28, range = 24,
                                            top = 64;
                               double z = static_cast<double>(static_cast<int32_t>(index));
                               double x = glsl_mod(z, rows);
                               z = (z - x) / rows;
                               x -= rows * 0.5;
                               z -= rows * 0.5;
                               x *= spacing;
                               z *= spacing;
                               x += 0.0 - glsl_mod(0.0, spacing);
                               z += 0.0 - glsl_mod(0.0, spacing);
                               const auto fake = [](double px, double py) {
                                 return fract(math::sin(px * 12.9898 + py * 78.233) * 43758.5453);
                               };
                               const double nx = fake(x * 0.02, z * 0.02);
                               const double ny = fake(x * 0.02 * 434.23, z * 0.02 * 434.23);
                               const double height = 1.0;
                               x += (nx * 4.0) * spacing;
                               z += (ny * 4.0) * spacing;
                               const double y = height + (top - height) * ny;
                               s.t[5] = 1.5 + math::sin(time * flapping + x);
                               s.t[12] = x + math::sin(time + nx + x) * range;
                               s.t[13] =
                                   (height * top) + y + math::sin(time - nx + y) * (range * 0.25);
                               s.t[14] = z + math::sin(time + ny + z) * range;
                             };
                           }});
  // Godot 3: a bridge of tiles by INDEX whose CUSTOM.x rises frame by frame
  // (DELTA) near the character (at the origin: the uniform unset).
  check_against_simulator({"gdquest-demos__godot-shaders__particle_bridge_particle.shader", "top",
                           false, [](uint32_t, uint32_t index, uint32_t) {
                             return [=](GodotState& s, double delta, double) {
                               const int32_t i = static_cast<int32_t>(index);
                               s.t[12] = static_cast<double>(i % 12) * 0.3;
                               s.t[14] = static_cast<double>(i / 12) * 0.3;
                               const double d = std::sqrt(s.t[12] * s.t[12] + s.t[14] * s.t[14]);
                               const double e = std::clamp(d / 5.0, 0.0, 1.0);
                               const double n = e * e * (3.0 - 2.0 * e);
                               const double bridge = (2.0 - 3.0 * n) * (delta * 10.0);
                               s.custom[0] = std::clamp(s.custom[0] + bridge, 0.0, 1.0);
                               s.custom[1] = n;
                               s.custom[2] = bridge < 0.0 ? 0.0 : 1.0;  // step(0.0, bridge_delta)
                             };
                           }});
}
