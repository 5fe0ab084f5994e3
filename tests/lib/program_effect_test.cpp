// Programs on emitters (model.md 11): loaded from the effect file, run on
// every particle, still a pure function of the key and the clock.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "lib/model_support.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/write.h"

using namespace spritz;
namespace fs = std::filesystem;

namespace {

using test::fx_from;
using test::load_error;
using test::same_frame;

// A fountain whose shape spreads the starts, pulled by radial and
// tangential forces: built in (forces = true) or by a process() program.
std::string swirl(bool forces) {
  std::string s = R"(
[effect]
seed = 9
[[emitter]]
rate = 40
lifetime = [1, 2]
speed = [20, 60]
spread = 180
acceleration = [0, -30]
shape = { kind = "ellipse", size = [40, 40] }
color = [[0, "#ffffff"], [1, "#ff0000"]]
)";
  if (forces) return s + "radial_acceleration = [-50, -50]\ntangential_acceleration = [80, 80]\n";
  return s + R"(uniforms = { radial = -50.0 }
program = """
uniform float radial = 0.0;
uniform float tangential = 80.0;
const vec2 GRAVITY = vec2(0.0, -30.0);
void process() {
  float r = sqrt(POSITION.x * POSITION.x + POSITION.y * POSITION.y);
  vec2 rh = r > 0.0 ? POSITION * (1.0 / r) : vec2(0.0);
  vec2 th = vec2(-rh.y, rh.x);
  VELOCITY = VELOCITY + (GRAVITY + rh * radial + th * tangential - VELOCITY * 0.0) * DELTA;
}
"""
)";
}

}  // namespace

TEST_CASE("program emitter: process() reproduces the built-in forces bit for bit", "[unit]") {
  const Effect built = fx_from(swirl(true));
  const Effect prog = fx_from(swirl(false));
  REQUIRE(prog.emitters[0].program);
  for (const double c : {0.0, 0.3, 1.0, 1.7, 3.25}) {
    const Frame a = evaluate(built, c), b = evaluate(prog, c);
    REQUIRE(a.emitters[0].particles.size() == b.emitters[0].particles.size());
    CHECK(a.emitters[0].particles.size() > 0);
    CHECK(same_frame(a, b));
  }
}

TEST_CASE("program emitter: any order, rewind and threads give the same particles", "[unit]") {
  const Effect fx = fx_from(swirl(false));
  const Frame first = evaluate(fx, 1.4);
  evaluate(fx, 2.9);
  evaluate(fx, 0.2);
  CHECK(same_frame(first, evaluate(fx, 1.4)));
  // Pieces evaluated backwards, as another thread order would.
  const ParallelFor backwards = [](int tasks, const std::function<void(int)>& fn) {
    for (int t = tasks - 1; t >= 0; --t) fn(t);
  };
  Effect many = fx_from(swirl(false), {"emitter.0.rate=20000", "emitter.0.max_particles=100000"});
  Frame serial, threaded;
  evaluate(many, 1.5, serial, nullptr);
  evaluate(many, 1.5, threaded, &backwards);
  CHECK(serial.emitters[0].particles.size() > 20000);
  CHECK(same_frame(serial, threaded));
}

TEST_CASE("program emitter: pose() places particles in closed form", "[unit]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 0
bursts = [{ time = 0, count = 16 }]
lifetime = 10
program = """
void pose() {
  POSITION = vec2(float(INDEX % 4) * 10.0, 0.5 * cos(TIME + float(INDEX)));
}
"""
)");
  const Frame f = evaluate(fx, 2.5);
  REQUIRE(f.emitters[0].particles.size() == 16);
  for (const Particle& p : f.emitters[0].particles) {
    const auto j = static_cast<double>((p.key - 1) / 2);
    CHECK(p.x == static_cast<double>(static_cast<int>(j) % 4) * 10.0);
    CHECK(p.y == Approx(0.5 * std::cos(2.5 + j)).margin(1e-15));
  }
}

