// Collisions inside whole effects (model.md 9.7): jump == step and rewind ==
// forward, loops, keys visited, sub-emitters on collision, trails, motion
// blur, turbulence, and the loader's checks of every key.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "spritz/collision.h"
#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/load.h"

using namespace spritz;
namespace fs = std::filesystem;

namespace {

Effect fx_from(const std::string& text) {
  return load_effect(text, "c.toml", ".");
}

Effect bundled(const char* name) {
  const fs::path p = fs::path(SPRITZ_SOURCE_DIR) / "configs" / name;
  std::ifstream in(p);
  return load_effect(std::string(std::istreambuf_iterator<char>(in), {}), p.string(),
                     p.parent_path().string());
}

bool same_frame(const Frame& a, const Frame& b) {
  if (a.emitters.size() != b.emitters.size()) return false;
  for (size_t e = 0; e < a.emitters.size(); ++e) {
    const auto &pa = a.emitters[e].particles, &pb = b.emitters[e].particles;
    if (pa.size() != pb.size()) return false;
    for (size_t i = 0; i < pa.size(); ++i)
      if (std::memcmp(&pa[i], &pb[i], sizeof(Particle)) != 0) return false;
  }
  return true;
}

// The smallest signed distance of any drawn particle from its emitter's
// colliders (turbulence off).
double worst_distance(const Effect& fx, const Frame& f) {
  double worst = 1e300;
  for (const EmitterFrame& ef : f.emitters)
    for (const Particle& p : ef.particles)
      for (const Collider& c : fx.emitters[ef.emitter].collision.colliders)
        worst = std::min(worst, collider_distance(c, {p.x, p.y}));
  return worst;
}

// One spark dropped from (0, 100) with speed 0 onto the floor y = 0 under
// g = 400, bouncing with restitution 0.5 at most 3 times.
const char* kDrop = R"(
[[emitter]]
name = "ball"
rate = 0
bursts = [{ time = 0, count = 1 }]
lifetime = 10
speed = 0
position = [0, 100]
acceleration = [0, -400]
collision = { restitution = 0.5, max_bounces = 3, rest_speed = 0 }
colliders = [{ kind = "line", point = [0, 0], normal = [0, 1] }]
)";

}  // namespace

TEST_CASE("with collisions, jumping equals stepping and rewinding equals forwards", "[collision]") {
  for (const char* name : {"bounce.toml", "splash.toml"}) {
    INFO(name);
    const Effect fx = bundled(name);
    std::vector<Frame> forward;
    for (int f = 0; f < 90; ++f) forward.push_back(evaluate(fx, clock_at_frame(fx, f, 30)));
    Frame f;
    for (int k = 89; k >= 0; --k) {
      evaluate(fx, clock_at_frame(fx, k, 30), f);
      REQUIRE(same_frame(f, forward[static_cast<size_t>(k)]));
    }
    for (int k : {57, 3, 88, 41}) {
      evaluate(fx, clock_at_frame(fx, k, 30), f);
      CHECK(same_frame(f, forward[static_cast<size_t>(k)]));
    }
  }
}

TEST_CASE("no particle of a bundled collision effect is below its colliders at any frame",
          "[collision]") {
  for (const char* name : {"bounce.toml", "splash.toml"}) {
    const Effect fx = bundled(name);
    for (int k = 0; k < 300; ++k) {
      const Frame f = evaluate(fx, clock_at_frame(fx, k, 60));
      CHECK(worst_distance(fx, f) > -1e-6);
    }
  }
}

TEST_CASE("a looped effect with collisions still loops exactly", "[collision]") {
  const Effect fx = bundled("splash.toml");
  REQUIRE(fx.loop);
  for (int f = 0; f < 60; f += 7) {
    const Frame a = evaluate(fx, clock_at_frame(fx, f, 30));
    const Frame b = evaluate(fx, clock_at_frame(fx, f + 60, 30));
    CHECK(same_frame(a, b));
    size_t children = 0;
    for (const EmitterFrame& ef : a.emitters)
      if (fx.emitters[ef.emitter].is_sub()) children += ef.particles.size();
    CHECK(children > 0);
  }
}

