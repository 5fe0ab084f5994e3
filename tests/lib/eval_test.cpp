#include "spritz/eval.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include "lib/model_support.h"
#include "numeric.h"
#include "spritz/hash.h"
#include "spritz/load.h"

using namespace spritz;

namespace {

using test::fx_from;
using test::same_frame;

const char* kBusy = R"(
[effect]
seed = 77
[[emitter]]
name = "a"
rate = 50
lifetime = [0.5, 1.5]
speed = [20, 80]
spread = 30
acceleration = [0, -40]
drag = 0.7
rotation = [0, 360]
rotation_speed = [-90, 90]
size = [[0, 4, 2], [1, 12, 3]]
transparency = [[0, 0.2, 0.1], [1, 1]]
squash = [[0, 0.5, 0.3], [1, -0.5]]
color = [[0, "#ff0000", 0.1], [1, "#0000ff"]]
flipbook = { layout = [4, 2], mode = "loop", fps = [8, 12], random_start = true }
shape = { kind = "ellipse", size = [30, 10] }
bursts = [{ time = 0.3, count = 20 }, { time = 1.0, count = 5, repeat = 3, interval = 0.5 }]
[[emitter]]
name = "b"
z_offset = -2
rate = 20
lifetime = 2
orientation = "velocity_parallel"
)";

}  // namespace

TEST_CASE("jumping to a time equals stepping there through any frame sequence", "[eval]") {
  const Effect fx = fx_from(kBusy);
  const Frame direct = evaluate(fx, 3.2);
  Frame stepped;
  for (int f = 0; f <= 96; ++f) evaluate(fx, clock_at_frame(fx, f, 30), stepped);
  CHECK(stepped.clock == direct.clock);
  CHECK(same_frame(stepped, direct));
  Frame odd;
  for (double t : {7.0, 0.1, 2.9, 3.2}) evaluate(fx, t, odd);
  CHECK(same_frame(odd, direct));
  CHECK(clock_at_frame(fx, 96, 30) == clock_at_time(fx, 3.2));
}

TEST_CASE("rewinding shows exactly what was seen forwards", "[eval]") {
  const Effect fx = fx_from(kBusy);
  std::vector<Frame> forward;
  for (int f = 0; f < 60; ++f) forward.push_back(evaluate(fx, clock_at_frame(fx, f, 30)));
  Frame back;
  for (int f = 59; f >= 0; --f) {
    evaluate(fx, clock_at_frame(fx, f, 30), back);
    REQUIRE(same_frame(back, forward[static_cast<size_t>(f)]));
  }
}

TEST_CASE("emitters draw by z_offset then file order and particles oldest first", "[eval]") {
  const Effect fx = fx_from(kBusy);
  const Frame f = evaluate(fx, 1.4);
  REQUIRE(f.emitters.size() == 2);
  CHECK(fx.emitters[f.emitters[0].emitter].name == "b");
  CHECK(fx.emitters[f.emitters[1].emitter].name == "a");
  const auto& ps = f.emitters[1].particles;
  REQUIRE(ps.size() > 10);
  for (size_t i = 1; i < ps.size(); ++i) {
    CHECK((ps[i - 1].birth_s < ps[i].birth_s ||
           (ps[i - 1].birth_s == ps[i].birth_s && ps[i - 1].key < ps[i].key)));
  }
  Effect nf = fx;
  nf.emitters[0].draw_order = DrawOrder::kNewestFirst;
  const Frame g = evaluate(nf, 1.4);
  const auto& qs = g.emitters[1].particles;
  REQUIRE(qs.size() == ps.size());
  for (size_t i = 1; i < qs.size(); ++i) {
    CHECK((qs[i - 1].birth_s > qs[i].birth_s ||
           (qs[i - 1].birth_s == qs[i].birth_s && qs[i - 1].key < qs[i].key)));
  }
}

