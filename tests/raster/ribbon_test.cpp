// Ribbons (trail style "ribbon", docs/config.md): a particle's samples joined
// into one strip of quads with exact coverage and round end caps.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

using namespace spritz;

namespace {

struct Scene {
  Effect fx;
  TextureSet textures;
};

// One additive emitter (light adds: overlaps would double, gaps would dip)
// with a solid texture, so a pixel's red is exactly its coverage.
Scene scene(const std::string& extra = "") {
  Scene s;
  s.fx = load_effect(
      "[canvas]\nsize = [96, 96]\n[[emitter]]\ntexture = \"builtin:solid\"\nlight_emission = 1\n"
      "trail = { count = 8, style = \"ribbon\" }\n" +
          extra,
      "t.toml", ".");
  s.textures = load_textures(s.fx, 1.0);
  return s;
}

// The samples of one particle (key `key`) at the points given oldest first,
// the last being the particle itself, all `width` wide.
std::vector<Particle> ribbon(const std::vector<std::pair<double, double>>& points, double width,
                             uint64_t key = 2) {
  std::vector<Particle> out;
  for (size_t i = 0; i < points.size(); ++i) {
    Particle p;
    p.key = key;
    p.x = points[i].first;
    p.y = points[i].second;
    p.w = p.h = width;
    p.color_srgb = {1, 1, 1};
    p.alpha = 1;
    p.trail = static_cast<int16_t>(points.size() - 1 - i);
    out.push_back(p);
  }
  return out;
}

Image render(const Scene& s, const std::vector<Particle>& particles, int threads = 1,
             DrawPath path = default_draw_path()) {
  Frame f;
  f.emitters.resize(1);
  f.emitters[0].particles.assign(particles.begin(), particles.end());
  Rasterizer r(s.fx, s.textures, 96, 96, threads);
  r.set_draw_path(path);
  Image img;
  r.render(f, img);
  return img;
}

double red_sum(const Image& img) {
  double sum = 0;
  for (size_t i = 0; i < img.rgba.size(); i += 4) sum += img.rgba[i];
  return sum;
}

}  // namespace

TEST_CASE("a straight ribbon covers its length times its width plus two half-disc caps",
          "[ribbon]") {
  const Scene s = scene();
  std::vector<std::pair<double, double>> points;
  for (int i = 0; i <= 8; ++i) points.push_back({-20.3 + 5 * i, 1.7});
  const Image img = render(s, ribbon(points, 6));
  const double expected = 40 * 6 + kPi * 3 * 3;  // the caps: half 32-gons, 0.6% short of discs
  CHECK(red_sum(img) == Approx(expected).epsilon(0.01));
  // Inside the strip every pixel is covered exactly once, joints included.
  for (int x = 30; x <= 66; ++x) CHECK(img.row(46)[x * 4] == Approx(1).margin(1e-5));
}

TEST_CASE("a curved ribbon has no gap or overlap at its joints", "[ribbon]") {
  const Scene s = scene();
  std::vector<std::pair<double, double>> points;
  const double radius = 30;
  for (int i = 0; i <= 12; ++i) {
    const double a = 1.5 * kPi * i / 12;
    points.push_back({radius * std::cos(a), radius * std::sin(a)});
  }
  const Image img = render(s, ribbon(points, 6));
  // Pixels whose whole square is within 2 px of the centre polyline's arc
  // (the strip is 3 px to each side, and the chords sag 0.7 px) see exactly
  // one unit of light: a gap would dip below 1 and an overlap rise to 2.
  int inside = 0;
  for (int y = 0; y < 96; ++y)
    for (int x = 0; x < 96; ++x) {
      const double dx = x + 0.5 - 48, dy = 48 - (y + 0.5);
      const double r = std::hypot(dx, dy);
      double a = std::atan2(dy, dx);
      if (a < 0) a += 2 * kPi;
      if (std::abs(r - radius) > 1.3 || a < 0.1 || a > 1.5 * kPi - 0.1) continue;
      ++inside;
      CHECK(img.row(y)[x * 4] == Approx(1).margin(1e-5));
    }
  CHECK(inside > 300);
  // And the light is the strip's area: its length (the polyline's) times
  // its width, plus the caps, within the joints' small mitres.
  const double chord = 2 * radius * std::sin(1.5 * kPi / 24);
  CHECK(red_sum(img) == Approx(12 * chord * 6 + kPi * 9).epsilon(0.02));
}