TEST_CASE("keys visited with colliders do not grow with the clock", "[collision]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 10
lifetime = 1
speed = 100
direction = 270
collision = { restitution = 0.8 }
colliders = [{ kind = "line", point = [0, -30], normal = [0, 1] },
             { kind = "circle", center = [20, -20], radius = 5 }]
)");
  const Frame a = evaluate(fx, 10), b = evaluate(fx, 10000);
  CHECK(a.emitters[0].stats.visited == b.emitters[0].stats.visited);
  CHECK(a.emitters[0].stats.window == 11);
  CHECK(a.emitters[0].particles.size() == b.emitters[0].particles.size());
}

TEST_CASE("inspect's impacts count each particle's impacts so far", "[collision]") {
  const Effect fx = fx_from(kDrop);
  // Impacts at t1 = 0.7071 s, then 0.7071 and 0.3536 s later.
  const double t1 = std::sqrt(0.5);
  const std::pair<double, int> expect[] = {
      {0.5, 0}, {t1 + 0.01, 1}, {2 * t1 + 0.01, 2}, {2.5 * t1 + 0.01, 3}, {9, 3}};
  for (const auto& [clock, n] : expect) {
    const Frame f = evaluate(fx, clock);
    REQUIRE(f.emitters[0].particles.size() == 1);
    CHECK(f.emitters[0].particles[0].impacts == n);
  }
  // After the third impact it rests on the floor.
  const Particle p = evaluate(fx, 9).emitters[0].particles[0];
  CHECK(std::abs(p.y) < 1e-9);
  CHECK(p.vx == 0);
  CHECK(p.vy == 0);
}

TEST_CASE("children on collision start at each impact with the outgoing velocity", "[collision]") {
  const Effect fx = fx_from(std::string(kDrop) + R"(
[[emitter]]
name = "splash"
sub = { parent = "ball", on = "collision", count = 2 }
lifetime = 0.2
speed = 0
inherit_velocity = 1
)");
  const Emitter& child = fx.emitters[1];
  CHECK(child.sub.count == 2);
  CHECK(child.sub.spacing == 6);  // 2 children for each of at most 3 impacts
  Collision c = fx.emitters[0].collision;
  Flight f(c, {0, 100}, {0, 0}, {0, -400}, 0, 10);
  for (uint64_t m = 0; m < 3; ++m) {
    const Impact* im = f.next_impact();
    REQUIRE(im);
    // Just after the impact, two children at the impact point, each moving
    // with the outgoing velocity (speed 0, inherit_velocity 1, no gravity).
    const double dt = 0.01;
    const Frame fr = evaluate(fx, im->age_s + dt);
    const EmitterFrame& kids = fr.emitters[1];
    int seen = 0;
    for (const Particle& p : kids.particles) {
      if (p.key / 6 != 1 || (p.key % 6) / 2 != m) continue;  // the burst's key is 1
      ++seen;
      CHECK(p.birth_s == im->age_s);
      CHECK(p.x == Approx(im->position.x + im->velocity_out.x * dt).margin(1e-9));
      CHECK(p.y == Approx(im->position.y + im->velocity_out.y * dt).margin(1e-9));
      CHECK(p.vy == Approx(im->velocity_out.y).epsilon(1e-12));
      ParentState s;
      REQUIRE(sub_parent_state(fx, child, p.key, p.birth_s, s));
      CHECK(s.position.y == im->position.y);
      CHECK(s.velocity.y == im->velocity_out.y);
    }
    CHECK(seen == 2);
    f.take();
  }
}