TEST_CASE("by_slot draws by i mod slots for the stream and j mod slots for bursts", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 4
max_particles = 10
lifetime = 1.9
draw_order = "by_slot"
slots = 4
bursts = [{ time = 1.0, count = 3 }]
)");
  const Frame f = evaluate(fx, 1.8);
  // Alive: stream 0..7 born 0..1.75 with life 1.9 (i = 0..7), burst j = 0..2.
  std::vector<uint64_t> slots;
  for (const Particle& p : f.emitters[0].particles)
    slots.push_back(p.key % 2 == 0 ? p.key / 2 % 4 : (p.key - 1) / 2 % 10 % 4);
  CHECK(std::is_sorted(slots.begin(), slots.end()));
  REQUIRE(f.emitters[0].particles.size() == 11);
  // Slot 0 holds stream 0 and 4 and burst 0: oldest first, the burst (1.0)
  // after stream 4 (born 1.0 too) by key.
  const std::vector<uint64_t> first = {f.emitters[0].particles[0].key,
                                       f.emitters[0].particles[1].key,
                                       f.emitters[0].particles[2].key};
  CHECK(first == std::vector<uint64_t>{0, 1, 8});
  // slots without by_slot, and an acceleration curve with an envelope, are refused.
  CHECK_THROWS_WITH(fx_from("[[emitter]]\nslots = 3\n"), Catch::Contains("by_slot"));
  CHECK_THROWS_WITH(fx_from("[[emitter]]\nradial_acceleration = 5\n"
                            "acceleration_curves = { radial = [[0, 1, 0.5], [1, 0]] }\n"),
                    Catch::Contains("acceleration_curves.radial takes no envelope"));
}

TEST_CASE("keys are 2i for the stream and 2(bP + j) + 1 for bursts", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 10
max_particles = 100
lifetime = 10
bursts = [{ time = 0, count = 3 }, { time = 0.05, count = 2, repeat = 2, interval = 0.01 }]
)");
  const Frame f = evaluate(fx, 0.35);
  std::vector<uint64_t> keys;
  for (const Particle& p : f.emitters[0].particles) keys.push_back(p.key);
  // Births: stream 0 (t 0), bursts b=0 (t 0), b=1 (t .05), b=2 (t .06), stream 1..3.
  const std::vector<uint64_t> expected = {0, 1, 3, 5, 201, 203, 401, 403, 2, 4, 6};
  CHECK(keys == expected);
}

TEST_CASE("the stream holds about r mean(life) particles and never more than P", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 200
max_particles = 100000
lifetime = [0.5, 1.5]
)");
  double sum = 0;
  int n = 0;
  for (double c = 5; c < 15; c += 0.05, ++n)
    sum += static_cast<double>(evaluate(fx, c).emitters[0].particles.size());
  CHECK(sum / n == Approx(200 * 1.0).epsilon(0.03));

  const Effect capped = fx_from(R"(
[[emitter]]
rate = 1e12
max_particles = 500
lifetime = [0.5, 2]
bursts = [{ time = 1, count = 1000000000 }]
)");
  CHECK(capped.emitters[0].stream_rate_per_s == Approx(250));
  for (double c : {0.5, 1.0, 1.5, 3.0, 100.0}) {
    const Frame f = evaluate(capped, c);
    CHECK(f.emitters[0].stats.visited <= 500 + 1 + 500);
    uint64_t stream = 0;
    for (const Particle& p : f.emitters[0].particles) stream += p.key % 2 == 0;
    CHECK(stream <= 501);
  }
}

TEST_CASE("keys visited per frame do not grow with the clock", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 10
lifetime = 1
)");
  const Frame a = evaluate(fx, 10), b = evaluate(fx, 10000);
  CHECK(a.emitters[0].stats.visited == b.emitters[0].stats.visited);
  CHECK(a.emitters[0].stats.window == 11);
  CHECK(a.emitters[0].particles.size() == b.emitters[0].particles.size());
}

TEST_CASE("changing one range changes nothing else about any particle", "[eval]") {
  const Effect a = fx_from(kBusy);
  Effect b = a;
  b.emitters[0].speed_px_per_s = {100, 300};
  const Frame fa = evaluate(a, 1.3), fb = evaluate(b, 1.3);
  const auto& pa = fa.emitters[1].particles;
  const auto& pb = fb.emitters[1].particles;
  REQUIRE(pa.size() == pb.size());
  const Emitter& em = a.emitters[0];
  for (size_t i = 0; i < pa.size(); ++i) {
    CHECK(pa[i].key == pb[i].key);
    CHECK(pa[i].life_s == pb[i].life_s);
    CHECK(pa[i].w == pb[i].w);
    CHECK(pa[i].alpha == pb[i].alpha);
    CHECK(pa[i].cell == pb[i].cell);
    // Facing orientation: the rotation does not depend on velocity either.
    CHECK(pa[i].rotation_deg == pb[i].rotation_deg);
  }
  (void)em;
  // Birth positions: evaluate at age 0 exactly.
  Particle x, y;
  REQUIRE(evaluate_particle(a.emitters[0], 8, 0.0, 0.0, x));
  REQUIRE(evaluate_particle(b.emitters[0], 8, 0.0, 0.0, y));
  CHECK(x.x == y.x);
  CHECK(x.y == y.y);
}

