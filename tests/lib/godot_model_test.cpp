// The model additions Godot and Roblox imports need: linear damping (model.md
// 6.3), orbit velocity (6.4), the "points" shape and ellipses emitting along
// the direction (5), flipbook cycles per life (7.5) and per-keypoint envelope
// rolls (7.2). Each is checked against its formula written out here from
// model.md, and the integrated cases against the step.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "lib/model_support.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/write.h"

using namespace spritz;
using namespace spritz::test;

namespace {}  // namespace

TEST_CASE("damping alone: speed falls linearly along the launch and stops", "[damping]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 60
lifetime = 3
speed = [50, 150]
spread = 180
damping = [40, 100]
)");
  const Emitter& em = fx.emitters[0];
  REQUIRE_FALSE(integrated_motion(em));
  const Frame f = evaluate(fx, 2.9);
  REQUIRE(f.emitters[0].particles.size() > 100);
  int stopped = 0, moving = 0;
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double s0 = lerp(50, 150, unit(st, Channel::kSpeed));
    const double d = lerp(40, 100, unit(st, Channel::kDamping));
    const double ang = (90 + (2 * unit(st, Channel::kSpread) - 1) * 180) * kPi / 180;
    const double t = std::min(p.age_s, s0 / d);
    const double dist = s0 * t - 0.5 * d * t * t;
    CHECK(p.x == Approx(dist * std::cos(ang)).margin(1e-9));
    CHECK(p.y == Approx(dist * std::sin(ang)).margin(1e-9));
    CHECK(std::hypot(p.vx, p.vy) == Approx(std::max(s0 - d * p.age_s, 0.0)).margin(1e-9));
    (p.age_s >= s0 / d ? stopped : moving)++;
  }
  CHECK(stopped > 10);
  CHECK(moving > 10);
}

TEST_CASE("damping with gravity and orbit velocity with drag are integrated", "[damping][orbit]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 30
lifetime = 2
speed = 120
spread = 180
acceleration = [0, -50]
damping = 60
orbit_velocity = [-90, 180]
integration = { step = 0.025 }
)");
  const Emitter& em = fx.emitters[0];
  REQUIRE(integrated_motion(em));
  const Frame f = evaluate(fx, 1.9);
  REQUIRE(f.emitters[0].particles.size() > 30);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    // The step of model.md 6.1 with 6.3's damping and 6.4's turn.
    const double w = lerp(-90, 180, unit(st, Channel::kOrbitVelocity)) * kPi / 180;
    const double ang = (90 + (2 * unit(st, Channel::kSpread) - 1) * 180) * kPi / 180;
    double px = 0, py = 0, vx = 120 * std::cos(ang), vy = 120 * std::sin(ang);
    const auto step = [&](double dt) {
      vy += -50 * dt;
      const double s = std::hypot(vx, vy);
      if (s > 0) {
        const double k = std::max(s - 60 * dt, 0.0) / s;
        vx *= k, vy *= k;
      }
      const double c = std::cos(w * dt), sn = std::sin(w * dt);
      const double rx = c * px - sn * py, ry = sn * px + c * py;
      px = rx + vx * dt;
      py = ry + vy * dt;
    };
    const double n = std::floor(p.age_s / 0.025);
    for (int i = 0; i < static_cast<int>(n); ++i) step(0.025);
    if (p.age_s - n * 0.025 > 0) step(p.age_s - n * 0.025);
    CHECK(p.x == Approx(px).margin(1e-9));
    CHECK(p.y == Approx(py).margin(1e-9));
  }
}

TEST_CASE("orbit velocity with constant acceleration is exact in closed form", "[orbit]") {
  const std::string text = R"(
[[emitter]]
rate = 40
lifetime = 2.5
speed = [30, 90]
spread = 180
shape = { kind = "box", size = [40, 20] }
acceleration = [10, -40]
orbit_velocity = [-200, 300]
)";
  const Effect fx = fx_from(text);
  const Emitter& em = fx.emitters[0];
  REQUIRE_FALSE(integrated_motion(em));
  // The same motion integrated very finely converges to the closed form.
  Effect fine = fx;
  fine.emitters[0].forces.step_s = 1e-4;
  fine.emitters[0].drag_per_s = 1e-300;  // forces the stepped path, with no drag to speak of
  REQUIRE(integrated_motion(fine.emitters[0]));
  const Frame a = evaluate(fx, 2.4), b = evaluate(fine, 2.4);
  REQUIRE(a.emitters[0].particles.size() == b.emitters[0].particles.size());
  REQUIRE(a.emitters[0].particles.size() > 50);
  double worst = 0, small_w = 0;
  for (size_t i = 0; i < a.emitters[0].particles.size(); ++i) {
    const Particle& p = a.emitters[0].particles[i];
    const Particle& q = b.emitters[0].particles[i];
    worst = std::max({worst, std::abs(p.x - q.x), std::abs(p.y - q.y)});
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double w = lerp(-200, 300, unit(st, Channel::kOrbitVelocity)) * kPi / 180;
    if (std::abs(w * p.age_s) < 1) ++small_w;  // the series branch is covered too
  }
  CHECK(worst < 0.05);  // semi-implicit Euler's error at 1e-4 s, over a few hundred px
  CHECK(small_w > 0);
  // The velocity is the derivative of the place: a central difference agrees.
  const double h = 1e-6;
  const Frame m = evaluate(fx, 2.4 - h), pl = evaluate(fx, 2.4 + h);
  for (size_t i = 0; i < a.emitters[0].particles.size(); ++i) {
    const Particle& p = a.emitters[0].particles[i];
    for (size_t j = 0; j < m.emitters[0].particles.size(); ++j)
      if (m.emitters[0].particles[j].key == p.key && j < pl.emitters[0].particles.size() &&
          pl.emitters[0].particles[j].key == p.key) {
        const double dx = (pl.emitters[0].particles[j].x - m.emitters[0].particles[j].x) / (2 * h);
        CHECK(p.vx == Approx(dx).margin(1e-3));
      }
  }
}