TEST_CASE("program emitter: what a program writes is its own, the rest built in", "[unit]") {
  const std::string head = R"(
[[emitter]]
rate = 10
lifetime = 2
size = [[0, 4], [1, 20]]
color = [[0, "#000000"], [1, "#ffffff"]]
program = """
void start() { COLOR.rgb = vec3(1.0, 0.0, 0.0); }
)";
  const Effect fx = fx_from(head + "\"\"\"\n");
  const Frame f = evaluate(fx, 1.9);
  REQUIRE(!f.emitters[0].particles.empty());
  for (const Particle& p : f.emitters[0].particles) {
    CHECK(p.color_srgb.r == 1);  // start() wrote the colour: no curve after it
    CHECK(p.color_srgb.g == 0);
    CHECK(p.w == Approx(4 + 16 * p.age_s / p.life_s));  // the size curve still applies
  }
  // ACTIVE = false ends a particle; a NaN one is dropped and counted.
  const Effect ends = fx_from(R"(
[[emitter]]
rate = 10
lifetime = 2
program = """
void pose() {
  if (AGE > 1.0) ACTIVE = false;
  if (INDEX % 2 == 0) POSITION.x = 0.0 / 0.0;
}
"""
)");
  const Frame g = evaluate(ends, 5);
  for (const Particle& p : g.emitters[0].particles) {
    CHECK(p.age_s <= 1.0);
    CHECK(((p.key / 2) % 2) == 1u);
  }
  CHECK(g.emitters[0].stats.dropped > 0);
}

TEST_CASE("program emitter: bad programs and uniforms are located in the effect", "[unit]") {
  const std::string e = load_error(R"([[emitter]]
rate = 1
program = """
void pose() {
  POSITION = vec3(1.0);
}
"""
)");
  CHECK(e.find("test.toml:5:12: cannot assign this value: expected vec2, found vec3") !=
        std::string::npos);
  CHECK(load_error("[[emitter]]\nprogram = \"void pose() { x; }\"\n")
            .find("test.toml:2:26: unknown name 'x'") != std::string::npos);
  const std::string u = load_error(R"([[emitter]]
program = "uniform vec2 d; void pose() { POSITION = d; }"
uniforms = { dd = 1.0, d = 2.0 }
)");
  CHECK(u.find("the program has no uniform 'dd'; did you mean 'd'?") != std::string::npos);
  CHECK(u.find("the uniform 'd' is a vec2, which holds 2 numbers; found 1") != std::string::npos);
  CHECK(load_error("[[emitter]]\nprogram = \"no_such_file.glsl\"\n")
            .find("cannot read the program file ./no_such_file.glsl: no such file") !=
        std::string::npos);
  CHECK(load_error("[[emitter]]\nuniforms = { a = 1 }\n").find("uniforms needs a program") !=
        std::string::npos);
  // --set reaches a uniform.
  const Effect fx = fx_from(R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 1 }]
program = "uniform float x = 1.0; void pose() { POSITION.x = x; }"
)",
                            {"emitter.0.uniforms.x=7.5"});
  CHECK(evaluate(fx, 0.5).emitters[0].particles[0].x == 7.5);
}

TEST_CASE("program emitter: what programs cannot be combined with yet is refused", "[unit]") {
  CHECK(load_error(R"([[emitter]]
name = "a"
colliders = [{ kind = "line", point = [0, -50], normal = [0, 1] }]
program = "void process() { VELOCITY.y -= 10.0 * DELTA; }"
)")
            .find("colliders act on the built-in motion") != std::string::npos);
  // Colours only: colliders still move the particles.
  CHECK(load_error(R"([[emitter]]
colliders = [{ kind = "line", point = [0, -50], normal = [0, 1] }]
program = "void pose() { COLOR.g = 0.5; }"
)") == "");
}

TEST_CASE("program emitter: the velocity of a place pose() gives is its derivative", "[unit]") {
  // A bit of everything the chain rule goes through; nothing sets VELOCITY.
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 20
lifetime = [2, 3]
speed = 30
spread = 90
program = """
float wobble(float t) { return smoothstep(0.2, 1.4, t) * pow(t + 0.5, 1.7); }
void pose() {
  float t = AGE;
  mat2 turn = mat2(cos(t), sin(t), -sin(t), cos(t));
  vec2 p = turn * vec2(40.0 * wobble(t), 10.0 * exp(-t) + log(1.0 + t));
  float s = 0.0;
  for (int i = 0; i < 3; i++) s += mix(sqrt(t + 1.0), atan(t, 2.0), 0.25 * float(i));
  p += vec2(s, clamp(t * 30.0, 5.0, 40.0) / (1.0 + t * t));
  p.y += 20.0 * noise(vec2(float(INDEX) * 0.3, TIME * 0.7)) + abs(sin(TIME)) * 3.0;
  p.x += fma(t, t, 1.0) + fract(TIME * 0.1) * 5.0 + tanh(t - 1.0) + inversesqrt(t + 2.0);
  POSITION = POSITION + p;
}
"""
)");
  const double h = 1e-5;
  for (const double c : {1.1, 2.37, 2.9}) {
    const Frame f = evaluate(fx, c), before = evaluate(fx, c - h), after = evaluate(fx, c + h);
    const auto& ps = f.emitters[0].particles;
    REQUIRE(ps.size() > 10);
    size_t compared = 0;
    for (const Particle& p : ps) {
      const Particle* a = nullptr;
      const Particle* b = nullptr;
      for (const Particle& q : before.emitters[0].particles)
        if (q.key == p.key) a = &q;
      for (const Particle& q : after.emitters[0].particles)
        if (q.key == p.key) b = &q;
      if (!a || !b) continue;
      const double dx = (b->x - a->x) / (2 * h), dy = (b->y - a->y) / (2 * h);
      INFO("key " << p.key << " at " << c);
      CHECK(std::abs(p.vx - dx) <= 1e-4 * (1 + std::abs(dx)));
      CHECK(std::abs(p.vy - dy) <= 1e-4 * (1 + std::abs(dy)));
      ++compared;
    }
    CHECK(compared > 10);
  }
}

TEST_CASE("program emitter: integer, float and bool uniform values read as written", "[unit]") {
  const Effect fx = fx_from(R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 1 }]
uniforms = { a = 80, b = 2.5, on = true, v = [3, 4.5] }
program = """
uniform float a; uniform float b; uniform bool on; uniform vec2 v;
void pose() { POSITION = vec2(a + b, on ? v.x * 10.0 + v.y : -1.0); }
"""
)");
  const Frame f = evaluate(fx, 0.5);
  const Particle& p = f.emitters[0].particles[0];
  CHECK(p.x == 82.5);
  CHECK(p.y == 34.5);
}

TEST_CASE("program emitter: curve() and gradient() read the emitter's curves", "[unit]") {
  const Effect fx = fx_from(R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 1 }]
lifetime = 4
curves = { rise = [[0, 0], [0.5, 10], [1, 30]] }
gradients = { heat = [[0, "#000000"], [1, "#ff8000"]] }
program = """
void pose() {
  POSITION = vec2(curve(rise, AGE / LIFETIME), 0.0);
  COLOR.rgb = gradient(heat, AGE / LIFETIME);
  POSITION.y = curve(rise, TIME * 0.25) * 2.0;
}
"""
)");
  const Frame f = evaluate(fx, 3);
  const Particle& p = f.emitters[0].particles[0];
  CHECK(p.x == Approx(20));  // halfway from 10 to 30
  CHECK(p.y == Approx(40));
  CHECK(p.vx == Approx(40 / 4.0));  // the slope 40 a unit of tau, tau = age / 4
  CHECK(p.vy == Approx(40 * 0.25 * 2));
  CHECK(p.color_srgb.r == Approx(0.75));
  CHECK(p.color_srgb.g == Approx(0.75 * 128 / 255.0));
  CHECK(load_error(R"([[emitter]]
curves = { rise = [[0, 0], [1, 1]] }
program = "void pose() { POSITION.x = curve(fall, AGE); }"
)")
            .find("the emitter has no curve named 'fall' (its curves: rise)") != std::string::npos);
  CHECK(load_error("[[emitter]]\ncurves = { \"a b\" = [[0, 0], [1, 1]] }\nprogram = \"void "
                   "pose() { }\"\n")
            .find("curves.a b: a name the program can write") != std::string::npos);
  // load(write(e)) keeps them.
  const Effect back = load_effect(write_effect(fx), "test.toml", ".");
  CHECK(same_frame(evaluate(fx, 3), evaluate(back, 3)));
}

TEST_CASE("program emitter: EMISSION written is the particle's, clamped to [0, 1]", "[unit]") {
  const std::string base = R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 3 }]
lifetime = 4
light_emission = 0.25
)";
  const Effect fx = fx_from(base + R"(program = """
void pose() { EMISSION = float(INDEX) - 0.5 + AGE / LIFETIME; }
"""
)");
  const Frame frame = evaluate(fx, 2);
  const auto& ps = frame.emitters[0].particles;
  REQUIRE(ps.size() == 3);
  std::vector<double> e;
  for (const Particle& p : ps) e.push_back(p.emission);
  std::sort(e.begin(), e.end());
  CHECK(e == std::vector<double>{0.0, 1.0, 1.0});  // -0.5 + 0.5, 0.5 + 0.5, 1.5 + 0.5 clamped
  // A program that reads EMISSION and writes something else leaves it the emitter's.
  const Effect reads = fx_from(base + "program = \"void pose() { SIZE.x = EMISSION * 8.0; }\"\n");
  const Frame read = evaluate(reads, 2);
  for (const Particle& p : read.emitters[0].particles) {
    CHECK(p.emission < 0);
    CHECK(p.w == 2.0);
  }
  // Not a number: the particle is dropped, as for every property.
  const Effect nan = fx_from(base + "program = \"void pose() { EMISSION = sqrt(-1.0); }\"\n");
  CHECK(evaluate(nan, 2).emitters[0].particles.empty());
}

TEST_CASE("program emitter: samplers bound to curves, gradients and image files", "[unit]") {
  // A stand-in decoder (the library decodes no image format): "W H v v v ..."
  // as text, the values 16-bit.
  LoadOptions o;
  o.decode_image = [](const std::vector<unsigned char>& bytes, const std::string& name) {
    std::istringstream in(std::string(bytes.begin(), bytes.end()));
    ProgramImage im;
    in >> im.width >> im.height;
    uint32_t v = 0;
    while (in >> v) im.rgba.push_back(static_cast<uint16_t>(v));
    if (im.rgba.size() != static_cast<size_t>(im.width) * im.height * 4)
      throw Error("cannot decode " + name + ": wrong length");
    return im;
  };
  const fs::path dir = fs::temp_directory_path() / "spritz_sampler_test";
  fs::create_directories(dir);
  std::ofstream(dir / "two.img") << "2 1  65535 0 0 65535  0 0 0 0";
  std::ofstream(dir / "bad.img") << "2 1  1 2 3";
  const std::string base = R"([[emitter]]
rate = 0
bursts = [{ time = 0, count = 1 }]
lifetime = 4
curves = { rise = [[0, 0], [1, 40]] }
gradients = { heat = [[0, "#000000"], [1, "#ff8000"]] }
)";
  const std::string prog = R"(program = """
uniform sampler2D along;
uniform sampler2D tint;
uniform sampler2D map;
void pose() {
  POSITION = vec2(texture(along, vec2(AGE / LIFETIME, 0.0)).r, texture(map, vec2(0.25, 0.5)).r);
  COLOR = texture(tint, vec2(AGE / LIFETIME, 0.0));
}
"""
)";
  const Effect fx = load_effect(
      base + prog + "uniforms = { along = \"rise\", tint = \"heat\", map = \"two.img\" }\n",
      (dir / "s.toml").string(), dir.string(), o);
  const Frame f = evaluate(fx, 3);
  const Particle& p = f.emitters[0].particles[0];
  CHECK(p.x == Approx(30));
  CHECK(p.y == 1);                  // the left texel, exactly
  CHECK(p.vx == Approx(40 / 4.0));  // the curve's slope through texture()
  CHECK(p.color_srgb.r == Approx(0.75));
  // The image is one of the effect's files (preview watches it).
  CHECK(std::find(fx.source_files.begin(), fx.source_files.end(),
                  (dir / "two.img").lexically_normal().string()) != fx.source_files.end());
  // load(write(e)) keeps the bindings.
  const Effect back = load_effect(write_effect(fx), (dir / "w.toml").string(), dir.string(), o);
  CHECK(same_frame(evaluate(fx, 3), evaluate(back, 3)));
  // Unbound: a warning naming it.
  const Effect loose =
      load_effect(base + prog + "uniforms = { along = \"rise\", tint = \"heat\" }\n", "s.toml",
                  dir.string(), o);
  bool warned = false;
  for (const Diagnostic& w : loose.warnings)
    warned = warned || w.message.find("the sampler2D 'map' is bound to nothing") == 0;
  CHECK(warned);
  // Errors, located at the value.
  const auto error_with = [&](const std::string& uniforms, const LoadOptions& opts) {
    try {
      load_effect(base + prog + uniforms, "s.toml", dir.string(), opts);
    } catch (const Error& e) {
      return e.diagnostics().front().to_string();
    }
    return std::string();
  };
  CHECK(error_with("uniforms = { map = \"gone.png\" }\n", o)
            .find("cannot read the image " + (dir / "gone.png").string() +
                  " for the sampler2D 'map': no such file (nor is it one of the emitter's "
                  "curves or gradients)") != std::string::npos);
  CHECK(error_with("uniforms = { map = \"bad.img\" }\n", o).find("wrong length") !=
        std::string::npos);
  CHECK(error_with("uniforms = { map = 3 }\n", o).find("'map' is a sampler2D") !=
        std::string::npos);
  CHECK(error_with("uniforms = { map = \"two.img\" }\n", LoadOptions{}).find("no image decoder") !=
        std::string::npos);
  CHECK(error_with("uniforms = { mapp = \"two.img\" }\n", o).find("did you mean 'map'?") !=
        std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("program emitter: sub-emitters start where the program puts their parent", "[unit]") {
  // The parent moves only by its program (up at 10 px/s, x = its index *
  // 100); children of its birth, its life and its death start from its
  // place then and inherit its velocity.
  const std::string parent = R"([[emitter]]
name = "p"
rate = 0
bursts = [{ time = 0, count = 2 }]
lifetime = 2
integration = { step = 0.1 }
program = """
void start() { POSITION = vec2(float(INDEX) * 100.0, 0.0); VELOCITY = vec2(0.0, 10.0); }
void process() { }
"""
[[emitter]]
name = "c"
speed = 0
lifetime = 5
inherit_velocity = 1
)";
  for (const char* on : {"birth", "life", "death"}) {
    INFO(on);
    const std::string sub = std::string("sub = { parent = \"p\", on = \"") + on +
                            (std::string(on) == "life" ? "\" }\nrate = 2\n" : "\", count = 1 }\n");
    const Effect fx = fx_from(parent + sub);
    const Frame f = evaluate(fx, 2.5);
    const auto& kids = f.emitters[1].particles;
    REQUIRE(kids.size() == (std::string(on) == "life" ? 8u : 2u));
    for (const Particle& k : kids) {
      const double event = k.birth_s;  // the parent's age then: its birth is 0
      CHECK((k.x == Approx(0) || k.x == Approx(100)));
      // Its start is the parent's place at the event, then it moves on at
      // the parent's velocity.
      CHECK(k.y == Approx(10 * event + 10 * (2.5 - event)));
      CHECK(k.vy == Approx(10));
    }
  }
  // A parent its program ends early has no death children.
  std::string early = parent;
  early.replace(early.find("void process() { }"), 18,
                "void process() { if (AGE >= 1.0) ACTIVE = false; }");
  const Effect ended = fx_from(early + "sub = { parent = \"p\", on = \"death\", count = 1 }\n");
  CHECK(evaluate(ended, 2.5).emitters[1].particles.empty());
}

TEST_CASE("program emitter: the work limit weighs what a program runs", "[unit]") {
  const std::string base = R"([[emitter]]
rate = 100
lifetime = 2
integration = { step = 0.01 }
)";
  const Effect plain = fx_from(base);
  const Effect posed = fx_from(base + "program = \"void pose() { COLOR.r = 0.5; }\"\n");
  const Effect stepped =
      fx_from(base + "program = \"void process() { VELOCITY.y -= 10.0 * DELTA; }\"\n");
  const uint64_t count = window_size(plain, 5);
  REQUIRE(count > 100);
  CHECK(frame_work(plain, 5) == count);
  const auto n = static_cast<double>(count);
  const auto pose_n =
      static_cast<double>(posed.emitters[0].program->program->instructions(Stage::kPose));
  const auto step_n =
      static_cast<double>(stepped.emitters[0].program->program->instructions(Stage::kProcess));
  // 1 + instructions / 64, process() 2 / 0.01 + 1 times.
  CHECK(static_cast<double>(frame_work(posed, 5)) == Approx(n * (1 + pose_n / 64)).margin(1));
  CHECK(static_cast<double>(frame_work(stepped, 5)) ==
        Approx(n * (1 + 201 * step_n / 64)).margin(1));
  CHECK(frame_work(stepped, 5) > 10 * count);  // 201 steps of a few instructions
}

TEST_CASE("program emitter: start() may set a particle's lifetime, up to lifetime.max", "[unit]") {
  // Lives of 1, 2, 3 and 9 (clamped to 4) s by INDEX; the colour curve and
  // the flipbook follow the life start() gave.
  const std::string base = R"([[emitter]]
name = "p"
rate = 0
bursts = [{ time = 0, count = 4 }]
lifetime = [0.5, 4]
color = [[0, "#000000"], [1, "#ffffff"]]
program = """
void start() { LIFETIME = INDEX == 3 ? 9.0 : float(INDEX + 1); }
"""
)";
  const Effect fx = fx_from(base);
  const auto alive_at = [&](double t) {
    const Frame f = evaluate(fx, t);
    std::vector<double> lives;
    for (const Particle& p : f.emitters[0].particles) {
      lives.push_back(p.life_s);
      CHECK(p.color_srgb.r == Approx(p.age_s / p.life_s));
    }
    std::sort(lives.begin(), lives.end());
    return lives;
  };
  CHECK(alive_at(0.5) == std::vector<double>{1, 2, 3, 4});
  CHECK(alive_at(1.5) == std::vector<double>{2, 3, 4});
  CHECK(alive_at(3.5) == std::vector<double>{4});
  CHECK(alive_at(4.5).empty());
  // Other functions read it; only start() writes it.
  CHECK(load_error("[[emitter]]\nprogram = \"void pose() { LIFETIME = 1.0; }\"\n")
            .find("a particle's lifetime is set once, in start()") != std::string::npos);
  // A sub-emitter's death children come at the end of the life start() gave.
  const Effect subs = fx_from(base + R"([[emitter]]
sub = { parent = "p", on = "death", count = 1 }
lifetime = 10
speed = 0
)");
  std::vector<double> births;
  const Frame f = evaluate(subs, 5);
  for (const Particle& p : f.emitters[1].particles) births.push_back(p.birth_s);
  std::sort(births.begin(), births.end());
  CHECK(births == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("program emitter: a program file past 1 MiB is refused, read no further", "[unit]") {
  const fs::path dir = fs::temp_directory_path() / "spritz_program_size_test";
  fs::create_directories(dir);
  std::string text = "void pose() { }\n";
  text.resize((1u << 20) + 1, ' ');
  std::ofstream(dir / "big.glsl") << text;
  text.resize(1u << 20);
  std::ofstream(dir / "fits.glsl") << text;
  const auto load = [&](const std::string& file) {
    try {
      load_effect("[[emitter]]\nprogram = \"" + file + "\"\n", "s.toml", dir.string());
    } catch (const Error& e) {
      return e.diagnostics().front().message;
    }
    return std::string();
  };
  CHECK(load("big.glsl").find("larger than 1 MiB") != std::string::npos);
  CHECK(load("fits.glsl").empty());
  fs::remove_all(dir);
}