TEST_CASE("spread keeps every velocity inside the cone", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 2000
max_particles = 100000
lifetime = 1
speed = [10, 20]
direction = 30
spread = 25
)");
  const Frame f = evaluate(fx, 0.99);
  REQUIRE(f.emitters[0].particles.size() > 1000);
  double lo = 1e9, hi = -1e9;
  for (const Particle& p : f.emitters[0].particles) {
    const double ang = std::atan2(p.vy, p.vx) * 180 / 3.14159265358979323846;
    lo = std::min(lo, ang);
    hi = std::max(hi, ang);
  }
  CHECK(lo >= 5 - 1e-9);
  CHECK(hi <= 55 + 1e-9);
  CHECK(lo < 6);
  CHECK(hi > 54);
}

TEST_CASE("squash keeps the area: w h = s^2", "[eval]") {
  const Effect fx = fx_from(kBusy);
  const Emitter& em = fx.emitters[0];
  const Frame f = evaluate(fx, 1.1);
  for (const Particle& p : f.emitters[1].particles) {
    const double tau = p.age_s / p.life_s;
    const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
    const double s =
        std::max(0.0, em.size_px.evaluate(tau, 2 * unit(st, Channel::kSizeEnvelope) - 1));
    CHECK(p.w * p.h == Approx(s * s).epsilon(1e-12));
  }
}

TEST_CASE("velocity_parallel turns the local x axis along the velocity", "[eval]") {
  const Effect fx = fx_from(kBusy);
  const Frame f = evaluate(fx, 1.5);
  for (const Particle& p : f.emitters[0].particles) {
    const double ang = std::atan2(p.vy, p.vx) * 180 / 3.14159265358979323846;
    CHECK(p.rotation_deg == Approx(ang).margin(1e-9));
  }
}

TEST_CASE("flipbook modes follow model.md 7.5", "[eval]") {
  Flipbook fb;
  fb.enabled = true;
  fb.cols = 4;
  fb.rows = 1;
  fb.fps = {10, 10};
  const uint32_t st = 12345;
  fb.mode = FlipbookMode::kOneshot;
  CHECK(flipbook_cell(fb, st, 0, 0) == 1);
  CHECK(flipbook_cell(fb, st, 0, 0.26) == 2);
  CHECK(flipbook_cell(fb, st, 0, 0.999) == 4);
  CHECK(flipbook_cell(fb, st, 0, 1.0) == 4);  // tau = 1 edge clamps to N
  fb.mode = FlipbookMode::kLoop;
  CHECK(flipbook_cell(fb, st, 0.0, 0) == 1);
  CHECK(flipbook_cell(fb, st, 0.35, 0) == 4);
  CHECK(flipbook_cell(fb, st, 0.45, 0) == 1);
  fb.mode = FlipbookMode::kPingpong;
  const int expect[] = {1, 2, 3, 4, 3, 2, 1, 2};
  for (int w = 0; w < 8; ++w) CHECK(flipbook_cell(fb, st, w * 0.1 + 0.05, 0) == expect[w]);
  fb.cols = 1;
  CHECK(flipbook_cell(fb, st, 0.55, 0) == 1);  // N = 1
  fb.cols = 4;
  fb.mode = FlipbookMode::kRandom;
  int seen[5] = {};
  for (int w = 0; w < 400; ++w) {
    const int n = flipbook_cell(fb, st, w * 0.1 + 0.05, 0);
    REQUIRE(n >= 1);
    REQUIRE(n <= 4);
    ++seen[n];
    CHECK(n == 1 + static_cast<int>(std::floor(
                       4 * unit_raw(st, flipbook_window_channel(static_cast<uint64_t>(w))))));
  }
  for (int n = 1; n <= 4; ++n) CHECK(seen[n] > 60);
  // random_start: n0 from channel 11.
  fb.mode = FlipbookMode::kLoop;
  fb.random_start = true;
  const int n0 = 1 + static_cast<int>(std::floor(4 * unit(st, Channel::kFlipbookStart)));
  CHECK(flipbook_cell(fb, st, 0, 0) == n0);
}

