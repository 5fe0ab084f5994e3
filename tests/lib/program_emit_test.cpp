// Children a Godot 4 particle shader emits with emit_subparticle() (model.md
// 11.8). The reference is a small frame simulator written from Godot's
// documentation of particle frames and sub-emitters, not from spritz's
// code: a parent's frames fall on the grid of the fixed step (the first
// from its birth), each moves it by the last VELOCITY (not on the restart
// frame), runs start() on the restart frame and process() on every one; a
// call made in a frame emits a child that starts, that same frame, from
// what the call gave it; a frame at or after the parent's death is none.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lib/model_support.h"
#include "spritz/eval.h"

using namespace spritz;

namespace {

using test::fx_from;
using test::load_error;

constexpr double kH = 1.0 / 60;

// Rockets rise and, every sixth frame, emit a spark that falls; the spark
// fades over its life. CUSTOM.z counts the calls that emitted.
std::string rockets(const std::string& sub, const std::string& child_program,
                    const std::string& flags =
                        "FLAG_EMIT_POSITION | FLAG_EMIT_VELOCITY | FLAG_EMIT_COLOR | "
                        "FLAG_EMIT_CUSTOM") {
  return R"(
[effect]
seed = 5
duration = 4
[[emitter]]
name = "rockets"
rate = 4
lifetime = 1.5
max_particles = 10
godot = { amount = 6 }
program = """
shader_type particles;
void start() {
  VELOCITY = vec3(float(INDEX) * 10.0 - 25.0, -60.0, 0.0);
}
void process() {
  CUSTOM.x += 1.0;
  if (mod(CUSTOM.x, 6.0) == 0.0) {
    bool ok = emit_subparticle(TRANSFORM, vec3(0.0, 30.0, 0.0), vec4(1.0, 0.6, 0.2, 1.0),
                               vec4(CUSTOM.x, 0.0, 0.0, 0.0), )" +
         flags + R"();
    if (ok) CUSTOM.z += 1.0;
  }
}
"""
)" + sub +
         child_program;
}

const char* kSparks = R"(
[[emitter]]
name = "sparks"
sub = { parent = "rockets", on = "program", count = 20 }
lifetime = 0.5
max_particles = 2000
position = [7, 9]
godot = { amount = 64 }
program = """
shader_type particles;
void process() {
  if (RESTART) USERDATA1 = vec4(float(RESTART_POSITION), float(RESTART_ROT_SCALE),
                                float(RESTART_VELOCITY), float(RESTART_COLOR));
  if (RESTART) USERDATA2.x = float(RESTART_CUSTOM);
  COLOR.a = 1.0 - CUSTOM.y / LIFETIME;
  CUSTOM.y += DELTA;
}
"""
)";

// A grid point k h: the first at or after t, the last at or before it.
double grid_at_or_after(double t) {
  double k = std::ceil(t / kH);
  if ((k - 1) * kH >= t) k -= 1;
  if (k * kH < t) k += 1;
  return k;
}

struct Spark {
  double birth, x, y, custom_x;  // Godot px, y down, at the emitting frame
};

// The sparks rocket stream particle i emits by clock c: its frames on the
// grid up to c and before its death, moved, started, processed. A call
// emits while fewer than `alive` of its sparks (each living 0.5 s) would be
// alive at the new one's birth.
std::vector<Spark> emitted(int64_t i, double c, size_t alive = 20) {
  const double birth = static_cast<double>(i) / 4, life = 1.5;
  const double index = static_cast<double>(i % 6);
  std::vector<Spark> out;
  double x = 0, y = 0, vx = 0, vy = 0, count = 0;
  for (double k = grid_at_or_after(birth);; ++k) {
    const double t = k * kH;
    if (t > c || t >= birth + life) break;
    if (count > 0) {
      x += vx * kH;
      y += vy * kH;
    } else {
      vx = index * 10.0 - 25.0;
      vy = -60.0;
    }
    count += 1;
    if (std::fmod(count, 6.0) == 0.0 &&
        (out.size() < alive || out[out.size() - alive].birth + 0.5 <= t))
      out.push_back({t, x, y, count});
  }
  return out;
}

// A spark born at `s.birth`, at clock c: its frames from its birth (the
// first 0 long: it is born on the grid), moved by its velocity, fading.
struct SparkState {
  double x, y, alpha, custom_y;
};
SparkState spark_at(const Spark& s, double c) {
  SparkState p{s.x, s.y, 1, 0};
  const double vy = 30.0;
  bool first = true;
  for (double k = grid_at_or_after(s.birth); k * kH <= c; ++k) {
    const double dt = first ? 0.0 : kH;
    if (!first) p.y += vy * dt;
    first = false;
    p.alpha = 1.0 - p.custom_y / 0.5;
    p.custom_y += dt;
  }
  return p;
}

}  // namespace

