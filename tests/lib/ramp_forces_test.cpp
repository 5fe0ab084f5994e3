// The model's start/end rolls (model.md 7.7), rotation_end, orbit motion
// (6.2) and integrated radial/tangential forces (6.1): each checked against
// the formula written out here from model.md, and the forces for what keeps
// them a pure function of the clock.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <vector>

#include "lib/model_support.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"

using namespace spritz;
using namespace spritz::test;

namespace {

const char* kRamps = R"(
[effect]
seed = 5
[[emitter]]
rate = 50
lifetime = [1, 2]
size = { start = [-4, 20], end = [2, 6] }
transparency = { start = [-0.5, 0.5], end = [0.5, 1.5] }
color = { start = [[-1, 0.2, 0.5], [2, 0.4, 0.5]], end = [0, 0, 1] }
rotation = [0, 90]
rotation_end = [180, 360]
rotation_speed = 10
)";

}  // namespace

TEST_CASE("start/end rolls: each endpoint its own channel, clamped at birth, then lerped",
          "[ramp]") {
  const Effect fx = fx_from(kRamps);
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 1.5);
  REQUIRE(f.emitters[0].particles.size() > 40);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double tau = p.age_s / p.life_s;
    const double s0 = std::max(0.0, lerp(-4, 20, unit(st, Channel::kSizeEnvelope)));
    const double s1 = std::max(0.0, lerp(2, 6, unit(st, Channel::kSizeEnd)));
    CHECK(p.w == Approx(lerp(s0, s1, tau)).epsilon(1e-12));
    const double t0 =
        std::clamp(lerp(-0.5, 0.5, unit(st, Channel::kTransparencyEnvelope)), 0.0, 1.0);
    const double t1 = std::clamp(lerp(0.5, 1.5, unit(st, Channel::kTransparencyEnd)), 0.0, 1.0);
    CHECK(p.alpha == Approx(1 - lerp(t0, t1, tau)).margin(1e-12));
    const double r0 = std::clamp(lerp(-1, 2, unit(st, Channel::kColorStartR)), 0.0, 1.0);
    const double g0 =
        lerp(0.2, 0.4, unit_raw(st, static_cast<uint32_t>(Channel::kColorStartR) + 1));
    CHECK(p.color_srgb.r == Approx(lerp(r0, 0, tau)).margin(1e-12));
    CHECK(p.color_srgb.g == Approx(lerp(g0, 0, tau)).margin(1e-12));
    CHECK(p.color_srgb.b == Approx(lerp(0.5, 1, tau)).margin(1e-12));
    const double a0 = lerp(0, 90, unit(st, Channel::kRotation));
    const double a1 = lerp(180, 360, unit(st, Channel::kRotationEnd));
    CHECK(p.rotation_deg == Approx(lerp(a0, a1, tau) + 10 * p.age_s).epsilon(1e-12));
  }
}

TEST_CASE("the rolls are independent: r, g and b of one particle differ", "[ramp]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 400
lifetime = 2
color = { start = [[0, 0, 0], [1, 1, 1]], end = [[0, 0, 0], [1, 1, 1]] }
)");
  const Frame f = evaluate(fx, 1);
  int differ = 0;
  double sum_rg = 0, sum_r = 0, sum_g = 0, sum_rr = 0;
  const auto& ps = f.emitters[0].particles;
  for (const Particle& p : ps) {
    differ += p.color_srgb.r != p.color_srgb.g;
    sum_r += p.color_srgb.r, sum_g += p.color_srgb.g;
    sum_rg += p.color_srgb.r * p.color_srgb.g, sum_rr += p.color_srgb.r * p.color_srgb.r;
  }
  const double n = static_cast<double>(ps.size());
  CHECK(differ == static_cast<int>(ps.size()));
  // Uncorrelated channels: a small correlation (one envelope roll would give 1).
  const double cov = sum_rg / n - sum_r / n * sum_g / n;
  const double var = sum_rr / n - (sum_r / n) * (sum_r / n);
  CHECK(std::abs(cov / var) < 0.15);
}

TEST_CASE("orbit: radius lerped over life, angle linear in age, velocity its derivative",
          "[orbit]") {
  const Effect fx = fx_from(R"(
[[emitter]]
position = [10, -5]
rate = 30
lifetime = [1, 3]
direction = 30
spread = 40
orbit = { radius = [50, 80], radius_end = [0, 10], angular_speed = [-90, 180] }
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 2.5);
  REQUIRE(f.emitters[0].particles.size() > 20);
  const double k = 3.14159265358979323846 / 180;
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double tau = p.age_s / p.life_s;
    const double r0 = lerp(50, 80, unit(st, Channel::kOrbitRadius));
    const double r1 = lerp(0, 10, unit(st, Channel::kOrbitRadiusEnd));
    const double w = lerp(-90, 180, unit(st, Channel::kOrbitAngularSpeed));
    const double theta0 = 30 + (2 * unit(st, Channel::kSpread) - 1) * 40;
    const double phi = (theta0 + w * p.age_s) * k;
    const double r = lerp(r0, r1, tau);
    CHECK(p.x == Approx(10 + r * std::cos(phi)).margin(1e-9));
    CHECK(p.y == Approx(-5 + r * std::sin(phi)).margin(1e-9));
    // The velocity against a central difference of the closed form.
    if (p.age_s < 1e-3 || p.life_s - p.age_s < 1e-3) continue;
    Particle a, b;
    const double h = 1e-6;
    REQUIRE(evaluate_particle(em, p.key, p.birth_s, 2.5 - h, a));
    REQUIRE(evaluate_particle(em, p.key, p.birth_s, 2.5 + h, b));
    CHECK(p.vx == Approx((b.x - a.x) / (2 * h)).margin(1e-4));
    CHECK(p.vy == Approx((b.y - a.y) / (2 * h)).margin(1e-4));
  }
}