TEST_CASE("a ribbon draws the same on any thread count and draw path", "[ribbon]") {
  const Scene s = scene();
  std::vector<Particle> all;
  for (int k = 0; k < 6; ++k) {
    std::vector<std::pair<double, double>> points;
    for (int i = 0; i <= 8; ++i)
      points.push_back({-40 + 10 * i + 3 * std::sin(i + k), -40 + 14 * k + 6 * std::cos(i * 0.7)});
    const auto one = ribbon(points, 4 + k, 2 * static_cast<uint64_t>(k));
    all.insert(all.end(), one.begin(), one.end());
  }
  const Image a = render(s, all, 1);
  for (int threads : {2, 3, 7}) {
    const Image b = render(s, all, threads);
    CHECK(std::memcmp(a.rgba.data(), b.rgba.data(), a.rgba.size() * sizeof(float)) == 0);
  }
  for (DrawPath path :
       {DrawPath::kReference, DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
    if (!draw_path_available(path)) continue;
    const Image b = render(s, all, 2, path);
    CHECK(std::memcmp(a.rgba.data(), b.rgba.data(), a.rgba.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("a ribbon ends in its particle: a particle with no sample yet is a sprite", "[ribbon]") {
  const Scene s = scene();
  // With samples behind it the particle is the ribbon's round end: the light
  // at its centre is the strip's, not the strip's plus a sprite's.
  const Image img = render(s, ribbon({{-20, 0}, {-10, 0}, {0, 0}}, 8));
  CHECK(img.row(47)[48 * 4] == Approx(1).margin(1e-5));
  CHECK(img.row(47)[50 * 4] == Approx(1).margin(1e-5));  // inside the cap
  CHECK(img.row(47)[53 * 4] == 0);                       // past it
  // Alone, it is drawn as its sprite (an 8 px solid square).
  const Image lone = render(s, ribbon({{0, 0}}, 8));
  CHECK(red_sum(lone) == Approx(64).epsilon(1e-4));
  // A particle that has not moved is a disc of its width (its two round ends).
  const Image still = render(s, ribbon({{0, 0}, {0, 0}, {0, 0}}, 12));
  CHECK(red_sum(still) == Approx(kPi * 36).epsilon(0.01));
  CHECK(still.row(47)[48 * 4] == Approx(1).margin(1e-5));
  // A ribbon whose samples are all transparent draws nothing.
  auto faded = ribbon({{-20, 0}, {-10, 0}, {0, 0}}, 8);
  for (Particle& p : faded) p.alpha = 0;
  CHECK(red_sum(render(s, faded)) == 0);
}

TEST_CASE("a ribbon's colour and width go from sample to sample", "[ribbon]") {
  const Scene s = scene();
  auto r = ribbon({{-30, 0}, {30, 0}}, 10);
  r[0].alpha = 0;  // the tail is transparent, the particle opaque
  r[0].w = r[0].h = 2;
  const Image img = render(s, r);
  // Along the centre line the light rises linearly from tail to head.
  const float at_quarter = img.row(47)[(48 - 15) * 4];
  const float at_middle = img.row(47)[48 * 4];
  const float at_three = img.row(47)[(48 + 15) * 4];
  CHECK(at_quarter < at_middle);
  CHECK(at_middle < at_three);
  CHECK(at_middle == Approx(0.5).margin(0.02));
  // Narrow near the tail: 4 px off the centre line is outside there and
  // inside near the head.
  CHECK(img.row(47 - 4)[(48 - 25) * 4] == 0);
  CHECK(img.row(47 - 4)[(48 + 25) * 4] > 0.5);
}

TEST_CASE("trail style ribbon keeps its transparent samples and loads with its key", "[ribbon]") {
  const Effect fx = load_effect(
      "[[emitter]]\nrate = 10\nlifetime = 2\nspeed = 50\n"
      "trail = { count = 4, length = 0.4, style = \"ribbon\" }\n",
      "t.toml", ".");
  REQUIRE(fx.emitters[0].trail.ribbon);
  const Frame f = evaluate(fx, 5);
  // Every particle older than the trail has all four samples, the last
  // (fade 0, the default fade's end) included, so the strip fades to it.
  int run = 0, old = 0;
  for (const Particle& p : f.emitters[0].particles) {
    if (p.trail > 0) {
      ++run;
      continue;
    }
    if (p.age_s > 0.41) {
      CHECK(run == 4);
      ++old;
    }
    run = 0;
  }
  CHECK(old > 10);
  const Effect ghosts = load_effect(
      "[[emitter]]\nrate = 10\nlifetime = 2\nspeed = 50\n"
      "trail = { count = 4, length = 0.4 }\n",
      "t.toml", ".");
  CHECK_FALSE(ghosts.emitters[0].trail.ribbon);
  try {
    load_effect("[[emitter]]\ntrail = { style = \"ribon\" }\n", "fx.toml", ".");
    FAIL("a bad style loads");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("fx.toml:2:19: trail.style must be"));
    CHECK_THAT(std::string(e.what()), Catch::Contains("did you mean \"ribbon\"?"));
  }
}