TEST_CASE("Godot emit_subparticle(): children born at the emitting frame, from what it gave",
          "[unit][godot]") {
  const Effect fx = fx_from(rockets("", kSparks));
  const Emitter& sparks = fx.emitters[1];
  REQUIRE(sparks.sub.on == SubEvent::kProgram);
  REQUIRE(fx.emitters[0].emit_limit == 20);
  const uint64_t spacing = sparks.sub.spacing;
  for (const double frames : {54.0, 78.0, 156.0}) {
    const double c = frames * kH;
    // Every spark the simulator finds alive at c, by key.
    std::map<uint64_t, Spark> expected;
    for (int64_t i = 0; static_cast<double>(i) / 4 <= c; ++i) {
      const std::vector<Spark> s = emitted(i, c);
      for (size_t n = 0; n < s.size(); ++n)
        if (c - s[n].birth < 0.5) expected[static_cast<uint64_t>(2 * i) * spacing + n] = s[n];
    }
    const Frame f = evaluate(fx, c);
    const auto& got = f.emitters[1].particles;
    INFO("clock " << c);
    REQUIRE(got.size() == expected.size());
    REQUIRE(got.size() > 5);
    for (const Particle& q : got) {
      INFO("key " << q.key);
      REQUIRE(expected.count(q.key) == 1);
      const Spark& s = expected[q.key];
      const SparkState p = spark_at(s, c);
      CHECK(q.birth_s == s.birth);
      // FLAG_EMIT_POSITION: the parent's place, not the sub-emitter's [7, 9].
      CHECK(q.x == Approx(p.x).margin(1e-9));
      CHECK(q.y == Approx(-p.y).margin(1e-9));  // y up
      CHECK(q.vx == 0);
      CHECK(q.vy == Approx(-30.0));
      CHECK(q.alpha == Approx(std::clamp(p.alpha, 0.0, 1.0)).margin(1e-12));
      CHECK(q.color_srgb.g == Approx(0.6));
      // Its state: CUSTOM as given, then its own; which parts restarted.
      ProgramState st;
      REQUIRE(program_state(fx, sparks, q, c, st));
      CHECK(st.values[0] == s.custom_x);
      CHECK(st.values[1] == Approx(p.custom_y).margin(1e-12));
      // Given, so RESTART_* false: position, velocity, colour, custom; not
      // the rotation and scale.
      for (int k : {4, 6, 7, 8}) CHECK(st.values[k] == 0);
      CHECK(st.values[5] == 1);
    }
  }
}

