// Sub-emitters (model.md 9, docs/config.md): children born at a parent's
// death, birth or along its life, starting at the parent's closed-form place.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "spritz/eval.h"
#include "spritz/load.h"

using namespace spritz;

namespace {

// One parent from a burst at clock 0: straight up at 100 px/s under -40
// px/s^2 gravity for exactly 1 s, so at age a it is at (10, -50 + 100 a -
// 20 a^2) with velocity (0, 100 - 40 a).
const char* kParent =
    "[[emitter]]\nname = \"p\"\nposition = [10, -50]\nrate = 0\nbursts = [{ time = 0, count = 1 "
    "}]\n"
    "lifetime = 1\nspeed = 100\nacceleration = [0, -40]\n";

double parent_y(double age) {
  return -50 + 100 * age - 20 * age * age;
}

const EmitterFrame& emitter_frame(const Frame& f, const Effect& fx, const std::string& name) {
  for (const EmitterFrame& ef : f.emitters)
    if (fx.emitters[ef.emitter].name == name) return ef;
  FAIL("no emitter " << name);
  return f.emitters[0];
}

}  // namespace

TEST_CASE("children of a death start where the parent died", "[sub]") {
  const Effect fx =
      load_effect(std::string(kParent) +
                      "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", count = 5 }\n"
                      "lifetime = 2\nspeed = 0\n",
                  "s.toml", ".");
  REQUIRE(fx.emitters[1].is_sub());
  const Frame before = evaluate(fx, 0.99);
  CHECK(emitter_frame(before, fx, "c").particles.empty());  // the parent still flies
  const Frame f = evaluate(fx, 1.5);
  CHECK(emitter_frame(f, fx, "p").particles.empty());
  const EmitterFrame& c = emitter_frame(f, fx, "c");
  REQUIRE(c.particles.size() == 5);
  std::set<uint64_t> keys;
  for (const Particle& p : c.particles) {
    CHECK(p.x == Approx(10));
    CHECK(p.y == Approx(parent_y(1)));
    CHECK(p.age_s == Approx(0.5));
    keys.insert(p.key);
  }
  CHECK(keys.size() == 5);  // K spacing + j: distinct
  const Frame after = evaluate(fx, 3.01);
  CHECK(emitter_frame(after, fx, "c").particles.empty());  // their 2 s are over
}

TEST_CASE("children of a birth inherit the parent's velocity", "[sub]") {
  const Effect fx = load_effect(
      std::string(kParent) +
          "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", on = \"birth\", count = 3 }\n"
          "lifetime = 3\nspeed = 0\ninherit_velocity = 0.5\n",
      "s.toml", ".");
  const Frame frame_c = evaluate(fx, 2.0);
  const EmitterFrame& c = emitter_frame(frame_c, fx, "c");
  REQUIRE(c.particles.size() == 3);
  for (const Particle& p : c.particles) {
    CHECK(p.x == Approx(10));
    CHECK(p.y == Approx(-50 + 0.5 * 100 * 2.0));  // half of 100 px/s for 2 s, no gravity of its own
    CHECK(p.vy == Approx(50));
  }
}

TEST_CASE("children of a life are shed every 1 / rate seconds of it", "[sub]") {
  const Effect fx = load_effect(
      std::string(kParent) +
          "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", on = \"life\" }\nrate = 10\n"
          "lifetime = 0.35\nspeed = 0\n",
      "s.toml", ".");
  // At clock 0.72 the children shed at 0.4, 0.5, 0.6 and 0.7 are alive (0.3 is 0.42 old).
  const Frame frame_c = evaluate(fx, 0.72);
  const EmitterFrame& c = emitter_frame(frame_c, fx, "c");
  REQUIRE(c.particles.size() == 4);
  for (size_t k = 0; k < 4; ++k) {
    const double born = 0.4 + 0.1 * static_cast<double>(k);
    CHECK(c.particles[k].birth_s == Approx(born));
    CHECK(c.particles[k].y == Approx(parent_y(born)));
  }
  // After the parent's life: the last child was shed at 0.9.
  const Frame frame_late = evaluate(fx, 1.2);
  const EmitterFrame& late = emitter_frame(frame_late, fx, "c");
  REQUIRE(late.particles.size() == 1);
  CHECK(late.particles[0].birth_s == Approx(0.9));
}