TEST_CASE("a killed parent's death children are born at the impact", "[collision]") {
  const Effect fx = fx_from(R"(
[[emitter]]
name = "drop"
rate = 0
bursts = [{ time = 0, count = 1 }]
lifetime = 10
speed = 0
position = [0, 100]
acceleration = [0, -400]
collision = { response = "kill" }
colliders = [{ kind = "line", point = [0, 0], normal = [0, 1] }]
[[emitter]]
name = "puff"
sub = { parent = "drop", on = "death", count = 3 }
lifetime = 1
speed = 0
)");
  const double t1 = std::sqrt(0.5);
  CHECK(evaluate(fx, t1 - 0.01).emitters[1].particles.empty());
  const Frame f = evaluate(fx, t1 + 0.01);
  CHECK(f.emitters[0].particles.empty());  // the drop died at the floor
  REQUIRE(f.emitters[1].particles.size() == 3);
  for (const Particle& p : f.emitters[1].particles) {
    CHECK(p.birth_s == Approx(t1).epsilon(1e-12));
    CHECK(std::abs(p.y) < 1e-9);
  }
}

TEST_CASE("trail ghosts follow the bounced path, and a killed particle's trail ends there",
          "[collision]") {
  const Effect fx = fx_from(std::string(kDrop) + "trail = { count = 8, length = 0.4, fade = 1 }\n");
  const double t1 = std::sqrt(0.5);
  const Frame f = evaluate(fx, t1 + 0.1);  // 0.1 s after the first bounce
  const auto& ps = f.emitters[0].particles;
  REQUIRE(ps.size() == 9);
  for (const Particle& g : ps) {
    CHECK(g.y > -1e-9);  // no ghost below the floor
    Particle truth;
    REQUIRE(evaluate_particle(fx.emitters[0], g.key, g.birth_s, g.birth_s + g.age_s, truth));
    CHECK(g.y == truth.y);
    CHECK(g.impacts == (g.age_s >= t1 ? 1 : 0));
  }
  // Killed at the floor: its ghosts are drawn while it lives, and nothing
  // after it (the trail ends at the impact with the particle).
  std::string killed = std::string(kDrop) + "trail = { count = 8, length = 0.4, fade = 1 }\n";
  killed.replace(killed.find("collision = {"), 13, "collision = { response = \"kill\", ");
  killed.replace(killed.find(", max_bounces = 3, rest_speed = 0"), 33, "");
  const Effect kf = fx_from(killed);
  CHECK(evaluate(kf, t1 - 0.01).emitters[0].particles.size() == 9);
  CHECK(evaluate(kf, t1 + 0.01).emitters[0].particles.empty());
  // Children of impacts with trails: each ghost is the child at an earlier
  // clock, from the same parent state.
  const Effect kids = fx_from(std::string(kDrop) + R"(
[[emitter]]
name = "splash"
sub = { parent = "ball", on = "collision", count = 2 }
lifetime = 0.5
speed = 50
spread = 60
trail = { count = 4, length = 0.1 }
)");
  const Frame k = evaluate(kids, t1 + 0.2);
  size_t ghosts = 0;
  for (const Particle& g : k.emitters[1].particles) {
    ParentState s;
    REQUIRE(sub_parent_state(kids, kids.emitters[1], g.key, g.birth_s, s));
    Particle truth;
    REQUIRE(evaluate_particle(kids.emitters[1], g.key, g.birth_s, g.birth_s + g.age_s, truth, &s));
    CHECK(g.x == truth.x);
    CHECK(g.y == truth.y);
    ghosts += g.trail > 0;
  }
  CHECK(ghosts == 6);  // 2 children, 3 ghosts each (the 4th fades to 0)
}

