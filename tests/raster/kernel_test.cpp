// The sprite kernels held to the scalar reference (raster/src/kernels/
// reference.cpp) bit for bit: soft_fma against a fused multiply-add, every
// draw path against the reference on random and edge cases, the default
// kernel per CPU, the AVX2 spans, and no write outside a sprite.
#include "raster/blend_support.h"

using namespace spritz;
using namespace spritz::test;

// The plain x86-64 build's fused multiply-add (soft_fma, and fused() on
// four lanes, which runs two lanes per SSE2 vector there) against the C
// library's fmaf (correctly rounded by definition): random operands whose product and
// addend overlap, cancellations, products that sit exactly on a midpoint
// between two floats with a tiny addend deciding the rounding (where
// rounding the double sum to nearest instead of to odd goes wrong half the
// time), subnormal results, zeros and non-finite values.
TEST_CASE("soft_fma rounds exactly like a fused multiply-add", "[blend]") {
  std::mt19937 rng(20261130);
  auto same = [](float got, float want) {
    if (std::isnan(want)) return std::isnan(got);
    uint32_t g, w;
    std::memcpy(&g, &got, 4);
    std::memcpy(&w, &want, 4);
    return g == w;
  };
  auto scaled = [&](int lo, int hi) {  // a random float with a random 24-bit mantissa and sign
    const float m = 1.0f + static_cast<float>(rng() & 0x7fffff) / 8388608.0f;
    const int e = lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1));
    return std::ldexp(rng() & 1 ? -m : m, e);
  };
  int checked = 0, mismatches = 0;
  auto check = [&](float a, float b, float c) {
    ++checked;
    const float want = std::fma(a, b, c);
    const Float4 four =
        detail::fused(Float4{a, -a, a, -a}, Float4{b, b, b, b}, Float4{c, -c, c, -c});
    const float mirrored = std::fma(-a, b, -c);
    if (!same(four[0], want) || !same(four[2], want) || !same(four[1], mirrored) ||
        !same(four[3], mirrored))
      if (++mismatches <= 5)
        FAIL_CHECK("fused(Float4) on " << a << ", " << b << ", " << c << " differs from fmaf");
    const float got = detail::soft_fma(a, b, c);
    if (!same(got, want) && ++mismatches <= 5)
      FAIL_CHECK("soft_fma(" << a << ", " << b << ", " << c << ") = " << got << ", fmaf gives "
                             << want);
  };
  for (int i = 0; i < 300000; ++i) {  // overlapping magnitudes
    const float a = scaled(-20, 20), b = scaled(-20, 20);
    const int e = std::ilogb(a * b);
    check(a, b, scaled(e - 30, e + 5));
  }
  for (int i = 0; i < 100000; ++i) {  // cancellation: c close to -a b
    const float a = scaled(-10, 10), b = scaled(-10, 10);
    const float c = -(a * b);
    check(a, b, c);
    check(a, b, std::nextafter(c, 0.0f));
    check(a, b, std::nextafter(c, c * 2));
  }
  int midpoints = 0;
  for (int i = 0; i < 100000;
       ++i) {  // a 1.5 exactly halfway between two floats, decided by a tiny c
    const uint32_t m =
        static_cast<uint32_t>(rng() % (11184810u - 8388608u)) | 1u | 8388608u;  // odd, 3 m < 2^25
    const float a = std::ldexp(static_cast<float>(m), -23 + static_cast<int>(rng() % 21) - 10);
    const double p = static_cast<double>(a) * 1.5;
    if (static_cast<double>(static_cast<float>(p)) == p) continue;  // not a midpoint
    ++midpoints;
    const float tiny = std::ldexp(1.0f, std::ilogb(a) - 40 - static_cast<int>(rng() % 60));
    check(a, 1.5f, tiny);
    check(a, 1.5f, -tiny);
    check(-a, 1.5f, tiny);
  }
  CHECK(midpoints > 50000);
  for (int i = 0; i < 100000; ++i)  // subnormal and underflowing results
    check(scaled(-80, -60), scaled(-80, -60), scaled(-150, -126));
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  const float specials[] = {0.0f,    -0.0f,    1.0f, -1.0f, 1e-45f, -1e-45f,
                            3.4e38f, -3.4e38f, inf,  -inf,  nan};
  for (float a : specials)
    for (float b : specials)
      for (float c : specials) check(a, b, c);
  CHECK(mismatches == 0);
  CHECK(checked > 1000000);
}