TEST_CASE("a child's trail comes from its own past, starting at its parent", "[sub]") {
  // Children fly straight at 30 px/s from where the parent died, so ghost k
  // (0.05 k s back) lies 0.05 k s back along the child's own line.
  const Effect fx = load_effect(
      std::string(kParent) +
          "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", count = 2 }\nlifetime = 2\n"
          "speed = 30\nspread = 180\ntrail = { count = 4, length = 0.2 }\n",
      "s.toml", ".");
  const Frame f = evaluate(fx, 1.6);
  const EmitterFrame& c = emitter_frame(f, fx, "c");
  REQUIRE(c.particles.size() == 2 * 4);  // 3 ghosts each: the 4th fades to 0
  int ghosts = 0;
  for (const Particle& g : c.particles) {
    if (g.trail == 0) continue;
    for (const Particle& head : c.particles) {
      if (head.trail != 0 || head.key != g.key) continue;
      const double back = g.trail * 0.05;
      CHECK(g.x == Approx(head.x - head.vx * back));
      CHECK(g.y == Approx(head.y - head.vy * back));
      CHECK(std::hypot(head.x - 10, head.y - parent_y(1)) == Approx(30 * 0.6));
      ++ghosts;
    }
  }
  CHECK(ghosts == 6);
  // The parent's state a child started from, found from the child alone.
  ParentState s;
  REQUIRE(
      sub_parent_state(fx, fx.emitters[1], c.particles.back().key, c.particles.back().birth_s, s));
  CHECK(s.position.x == Approx(10));
  CHECK(s.position.y == Approx(parent_y(1)));
  CHECK(s.velocity.y == Approx(100 - 40));
}

TEST_CASE("sub-emitters of a looped effect repeat every period", "[sub]") {
  const Effect fx = load_effect(
      "[effect]\nloop = true\nduration = 2\n[[emitter]]\nname = \"p\"\nrate = 3\nlifetime = [0.5, "
      "1.5]\n"
      "speed = 80\nspread = 40\n[[emitter]]\nsub = { parent = \"p\", count = 6 }\nlifetime = "
      "1.2\nspeed = 40\n"
      "spread = 180\n[[emitter]]\nsub = { parent = \"p\", on = \"life\" }\nrate = 20\nlifetime = "
      "0.5\n",
      "s.toml", ".");
  for (double t : {0.0, 0.7, 1.9}) {
    const Frame a = evaluate(fx, clock_at_time(fx, t)), b = evaluate(fx, clock_at_time(fx, t + 2));
    for (size_t e = 0; e < a.emitters.size(); ++e) {
      REQUIRE(a.emitters[e].particles.size() == b.emitters[e].particles.size());
      for (size_t i = 0; i < a.emitters[e].particles.size(); ++i) {
        CHECK(a.emitters[e].particles[i].x == b.emitters[e].particles[i].x);
        CHECK(a.emitters[e].particles[i].key == b.emitters[e].particles[i].key);
      }
    }
    CHECK(a.emitters[1].particles.size() > 0);
    CHECK(a.emitters[2].particles.size() > 0);
  }
}

TEST_CASE("sub-emitters stay within the memory bounds at every clock", "[sub]") {
  const Effect fx = load_effect(
      "[[emitter]]\nname = \"p\"\nrate = 7\nlifetime = [0.5, 1.5]\nbursts = [{ time = 1, count = "
      "20, repeat = 3, "
      "interval = 0.4 }]\n[[emitter]]\nsub = { parent = \"p\", count = 9 }\nlifetime = [0.2, 2.5]\n"
      "trail = { count = 3 }\n[[emitter]]\nsub = { parent = \"p\", on = \"life\" }\nrate = "
      "13\nlifetime = 0.7\n"
      "[[emitter]]\nsub = { parent = \"p\", on = \"birth\", count = 4 }\nlifetime = 3\n",
      "s.toml", ".");
  const uint64_t bound = max_alive(fx);
  uint64_t most = 0;
  for (double c = 0; c < 8; c += 0.037) {
    const Frame f = evaluate(fx, c);
    uint64_t n = 0;
    for (const EmitterFrame& ef : f.emitters) n += ef.particles.size();
    INFO("clock " << c);
    REQUIRE(n <= window_size(fx, c));
    REQUIRE(n <= bound);
    most = std::max(most, n);
  }
  CHECK(most > 100);
}