TEST_CASE("every motion-blur sample is an exact collided state", "[collision]") {
  const Effect fx =
      fx_from(std::string(kDrop) + "[canvas]\nmotion_blur = { samples = 8, shutter = 1 }\n");
  std::vector<double> clocks;
  const double t1 = std::sqrt(0.5);
  shutter_clocks(fx, t1, 30, clocks);  // the shutter straddles the first impact
  REQUIRE(clocks.size() == 8);
  int before = 0, after = 0;
  for (double c : clocks) {
    const Particle p = evaluate(fx, c).emitters[0].particles.at(0);
    CHECK(p.y > -1e-9);
    // y = 100 - 200 c^2 before the impact, and after it the bounce at half
    // the landing speed: y = v e (c - t1) - 200 (c - t1)^2.
    const double v = 400 * t1, d = c - t1;
    CHECK(p.y == Approx(c < t1 ? 100 - 200 * c * c : 0.5 * v * d - 200 * d * d).margin(1e-9));
    (c < t1 ? before : after)++;
  }
  CHECK(before == 4);
  CHECK(after == 4);
}

TEST_CASE("collisions act on the closed-form path, then turbulence displaces it", "[collision]") {
  const std::string base = R"(
[[emitter]]
rate = 20
lifetime = 2
speed = [50, 150]
spread = 180
acceleration = [0, -300]
collision = { restitution = 0.7 }
colliders = [{ kind = "line", point = [0, -40], normal = [0, 1] }]
)";
  const Effect plain = fx_from(base);
  const Effect noisy = fx_from(base + "turbulence = { amplitude = 6, frequency = 0.05 }\n");
  const Frame a = evaluate(plain, 3.3), b = evaluate(noisy, 3.3);
  REQUIRE(a.emitters[0].particles.size() == b.emitters[0].particles.size());
  int bounced = 0;
  for (size_t i = 0; i < a.emitters[0].particles.size(); ++i) {
    const Particle &p = a.emitters[0].particles[i], &q = b.emitters[0].particles[i];
    CHECK(p.key == q.key);
    CHECK(p.impacts == q.impacts);
    // The displacement is at most the amplitude on each axis (|noise| <= 1).
    CHECK(std::abs(p.x - q.x) <= 6 * 1.01);
    CHECK(std::abs(p.y - q.y) <= 6 * 1.01);
    bounced += p.impacts > 0;
  }
  CHECK(bounced > 5);
}

