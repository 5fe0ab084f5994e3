// The animated rate (model.md 9): N(t) = integral of the rate from clock 0,
// stream particle i born where N reaches i, the window N(c - L) <= i <= N(c).
#include "spritz/rate.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "spritz/eval.h"
#include "spritz/load.h"

using namespace spritz;

namespace {

RateCurve curve(std::vector<std::pair<double, double>> keys, double cap = 1e300, double period = 0,
                double max_per_period = 1e300) {
  RateCurve c;
  for (const auto& [t, r] : keys) c.key_t.push_back(t), c.key_r.push_back(r);
  c.prepare(cap, period, max_per_period);
  return c;
}

}  // namespace

TEST_CASE("a flat rate curve counts and places births like a plain rate", "[rate]") {
  const RateCurve c = curve({{0, 37.5}});
  for (double t : {0.0, 0.1, 1.0, 7.3, 1000.0})
    CHECK(c.count(t) == Approx(37.5 * t).epsilon(1e-14));
  for (uint64_t i : {0ull, 1ull, 17ull, 100000ull})
    CHECK(c.birth(i) == Approx(static_cast<double>(i) / 37.5).epsilon(1e-14));
  CHECK(c.count(-1) == 0);
  CHECK(c.max_rate() == 37.5);
}

TEST_CASE("a linear ramp is inverted exactly: births at sqrt(2 i / slope)", "[rate]") {
  // r = 100 t on [0, 1], then 100: N = 50 t^2, then 50 + 100 (t - 1).
  const RateCurve c = curve({{0, 0}, {1, 100}});
  CHECK(c.count(0.5) == Approx(12.5));
  CHECK(c.count(1) == Approx(50));
  CHECK(c.count(3) == Approx(250));
  for (uint64_t i = 0; i <= 50; ++i)
    CHECK(c.birth(i) == Approx(std::sqrt(static_cast<double>(i) / 50.0)).margin(1e-12));
  CHECK(c.birth(150) == Approx(2.0));
  // A falling ramp: r = 100 - 50 t on [0, 2], then 0 (100 particles in all).
  const RateCurve f = curve({{0, 100}, {2, 0}});
  CHECK(f.count(2) == Approx(100));
  CHECK(f.count(50) == Approx(100));
  for (uint64_t i = 0; i < 100; ++i) {
    const double t = f.birth(i);
    CHECK(100 * t - 25 * t * t == Approx(static_cast<double>(i)).margin(1e-9));
  }
  // The 100th would be born at t = 2, where the rate reaches 0 and stays.
  CHECK(std::isinf(f.birth(101)));
}

TEST_CASE("a particle due during a pause in emission is born when it resumes", "[rate]") {
  // 10/s for 1 s, a step to 0 until 2 s, then 10/s again.
  const RateCurve c = curve({{0, 10}, {1, 10}, {1, 0}, {2, 0}, {2, 10}});
  CHECK(c.count(1.5) == Approx(10));
  CHECK(c.birth(9) == Approx(0.9));
  CHECK(c.birth(10) == Approx(2.0));  // N is 10 over all of [1, 2]
  CHECK(c.birth(11) == Approx(2.1));
  // Emission that starts late: particle 0 waits for it too.
  const RateCurve late = curve({{0, 0}, {3, 0}, {3, 20}});
  CHECK(late.birth(0) == Approx(3.0));
  CHECK(late.birth(1) == Approx(3.05));
}

TEST_CASE("births invert counts on random curves with steps and pauses", "[rate]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int n = 0; n < 200; ++n) {
    std::vector<std::pair<double, double>> keys;
    double t = -0.5 + unit(rng);
    for (int k = 0; k < 1 + n % 9; ++k) {
      const double u = unit(rng);
      keys.push_back({t, u < 0.2 ? 0.0 : 500 * unit(rng)});
      t += u < 0.15 ? 0.0 : 0.05 + unit(rng);  // sometimes a step
      if (k > 0 && keys[k].first == keys[k - 1].first && k >= 2 &&
          keys[k - 2].first == keys[k].first)
        keys[k].first += 0.01;
    }
    const bool looped = n % 3 == 0;
    const RateCurve c = curve(keys, 1e300, looped ? 2.0 : 0, 1e300);
    const double total = c.count(6);
    double last = -1;
    for (uint64_t i = 0; i < static_cast<uint64_t>(total); ++i) {
      const double b = c.birth(i);
      INFO("curve " << n << " particle " << i);
      REQUIRE(std::isfinite(b));
      REQUIRE(b >= last);  // births never go backwards
      REQUIRE(c.count(b) ==
              Approx(static_cast<double>(i)).margin(1e-7 * static_cast<double>(1 + i)));
      last = b;
    }
  }
}