TEST_CASE("a looped effect is exactly periodic and starts in the steady state", "[eval]") {
  const Effect fx = fx_from(R"(
[effect]
duration = 2
loop = true
fps = 30
[[emitter]]
rate = 13.3
lifetime = [1, 3.5]
speed = [10, 40]
bursts = [{ time = 0.5, count = 7 }]
)");
  CHECK(fx.emitters[0].loop_keys == 27);  // round(13.3 * 2)
  for (int f = -3; f < 65; f += 7) {
    const Frame a = evaluate(fx, clock_at_frame(fx, f, 30));
    const Frame b = evaluate(fx, clock_at_frame(fx, f + 60, 30));
    const Frame c = evaluate(fx, clock_at_frame(fx, f - 600, 30));
    CHECK(same_frame(a, b));
    CHECK(same_frame(a, c));
  }
  // Steady state from the first frame: as many particles as later on.
  const size_t first = evaluate(fx, clock_at_frame(fx, 0, 30)).emitters[0].particles.size();
  double mean = 0;
  for (int f = 0; f < 60; ++f)
    mean +=
        static_cast<double>(evaluate(fx, clock_at_frame(fx, f, 30)).emitters[0].particles.size()) /
        60.0;
  CHECK(mean > 30);
  CHECK(static_cast<double>(first) == Approx(mean).epsilon(0.3));
  // Particles i and i + N share every random number.
  Particle p, q;
  REQUIRE(
      evaluate_particle(fx.emitters[0], 2 * (30 % 27), 30 / (27 / 2.0), 30 / (27 / 2.0) + 0.1, p));
  REQUIRE(evaluate_particle(fx.emitters[0], 2 * (3 % 27), 3 / (27 / 2.0), 3 / (27 / 2.0) + 0.1, q));
  CHECK(p.y == Approx(q.y));
  CHECK(p.life_s == q.life_s);
}

TEST_CASE("a cycling loop repeats its emission with new particles and starts empty", "[eval]") {
  // model.md 4.5: as a game engine runs a looping emitter.
  const char* text = R"(
[effect]
duration = 2
loop = true
seamless = false
fps = 30
[[emitter]]
rate = 13.3
max_particles = 100
lifetime = [1, 3.5]
speed = [10, 40]
bursts = [{ time = 0.5, count = 7 }, { time = 0.25, count = 2, repeat = 2, interval = 1 }]
)";
  const Effect fx = fx_from(text);
  CHECK(fx.emitters[0].loop_keys == 0);
  CHECK(fx.emitters[0].period_firings == 3);
  // The clock runs on from 0: empty at the start, no warm-up.
  CHECK(clock_at_frame(fx, 0, 30) == 0);
  CHECK(clock_at_frame(fx, 75, 30) == 2.5);
  CHECK(evaluate(fx, 0.1).emitters[0].particles.size() == 2);  // stream 0 and 1
  // Every period's firings come again, with burst indices b + m F, F = 3.
  const Frame f = evaluate(fx, 4.6);
  std::vector<uint64_t> bursts;
  for (const Particle& p : f.emitters[0].particles)
    if (p.key % 2 == 1) bursts.push_back((p.key - 1) / 2 / 100);
  std::sort(bursts.begin(), bursts.end());
  bursts.erase(std::unique(bursts.begin(), bursts.end()), bursts.end());
  // Alive at 4.6 (lives of 1 to 3.5 s): period 1's firings at 2.25, 2.5
  // and 3.25 (b 1, 0, 2 + 3) and period 2's at 4.25 and 4.5 (b 1, 0 + 6);
  // period 0's have died (this seed's lives), period 2's 5.25 is to come.
  const std::vector<uint64_t> expected = {3, 4, 5, 6, 7};
  CHECK(bursts == expected);
  // Stream keys are never reused: particle i + N is not particle i again.
  for (const Particle& p : f.emitters[0].particles)
    if (p.key % 2 == 0) CHECK(p.key / 2 >= 13);
  // The same emission as the seamless loop, period after period.
  std::string seamless_text = text;
  seamless_text.replace(seamless_text.find("seamless = false"), 16, "seamless = true");
  const Effect seamless = fx_from(seamless_text.c_str());
  // (births within the shortest life, 1 s, so all alive).
  const auto young = [](const Frame& fr) {
    std::vector<double> births;
    for (const Particle& p : fr.emitters[0].particles)
      if (p.age_s < 1) births.push_back(p.birth_s - std::floor(p.birth_s / 2) * 2);
    std::sort(births.begin(), births.end());
    return births;
  };
  for (double c : {5.0, 7.3, 9.9}) {
    const std::vector<double> a = young(evaluate(fx, c));
    const std::vector<double> b = young(evaluate(seamless, clock_at_time(seamless, c)));
    CHECK(a.size() == b.size());
    for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) CHECK(a[k] == Approx(b[k]));
  }
  CHECK_FALSE(same_frame(evaluate(fx, 5.0), evaluate(fx, 7.0)));
}

