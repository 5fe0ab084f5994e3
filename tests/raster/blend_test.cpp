// How particles blend into the frame: alpha-over and additive light, light
// kept at any size, rotation and subpixel step, the same bytes on any thread
// count for every bundled effect, exact edge coverage and draw order.
#include "raster/blend_support.h"

using namespace spritz;
using namespace spritz::test;

TEST_CASE("E = 0 is ordinary alpha-over", "[blend]") {
  const Scene s =
      scene("texture = \"builtin:solid\"\nlight_emission = 0", "background = \"#336699\"");
  const Image img = render(s, {particle(0, 0, 20, {1, 0.5, 0}, 0.6)});
  const float* px = img.row(32) + 32 * 4;
  const double bg[3] = {srgb_to_linear(0x33 / 255.0), srgb_to_linear(0x66 / 255.0),
                        srgb_to_linear(0x99 / 255.0)};
  const double src[3] = {1, srgb_to_linear(0.5), 0};
  for (int c = 0; c < 3; ++c) CHECK(px[c] == Approx(src[c] * 0.6 + bg[c] * 0.4).margin(1e-6));
  CHECK(px[3] == Approx(1).margin(1e-6));
}

TEST_CASE("E = 1 adds light: A + B equals A then B in any order", "[blend]") {
  const Scene s = scene("texture = \"builtin:soft\"\nlight_emission = 1");
  const std::vector<Particle> a = {particle(-3, 2, 30, {1, 0.3, 0.1}, 0.8),
                                   particle(5, 5, 12, {0.2, 1, 0.2}, 1)};
  const std::vector<Particle> b = {particle(2, -1, 25, {0.1, 0.4, 1}, 0.7, 33)};
  const Image ia = render(s, a), ib = render(s, b), both = render(s, a, b),
              swapped = render(s, b, a);
  for (size_t i = 0; i < both.rgba.size(); ++i) {
    if (i % 4 == 3) continue;
    REQUIRE(both.rgba[i] == Approx(ia.rgba[i] + ib.rgba[i]).margin(1e-5));
    REQUIRE(swapped.rgba[i] == Approx(both.rgba[i]).margin(1e-5));
  }
  CHECK(total(both, 3) == 0);  // pure light occludes nothing
}

TEST_CASE("light emission between 0 and 1 mixes the two", "[blend]") {
  const Scene s =
      scene("texture = \"builtin:solid\"\nlight_emission = 0.25", "background = \"#808080\"");
  const Image img = render(s, {particle(0, 0, 20, {1, 1, 1}, 1)});
  const double bg = srgb_to_linear(128 / 255.0);
  // dst = C + dst (1 - A (1 - E)) with C = 1, A = 1, E = 0.25.
  CHECK(img.row(32)[32 * 4] == Approx(1 + bg * 0.25).margin(1e-6));
}

TEST_CASE("opacity 0 changes nothing", "[blend]") {
  const Scene s =
      scene("texture = \"builtin:soft\"\nlight_emission = 0.5", "background = \"#204060c0\"");
  const Image empty = render(s, {});
  const Image ghost = render(s, {particle(0, 0, 30, {1, 1, 1}, 0)});
  CHECK(std::memcmp(empty.rgba.data(), ghost.rgba.data(), empty.rgba.size() * sizeof(float)) == 0);
}

TEST_CASE("a particle's total light is area x colour x opacity at any size and rotation",
          "[blend]") {
  for (const char* tex : {"builtin:solid", "builtin:soft", "builtin:disc"}) {
    const Scene s = scene(std::string("texture = \"") + tex + "\"\nlight_emission = 1\nsize = 8");
    const Texture& t = *s.textures[0];
    const double mean = t.cells[0].mean[0];
    for (double size : {0.3, 0.7, 1.0, 2.5, 7.0, 20.0, 45.0}) {
      for (double rot : {0.0, 17.0, 45.0, 90.0, 133.0}) {
        for (double dx : {0.0, 0.37}) {
          INFO(tex << " size " << size << " rotation " << rot << " offset " << dx);
          const Image img = render(s, {particle(dx, -dx * 0.5, size, {1, 1, 1}, 0.5, rot)});
          CHECK(total(img, 0) == Approx(size * size * 0.5 * mean).epsilon(0.01));
        }
      }
    }
  }
  // 200 px on a bigger canvas.
  const Scene s = scene("texture = \"builtin:soft\"\nlight_emission = 1\nsize = 200");
  const double mean = s.textures[0]->cells[0].mean[0];
  Effect big = s.fx;
  big.canvas.width = big.canvas.height = 256;
  Frame f;
  f.emitters.resize(1);
  f.emitters[0].particles = {particle(0, 0, 200, {1, 1, 1}, 1, 30)};
  Rasterizer r(big, s.textures, 256, 256, 2);
  Image img;
  r.render(f, img);
  CHECK(total(img, 0) == Approx(200.0 * 200.0 * mean).epsilon(0.01));
}

