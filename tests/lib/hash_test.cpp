#include "spritz/hash.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <vector>

using namespace spritz;

TEST_CASE("M matches the model's test vectors", "[hash]") {
  CHECK(mix32(0) == 0x64625032u);
  CHECK(mix32(1) == 0x5e2d1772u);
  CHECK(mix32(42) == 0x20e44818u);
  CHECK(mix32(0xffffffffu) == 0xeb721c8au);
}

TEST_CASE("stream and unit match the model's test vectors", "[hash]") {
  struct Vector {
    uint32_t s, key, stream;
    double u[3];
  };
  const Vector vectors[] = {
      {0, 0, 0xf77782fbu, {0.788969528, 0.027953591, 0.100296532}},
      {42, 1, 0x9a6d1aabu, {0.404634401, 0.450744831, 0.551391344}},
      {7, 1000, 0x7cee37d1u, {0.716167618, 0.928012078, 0.532855500}},
  };
  for (const Vector& v : vectors) {
    const uint32_t st = particle_stream(v.s, v.key);
    CHECK(st == v.stream);
    for (uint32_t ch = 0; ch < 3; ++ch) CHECK(unit_raw(st, ch) == Approx(v.u[ch]).margin(5e-10));
  }
}

TEST_CASE("the emitter seed mixes the index with 0x85EBCA77", "[hash]") {
  CHECK(emitter_seed(1234, 0) == mix32(1234u ^ 0x85EBCA77u));
  CHECK(emitter_seed(1234, 2) == mix32(1234u ^ (3u * 0x85EBCA77u)));
  CHECK(emitter_seed(1234, 0) != emitter_seed(1234, 1));
}

// unit() is M / 2^32, so it lies in [0, 1) by construction; what can go wrong
// is the distribution. 100 bins over 200,000 draws: the chi-square
// statistic has 99 degrees of freedom, mean 99 and standard deviation 14; a
// mixer that drops or repeats bits lands far above 160 (p < 1e-4).
TEST_CASE("unit is uniform: mean near 1/2, chi-square over 100 bins", "[hash]") {
  const int n = 200000, bins = 100;
  double sum = 0;
  std::vector<int> count(bins, 0);
  for (int i = 0; i < n; ++i) {
    const double u = unit(particle_stream(99, static_cast<uint32_t>(i)), Channel::kSpeed);
    sum += u;
    ++count[static_cast<size_t>(u * bins)];
  }
  CHECK(sum / n == Approx(0.5).margin(0.005));
  const double expected = static_cast<double>(n) / bins;
  double chi2 = 0;
  for (int c : count) chi2 += (c - expected) * (c - expected) / expected;
  CHECK(chi2 < 160);
}

TEST_CASE("M is a bijection on a sample: 2^20 inputs give 2^20 outputs", "[hash]") {
  std::vector<uint32_t> out;
  out.reserve(1u << 20);
  for (uint32_t x = 0; x < (1u << 20); ++x) out.push_back(mix32(x * 0x9E3779B1u));
  std::sort(out.begin(), out.end());
  CHECK(std::adjacent_find(out.begin(), out.end()) == out.end());
}

TEST_CASE("neighbouring keys are not clustered", "[hash]") {
  // Consecutive keys should look independent: the lag-1 correlation of their
  // units is near 0 and the streams are all distinct.
  const int n = 100000;
  double sx = 0, sy = 0, sxy = 0, sxx = 0, syy = 0;
  std::set<uint32_t> streams;
  for (int i = 0; i < n; ++i) {
    const uint32_t a = particle_stream(5, static_cast<uint32_t>(2 * i));
    const uint32_t b = particle_stream(5, static_cast<uint32_t>(2 * i + 2));
    streams.insert(a);
    const double x = unit(a, Channel::kLifetime), y = unit(b, Channel::kLifetime);
    sx += x, sy += y, sxy += x * y, sxx += x * x, syy += y * y;
  }
  const double cov = sxy / n - (sx / n) * (sy / n);
  const double corr =
      cov / std::sqrt((sxx / n - (sx / n) * (sx / n)) * (syy / n - (sy / n) * (sy / n)));
  CHECK(std::abs(corr) < 0.01);
  CHECK(streams.size() == static_cast<size_t>(n));
}

TEST_CASE("channels of one stream are independent", "[hash]") {
  const int n = 100000;
  double sxy = 0, sx = 0, sy = 0;
  for (int i = 0; i < n; ++i) {
    const uint32_t st = particle_stream(11, static_cast<uint32_t>(i));
    const double x = unit(st, Channel::kSpeed), y = unit(st, Channel::kSpread);
    sx += x, sy += y, sxy += x * y;
  }
  CHECK(sxy / n - (sx / n) * (sy / n) == Approx(0).margin(0.002));
}