TEST_CASE("the Little's-law cap cuts the curve pointwise", "[rate]") {
  // r = 100 t cut at 50: 50 t^2 up to t = 0.5, then 50/s.
  const RateCurve c = curve({{0, 0}, {1, 100}}, 50);
  CHECK(c.max_rate() == 50);
  CHECK(c.count(0.5) == Approx(12.5));
  CHECK(c.count(1) == Approx(37.5));
  CHECK(c.count(2) == Approx(87.5));
}

TEST_CASE("a looped curve emits a whole number a period and repeats exactly", "[rate]") {
  // 10 -> 30 -> 10 over 2 s: 40 a period.
  const RateCurve c = curve({{0, 10}, {1, 30}, {2, 10}}, 1e300, 2, 1e300);
  CHECK(c.count(2) == 40);
  CHECK(c.count(4) == 80);
  for (uint64_t i = 0; i < 40; ++i) {
    CHECK(c.birth(i + 40) == c.birth(i) + 2);
    CHECK(c.birth(i + 400) == c.birth(i) + 20);
  }
  // 10.3 a period rounds to 10, and the rate scales to match.
  const RateCurve r = curve({{0, 10.3}}, 1e300, 1, 1e300);
  CHECK(r.count(1) == 10);
  CHECK(r.max_rate() == Approx(10));
  // Keys after the period are not read; the rate just before its end is.
  const RateCurve k = curve({{0, 0}, {4, 40}}, 1e300, 2, 1e300);
  CHECK(k.count(2) == 20);  // 20/s reached at 2 s: a triangle of 20
}

TEST_CASE("an emitter with an animated rate evaluates its window and loops", "[rate]") {
  const Effect fx = load_effect(
      "[effect]\nduration = 3\n[[emitter]]\nrate = [[0, 0], [1, 200], [1.5, 200], [2, "
      "0]]\nlifetime = 0.8\n",
      "r.toml", ".");
  Frame f;
  // Alive at c: N(c) - N(c - 0.8), give or take the keys at the ends.
  auto N = [](double t) {
    if (t <= 0) return 0.0;
    if (t <= 1) return 100 * t * t;
    if (t <= 1.5) return 100 + 200 * (t - 1);
    if (t <= 2) return 200 + 200 * (t - 1.5) - 200 * (t - 1.5) * (t - 1.5);
    return 250.0;
  };
  for (double c : {0.3, 1.0, 1.5, 1.9, 2.5, 2.9}) {
    evaluate(fx, c, f);
    INFO("clock " << c);
    CHECK(std::abs(static_cast<double>(f.emitters[0].stats.alive) - (N(c) - N(c - 0.8))) <= 1.5);
    CHECK(f.emitters[0].stats.alive <= max_alive(fx));
  }
  evaluate(fx, 10, f);
  CHECK(f.emitters[0].stats.alive == 0);  // the curve ends at 0 and stays

  // Looped: frame t and frame t + T are the same particles.
  const Effect loop = load_effect(
      "[effect]\nduration = 2\nloop = true\n[[emitter]]\nrate = [[0, 10], [1, 60], [2, "
      "10]]\nlifetime = 1.5\n"
      "speed = 30\nspread = 180\n",
      "l.toml", ".");
  Frame a, b;
  for (double t : {0.0, 0.4, 1.3}) {
    evaluate(loop, clock_at_time(loop, t), a);
    evaluate(loop, clock_at_time(loop, t + 2), b);
    REQUIRE(a.emitters[0].particles.size() == b.emitters[0].particles.size());
    REQUIRE(a.emitters[0].particles.size() > 10);
    for (size_t i = 0; i < a.emitters[0].particles.size(); ++i) {
      CHECK(a.emitters[0].particles[i].x == b.emitters[0].particles[i].x);
      CHECK(a.emitters[0].particles[i].key == b.emitters[0].particles[i].key);
    }
  }
}