TEST_CASE("a particle moving by subpixel steps keeps its light (no popping)", "[blend]") {
  const Scene s = scene("texture = \"builtin:soft\"\nlight_emission = 1\nsize = 1");
  double lo = 1e9, hi = 0;
  for (int i = 0; i < 40; ++i) {
    const double t = total(render(s, {particle(i * 0.05, i * 0.031, 0.6)}), 1);
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  CHECK(hi / lo < 1.01);
}

TEST_CASE("threads 1 2 and 7 give identical buffers", "[blend]") {
  const Scene s =
      scene("texture = \"builtin:star\"\nlight_emission = 0.5", "background = \"#102030\"");
  std::vector<Particle> ps;
  for (int i = 0; i < 300; ++i)
    ps.push_back(particle(std::sin(i * 1.3) * 30, std::cos(i * 0.7) * 30, 2 + (i % 17),
                          {1, 0.5, 0.25}, 0.7, i * 7.0));
  const Image one = render(s, ps, ps, 1), two = render(s, ps, ps, 2), seven = render(s, ps, ps, 7);
  CHECK(std::memcmp(one.rgba.data(), two.rgba.data(), one.rgba.size() * 4) == 0);
  CHECK(std::memcmp(one.rgba.data(), seven.rgba.data(), one.rgba.size() * 4) == 0);
}

// The encoded bytes of every texture file `fx` names, read as a program
// hands them to the raster library (which reads no files).
TextureBytes texture_bytes(const Effect& fx) {
  TextureBytes bytes;
  for (const Emitter& em : fx.emitters) {
    if (em.texture.builtin() || bytes.count(em.texture.path)) continue;
    std::ifstream in(em.texture.path, std::ios::binary);
    bytes[em.texture.path].assign(std::istreambuf_iterator<char>(in), {});
  }
  return bytes;
}

// Calls fn(path, effect, textures) for every bundled effect; returns how many.
template <typename Fn>
int for_each_bundled_effect(Fn fn) {
  namespace fs = std::filesystem;
  int effects = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SPRITZ_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".toml") continue;
    ++effects;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const Effect fx = load_effect(text, entry.path().string(), entry.path().parent_path().string());
    fn(entry.path(), fx, load_textures(fx, 1.0, texture_bytes(fx)));
  }
  return effects;
}

TEST_CASE("bundled effects render identically on 1 2 and 7 threads", "[blend]") {
  const int effects = for_each_bundled_effect(
      [](const std::filesystem::path& path, const Effect& fx, const TextureSet& tex) {
        for (double t : {0.3, 1.1}) {
          const Frame f = evaluate(fx, clock_at_time(fx, t));
          Image a, b, c;
          Rasterizer(fx, tex, fx.canvas.width, fx.canvas.height, 1).render(f, a);
          Rasterizer(fx, tex, fx.canvas.width, fx.canvas.height, 2).render(f, b);
          Rasterizer(fx, tex, fx.canvas.width, fx.canvas.height, 7).render(f, c);
          INFO(path << " at " << t);
          CHECK(std::memcmp(a.rgba.data(), b.rgba.data(), a.rgba.size() * 4) == 0);
          CHECK(std::memcmp(a.rgba.data(), c.rgba.data(), a.rgba.size() * 4) == 0);
        }
      });
  CHECK(effects >= 1);
}