TEST_CASE("motion-blur samples spread evenly over the shutter, centred on the frame", "[eval]") {
  Effect fx = fx_from(
      "[effect]\ntime_scale = 2\n[canvas]\nmotion_blur = { samples = 4, shutter = 0.5 "
      "}\n[[emitter]]\n");
  std::vector<double> c;
  shutter_clocks(fx, 10, 25, c);
  // Half of a 1/25 s frame at time_scale 2 is 0.04 s of clock, cut in four
  // equal parts, each sample at a part's middle.
  REQUIRE(c.size() == 4);
  CHECK(c[0] == Approx(10 - 0.015));
  CHECK(c[1] == Approx(10 - 0.005));
  CHECK(c[2] == Approx(10 + 0.005));
  CHECK(c[3] == Approx(10 + 0.015));
  CHECK(c[0] + c[3] == Approx(20).epsilon(1e-15));
  // One sample is the frame's own clock, bit for bit; an odd count has it in
  // the middle.
  fx.canvas.blur_samples = 1;
  shutter_clocks(fx, 10.1, 25, c);
  CHECK(c == std::vector<double>{10.1});
  fx.canvas.blur_samples = 5;
  shutter_clocks(fx, 10.1, 25, c);
  CHECK(c[2] == 10.1);
  // A zero shutter puts every sample at the frame's clock.
  fx.canvas.shutter = 0;
  shutter_clocks(fx, 3.3, 25, c);
  CHECK(c == std::vector<double>(5, 3.3));
}

TEST_CASE("a looped effect's blur samples stay in its steady state and keep it periodic",
          "[eval]") {
  const Effect fx = fx_from(R"(
[effect]
duration = 2
loop = true
[canvas]
motion_blur = { samples = 6, shutter = 1 }
[[emitter]]
lifetime = 2
rate = 200
)");
  const double warmup = loop_warmup(fx);
  REQUIRE(warmup == 2);  // the steady state begins at clock L_max = T
  std::vector<double> at0, again, last;
  shutter_clocks(fx, clock_at_frame(fx, 0, 30), 30, at0);
  shutter_clocks(fx, clock_at_frame(fx, 60, 30), 30, again);
  CHECK(at0 == again);
  // Frame 0's early samples would fall before the steady state, where the
  // stream has not filled yet: they move one period on, next to frame 59's.
  shutter_clocks(fx, clock_at_frame(fx, 59, 30), 30, last);
  for (double c : at0) CHECK(c >= warmup);
  CHECK(at0[0] == Approx(warmup + 2 - 5 / 360.0));
  CHECK(last[5] == Approx(warmup + 59 / 30.0 + 5 / 360.0));
  // Each sample holds the steady stream's 400 particles (rate 200 x life 2);
  // a sample left before the steady state would lack the ones born before 0.
  for (double c : at0) CHECK(evaluate(fx, c).emitters[0].particles.size() >= 400);
}