TEST_CASE("Godot emit_subparticle(): the limit, the flags left out, no sub-emitter",
          "[unit][godot]") {
  SECTION("with sub.count children alive, a call returns false and emits nothing") {
    const Effect fx =
        fx_from(rockets("", std::string(kSparks).replace(std::string(kSparks).find("count = 20"),
                                                         10, "count = 3")));
    REQUIRE(fx.emitters[0].emit_limit == 3);
    const uint64_t spacing = fx.emitters[1].sub.spacing;
    CHECK(spacing == 3 * (3 + 1));  // 3 alive, over a life of 1.5 s / 0.5 s
    const double c = 90 * kH;
    const Frame f = evaluate(fx, c);
    size_t limited = 0;
    for (const Particle& q : f.emitters[0].particles) {
      ProgramState st;
      REQUIRE(program_state(fx, fx.emitters[0], q, c, st));
      const auto i = static_cast<int64_t>(q.key / 2);
      const auto n = static_cast<double>(emitted(i, c, 3).size());
      CHECK(st.values[2] == n);  // the calls that returned true
      limited += emitted(i, c, 3).size() < emitted(i, c).size();
    }
    CHECK(limited > 0);
    for (const Particle& q : f.emitters[1].particles) {
      const std::vector<Spark> s = emitted(static_cast<int64_t>(q.key / spacing / 2), c, 3);
      REQUIRE(q.key % spacing < s.size());
      CHECK(q.birth_s == s[q.key % spacing].birth);
    }
  }
  SECTION("without FLAG_EMIT_POSITION a child starts at its own emitter, RESTART_* true") {
    const Effect fx = fx_from(rockets("", kSparks, "FLAG_EMIT_COLOR"));
    const double c = 60 * kH;
    const Frame f = evaluate(fx, c);
    REQUIRE(!f.emitters[1].particles.empty());
    for (const Particle& q : f.emitters[1].particles) {
      CHECK(q.x == 7);  // the sub-emitter's place; no velocity given
      CHECK(q.y == 9);
      ProgramState st;
      REQUIRE(program_state(fx, fx.emitters[1], q, c, st));
      CHECK(st.values[4] == 1);  // RESTART_POSITION
      CHECK(st.values[5] == 1);  // RESTART_ROT_SCALE
      CHECK(st.values[6] == 1);  // RESTART_VELOCITY
      CHECK(st.values[7] == 0);  // RESTART_COLOR: the colour was given
      CHECK(st.values[8] == 1);  // RESTART_CUSTOM
      CHECK(st.values[0] == 0);
    }
  }
  SECTION("a built-in child starts at the place given, inheriting the velocity given") {
    const Effect fx = fx_from(rockets("", R"(
[[emitter]]
name = "dots"
sub = { parent = "rockets", on = "program", count = 20 }
lifetime = 0.5
max_particles = 2000
speed = 0
inherit_velocity = 1
)"));
    const double c = 78 * kH;
    const Frame f = evaluate(fx, c);
    const auto& got = f.emitters[1].particles;
    REQUIRE(!got.empty());
    for (const Particle& q : got) {
      const uint64_t parent = q.key / fx.emitters[1].sub.spacing;
      const std::vector<Spark> s = emitted(static_cast<int64_t>(parent / 2), c);
      const Spark& e = s.at(q.key % fx.emitters[1].sub.spacing);
      CHECK(q.birth_s == e.birth);
      CHECK(q.x == Approx(e.x).margin(1e-9));
      CHECK(q.y == Approx(-e.y - 30.0 * (c - e.birth)).margin(1e-9));
    }
  }
  SECTION("without a sub-emitter every call returns false, with a warning") {
    const Effect fx = fx_from(rockets("", ""));
    REQUIRE(fx.emitters[0].emit_limit == 0);
    bool said = false;
    for (const Diagnostic& d : fx.warnings)
      said = said || d.message.find(
                         "no sub-emitter has sub = { parent = \"rockets\", on = "
                         "\"program\" }: every call returns false") != std::string::npos;
    CHECK(said);
    const Frame f = evaluate(fx, 1.0);
    for (const Particle& q : f.emitters[0].particles) {
      ProgramState st;
      REQUIRE(program_state(fx, fx.emitters[0], q, 1.0, st));
      CHECK(st.values[2] == 0);
    }
  }
}

TEST_CASE("Godot emit_subparticle(): a pure function of the clock, trails and all",
          "[unit][godot]") {
  std::string sparks = kSparks;
  sparks.insert(sparks.find("lifetime = 0.5"), "trail = { count = 3, length = 0.05 }\n");
  const Effect fx = fx_from(rockets("", sparks));
  // The same clock in any order, and each child's trail ghosts are the
  // child itself at earlier clocks (found again from its key alone).
  const Frame later = evaluate(fx, 2.0);
  const Frame early = evaluate(fx, 1.0);
  CHECK(evaluate(fx, 2.0).emitters[1].particles.size() == later.emitters[1].particles.size());
  size_t ghosts = 0;
  for (const Particle& g : early.emitters[1].particles) {
    if (g.trail == 0) continue;
    ++ghosts;
    Particle p;
    ParentState parent;
    REQUIRE(sub_parent_state(fx, fx.emitters[1], g.key, g.birth_s, parent));
    REQUIRE(
        evaluate_particle(fx.emitters[1], g.key, g.birth_s, 1.0 - g.trail * 0.05 / 3, p, &parent));
    CHECK(p.x == g.x);
    CHECK(p.y == g.y);
  }
  CHECK(ghosts > 10);
}

TEST_CASE("Godot emit_subparticle(): what is refused, located", "[unit][godot]") {
  // A parent whose program does not emit, or runs none.
  CHECK(load_error(R"(
[[emitter]]
name = "a"
[[emitter]]
sub = { parent = "a", on = "program" }
)")
            .find("sub.on = \"program\" takes the children the parent's program emits with "
                  "emit_subparticle() (a Godot 4 particle shader), and 'a' runs no program") !=
        std::string::npos);
  // Two sub-emitters taking one parent's children.
  const std::string two = rockets("", std::string(kSparks) + R"(
[[emitter]]
name = "more"
sub = { parent = "rockets", on = "program" }
)");
  CHECK(load_error(two).find("'rockets' already has a sub-emitter with on = \"program\" "
                             "('sparks')") != std::string::npos);
  // Godot 3 has no sub-emitters; the call's arguments are Godot 4's.
  const auto shader = [](const std::string& body) {
    return load_error(
        "[[emitter]]\ngodot = { amount = 4 }\nprogram = \"\"\"\nshader_type "
        "particles;\n" +
        body + "\n\"\"\"\n");
  };
  CHECK(shader("void vertex() { emit_subparticle(TRANSFORM, VELOCITY, COLOR, CUSTOM, 1u); }")
            .find("emit_subparticle() is Godot 4's") != std::string::npos);
  CHECK(shader("void process() { emit_subparticle(TRANSFORM, VELOCITY, COLOR, CUSTOM); }")
            .find("emit_subparticle() takes 5 arguments (mat4 xform, vec3 velocity, vec4 color, "
                  "vec4 custom, uint flags), not 4") != std::string::npos);
  CHECK(shader("void process() { emit_subparticle(TRANSFORM, COLOR, COLOR, CUSTOM, 1u); }")
            .find("argument 2 of emit_subparticle()") != std::string::npos);
  CHECK(shader("void process() { bool b = emit_subparticle(TRANSFORM, VELOCITY, COLOR, CUSTOM, "
               "FLAG_EMIT_POSITION | FLAG_EMIT_VELOCITY); }")
            .empty());
}