TEST_CASE("sub-emitter mistakes are errors at their key", "[sub]") {
  auto problem = [](const std::string& text) {
    try {
      load_effect(text, "s.toml", ".");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  const std::string p = "[[emitter]]\nname = \"rockets\"\n";
  CHECK_THAT(problem(p + "[[emitter]]\nsub = { parent = \"rocket\" }\n"),
             Catch::Contains(
                 "s.toml:4:18: sub.parent names no emitter: 'rocket'; did you mean 'rockets'?"));
  CHECK_THAT(problem(p + "[[emitter]]\nname = \"c\"\nsub = { parent = \"c\" }\n"),
             Catch::Contains("emitter 'c' cannot be its own parent"));
  CHECK_THAT(
      problem(p + "[[emitter]]\nname = \"c\"\nsub = { parent = \"rockets\" }\n[[emitter]]\nsub = { "
                  "parent = "
                  "\"c\" }\n"),
      Catch::Contains("sub.parent 'c' is itself a sub-emitter; sub-emitters have one level"));
  CHECK_THAT(problem(p + "[[emitter]]\nsub = { on = \"death\" }\n"),
             Catch::Contains("sub needs a parent"));
  CHECK_THAT(problem(p + "[[emitter]]\nsub = { parent = \"rockets\", on = \"end\" }\n"),
             Catch::Contains(
                 "sub.on must be \"death\", \"birth\", \"life\", \"collision\" or \"program\""));
  CHECK_THAT(
      problem(p + "[[emitter]]\nsub = { parent = \"rockets\", on = \"life\", count = 3 }\n"),
      Catch::Contains("sub.count is for on = \"death\", \"birth\", \"collision\" or \"program\""));
  CHECK_THAT(
      problem(p + "[[emitter]]\nsub = { parent = \"rockets\" }\nrate = 5\n"),
      Catch::Contains("s.toml:5:8: rate applies to a sub-emitter only with sub.on = \"life\""));
  CHECK_THAT(
      problem(p + "[[emitter]]\nsub = { parent = \"rockets\", on = \"life\" }\nrate = [[0, 5]]\n"),
      Catch::Contains("a sub-emitter's rate is a number"));
  for (const char* key : {"bursts = [{ count = 3 }]", "path = [[0, 0, 0]]", "space = \"local\""})
    CHECK_THAT(problem(p + "[[emitter]]\nsub = { parent = \"rockets\" }\n" + key + "\n"),
               Catch::Contains("does not apply to a sub-emitter"));
  CHECK_THAT(problem(p + "[[emitter]]\nsub = { parent = \"rockets\", cout = 3 }\n"),
             Catch::Contains("unknown key 'cout' in sub; did you mean 'count'?"));
}

TEST_CASE("sub-emitter warnings: a disabled parent, and no warning for an invisible carrier",
          "[sub]") {
  auto warnings = [](const std::string& text) {
    std::string out;
    for (const Diagnostic& d : load_effect(text, "s.toml", ".").warnings)
      out += d.to_string() + "\n";
    return out;
  };
  CHECK(warnings("[[emitter]]\nname = \"p\"\nenabled = false\n[[emitter]]\nname = \"c\"\nsub = { "
                 "parent = \"p\" }\n") ==
        "s.toml:6:18: emitter 'c' never emits: its parent 'p' is disabled (enabled = false)\n");
  CHECK(warnings(
            "[[emitter]]\nname = \"p\"\ntransparency = 1\n[[emitter]]\nsub = { parent = \"p\" }\n")
            .empty());
  CHECK(warnings("[[emitter]]\nname = \"p\"\n[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", "
                 "count = 0 }\n") == "s.toml:5:18: emitter 'c' never emits: its sub.count is 0\n");
}

TEST_CASE("max_particles caps a sub-emitter's children alive at once", "[sub]") {
  // 10 parents a second living 1 to 2 s; children live 0.5 s. Deaths within
  // 0.5 + (2 - 1) s come from at most ceil(10 x 1.5) + 1 = 16 parents.
  const std::string parent = "[[emitter]]\nname = \"p\"\nrate = 10\nlifetime = [1, 2]\n";
  const Effect fx = load_effect(parent +
                                    "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", count = 50 "
                                    "}\nmax_particles = 160\nlifetime = 0.5\n"
                                    "[[emitter]]\nname = \"l\"\nsub = { parent = \"p\", on = "
                                    "\"life\" }\nrate = 100\nmax_particles = 64\n"
                                    "lifetime = 0.5\n",
                                "s.toml", ".");
  CHECK(fx.emitters[1].sub.count == 10);  // 160 / 16
  CHECK(fx.emitters[2].sub.rate_per_s < 100);
  for (double c = 0; c < 6; c += 0.05) {
    const Frame f = evaluate(fx, c);
    INFO("clock " << c);
    CHECK(emitter_frame(f, fx, "c").particles.size() <= 160);
    CHECK(emitter_frame(f, fx, "l").particles.size() <= 64);
  }
  const Effect none = load_effect(
      parent + "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\" }\nmax_particles = 3\n", "s.toml",
      ".");
  CHECK(none.emitters[1].sub.count == 0);
  REQUIRE(none.warnings.size() == 1);
  CHECK_THAT(
      none.warnings[0].to_string(),
      Catch::StartsWith(
          "s.toml:7:18: emitter 'c' never emits: its max_particles (3) cannot hold a child"));
}

// A child of a death inherits its parent's velocity at the death, defined as
// the limit from below (docs/model.md 9.3). Under turbulence that velocity
// holds the amplitude's slope term, A'(tau) / life times the noise, whose
// curve stops at tau = 1: the rule must not depend on whether age / life
// rounds to just under 1 or to 1 for a given parent.
TEST_CASE("every child of a death under turbulence inherits the velocity from below", "[sub]") {
  const Effect fx = load_effect(
      "[[emitter]]\nname = \"p\"\nrate = 40\nlifetime = [0.5, 1.5]\nspeed = [0, 30]\n"
      "spread = 180\nturbulence = { amplitude = [[0, 0], [1, 80]], frequency = 0.05, speed = 2 "
      "}\n"
      "[[emitter]]\nname = \"c\"\nsub = { parent = \"p\", count = 1 }\nlifetime = 3\nspeed = 0\n"
      "inherit_velocity = 1\n",
      "turb.toml", ".");
  const Emitter& child = fx.emitters[1];
  const Frame f = evaluate(fx, 6.0);
  const EmitterFrame& kids = emitter_frame(f, fx, "c");
  REQUIRE(kids.particles.size() > 100);
  int checked = 0;
  for (const Particle& k : kids.particles) {
    const uint64_t parent_key = k.key / child.sub.spacing;
    // The parent just before its death: its velocity there is continuous, so
    // within 1e-6 s of the death it is the limit to within its acceleration.
    const double before = k.birth_s - 1e-7;
    const Frame pf = evaluate(fx, before);
    const EmitterFrame& parents = emitter_frame(pf, fx, "p");
    const auto it = std::find_if(parents.particles.begin(), parents.particles.end(),
                                 [&](const Particle& p) { return p.key == parent_key; });
    if (it == parents.particles.end()) continue;  // died within 1e-7 s of birth rounding
    // The child moves at the velocity it inherited (no speed, gravity or drag).
    const Particle kid_now = [&] {
      Particle p;
      ParentState src;
      REQUIRE(sub_parent_state(fx, child, k.key, k.birth_s, src));
      REQUIRE(evaluate_particle(child, k.key, k.birth_s, k.birth_s, p, &src));
      return p;
    }();
    INFO("parent key " << parent_key << " death " << k.birth_s);
    CHECK(kid_now.vx == Approx(it->vx).margin(1e-3));
    CHECK(kid_now.vy == Approx(it->vy).margin(1e-3));
    ++checked;
  }
  CHECK(checked > 100);
}