TEST_CASE("a trail is each particle's own past, faded and scaled, drawn under it", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 10
lifetime = 2
speed = [50, 90]
spread = 40
acceleration = [0, -100]
size = [[0, 4], [1, 12]]
color = [[0, "#ff0000"], [1, "#0000ff"]]
trail = { count = 4, length = 0.4, fade = [[0, 1], [1, 0.2]], scale = [[0, 1], [1, 0.5]] }
)");
  const double clock = 1.23;
  const Frame f = evaluate(fx, clock);
  const EmitterFrame& ef = f.emitters[0];
  Effect plain = fx;
  plain.emitters[0].trail.count = 0;
  const Frame heads = evaluate(plain, clock);
  REQUIRE(ef.stats.alive == heads.emitters[0].particles.size());
  size_t at = 0, ghosts = 0;
  for (const Particle& head : heads.emitters[0].particles) {
    // Ghosts 4, 3, 2, 1 (those born by then), then the particle itself.
    for (int k = 4; k >= 1; --k) {
      const double u = k / 4.0;
      Particle past;
      if (!evaluate_particle(fx.emitters[0], head.key, head.birth_s, clock - 0.4 * u, past)) {
        CHECK(head.age_s < 0.4 * u + 1e-12);
        continue;
      }
      REQUIRE(at < ef.particles.size());
      const Particle& g = ef.particles[at++];
      ++ghosts;
      CHECK(g.trail == k);
      CHECK(g.key == head.key);
      CHECK(g.x == past.x);
      CHECK(g.y == past.y);
      CHECK(g.age_s == past.age_s);
      CHECK(g.color_srgb.r == past.color_srgb.r);  // its colour then, not now
      CHECK(g.alpha == Approx(past.alpha * (1 - 0.8 * u)));
      CHECK(g.w == Approx(past.w * (1 - 0.5 * u)));
    }
    REQUIRE(at < ef.particles.size());
    const Particle& p = ef.particles[at++];
    CHECK(p.trail == 0);
    CHECK(std::memcmp(&p, &head, sizeof p) == 0);
  }
  CHECK(at == ef.particles.size());
  CHECK(ghosts > 3 * ef.stats.alive);  // most particles are older than the trail
  // The memory bounds count the ghosts.
  CHECK(ef.particles.size() <= window_size(fx, clock));
  CHECK(ef.particles.size() <= max_alive(fx));
  CHECK(max_alive(fx) == 5 * max_alive(plain));
}

TEST_CASE("a trail's ghosts that fade to nothing are not drawn", "[eval]") {
  const Effect fx = fx_from("[[emitter]]\nrate = 10\nlifetime = 5\ntrail = { count = 4 }\n");
  const Frame f = evaluate(fx, 3);
  // The default fade goes from 1 to 0: the oldest ghost (u = 1) is invisible.
  for (const Particle& p : f.emitters[0].particles) CHECK(p.trail < 4);
  const EmitterFrame& ef = f.emitters[0];
  CHECK(ef.particles.size() > 3 * ef.stats.alive);
}

TEST_CASE("a moving emitter: world space keeps the birth place, local space rides along",
          "[eval]") {
  const char* base = R"(
[[emitter]]
position = [5, -5]
rate = 4
lifetime = 3
speed = 0
path = [[0, 0, 0], [2, 100, 40]]
)";
  const Effect world = fx_from(base);
  const Effect local = fx_from(std::string(base) + "space = \"local\"\n");
  const double clock = 1.3;
  const Frame w = evaluate(world, clock), l = evaluate(local, clock);
  REQUIRE(w.emitters[0].particles.size() == 6);  // born at 0, 0.25, ..., 1.25
  for (const Particle& p : w.emitters[0].particles) {
    CHECK(p.x == Approx(5 + 50 * p.birth_s));
    CHECK(p.y == Approx(-5 + 20 * p.birth_s));
  }
  for (const Particle& p : l.emitters[0].particles) {
    CHECK(p.x == Approx(5 + 50 * clock));
    CHECK(p.y == Approx(-5 + 20 * clock));
  }
}