// Every draw path against the scalar reference, on sprites of every size
// class (exact-edge slivers, small, large; trilinear and not; rotated), over
// a non-uniform destination, including spans that end at the image's edge.
TEST_CASE("every sprite draw path matches the scalar reference bit for bit", "[blend]") {
  // star: detail inside, transparent edges. noise: a different value in
  // every texel and channel up to the edge, where coverage is fractional, so
  // any change in the order of operations shows.
  const Scene s =
      scene("texture = \"builtin:star\"\nlight_emission = 0.3", "background = \"#203040\"");
  std::vector<float> noise(24 * 20 * 4);
  for (size_t i = 0; i < noise.size(); ++i)
    noise[i] = 0.05f + 0.9f * static_cast<float>((i * 2654435761u) % 1000) / 1000;
  const Texture noise_texture = texture_from_linear(24, 20, noise, 1, 1);
  for (TextureFilter filter :
       {TextureFilter::kTrilinear, TextureFilter::kBilinear, TextureFilter::kNearest})
    for (const Texture* texture : {s.textures[0].get(), &noise_texture})
      for (DrawPath path : {DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
        Emitter em = s.fx.emitters[0];
        em.filter = filter;
        const Texture& tex = *texture;
        if (!draw_path_available(path)) {
          WARN("draw path " << draw_path_name(path) << " is not available on this CPU");
          continue;
        }
        INFO("path " << draw_path_name(path) << (texture == &noise_texture ? ", noise" : ", star")
                     << ", filter " << static_cast<int>(filter));
        Image fast, ref;
        fast.resize(61, 64);
        for (size_t i = 0; i < fast.rgba.size(); ++i)
          fast.rgba[i] = 0.1f + 0.0001f * static_cast<float>(i % 977);
        ref = fast;
        View view{1, 0, 0};
        int trilinear = 0, exact = 0, bilinear = 0;
        for (int i = 0; i < 600; ++i) {
          const Particle p =
              particle(std::sin(i * 0.37) * 35, std::cos(i * 0.91) * 35, 0.2 + (i % 41) * 1.3,
                       {0.9, 0.4 + 0.001 * i, 0.2}, 0.3 + (i % 7) * 0.1, i % 5 == 0 ? 0 : i * 13.7);
          Sprite sp;
          if (!make_sprite(p, em, tex, {1, 1, 1}, 61, 64, view, sp)) continue;
          (sp.exact_edges ? exact : sp.level_mix > 0 ? trilinear : bilinear) += 1;
          const int row_begin = i % 3 == 0 ? 16 : 0, row_end = i % 3 == 0 ? 48 : 64;  // strips
          const uint64_t a = draw_sprite(sp, fast, row_begin, row_end, path);
          const uint64_t b = draw_sprite_reference(sp, ref, row_begin, row_end);
          REQUIRE(a == b);
        }
        if (filter == TextureFilter::kTrilinear)
          CHECK(trilinear > 50);
        else
          CHECK(trilinear == 0);  // the full-size texture only
        CHECK(bilinear > 20);
        CHECK(exact > 10);
        CHECK(std::memcmp(fast.rgba.data(), ref.rgba.data(), fast.rgba.size() * sizeof(float)) ==
              0);
      }
}

// The default kernel (docs/rendering.md): AVX-512 where it was measured
// faster (AMD from Zen 5 on, family 26; Intel's Ice Lake server cores,
// family 6, models 106 and 108), AVX2 with FMA3 on other CPUs
// that have them, portable elsewhere. Checked against what the operating
// system says of this CPU (/proc/cpuinfo), not against the code's own
// detection.
TEST_CASE("the default sprite kernel is the one docs/rendering.md names for this CPU", "[blend]") {
#if !defined(__x86_64__)
  // Other builds have only the portable and reference kernels (under
  // qemu-user, /proc/cpuinfo would describe the host's x86 CPU).
  CHECK(default_draw_path() == DrawPath::kPortable);
  CHECK(!draw_path_available(DrawPath::kAvx2));
  CHECK(!draw_path_available(DrawPath::kAvx512));
  return;
#endif
  std::ifstream in("/proc/cpuinfo");
  SPRITZ_SKIP_HARDWARE_UNLESS(in, "no /proc/cpuinfo to say what this CPU is");
  std::string line, vendor, flags;
  int family = -1, model = -1;
  while (std::getline(in, line) && (vendor.empty() || flags.empty() || family < 0 || model < 0)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "vendor_id") vendor = value;
    if (key == "cpu family") family = std::stoi(value);
    if (key == "model") model = std::stoi(value);
    if (key == "flags") flags = " " + value + " ";
  }
  SPRITZ_SKIP_HARDWARE_UNLESS(!flags.empty(), "/proc/cpuinfo lists no x86 flags");
  const auto has = [&](const char* f) {
    return flags.find(" " + std::string(f) + " ") != std::string::npos;
  };
  const bool avx2 = has("avx2") && has("fma");
  const bool avx512 =
      avx2 && has("avx512f") && has("avx512dq") && has("avx512bw") && has("avx512vl");
  const bool measured_faster =
      (vendor == "AuthenticAMD" && family >= 26) ||
      (vendor == "GenuineIntel" && family == 6 && (model == 106 || model == 108));
  const DrawPath want = avx512 && measured_faster ? DrawPath::kAvx512
                        : avx2                    ? DrawPath::kAvx2
                                                  : DrawPath::kPortable;
  INFO(vendor << " family " << family << " model " << model);
  CHECK(default_draw_path() == want);
  CHECK(draw_path_available(DrawPath::kAvx2) == avx2);
  CHECK(draw_path_available(DrawPath::kAvx512) == avx512);
}

