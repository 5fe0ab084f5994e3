// Godot particle shaders run as written (docs/programs.md, "Godot particle
// shaders"; model.md 11.7). The reference here is a small step simulator
// written from Godot's documentation of its particle frames, not from the
// glue: Godot 4 moves a particle by the last frame's VELOCITY, then runs
// start() on the frame it restarts, then process(); Godot 3 runs vertex()
// (RESTART on the first frame) and then moves it; frames fall on the
// clock's grid of the fixed step, the first one DELTA long from the birth.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "lib/model_support.h"
#include "spritz/elementary.h"
#include "spritz/eval.h"
#include "spritz/hash.h"

using namespace spritz;

namespace {

using test::fx_from;
using test::load_error;

constexpr double kH = 1.0 / 60;

// A Godot particle as the simulator keeps it, in Godot's 2D pixels (y down).
struct GodotParticle {
  double x = 0, y = 0, vx = 0, vy = 0, custom_y = 0, alpha = 1;
  bool restart = true;
};

// Godot's frames for a particle born at `birth`, up to clock `c`: the first
// on the first multiple of h at or after the birth (DELTA from the birth),
// then every h. `frame(p, delta)` is one frame of the shader's own logic.
GodotParticle simulate(double birth, double c,
                       const std::function<void(GodotParticle&, double)>& frame) {
  GodotParticle p;
  const double k0 = std::ceil(birth / kH), last = std::floor(c / kH);
  frame(p, k0 * kH - birth);
  for (double k = k0 + 1; k <= last; ++k) frame(p, kH);
  return p;
}

std::string effect(const std::string& shader, const std::string& extra = "") {
  return R"(
[effect]
seed = 5
[[emitter]]
rate = 30
lifetime = 2
max_particles = 100
godot = { amount = 60 )" +
         extra + R"( }
program = """
)" + shader +
         R"("""
)";
}

const char* kGodot4 = R"(shader_type particles;
void start() {
  float a = float(NUMBER % 16u) * 0.4;
  VELOCITY = vec3(cos(a), sin(a), 0.0) * 50.0;
  TRANSFORM[3].xy = vec2(3.0, -2.0);
}
void process() {
  VELOCITY.y += 98.0 * DELTA;
  VELOCITY.xy *= 1.0 - 0.5 * DELTA;
  CUSTOM.y += DELTA;
  COLOR.a = 1.0 - CUSTOM.y / LIFETIME;
}
)";

}  // namespace

TEST_CASE("Godot 4 shader: start() and process() frame by frame, as Godot steps them",
          "[unit][godot]") {
  const Effect fx = fx_from(effect(kGodot4));
  for (const double c : {0.5, 1.25, 3.0}) {
    const Frame f = evaluate(fx, c);
    REQUIRE(f.emitters[0].particles.size() > 10);
    for (const Particle& q : f.emitters[0].particles) {
      const uint32_t number = static_cast<uint32_t>(q.key) >> 1;
      const GodotParticle p = simulate(q.birth_s, c, [&](GodotParticle& s, double dt) {
        if (!s.restart) {
          s.x += s.vx * dt;
          s.y += s.vy * dt;
        } else {
          const double a = static_cast<double>(number % 16u) * 0.4;
          s.vx = spritz::math::cos(a) * 50.0;
          s.vy = spritz::math::sin(a) * 50.0;
          s.x = 3.0;
          s.y = -2.0;
        }
        s.restart = false;
        s.vy += 98.0 * dt;
        s.vx *= 1.0 - 0.5 * dt;
        s.vy *= 1.0 - 0.5 * dt;
        s.custom_y += dt;
        s.alpha = 1.0 - s.custom_y / 2.0;
      });
      INFO("clock " << c << " key " << q.key);
      CHECK(q.x == Approx(p.x).margin(1e-9));
      CHECK(q.y == Approx(-p.y).margin(1e-9));  // y up
      CHECK(q.vx == Approx(p.vx).margin(1e-9));
      CHECK(q.vy == Approx(-p.vy).margin(1e-9));
      CHECK(q.alpha == Approx(std::clamp(p.alpha, 0.0, 1.0)).margin(1e-12));
    }
  }
}