TEST_CASE("inherit_velocity adds a factor of the path's velocity at birth", "[eval]") {
  const Effect fx = fx_from(R"(
[[emitter]]
rate = 10
lifetime = 1
speed = 30
direction = 90
path = [[0, 0, 0], [1, 20, 0], [3, 20, -100]]
inherit_velocity = 0.5
)");
  const Frame f = evaluate(fx, 1.55);
  REQUIRE(f.emitters[0].particles.size() == 10);
  for (const Particle& p : f.emitters[0].particles) {
    const double vx_path = p.birth_s < 1 ? 20 : 0, vy_path = p.birth_s < 1 ? 0 : -50;
    CHECK(p.vx == Approx(0.5 * vx_path).margin(1e-9));
    CHECK(p.vy == Approx(30 + 0.5 * vy_path));
  }
}

TEST_CASE("a looped effect's path repeats each period, so frames still loop exactly", "[eval]") {
  const Effect fx = fx_from(R"(
[effect]
duration = 2
loop = true
[[emitter]]
rate = 30
lifetime = [0.5, 1.5]
speed = [10, 40]
spread = 180
path = [[0, 70, 0], [0.5, 0, 70], [1, -70, 0], [1.5, 0, -70], [2, 70, 0]]
path_interpolation = "smooth"
inherit_velocity = 0.3
)");
  CHECK(fx.warnings.empty());  // it ends where it starts
  for (int f = 0; f < 60; f += 7) {
    CHECK(same_frame(evaluate(fx, clock_at_frame(fx, f, 30)),
                     evaluate(fx, clock_at_frame(fx, f + 60, 30))));
  }
}

TEST_CASE("the clock follows start and time_scale", "[eval]") {
  const Effect fx = fx_from(R"(
[effect]
start = 1.5
time_scale = 2
[[emitter]]
)");
  CHECK(clock_at_time(fx, 1) == 3.5);
  CHECK(clock_at_frame(fx, 30, 30) == 3.5);
}

TEST_CASE("max_alive bounds the particles alive at every clock, tightly for a full stream",
          "[eval]") {
  const char* effects[] = {
      kBusy,
      // A saturated stream: exactly P alive in the steady state.
      "[[emitter]]\nrate = 1e6\nmax_particles = 500\nlifetime = 2\n",
      // Overlapping repeated bursts in a looped effect, beside a stream.
      "[effect]\nloop = true\nduration = 1\n[[emitter]]\nrate = 30\nlifetime = [0.5, 2.5]\n"
      "max_particles = 400\nbursts = [{ time = 0.2, count = 40, repeat = 6, interval = 0.3 }]\n",
  };
  for (const char* text : effects) {
    const Effect fx = fx_from(text);
    const uint64_t bound = max_alive(fx);
    uint64_t most = 0;
    Frame frame;
    for (int i = 0; i <= 400; ++i) {
      evaluate(fx, clock_at_time(fx, i * 0.0173), frame);
      uint64_t alive = 0;
      for (const EmitterFrame& ef : frame.emitters) alive += ef.particles.size();
      most = std::max(most, alive);
    }
    INFO(text);
    CHECK(most <= bound);
    CHECK(most > 0);
  }
  // A saturated stream reaches P + 1 at the instants a key is born as
  // another dies, and the bound is exactly that.
  CHECK(max_alive(fx_from("[[emitter]]\nrate = 1e6\nmax_particles = 500\nlifetime = 2\n")) == 501);
}

TEST_CASE("max_alive saturates instead of overflowing", "[eval]") {
  // 20,000 emitters that could each hold 1e16 burst particles: 2e20 in all,
  // past the 1.8e19 that 64 bits hold. Built directly: the loader would
  // refuse such overlapping bursts, but the bound must not wrap whatever the
  // model holds.
  Effect fx;
  fx.emitters.resize(20000);
  for (Emitter& em : fx.emitters) {
    em.lifetime_s = {1e6, 1e6};
    BurstGroup b;
    b.count = 10'000'000;
    b.repeat = 1'000'000'000;
    b.interval_s = 1e-3;
    em.bursts.push_back(b);
  }
  CHECK(max_alive(fx) == 1'000'000'000'000'000'000ull);
}

TEST_CASE("a frame that could hold more particles than its limit is refused before evaluation",
          "[eval]") {
  const Effect fx = fx_from("[[emitter]]\nrate = 1000\nmax_particles = 5000\nlifetime = 2\n");
  const double clock = 3;
  const uint64_t need = window_size(fx, clock);
  CHECK(need == 2001);  // stream indices 1000..3000
  Frame frame;
  frame.particle_limit = need;
  evaluate(fx, clock, frame);
  CHECK(frame.emitters.at(0).particles.size() <= need);
  frame.particle_limit = need - 1;
  CHECK_THROWS_WITH(
      evaluate(fx, clock, frame),
      "at clock 3 s the effect can hold 2001 particles, more than the 2000 that this machine's "
      "memory allows while a frame is drawn; lower the rates, max_particles or burst counts");
}