TEST_CASE("a sprite kernel is chosen by name, and a bad name is an error", "[blend]") {
  for (DrawPath p :
       {DrawPath::kReference, DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
    INFO(draw_path_name(p));
    if (draw_path_available(p)) {
      CHECK(draw_path_from_name(draw_path_name(p)) == p);
    } else {
      CHECK_THROWS_WITH(draw_path_from_name(draw_path_name(p)),
                        Catch::StartsWith("this CPU cannot run the"));
    }
  }
  CHECK_THROWS_WITH(draw_path_from_name("AVX2"), Catch::StartsWith("unknown sprite kernel 'AVX2'"));
  CHECK_THROWS_WITH(draw_path_from_name("\x1b[2J"), Catch::Contains("'\\x1b[2J'"));
  CHECK_THROWS_WITH(draw_path_from_name(""), Catch::StartsWith("unknown sprite kernel ''"));
}

// The AVX2 kernel computes four rows' spans at once. Spans decide which
// pixels are visited, not their bytes, so the bit-exact tests above would
// miss a span that grew; compare with RowSpans::at directly, on every row
// of sprites of every size and angle (axis-aligned ones take the
// degenerate-axis path) and on rows beyond their ends.
TEST_CASE("the AVX2 kernel's four-row spans equal RowSpans::at", "[blend]") {
  SPRITZ_SKIP_HARDWARE_UNLESS(detail::cpu_has_avx2_fma(), "this CPU has no AVX2 and FMA3");
  const Scene s = scene("texture = \"builtin:soft\"");
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> pos(-70, 70), size(0.05, 90), unit(0, 1);
  int rows = 0, empty = 0;
  for (int i = 0; i < 3000; ++i) {
    const double rot = i % 4 == 0 ? 90.0 * (i / 4 % 4) : unit(rng) * 360;
    const Particle p = particle(pos(rng), pos(rng), size(rng), {1, 1, 1}, 1, rot);
    Sprite sp;
    if (!make_sprite(p, s.fx.emitters[0], *s.textures[0], {1, 1, 1}, 64, 64, View{1, 0, 0}, sp))
      continue;
    const detail::RowSpans spans(sp);
    for (int y = sp.y0 - 5; y < sp.y1 + 5; y += 4) {
      float fy[4];
      for (int k = 0; k < 4; ++k) fy[k] = static_cast<float>(y + k) + 0.5f - sp.cy;
      int xa[4], xb[4];
      detail::row_spans4_avx2(spans, fy, xa, xb);
      for (int k = 0; k < 4; ++k) {
        int a, b;
        spans.at(fy[k], &a, &b);
        INFO("sprite " << i << " row " << y + k);
        REQUIRE(xa[k] == a);
        REQUIRE(xb[k] == b);
        ++rows;
        empty += a == b;
      }
    }
  }
  CHECK(rows > 20000);
  CHECK(empty > 1000);
}

// Sprites up to 16 px wide are drawn with the spans of all their rows in a
// strip laid end to end (the AVX2 kernel's packed walk). Walk small sprites
// across every edge of the image and every strip boundary, at odd and even
// span lengths, and compare with the reference.
TEST_CASE("small sprites at the image's edges and strip boundaries match the reference",
          "[blend]") {
  const Scene s =
      scene("texture = \"builtin:soft\"\nlight_emission = 0.6", "background = \"#102030\"");
  const int w = 47, h = 41;  // odd, so the last pixel of a row has no partner
  static_assert(kStripRows + 4 < h, "the image must hold a strip boundary");
  const View view{1, 0, 0};
  for (TextureFilter filter : {TextureFilter::kTrilinear, TextureFilter::kNearest})
    for (DrawPath path : {DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
      if (!draw_path_available(path)) continue;
      Emitter em = s.fx.emitters[0];
      em.filter = filter;
      INFO("path " << draw_path_name(path) << ", filter " << static_cast<int>(filter));
      Image fast, ref;
      fast.resize(w, h);
      for (size_t i = 0; i < fast.rgba.size(); ++i)
        fast.rgba[i] = 0.05f + 0.0003f * static_cast<float>(i % 1013);
      ref = fast;
      int drawn = 0;
      for (int i = 0; i < 900; ++i) {
        // Centres along the four edges, the strip boundary (y = kStripRows)
        // and y = 16 (where the AVX-512 kernel's packed walk starts its
        // second batch of rows for a sprite from the top edge).
        const double t = (i * 0.618033988749895 - static_cast<int>(i * 0.618033988749895)) * 2 - 1;
        const double edge = (i / 5) % 5;
        const double x = edge == 0   ? -w / 2.0 + 0.3 * (i % 7)
                         : edge == 1 ? w / 2.0 - 0.3 * (i % 7)
                                     : t * w / 2;
        const double y = edge == 2   ? -h / 2.0 + 0.3 * (i % 7)
                         : edge == 3 ? h / 2.0 - 0.3 * (i % 7)
                         : edge == 4 ? h / 2.0 - (i % 2 ? kStripRows : 16) + t * 3
                                     : t * h / 2;
        const Particle p = particle(x, y, 0.5 + (i % 31) * 0.55, {0.8, 0.5, 0.3 + 0.0005 * i},
                                    0.4 + (i % 5) * 0.15, i * 23.3);
        Sprite sp;
        if (!make_sprite(p, em, *s.textures[0], {1, 1, 1}, w, h, view, sp)) continue;
        ++drawn;
        for (int row_begin = 0; row_begin < h; row_begin += kStripRows) {
          const int row_end = std::min(h, row_begin + kStripRows);
          REQUIRE(draw_sprite(sp, fast, row_begin, row_end, path) ==
                  draw_sprite_reference(sp, ref, row_begin, row_end));
        }
      }
      CHECK(drawn > 600);
      CHECK(std::memcmp(fast.rgba.data(), ref.rgba.data(), fast.rgba.size() * sizeof(float)) == 0);
    }
}

// The kernels blend whole pairs or quads of pixels, and a pixel of one
// with no coverage is rewritten with its own value. That is only safe
// inside the sprite's rows and near its columns: a write past the image's
// right edge lands on the next row, which another thread's strip may own.
// -0.0 tells: rewritten, it comes back +0 (-0 * 1 + 0), so every pixel
// outside the sprite's rows and columns (plus the three to the right of
// them that a quad may reach) must still hold -0.0.
TEST_CASE("no sprite kernel writes outside the sprite's rows and columns", "[blend]") {
  const Scene s = scene("texture = \"builtin:soft\"\nlight_emission = 0.6");
  const int w = 45, h = 37;
  for (TextureFilter filter : {TextureFilter::kTrilinear, TextureFilter::kNearest})
    for (DrawPath path :
         {DrawPath::kReference, DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
      if (!draw_path_available(path)) continue;
      Emitter em = s.fx.emitters[0];
      em.filter = filter;
      int drawn = 0;
      for (int i = 0; i < 400; ++i) {
        // Along the right edge and the bottom edge, sizes 0.5 to 40 px.
        const double along = ((i * 37) % 100) / 100.0 * 2 - 1;
        const double x = i % 2 ? w / 2.0 - 0.37 * (i % 11) : along * w / 2;
        const double y = i % 2 ? along * h / 2 : h / 2.0 - 0.37 * (i % 11);
        const Particle p = particle(x, y, 0.5 + (i % 41), {0.8, 0.5, 0.3}, 0.7, i * 17.1);
        Sprite sp;
        if (!make_sprite(p, em, *s.textures[0], {1, 1, 1}, w, h, View{1, 0, 0}, sp)) continue;
        ++drawn;
        Image img;
        img.resize(w, h);
        std::fill(img.rgba.begin(), img.rgba.end(), -0.0f);
        draw_sprite(sp, img, 0, h, path);
        int touched = 0, first = -1;
        for (int yy = 0; yy < h; ++yy)
          for (int xx = 0; xx < w; ++xx) {
            if (yy >= sp.y0 && yy < sp.y1 && xx >= sp.x0 && xx < sp.x1 + 3) continue;
            const size_t at = (static_cast<size_t>(yy) * w + xx) * 4;
            if (!std::signbit(img.rgba[at]) || !std::signbit(img.rgba[at + 3])) {
              ++touched;
              if (first < 0) first = yy * w + xx;
            }
          }
        INFO(draw_path_name(path) << " sprite " << i << ", first pixel touched " << first % w << ","
                                  << first / w);
        REQUIRE(touched == 0);
      }
      CHECK(drawn > 300);
    }
}