TEST_CASE("radial and tangential forces: integrated from birth in fixed steps", "[forces]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 40
lifetime = 2
speed = [40, 80]
spread = 180
shape = { kind = "box", size = [20, 10] }
acceleration = [0, -30]
radial_acceleration = [-200, -100]
tangential_acceleration = 60
integration = { step = 0.02 }
)");
  const Emitter& em = fx.emitters[0];
  const double clock = 1.73;
  const Frame f = evaluate(fx, clock);
  REQUIRE(f.emitters[0].particles.size() > 40);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    // The step written out from model.md 6.1.
    const double ar = lerp(-200, -100, unit(st, Channel::kRadialAcceleration));
    const double at = 60;
    const double speed = lerp(40, 80, unit(st, Channel::kSpeed));
    const double ang =
        (90 + (2 * unit(st, Channel::kSpread) - 1) * 180) * 3.14159265358979323846 / 180;
    double px = (2 * unit(st, Channel::kShapeU) - 1) * 10,
           py = (2 * unit(st, Channel::kShapeV) - 1) * 5;
    double vx = speed * std::cos(ang), vy = speed * std::sin(ang);
    const auto step = [&](double dt) {
      const double r = std::hypot(px, py);
      const double rx = r > 0 ? px / r : 0, ry = r > 0 ? py / r : 0;
      vx += (ar * rx - at * ry) * dt;
      vy += (-30 + ar * ry + at * rx) * dt;
      px += vx * dt;
      py += vy * dt;
    };
    const double n = std::floor(p.age_s / 0.02);
    for (int i = 0; i < static_cast<int>(n); ++i) step(0.02);
    if (p.age_s - n * 0.02 > 0) step(p.age_s - n * 0.02);
    CHECK(p.x == Approx(px).margin(1e-9));
    CHECK(p.y == Approx(py).margin(1e-9));
    CHECK(p.vx == Approx(vx).margin(1e-9));
  }
}

TEST_CASE("linear acceleration: along each particle's velocity, none at rest", "[forces]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 40
lifetime = 2
speed = [0, 80]
spread = 180
acceleration = [0, -30]
drag = 0.4
linear_acceleration = [-60, 90]
integration = { step = 0.02 }
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 1.91);
  REQUIRE(f.emitters[0].particles.size() > 40);
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    // The step written out from model.md 6.1 (no radial or tangential term).
    const double al = lerp(-60, 90, unit(st, Channel::kLinearAcceleration));
    const double speed = lerp(0, 80, unit(st, Channel::kSpeed));
    const double ang =
        (90 + (2 * unit(st, Channel::kSpread) - 1) * 180) * 3.14159265358979323846 / 180;
    double px = 0, py = 0, vx = speed * std::cos(ang), vy = speed * std::sin(ang);
    const auto step = [&](double dt) {
      const double s = std::hypot(vx, vy);
      const double wx = s > 0 ? vx / s : 0, wy = s > 0 ? vy / s : 0;
      vx += (al * wx - 0.4 * vx) * dt;
      vy += (-30 + al * wy - 0.4 * vy) * dt;
      px += vx * dt;
      py += vy * dt;
    };
    const double n = std::floor(p.age_s / 0.02);
    for (int i = 0; i < static_cast<int>(n); ++i) step(0.02);
    if (p.age_s - n * 0.02 > 0) step(p.age_s - n * 0.02);
    CHECK(p.x == Approx(px).margin(1e-9));
    CHECK(p.y == Approx(py).margin(1e-9));
  }
  // A particle at rest with nothing else acting stays at rest.
  const Effect still = fx_from(R"(
[[emitter]]
rate = 10
lifetime = 2
speed = 0
linear_acceleration = 500
)");
  const Frame rest = evaluate(still, 1.5);
  REQUIRE(rest.emitters[0].particles.size() == 16);  // births 0, 0.1, ..., 1.5
  for (const Particle& p : rest.emitters[0].particles) CHECK((p.x == 0 && p.y == 0));
}