// Found by the fuzzing issue: evaluation cast doubles that can be out of
// range to 64-bit integers (undefined behaviour; x86 and ARM give
// different integers). Every such conversion saturates, in one place.
TEST_CASE("saturating_cast is the plain cast in range and saturates outside it", "[eval]") {
  CHECK(saturating_cast<int64_t>(-2.7) == -2);
  CHECK(saturating_cast<int64_t>(0x1p62) == (int64_t{1} << 62));
  CHECK(saturating_cast<int64_t>(0x1p63) == INT64_MAX);
  CHECK(saturating_cast<int64_t>(1e300) == INT64_MAX);
  CHECK(saturating_cast<int64_t>(-1e300) == INT64_MIN);
  CHECK(saturating_cast<int64_t>(-0x1p63) == INT64_MIN);
  CHECK(saturating_cast<uint64_t>(-1.0) == 0);
  CHECK(saturating_cast<uint64_t>(0x1p64) == UINT64_MAX);
  CHECK(saturating_cast<int>(std::nan("")) == 0);
  CHECK(saturating_cast<uint32_t>(4294967295.5) == 4294967295u);
  CHECK(saturating_cast<int64_t>(std::numeric_limits<double>::infinity()) == INT64_MAX);
}

TEST_CASE("evaluation in pieces on any threads, in any order, gives the same frame", "[eval]") {
  // Windows of more than 4096 keys (a stream and a burst), trails and a
  // sub-emitter: evaluated serially, with the pieces run backwards, and on
  // three threads.
  const Effect fx = load_effect(R"(
[canvas]
size = [128, 128]
[[emitter]]
name = "stream"
rate = 6000
max_particles = 20000
lifetime = [1, 2]
speed = [10, 80]
spread = 180
trail = { count = 2, length = 0.1 }
[[emitter]]
name = "burst"
rate = 0
max_particles = 9000
bursts = [{ time = 0.2, count = 9000 }]
lifetime = 3
speed = [0, 50]
spread = 180
[[emitter]]
name = "child"
lifetime = 0.5
sub = { parent = "burst", on = "death", count = 1 }
)",
                                "pieces.toml", ".");
  const auto same = [](const Frame& a, const Frame& b) {
    REQUIRE(a.emitters.size() == b.emitters.size());
    for (size_t e = 0; e < a.emitters.size(); ++e) {
      const auto &pa = a.emitters[e].particles, &pb = b.emitters[e].particles;
      REQUIRE(pa.size() == pb.size());
      CHECK(a.emitters[e].stats.visited == b.emitters[e].stats.visited);
      CHECK(a.emitters[e].stats.window == b.emitters[e].stats.window);
      for (size_t i = 0; i < pa.size(); ++i) {
        CHECK(pa[i].key == pb[i].key);
        CHECK(pa[i].trail == pb[i].trail);
        CHECK(std::memcmp(&pa[i].x, &pb[i].x, sizeof(double)) == 0);
        CHECK(std::memcmp(&pa[i].y, &pb[i].y, sizeof(double)) == 0);
      }
    }
  };
  const ParallelFor backwards = [](int tasks, const std::function<void(int)>& fn) {
    for (int k = tasks - 1; k >= 0; --k) fn(k);
  };
  const ParallelFor threads = [](int tasks, const std::function<void(int)>& fn) {
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 3; ++t)
      pool.emplace_back([&] {
        for (int k; (k = next++) < tasks;) fn(k);
      });
    for (auto& t : pool) t.join();
  };
  for (const double clock : {0.3, 1.5, 3.3}) {
    INFO("clock " << clock);
    Frame serial, back, par;
    evaluate(fx, clock, serial);
    evaluate(fx, clock, back, &backwards);
    evaluate(fx, clock, par, &threads);
    if (clock > 1) REQUIRE(serial.emitters[0].stats.window > 4096);
    same(serial, back);
    same(serial, par);
  }
}
