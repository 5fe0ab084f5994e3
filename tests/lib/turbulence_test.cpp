// Turbulence (model.md 9, docs/config.md): A(tau) * noise(p0 f, age speed +
// phase unit(st, 16)) added to the closed-form position.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/noise.h"

using namespace spritz;

namespace {

Effect fx_from(const std::string& text) {
  return load_effect(text, "t.toml", ".");
}

std::string problems(const std::string& text) {
  try {
    load_effect(text, "fx.toml", ".");
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string warnings(const std::string& text) {
  std::string out;
  for (const Diagnostic& d : load_effect(text, "fx.toml", ".").warnings) out += d.message + "\n";
  return out;
}

// A steady fountain from a point, with drag and gravity, so the motion
// under the noise is not trivial.
const std::string kFountain =
    "[effect]\nseed = 5\n[[emitter]]\nname = \"f\"\nrate = 40\nlifetime = [1, 2]\n"
    "speed = [40, 80]\nspread = 40\nacceleration = [0, -30]\ndrag = 0.5\n";

// The particle with `key` in the frame's first emitter, or nullptr.
const Particle* find_key(const Frame& f, uint64_t key) {
  for (const Particle& p : f.emitters[0].particles)
    if (p.key == key) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("gradient noise: pinned values, zero on the lattice, continuous across cells",
          "[turbulence]") {
  const uint32_t field = turbulence_fields(emitter_seed(1, 0)).x;
  CHECK(field == 0xe757426cu);
  // Pinned: other tools reading model.md's hash must find the same field.
  const NoiseSample a = gradient_noise(field, 0.5, 0.5, 0.5);
  CHECK(a.value == -0.125);
  CHECK(a.dz == 1.03125);
  const NoiseSample b = gradient_noise(field, 1.25, -3.75, 2.5);
  CHECK(b.value == Approx(-0.26286077499389648).epsilon(1e-15));
  CHECK(b.dz == Approx(-0.68882548809051514).epsilon(1e-15));
  const NoiseSample c = gradient_noise(field, 123.456, -654.321, 0.001);
  CHECK(c.value == Approx(0.2625627503315146).epsilon(1e-13));
  CHECK(c.dz == Approx(0.21285494623982718).epsilon(1e-13));
  for (int i = -3; i <= 3; ++i)
    for (int k = -2; k <= 2; ++k) CHECK(gradient_noise(field, i, 7 - i, k).value == 0);
  // Across a cell face the value and its z derivative stay continuous.
  for (double x : {-2.0, 0.0, 1.0, 5.0}) {
    const double e = 1e-9;
    const NoiseSample lo = gradient_noise(field, x - e, 0.3, 1.7);
    const NoiseSample hi = gradient_noise(field, x + e, 0.3, 1.7);
    CHECK(std::abs(lo.value - hi.value) < 1e-7);
    CHECK(std::abs(lo.dz - hi.dz) < 1e-7);
  }
}

TEST_CASE("gradient noise: dz is the z derivative and the range is about [-1, 1]", "[turbulence]") {
  const uint32_t field = 0x12345678u;
  uint32_t s = 99;
  double largest = 0;
  for (int n = 0; n < 20000; ++n) {
    s = mix32(s);
    const double x = (s >> 8) / 65536.0 - 128;
    s = mix32(s);
    const double y = (s >> 8) / 65536.0 - 128;
    s = mix32(s);
    const double z = (s >> 8) / 65536.0;
    const NoiseSample ns = gradient_noise(field, x, y, z);
    largest = std::max(largest, std::abs(ns.value));
    const double h = 1e-5;
    const double numeric =
        (gradient_noise(field, x, y, z + h).value - gradient_noise(field, x, y, z - h).value) /
        (2 * h);
    REQUIRE(ns.dz == Approx(numeric).margin(1e-6));
  }
  CHECK(largest > 0.5);
  CHECK(largest <= 1.5);
  // Huge or non-finite coordinates stay finite (clamped), never UB.
  for (double v : {1e300, -1e300, 1e12, std::nan("")}) {
    const NoiseSample ns = gradient_noise(field, v, v, v);
    CHECK(std::isfinite(ns.value));
    CHECK(std::isfinite(ns.dz));
  }
}

TEST_CASE("turbulence adds A(tau) noise(p0 f, age speed) to the position", "[turbulence]") {
  const Effect plain = fx_from(kFountain);
  const Effect turb = fx_from(kFountain +
                              "turbulence = { amplitude = [[0, 5], [1, 25]], frequency = 0.03, "
                              "speed = 1.5 }\n");
  const Emitter& em = turb.emitters[0];
  REQUIRE(em.turbulence.enabled);
  const double clock = 7.3;
  const Frame a = evaluate(plain, clock), b = evaluate(turb, clock);
  REQUIRE(a.emitters[0].particles.size() == b.emitters[0].particles.size());
  REQUIRE(a.emitters[0].particles.size() > 20);
  double moved = 0;
  for (const Particle& p : a.emitters[0].particles) {
    const Particle* q = find_key(b, p.key);
    REQUIRE(q);
    // A point emitter: p0 is the emitter's position, (0, 0).
    const double tau = p.age_s / p.life_s;
    const double amp = 5 + 20 * tau;
    const NoiseVector n = noise2(em.turbulence.fields, {0, 0}, p.age_s * 1.5);
    CHECK(q->x - p.x == Approx(amp * n.value.x).margin(1e-9));
    CHECK(q->y - p.y == Approx(amp * n.value.y).margin(1e-9));
    moved = std::max(moved, std::hypot(q->x - p.x, q->y - p.y));
    // Everything else about the particle is untouched.
    CHECK(q->w == p.w);
    CHECK(q->alpha == p.alpha);
    CHECK(q->birth_s == p.birth_s);
  }
  CHECK(moved > 3);
}

TEST_CASE("turbulence's velocity is the derivative of its position", "[turbulence]") {
  // Velocity drives orientation (velocity_parallel), so it must include the
  // noise's motion: d/dt [A(tau) n] = A'(tau) / life n + A speed dn/dz.
  const Effect fx = fx_from(kFountain +
                            "shape = { kind = \"ellipse\", size = [40, 20] }\n"
                            "turbulence = { amplitude = [[0, 0, 5], [0.5, 30, 20], [1, 10, 15]], "
                            "frequency = 0.05, speed = 2, phase = 10 }\n");
  const double clock = 9.1, h = 1e-6;
  const Frame f = evaluate(fx, clock), lo = evaluate(fx, clock - h), hi = evaluate(fx, clock + h);
  int checked = 0;
  for (const Particle& p : f.emitters[0].particles) {
    const Particle* a = find_key(lo, p.key);
    const Particle* b = find_key(hi, p.key);
    if (!a || !b) continue;
    const double tau = p.age_s / p.life_s;
    if (std::abs(tau - 0.5) < 1e-4) continue;  // the amplitude's corner
    CHECK(p.vx == Approx((b->x - a->x) / (2 * h)).margin(2e-3));
    CHECK(p.vy == Approx((b->y - a->y) / (2 * h)).margin(2e-3));
    ++checked;
  }
  CHECK(checked > 30);
}

TEST_CASE("an amplitude envelope gives each particle its own amplitude", "[turbulence]") {
  const Effect fx =
      fx_from(kFountain + "turbulence = { amplitude = [[0, 10, 20], [1, 10, 20]], speed = 1 }\n");
  const Effect plain = fx_from(kFountain);
  const Turbulence& tb = fx.emitters[0].turbulence;
  const Frame a = evaluate(plain, 6.5), b = evaluate(fx, 6.5);
  int still = 0, moved = 0;
  for (const Particle& p : a.emitters[0].particles) {
    const Particle* q = find_key(b, p.key);
    REQUIRE(q);
    const uint32_t st = particle_stream(fx.emitters[0].seed, static_cast<uint32_t>(p.key));
    const double eps = 2 * unit(st, Channel::kTurbulenceEnvelope) - 1;
    const double amp = std::max(10 + 20 * eps, 0.0);  // clamped at 0, as a size is
    const NoiseVector n = noise2(tb.fields, {0, 0}, p.age_s);
    CHECK(q->x - p.x == Approx(amp * n.value.x).margin(1e-9));
    CHECK(q->y - p.y == Approx(amp * n.value.y).margin(1e-9));
    (amp == 0 ? still : moved) += 1;
  }
  CHECK(still > 5);  // eps below -0.5: no turbulence
  CHECK(moved > 5);
}

TEST_CASE("an amplitude from 0 starts particles at the emitter: phase sets them apart",
          "[turbulence]") {
  // Particles that stand still, so all their motion is the noise's.
  std::string base = kFountain;
  base.replace(base.find("speed = [40, 80]\n"), 17, "speed = 0\n");
  base.replace(base.find("acceleration = [0, -30]\n"), 24, "");
  const Effect same = fx_from(base + "turbulence = { amplitude = [[0, 0], [1, 40]], speed = 1 }\n");
  const Effect apart =
      fx_from(base + "turbulence = { amplitude = [[0, 0], [1, 40]], speed = 1, phase = 50 }\n");
  const Frame s = evaluate(same, 6), a = evaluate(apart, 6);
  // The literal formula: a point emitter's particles share p0, so two of the
  // same age are displaced alike; the phase gives each its own noise.
  const Particle* p = nullptr;
  for (const Particle& q : s.emitters[0].particles)
    if (!p || q.age_s > p->age_s) p = &q;
  REQUIRE(p);
  CHECK(std::hypot(p->x, p->y) > 0.5);
  const Frame born = evaluate(same, p->birth_s);
  const Particle* b = find_key(born, p->key);
  REQUIRE(b);
  CHECK(b->x == 0);
  CHECK(b->y == 0);
  // Without phase, the displacement is a function of age alone; with it,
  // each particle reads the noise at its own offset along z.
  const auto matches_age_only = [](const Effect& fx, const Frame& f, int* total) {
    const Turbulence& tb = fx.emitters[0].turbulence;
    int agree = 0;
    *total = 0;
    for (const Particle& q : f.emitters[0].particles) {
      if (q.age_s < 0.3) continue;
      ++*total;
      const NoiseVector n = noise2(tb.fields, {0, 0}, q.age_s);
      const double amp = 40 * q.age_s / q.life_s;
      agree += std::abs(q.x - amp * n.value.x) < 1e-9 && std::abs(q.y - amp * n.value.y) < 1e-9;
    }
    return agree;
  };
  int total = 0;
  CHECK(matches_age_only(same, s, &total) == total);
  CHECK(total > 10);
  CHECK(matches_age_only(apart, a, &total) == 0);
  CHECK(total > 10);
}

TEST_CASE("turbulence keeps loops seamless and children on their turbulent parents",
          "[turbulence]") {
  const Effect fx = fx_from(
      "[effect]\nseed = 3\nduration = 2\nloop = true\n"
      "[[emitter]]\nname = \"p\"\nrate = 6\nlifetime = 1.5\nspeed = 60\n"
      "turbulence = { amplitude = 30, frequency = 0.02, speed = 1, phase = 8 }\n"
      "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", count = 3 }\nlifetime = 0.5\n"
      "speed = 0\n");
  const Frame a = evaluate(fx, clock_at_time(fx, 0.4));
  const Frame b = evaluate(fx, clock_at_time(fx, 2.4));
  REQUIRE(a.emitters.size() == b.emitters.size());
  for (size_t e = 0; e < a.emitters.size(); ++e) {
    REQUIRE(a.emitters[e].particles.size() == b.emitters[e].particles.size());
    REQUIRE(!a.emitters[e].particles.empty());
    for (size_t i = 0; i < a.emitters[e].particles.size(); ++i) {
      CHECK(a.emitters[e].particles[i].x == Approx(b.emitters[e].particles[i].x).margin(1e-9));
      CHECK(a.emitters[e].particles[i].y == Approx(b.emitters[e].particles[i].y).margin(1e-9));
    }
  }
  // A child of a death starts where its parent was at that death, noise
  // included: evaluate the parent just before it dies.
  const Particle& child = a.emitters[1].particles[0];
  const uint64_t parent_key = child.key / fx.emitters[1].sub.spacing;
  const Frame at_death = evaluate(fx, child.birth_s - 1e-9);
  const Particle* parent = nullptr;
  for (const Particle& q : at_death.emitters[0].particles)
    if (q.key == parent_key) parent = &q;
  REQUIRE(parent);
  const Frame child_born = evaluate(fx, child.birth_s);
  for (const Particle& q : child_born.emitters[1].particles)
    if (q.key == child.key) {
      CHECK(q.x == Approx(parent->x).margin(1e-4));
      CHECK(q.y == Approx(parent->y).margin(1e-4));
    }
}

TEST_CASE("turbulence keys: defaults, errors and warnings", "[turbulence]") {
  const Turbulence off = fx_from("[[emitter]]\n").emitters[0].turbulence;
  CHECK_FALSE(off.enabled);
  const Turbulence on = fx_from("[[emitter]]\nturbulence = {}\n").emitters[0].turbulence;
  CHECK(on.enabled);
  CHECK(on.amplitude.evaluate(0.5, 0) == 20);
  CHECK(on.frequency == 0.02);
  CHECK(on.speed == 1);
  CHECK(on.phase == 0);
  CHECK(problems("[[emitter]]\nturbulence = 5\n") ==
        "fx.toml:2:14: turbulence must be a table { amplitude = 20, frequency = 0.02, speed = 1 "
        "}, got an integer");
  CHECK_THAT(problems("[[emitter]]\nturbulence = { amplitud = 5 }\n"),
             Catch::Contains("did you mean 'amplitude'?"));
  CHECK_THAT(problems("[[emitter]]\nturbulence = { amplitude = -1 }\n"),
             Catch::Contains("turbulence.amplitude values must be within [0, 1e6] design px"));
  CHECK(problems("[[emitter]]\nturbulence = { amplitude = [[0, 5, 8], [1, 5]] }\n").empty());
  CHECK(fx_from("[[emitter]]\nturbulence = { amplitude = [[0, 5, 8], [1, 5]] }\n")
            .emitters[0]
            .turbulence.amplitude_has_envelope);
  CHECK_THAT(problems("[[emitter]]\nturbulence = { frequency = -0.1 }\n"),
             Catch::Contains("turbulence.frequency must be within [0, 1e3]"));
  CHECK_THAT(problems("[[emitter]]\nturbulence = { speed = nan }\n"),
             Catch::Contains("turbulence.speed must be a finite number"));
  CHECK_THAT(problems("[[emitter]]\nturbulence = { phase = -2 }\n"),
             Catch::Contains("turbulence.phase must be within [0, 1e6]"));
  CHECK(warnings("[[emitter]]\nturbulence = { amplitude = 0 }\n") ==
        "emitter 'emitter0' turbulence moves nothing: its amplitude is 0\n");
  CHECK_THAT(warnings("[[emitter]]\nturbulence = { frequency = 0, speed = 0 }\n"),
             Catch::Contains("turbulence moves nothing"));
  CHECK(warnings("[[emitter]]\nturbulence = { frequency = 0 }\n").empty());
}