// One rasterizer draws frame after frame, reusing its sprite lists, bins
// and image (on two threads or more, frames take turns with two sprite
// lists); every frame must be the bytes a fresh one-thread rasterizer
// draws, whether the particle count grows or shrinks from one to the next.
TEST_CASE("a rasterizer drawing a sequence matches a fresh one on every frame", "[blend]") {
  const int effects = for_each_bundled_effect(
      [](const std::filesystem::path& path, const Effect& fx, const TextureSet& tex) {
        for (int threads : {1, 2, 3}) {
          Rasterizer reused(fx, tex, fx.canvas.width, fx.canvas.height, threads);
          Image got;
          for (double t : {0.3, 1.1, 0.05, 2.0, 0.3, 0.7}) {
            const Frame f = evaluate(fx, clock_at_time(fx, t));
            Image want;
            Rasterizer(fx, tex, fx.canvas.width, fx.canvas.height, 1).render(f, want);
            reused.render(f, got);
            INFO(path << " at " << t << " on " << threads << " threads");
            CHECK(std::memcmp(want.rgba.data(), got.rgba.data(), want.rgba.size() * 4) == 0);
          }
        }
      });
  CHECK(effects >= 1);
}

// A farm of mixed CPUs (some with AVX2, some without) must still produce
// identical frames: every sprite kernel gives the reference's bytes.
TEST_CASE("bundled effects render identically with every sprite kernel", "[blend]") {
  const int effects = for_each_bundled_effect(
      [](const std::filesystem::path& file, const Effect& fx, const TextureSet& tex) {
        const Frame f = evaluate(fx, clock_at_time(fx, 0.9));
        Image want;
        Rasterizer reference(fx, tex, fx.canvas.width, fx.canvas.height, 2);
        reference.set_draw_path(DrawPath::kReference);
        reference.render(f, want);
        for (DrawPath path : {DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
          if (!draw_path_available(path)) continue;
          Image got;
          Rasterizer r(fx, tex, fx.canvas.width, fx.canvas.height, 2);
          r.set_draw_path(path);
          r.render(f, got);
          INFO(file << " with " << draw_path_name(path));
          CHECK(std::memcmp(want.rgba.data(), got.rgba.data(), want.rgba.size() * 4) == 0);
        }
      });
  CHECK(effects >= 1);
}

TEST_CASE("no NaN reaches a pixel from extreme particles", "[blend]") {
  const Scene s = scene("texture = \"builtin:soft\"\nlight_emission = 0.5\nbrightness = 1e6");
  const Image img = render(
      s, {particle(1e30, 0, 1e30), particle(0, 0, 1e-30), particle(3, 3, 5e8, {1, 1, 1}, 1, 1e20)});
  for (float v : img.rgba) REQUIRE(std::isfinite(v));
}

// A size of 1e-320 (the fuzz test's mutation of `size`) made 1 / extent
// infinite in float and the mip level a wild integer: the SIMD kernels read
// far outside the texture and crashed.
TEST_CASE("particles far thinner than a pixel draw safely, keep their light, on every path",
          "[blend]") {
  const Scene s = scene("texture = \"builtin:soft\"\nlight_emission = 1");
  const double mean = s.textures[0]->cells[0].mean[0];
  for (double thin : {1e-320, 1e-300, 1e-40, 1e-12, 1e-7, 1e-5, 1e-3}) {
    for (double rot : {0.0, 30.0}) {
      Particle line = particle(0.3, 0.2, 6, {1, 1, 1}, 1, rot);
      line.w = thin;
      Particle dot = particle(-9, 4, thin);
      Frame f;
      f.emitters.resize(1);
      f.emitters[0].particles = {line, dot};
      Image want;
      for (DrawPath path :
           {DrawPath::kReference, DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
        if (!draw_path_available(path)) continue;
        Rasterizer r(s.fx, s.textures, 64, 64, 1);
        r.set_draw_path(path);
        Image img;
        r.render(f, img);
        INFO("width " << thin << " rotation " << rot << " with " << draw_path_name(path));
        for (float v : img.rgba) REQUIRE(std::isfinite(v));
        CHECK(total(img, 0) == Approx(thin * 6 * mean).epsilon(0.02).margin(1e-30));
        if (path == DrawPath::kReference)
          want = img;
        else
          CHECK(std::memcmp(want.rgba.data(), img.rgba.data(), want.rgba.size() * 4) == 0);
      }
    }
  }
}

namespace {

// The area of a rectangle inside the unit square by Sutherland-Hodgman
// clipping in double precision: an independent check of exact_coverage.
double clipped_area(const std::vector<std::array<double, 2>>& poly_in) {
  std::vector<std::array<double, 2>> poly = poly_in;
  auto clip = [&](auto dist) {
    std::vector<std::array<double, 2>> out;
    for (size_t i = 0; i < poly.size(); ++i) {
      const auto& a = poly[i];
      const auto& b = poly[(i + 1) % poly.size()];
      const double da = dist(a), db = dist(b);
      if (da >= 0) out.push_back(a);
      if ((da >= 0) != (db >= 0)) {
        const double t = da / (da - db);
        out.push_back({a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t});
      }
    }
    poly = out;
  };
  clip([](const std::array<double, 2>& p) { return p[0]; });
  clip([](const std::array<double, 2>& p) { return 1 - p[0]; });
  clip([](const std::array<double, 2>& p) { return p[1]; });
  clip([](const std::array<double, 2>& p) { return 1 - p[1]; });
  double area2 = 0;
  for (size_t i = 0; i < poly.size(); ++i) {
    const auto& p = poly[i];
    const auto& q = poly[(i + 1) % poly.size()];
    area2 += p[0] * q[1] - q[0] * p[1];
  }
  return std::abs(area2) * 0.5;
}

}  // namespace

TEST_CASE("exact edge coverage is the rectangle's area inside each pixel", "[blend]") {
  // Thin and long sprites, every angle, angles within 1e-8..1e-2 rad of the
  // axes and exactly on them, edges exactly on pixel boundaries.
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> unit(0, 1);
  double worst = 0;
  int pixels = 0;
  for (int i = 0; i < 3000; ++i) {
    Sprite s{};
    double theta = unit(rng) * 2 * M_PI;
    if (i % 4 == 0) theta = (i % 16) * M_PI / 4;
    if (i % 4 == 1)
      theta = (i % 16) * M_PI / 2 + (unit(rng) - 0.5) * std::pow(10.0, -8 + 6 * unit(rng));
    s.ax_x = static_cast<float>(std::cos(theta));
    s.ax_y = static_cast<float>(-std::sin(theta));
    s.ay_x = static_cast<float>(-std::sin(theta));
    s.ay_y = static_cast<float>(-std::cos(theta));
    s.half_w = static_cast<float>(0.02 + 1.5 * unit(rng));
    s.half_h = static_cast<float>(i % 3 == 0 ? 0.02 + 30 * unit(rng) : 0.02 + 1.5 * unit(rng));
    s.cx = static_cast<float>(20 + 3 * unit(rng));
    s.cy = static_cast<float>(20 + 3 * unit(rng));
    if (i % 8 == 0) {  // axis-aligned with edges on pixel boundaries
      s.ax_x = 1, s.ax_y = 0, s.ay_x = 0, s.ay_y = -1;
      s.half_w = 0.5f * static_cast<float>(1 + i % 3), s.half_h = 0.5f;
      s.cx = 20.5f + static_cast<float>(i % 2) * 0.5f, s.cy = 20.5f;
    }
    const detail::ExactEdges edges(s);
    const double wx = s.ax_x * s.half_w, wy = s.ax_y * s.half_w, hx = s.ay_x * s.half_h,
                 hy = s.ay_y * s.half_h;
    const int reach = static_cast<int>(std::ceil(s.half_w + s.half_h)) + 1;
    for (int y = static_cast<int>(s.cy) - reach; y <= static_cast<int>(s.cy) + reach; ++y) {
      for (int x = static_cast<int>(s.cx) - reach; x <= static_cast<int>(s.cx) + reach; ++x) {
        const double cx = s.cx - static_cast<float>(x), cy = s.cy - static_cast<float>(y);
        const double want = clipped_area({{cx + wx + hx, cy + wy + hy},
                                          {cx + wx - hx, cy + wy - hy},
                                          {cx - wx - hx, cy - wy - hy},
                                          {cx - wx + hx, cy - wy + hy}});
        const float got =
            detail::exact_coverage(s, edges, static_cast<float>(x), static_cast<float>(y));
        worst = std::isfinite(got) ? std::max(worst, std::abs(got - want)) : 1e9;
        ++pixels;
      }
    }
  }
  INFO(pixels << " pixels, worst difference " << worst);
  // Float rounding of corners up to 30 px from the pixel: a few 1e-6.
  CHECK(worst < 2e-5);
  CHECK(worst > 0);  // the comparison is live: float and double do differ
}

// Setup walks the frame's emitters by slot, chunk by chunk (64 particles or
// more each). With emitters that hold no particles, and emitters that
// start exactly where a chunk does, every particle must still be drawn
// once, in draw order: the same bytes as a plain loop over the emitters.
TEST_CASE("the rasterizer draws every emitter's particles in order across chunks", "[blend]") {
  std::string text = "[canvas]\nsize = [64, 64]\nbackground = \"#102030\"\n";
  const int counts[] = {0, 64, 0, 64, 131, 0, 7};
  for (int e = 0; e < 7; ++e)
    text +=
        "[[emitter]]\ntexture = \"builtin:soft\"\nlight_emission = " + std::to_string(e % 3 * 0.4) +
        "\n";
  const Effect fx = load_effect(text, "t.toml", ".");
  const TextureSet tex = load_textures(fx, 1.0);
  Frame f;
  f.emitters.resize(7);
  for (int e = 0; e < 7; ++e) {
    f.emitters[static_cast<size_t>(e)].emitter = static_cast<uint32_t>(e);
    for (int i = 0; i < counts[e]; ++i)
      f.emitters[static_cast<size_t>(e)].particles.push_back(
          particle(std::sin(i * 1.7 + e) * 28, std::cos(i * 0.9 + e) * 28, 4 + (i + e) % 13,
                   {0.9, 0.3 + 0.1 * e, 0.2}, 0.5 + 0.07 * e, i * 11.0));
  }
  Image want;
  want.resize(64, 64);
  const Rgba& bg = fx.canvas.background_srgb;
  const float bg4[4] = {static_cast<float>(srgb_to_linear(bg.r) * bg.a),
                        static_cast<float>(srgb_to_linear(bg.g) * bg.a),
                        static_cast<float>(srgb_to_linear(bg.b) * bg.a), static_cast<float>(bg.a)};
  for (size_t i = 0; i < want.rgba.size(); ++i) want.rgba[i] = bg4[i % 4];
  const View view = canvas_view(fx.canvas, 64, 64);
  int drawn = 0;
  for (const EmitterFrame& ef : f.emitters)
    for (const Particle& p : ef.particles) {
      const Emitter& em = fx.emitters[ef.emitter];
      Sprite s;
      if (!make_sprite(p, em, *tex[em.index], srgb_to_linear(fx.canvas.ambient_srgb), 64, 64, view,
                       s))
        continue;
      ++drawn;
      draw_sprite_reference(s, want, 0, 64);
    }
  CHECK(drawn > 250);
  for (int threads : {1, 3}) {
    Rasterizer r(fx, tex, 64, 64, threads);
    r.set_draw_path(DrawPath::kReference);
    Image got;
    r.render(f, got);
    INFO(threads << " threads");
    CHECK(r.stats().sprites == static_cast<uint64_t>(drawn));
    CHECK(std::memcmp(got.rgba.data(), want.rgba.data(), want.rgba.size() * sizeof(float)) == 0);
  }
}

TEST_CASE(
    "canvas.blend = \"srgb\" blends the stored values, as engines without sRGB "
    "framebuffers do",
    "[blend]") {
  // Two solid particles on one spot over opaque black: additive grey 0.5
  // twice, and white at half opacity over the background.
  const auto centre = [](const std::string& emitter, const std::string& blend) {
    const Effect fx = load_effect(
        "[canvas]\nsize = [16, 16]\nbackground = \"#000000\"\n"
        "tonemap = \"clamp\"\nblend = \"" +
            blend +
            "\"\n[[emitter]]\nrate = 0\nspeed = 0\n"
            "lifetime = 10\nsize = 64\ntexture = \"builtin:solid\"\n" +
            emitter,
        "t.toml", ".");
    FrameRenderer r(fx, 16, 16, 2, load_textures(fx, 1.0));
    r.render(1);
    std::vector<uint8_t> rgba;
    r.encode(rgba);
    const size_t i = 4 * (8 * 16 + 8);
    return std::array<int, 4>{rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
  };
  const std::string add =
      "bursts = [{ time = 0, count = 2 }]\ncolor = [0.5, 0.5, 0.5]\nlight_emission = 1\n";
  const std::string over = "bursts = [{ time = 0, count = 1 }]\ntransparency = 0.5\n";
  // sRGB values: 0.5 + 0.5 = 1, and 0.5 of white over black is 0.5.
  CHECK(centre(add, "srgb")[0] == 255);
  CHECK(centre(over, "srgb")[0] == 128);
  // Linear light: twice 0.214 is 0.428, sRGB 0.686; half of white is 0.5 linear, sRGB 0.735.
  CHECK(centre(add, "linear")[0] == 175);
  CHECK(centre(over, "linear")[0] == 188);
  CHECK(centre(over, "srgb")[3] == 255);
}