TEST_CASE("a points shape picks point floor(n u), with normals the direction is relative",
          "[shape]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 200
lifetime = 1
speed = 10
direction = 0
shape = { kind = "points", points = [[0, 0], [10, 0], [0, 20]], normals = [[0, 1], [1, 0], [0, 0]] }
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 0.9);
  REQUIRE(f.emitters[0].particles.size() > 100);
  const double px[] = {0, 10, 0}, py[] = {0, 0, 20};
  const double dx[] = {0, 1, 1},
               dy[] = {1, 0, 0};  // normal turned by direction 0; zero: the direction
  int seen[3] = {0, 0, 0};
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const int i = std::min(2, static_cast<int>(std::floor(3 * unit(st, Channel::kShapeU))));
    ++seen[i];
    CHECK(p.x == Approx(px[i] + 10 * dx[i] * p.age_s).margin(1e-9));
    CHECK(p.y == Approx(py[i] + 10 * dy[i] * p.age_s).margin(1e-9));
  }
  CHECK(seen[0] > 20);
  CHECK(seen[1] > 20);
  CHECK(seen[2] > 20);
  // It writes back as it reads.
  const Effect again = fx_from(write_effect(fx));
  CHECK(again.emitters[0].shape.points.size() == 3);
  CHECK(again.emitters[0].shape.normals[1].x == 1);
}

TEST_CASE("an ellipse along the direction keeps the emitter direction", "[shape]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 100
lifetime = 1
speed = 10
direction = 30
shape = { kind = "ellipse", size = [40, 40], along = "direction" }
)");
  const Frame f = evaluate(fx, 0.9);
  REQUIRE(f.emitters[0].particles.size() > 50);
  for (const Particle& p : f.emitters[0].particles)
    CHECK(std::atan2(p.vy, p.vx) * 180 / kPi == Approx(30).margin(1e-9));
}

TEST_CASE("flipbook cycles count plays per life: window floor(tau cycles N)", "[flipbook]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 50
lifetime = [0.5, 2]
texture = "builtin:smoke"
flipbook = { layout = [4, 2], mode = "loop", cycles = [1, 3] }
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 1.7);
  REQUIRE(f.emitters[0].particles.size() > 30);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double c = lerp(1, 3, unit(st, Channel::kFlipbookRate));
    const double w = std::floor(p.age_s / p.life_s * c * 8);
    CHECK(p.cell == 1 + static_cast<int>(std::fmod(w, 8)));
  }
  CHECK(
      load_error("[[emitter]]\ntexture = \"builtin:smoke\"\nflipbook = { layout = [2, 2], fps = 3, "
                 "cycles = 1 }\n")
          .find("fps (cells per second) or cycles (plays per life), not both") !=
      std::string::npos);
  CHECK(write_effect(fx).find("cycles = [1, 3]") != std::string::npos);
}