TEST_CASE("acceleration curves scale each acceleration by its curve at the step's end",
          "[forces]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 30
lifetime = [1, 2]
speed = [10, 60]
spread = 180
radial_acceleration = [-50, 80]
tangential_acceleration = 40
linear_acceleration = [20, 30]
acceleration_curves = { radial = [[0, 1], [1, -1]], linear = [[0, 0], [0.5, 2], [1, 1]] }
integration = { step = 0.025 }
)");
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 1.77);
  REQUIRE(f.emitters[0].particles.size() > 20);
  const auto lin = [](double t) { return t < 0.5 ? 4 * t : 2 - 2 * (t - 0.5); };
  for (const Particle& p : f.emitters[0].particles) {
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double ar0 = lerp(-50, 80, unit(st, Channel::kRadialAcceleration));
    const double al0 = lerp(20, 30, unit(st, Channel::kLinearAcceleration));
    const double life = lerp(1, 2, unit(st, Channel::kLifetime));
    const double speed = lerp(10, 60, unit(st, Channel::kSpeed));
    const double ang =
        (90 + (2 * unit(st, Channel::kSpread) - 1) * 180) * 3.14159265358979323846 / 180;
    double px = 0, py = 0, vx = speed * std::cos(ang), vy = speed * std::sin(ang), age = 0;
    const auto step = [&](double dt) {
      age += dt;
      const double tau = age / life;
      const double ar = ar0 * (1 - 2 * tau), al = al0 * lin(tau);
      const double r = std::hypot(px, py), s = std::hypot(vx, vy);
      const double rx = r > 0 ? px / r : 0, ry = r > 0 ? py / r : 0;
      vx += (ar * rx - 40 * ry + (s > 0 ? al * vx / s : 0)) * dt;
      vy += (ar * ry + 40 * rx + (s > 0 ? al * vy / s : 0)) * dt;
      px += vx * dt;
      py += vy * dt;
    };
    const double n = std::floor(p.age_s / 0.025);
    for (int i = 0; i < static_cast<int>(n); ++i) step(0.025);
    if (p.age_s - n * 0.025 > 0) step(p.age_s - n * 0.025);
    CHECK(p.x == Approx(px).margin(1e-9));
    CHECK(p.y == Approx(py).margin(1e-9));
  }
}

TEST_CASE("integrated forces stay a pure function of the clock", "[forces]") {
  const Effect fx = fx_from(R"(
[effect]
loop = true
duration = 2
[[emitter]]
rate = 300
lifetime = [0.5, 3]
speed = 60
spread = 180
radial_acceleration = [-300, 50]
tangential_acceleration = [-80, 120]
)");
  // Forwards, backwards and jumping: the same bits at the same clock.
  const std::vector<double> clocks = {0.3, 2.9, 1.1, 0.3, 5.5, 1.1};
  std::vector<Frame> frames;
  for (double c : clocks) frames.push_back(evaluate(fx, c));
  const auto same = [](const Frame& a, const Frame& b) {
    const auto &pa = a.emitters[0].particles, &pb = b.emitters[0].particles;
    return pa.size() == pb.size() &&
           (pa.empty() || std::memcmp(pa.data(), pb.data(), pa.size() * sizeof(Particle)) == 0);
  };
  CHECK(same(frames[0], frames[3]));
  CHECK(same(frames[2], frames[5]));
  // The keys visited per frame are the closed-form window's, forces or not.
  Effect plain = fx;
  plain.emitters[0].forces = Forces{};
  Frame a, b;
  evaluate(fx, 2.9, a);
  evaluate(plain, 2.9, b);
  CHECK(a.emitters[0].stats.visited == b.emitters[0].stats.visited);
  CHECK(a.emitters[0].stats.alive == b.emitters[0].stats.alive);
}

TEST_CASE("the new keys are refused where they cannot work, with the place", "[forces][orbit]") {
  CHECK(load_error("[[emitter]]\norbit = { radius = 10 }\nacceleration = [0, -10]\n")
            .find("test.toml:2:9: orbit motion replaces the ballistic motion") !=
        std::string::npos);
  CHECK(load_error("[[emitter]]\norbit = { angular_speed = 10 }\n").find("orbit needs a radius") !=
        std::string::npos);
  CHECK(load_error("[[emitter]]\nradial_acceleration = 5\ncolliders = [{ kind = \"line\", point = "
                   "[0, 0], normal = [0, 1] }]\n")
            .find("cannot be combined with colliders") != std::string::npos);
  CHECK(load_error("[[emitter]]\nradial_acceleration = 5\nlifetime = 1e5\n")
            .find("needs more than 1e6 of them") != std::string::npos);
  CHECK(load_error("[[emitter]]\nintegration = { step = 0 }\n")
            .find("integration.step must be within [1e-4, 1] s") != std::string::npos);
  CHECK(load_error("[[emitter]]\nsize = { start = 3 }\n").find("needs both start and end") !=
        std::string::npos);
  CHECK(load_error("[[emitter]]\ncolor = { start = [1, 2], end = [0, 0, 0] }\n")
            .find("color.start must be [r, g, b]") != std::string::npos);
  CHECK(load_error("[[emitter]]\nsize = { start = 1, end = 2, middle = 3 }\n").find("middle") !=
        std::string::npos);
}