TEST_CASE("Godot 3 shader: vertex() with RESTART, the cleared state, the move after",
          "[unit][godot]") {
  const Effect fx = fx_from(effect(R"(shader_type particles;
void vertex() {
  if (RESTART) {
    VELOCITY = vec3(float(INDEX % 7) * 10.0, -40.0, 0.0);
    CUSTOM.x = float(INDEX);
  } else {
    VELOCITY.y += 98.0 * DELTA;
  }
}
)"));
  for (const double c : {0.4, 1.0, 2.5}) {
    const Frame f = evaluate(fx, c);
    REQUIRE(f.emitters[0].particles.size() > 10);
    for (const Particle& q : f.emitters[0].particles) {
      const int index = static_cast<int>((static_cast<uint32_t>(q.key) >> 1) % 60u);
      const GodotParticle p = simulate(q.birth_s, c, [&](GodotParticle& s, double dt) {
        if (s.restart) {
          s.vx = static_cast<double>(index % 7) * 10.0;
          s.vy = -40.0;
        } else {
          s.vy += 98.0 * dt;
        }
        s.restart = false;
        s.x += s.vx * dt;
        s.y += s.vy * dt;
      });
      INFO("clock " << c << " key " << q.key);
      CHECK(q.x == Approx(p.x).margin(1e-9));
      CHECK(q.y == Approx(-p.y).margin(1e-9));
    }
  }
}

TEST_CASE("Godot shader built-ins: NUMBER, INDEX, RANDOM_SEED, LIFETIME, DELTA, the basis",
          "[unit][godot]") {
  // The state a shader can see, stored where inspect shows it.
  const Effect fx = fx_from(effect(R"(shader_type particles;
render_mode disable_velocity;
void start() {
  USERDATA1 = vec4(float(NUMBER), float(INDEX), float(RANDOM_SEED % 65536u), LIFETIME);
  VELOCITY = vec3(100.0, 0.0, 0.0);
  float a = 0.5;
  TRANSFORM[0].xy = vec2(cos(a), sin(a)) * 2.0;
  TRANSFORM[1].xy = vec2(-sin(a), cos(a)) * 3.0;
}
void process() {
  USERDATA2.x += DELTA;
  USERDATA2.y = AMOUNT_RATIO + INTERPOLATE_TO_END + EMISSION_TRANSFORM[3].x;
}
)",
                                   ", speed_scale = 2"),
                            {"emitter.0.size=4"});
  Frame f;
  evaluate(fx, 1.0, f);
  const auto& ps = f.emitters[0].particles;
  REQUIRE(ps.size() > 10);
  // model.md 11.7: M(s_e ^ ((38 + 1) * 0x85EBCA77)), channel 38 on the emitter's seed.
  const uint32_t seed = mix32(fx.emitters[0].seed ^ ((38u + 1u) * 0x85EBCA77u));
  for (const Particle& q : ps) {
    // disable_velocity: VELOCITY does not move it; the birth place stays.
    CHECK(q.x == 0);
    CHECK(q.y == 0);
    // The basis: the first column's length and turn (Godot's y down: a
    // turn of 0.5 rad clockwise on screen), the second column's length.
    CHECK(q.w == Approx(4 * 2.0));
    CHECK(q.h == Approx(4 * 3.0));
    CHECK(q.rotation_deg == Approx(-0.5 * 180 / M_PI));
  }
  // The values the shader stored (inspect's state, model.md 11).
  for (const Particle& q : ps) {
    ProgramState st;
    REQUIRE(program_state(fx, fx.emitters[0], q, 1.0, st));
    const uint32_t number = static_cast<uint32_t>(q.key) >> 1;
    CHECK(st.values[4] == number);
    CHECK(st.values[5] == number % 60u);
    CHECK(st.values[6] == seed % 65536u);
    CHECK(st.values[7] == Approx(2 * 2.0));  // node seconds: speed_scale 2
    CHECK(st.values[9] == 1.0);
  }
}

TEST_CASE("Godot shader: what Godot would refuse, and what spritz cannot run, is located",
          "[unit][godot]") {
  const auto err = [](const std::string& shader) { return load_error(effect(shader)); };
  CHECK(err("shader_type particles;\nvoid start() {}\nvoid vertex() {}\n")
            .find(":6: vertex() is Godot 3's particle function and start()/process() Godot "
                  "4's") != std::string::npos);
  CHECK(err("shader_type particles;\nvoid start() { float a__b = 1.0; }\n")
            .find("names with two underscores in a row are reserved") != std::string::npos);
  CHECK(err("shader_type particles;\nuniform sampler2DArray a;\nvoid start() {}\n")
            .find("sampler2DArray is not supported") != std::string::npos);
  CHECK(err("shader_type particles;\nvoid start() { NUMBER = 1u; }\n")
            .find("read-only in Godot's particle shaders") != std::string::npos);
  CHECK(err("shader_type particles;\nvoid start() { POSITION = vec2(1.0); }\n")
            .find("unknown name 'POSITION'") != std::string::npos);
  CHECK(err("shader_type particles;\nfloat helper() { return 1.0; }\n")
            .find("defines none of start() and process() (Godot 4) or vertex() (Godot 3)") !=
        std::string::npos);
  // INDEX is Godot 4's uint, Godot 3's int.
  CHECK(
      err("shader_type particles;\nvoid start() { CUSTOM.x = float(INDEX / uint(2)); }\n").empty());
  CHECK(err("shader_type particles;\nvoid vertex() { CUSTOM.x = float(INDEX / 2); }\n").empty());
  // A shader's own names may be spritz's built-ins: POSITION, noise, rand.
  CHECK(err("shader_type particles;\nfloat noise(vec2 p) { return p.x; }\nvoid start() { vec2 "
            "POSITION = vec2(1.0); CUSTOM.x = noise(POSITION); }\n")
            .empty());
  // The godot table is checked as any other.
  CHECK(load_error(effect("shader_type particles;\nvoid start() {}\n", ", to_canvas = [1, 2]"))
            .find("godot.to_canvas must be a list of 6 numbers") != std::string::npos);
}