TEST_CASE("per-key envelope rolls: each keypoint's value rolled on its own channel", "[envelope]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 80
lifetime = 1
size = [[0, 10, 4], [0.5, 20, 8], [1, 5, 0]]
transparency = [[0, 0.5, 0.5], [1, 0.5, 0.5]]
envelope_rolls = "per_key"
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 0.95);
  REQUIRE(f.emitters[0].particles.size() > 40);
  bool differs = false;
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const auto eps = [&](uint32_t base, uint32_t k) { return 2 * unit_raw(st, base + k) - 1; };
    const double tau = p.age_s / p.life_s;
    const uint32_t s0 = static_cast<uint32_t>(Channel::kSizeKeyEnvelope0);
    const double size = tau < 0.5 ? lerp(10 + 4 * eps(s0, 0), 20 + 8 * eps(s0, 1), tau / 0.5)
                                  : lerp(20 + 8 * eps(s0, 1), 5, (tau - 0.5) / 0.5);
    CHECK(p.w == Approx(std::max(size, 0.0)).margin(1e-12));
    const uint32_t t0 = static_cast<uint32_t>(Channel::kTransparencyKeyEnvelope0);
    const double tr = lerp(0.5 + 0.5 * eps(t0, 0), 0.5 + 0.5 * eps(t0, 1), tau);
    CHECK(p.alpha == Approx(1 - std::clamp(tr, 0.0, 1.0)).margin(1e-12));
    differs |= std::abs(eps(s0, 0) - eps(s0, 1)) > 0.5;
  }
  CHECK(differs);
  CHECK(write_effect(fx).find("envelope_rolls = \"per_key\"") != std::string::npos);
}

TEST_CASE("damping, orbit velocity and points are refused where they cannot work", "[damping]") {
  CHECK(load_error("[[emitter]]\ndamping = -1\n").find("damping") != std::string::npos);
  CHECK(load_error("[[emitter]]\norbit_velocity = 10\ncolliders = [{ kind = \"line\", point = "
                   "[0, 0], normal = [0, 1] }]\n")
            .find("orbit_velocity cannot be combined with colliders") != std::string::npos);
  CHECK(load_error("[[emitter]]\norbit = { radius = 10 }\ndamping = 5\n")
            .find("orbit motion replaces the ballistic motion") != std::string::npos);
  CHECK(load_error("[[emitter]]\ndamping = 5\nacceleration = [0, 1]\nlifetime = 1e5\n")
            .find("damping integrates each particle's life") != std::string::npos);
  // Damping alone is closed form: a long life is fine.
  CHECK(load_error("[[emitter]]\ndamping = 5\nlifetime = 1e5\n").empty());
  CHECK(load_error("[[emitter]]\nshape = { kind = \"points\" }\n").find("needs points") !=
        std::string::npos);
  CHECK(
      load_error("[[emitter]]\nshape = { kind = \"points\", points = [[0, 0]], normals = [[0, 1], "
                 "[1, 0]] }\n")
          .find("one normal per point (1), got 2") != std::string::npos);
  CHECK(load_error("[[emitter]]\nshape = { kind = \"box\", points = [[0, 0]] }\n")
            .find("shape.points belongs to kind = \"points\"") != std::string::npos);
  CHECK(load_error("[[emitter]]\nshape = { kind = \"box\", size = 4, along = \"direction\" }\n")
            .find("shape.along belongs to kind = \"ellipse\"") != std::string::npos);
  CHECK(load_error("[[emitter]]\nenvelope_rolls = \"sometimes\"\n").find("envelope_rolls") !=
        std::string::npos);
}

TEST_CASE("hue variation turns each particle's colour by Godot's matrix", "[hue]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 60
lifetime = 1
color = [[0, "#ff8020"], [1, "#2060ff"]]
hue_variation = [-0.25, 0.5]
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 0.9);
  REQUIRE(f.emitters[0].particles.size() > 30);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double a = 2 * kPi * lerp(-0.25, 0.5, unit(st, Channel::kHueVariation));
    const double tau = p.age_s / p.life_s;
    const double in[3] = {lerp(1, 0x20 / 255.0, tau), lerp(0x80 / 255.0, 0x60 / 255.0, tau),
                          lerp(0x20 / 255.0, 1, tau)};
    // Godot's shader: mat4 columns (luma) + cos (chroma) + sin (quarter turn).
    const double c = std::cos(a), s = std::sin(a);
    const double m[3][3] = {{0.299 + 0.701 * c + 0.168 * s, 0.587 - 0.587 * c + 0.330 * s,
                             0.114 - 0.114 * c - 0.497 * s},
                            {0.299 - 0.299 * c - 0.328 * s, 0.587 + 0.413 * c + 0.035 * s,
                             0.114 - 0.114 * c + 0.292 * s},
                            {0.299 - 0.300 * c + 1.250 * s, 0.587 - 0.588 * c - 1.050 * s,
                             0.114 + 0.886 * c - 0.203 * s}};
    double out[3] = {0, 0, 0};
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) out[i] += m[j][i] * in[j];
    CHECK(p.color_srgb.r == Approx(std::clamp(out[0], 0.0, 1.0)).margin(1e-12));
    CHECK(p.color_srgb.g == Approx(std::clamp(out[1], 0.0, 1.0)).margin(1e-12));
    CHECK(p.color_srgb.b == Approx(std::clamp(out[2], 0.0, 1.0)).margin(1e-12));
  }
  CHECK(write_effect(fx).find("hue_variation = [-0.25, 0.5]") != std::string::npos);
}