TEST_CASE("collision keys are checked where they are written", "[collision][load]") {
  const auto problem = [](const std::string& emitter_keys) {
    try {
      load_effect("[[emitter]]\nname = \"e\"\n" + emitter_keys, "k.toml", ".");
      return std::string();
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  const std::string line = "colliders = [{ kind = \"line\", point = [0, 0], normal = [0, 1] }]\n";
  CHECK(problem(line).empty());
  CHECK_THAT(problem("colliders = [{ kind = \"line\", point = [0, 0], normal = [0, 0] }]\n"),
             Catch::Contains("k.toml:3:56: colliders[0].normal must not be [0, 0]"));
  CHECK_THAT(problem("colliders = [{ kind = \"circle\", center = [0, 0], radius = -3 }]\n"),
             Catch::Contains("k.toml:3:59: colliders[0].radius must be within (0, 1e9]"));
  CHECK_THAT(problem("colliders = [{ kind = \"circle\", center = [0, 0], radius = 0 }]\n"),
             Catch::Contains("colliders[0].radius must be more than 0"));
  CHECK_THAT(problem("colliders = [{ kind = \"box\", center = [0, 0], size = [10, 0] }]\n"),
             Catch::Contains("colliders[0].size must be more than 0 on both axes"));
  CHECK_THAT(problem("colliders = [{ kind = \"circle\", center = [0, nan], radius = 3 }]\n"),
             Catch::Contains("must be a finite number"));
  CHECK_THAT(problem("colliders = [{ kind = \"line\", point = [0, 0] }]\n"),
             Catch::Contains("colliders[0] (line) needs normal"));
  CHECK_THAT(problem("colliders = [{ point = [0, 0] }]\n"),
             Catch::Contains("colliders[0] needs a kind"));
  CHECK_THAT(problem("colliders = [{ kind = \"plane\" }]\n"),
             Catch::Contains("colliders[0].kind must be"));
  CHECK_THAT(problem("colliders = [{ kind = \"line\", point = [0, 0], normal = [0, 1], "
                     "side = \"inside\" }]\n"),
             Catch::Contains("colliders[0].side does not apply to a line collider"));
  CHECK_THAT(problem("colliders = [{ kind = \"circle\", center = [0, 0], radius = 3, "
                     "normal = [0, 1] }]\n"),
             Catch::Contains("colliders[0].normal does not apply to a circle collider"));
  CHECK_THAT(problem("colliders = [{ kind = \"line\", point = [2e9, 0], normal = [0, 1] }]\n"),
             Catch::Contains("colliders[0].point must be within [-1e9, 1e9]"));
  std::string many = "colliders = [";
  for (int i = 0; i < 17; ++i) many += "{ kind = \"circle\", center = [0, 0], radius = 1 },";
  CHECK_THAT(problem(many + "]\n"), Catch::Contains("at most 16 colliders, got 17"));
  CHECK_THAT(problem(line + "collision = { restitution = 1.5 }\n"),
             Catch::Contains("collision.restitution must be within [0, 1]"));
  CHECK_THAT(problem(line + "collision = { friction = -0.1 }\n"),
             Catch::Contains("collision.friction must be within [0, 1]"));
  CHECK_THAT(problem(line + "collision = { max_bounces = 0 }\n"),
             Catch::Contains("collision.max_bounces must be within [1, 1000]"));
  CHECK_THAT(problem(line + "collision = { response = \"stick\" }\n"),
             Catch::Contains("collision.response must be"));
  CHECK_THAT(problem(line + "collision = { response = \"kill\", max_bounces = 3 }\n"),
             Catch::Contains("collision.max_bounces is for response = \"bounce\""));
  CHECK_THAT(problem(line + "collision = { bounce = 1 }\n"), Catch::Contains("bounce"));
  CHECK_THAT(problem(line + "path = [[0, 0, 0], [1, 10, 0]]\nspace = \"local\"\n"),
             Catch::Contains("colliders need space = \"world\""));
  CHECK(problem(line + "path = [[0, 0, 0], [1, 10, 0]]\n").empty());
  CHECK_THAT(problem("[[emitter]]\nname = \"k\"\nsub = { parent = \"e\", on = \"collision\" }\n"),
             Catch::Contains("sub.on = \"collision\" needs colliders on the parent 'e'"));
  // Valid, but surely not meant: warnings.
  const Effect w = load_effect("[[emitter]]\ncollision = { restitution = 0.2 }\n", "w.toml", ".");
  REQUIRE(w.warnings.size() == 1);
  CHECK_THAT(w.warnings[0].message, Catch::Contains("no colliders"));
}

TEST_CASE("a particle born inside a solid collider is never drawn", "[collision]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 50
lifetime = 1
speed = 10
shape = { kind = "box", size = [100, 100] }
colliders = [{ kind = "circle", center = [0, 0], radius = 30 }]
)");
  const Frame f = evaluate(fx, 2);
  REQUIRE(!f.emitters[0].particles.empty());
  for (const Particle& p : f.emitters[0].particles) CHECK(std::hypot(p.x, p.y) >= 30 - 1e-6);
  CHECK(f.emitters[0].particles.size() < f.emitters[0].stats.visited);
}

TEST_CASE("a frame's work counts what its colliders may search", "[collision]") {
  const std::string base = "[[emitter]]\nrate = 100\nlifetime = 1\n";
  const Effect plain = fx_from(base);
  const Effect colliding =
      fx_from(base +
              "collision = { max_bounces = 9 }\n"
              "colliders = [{ kind = \"line\", point = [0, -99], normal = [0, 1] },\n"
              "             { kind = \"circle\", center = [0, 0], radius = 500, "
              "side = \"inside\" }]\n");
  CHECK(frame_work(plain, 5) == window_size(plain, 5));
  // 2 colliders, up to 10 flights each: 21 times the samples.
  CHECK(frame_work(colliding, 5) == 21 * window_size(colliding, 5));
  CHECK(window_size(colliding, 5) == window_size(plain, 5));
}
