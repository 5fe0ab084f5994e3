// Exact motion vectors (docs/rendering.md "Motion vectors"): the field of
// known motions, the halo, the encodings' round trips and the blend that
// reconstructs an in-between from two cells.
#include "spritz/raster/motion_vectors.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/motion_vector_encoding.h"
#include "spritz/raster/motion_vector_fit.h"

using namespace spritz;

namespace {

// One particle of `size` px, born at 0 at (x0, 0) design px, at `vx`, `vy`
// px/s with `spin` deg/s, living `life` s, on a transparent 64x64 canvas.
Effect one_particle(double vx, double vy, double spin, const std::string& texture = "disc",
                    double x0 = -10, double life = 100) {
  const double speed = std::hypot(vx, vy);
  const double dir = std::atan2(vy, vx) * 180 / 3.14159265358979323846;
  return load_effect(
      "[canvas]\nsize = [64, 64]\n[[emitter]]\nrate = 0\nbursts = [{ time = 0, "
      "count = 1 }]\nlifetime = " +
          std::to_string(life) + "\nposition = [" + std::to_string(x0) +
          ", 0]\nspeed = " + std::to_string(speed) + "\ndirection = " + std::to_string(dir) +
          "\nrotation_speed = " + std::to_string(spin) +
          "\nsize = 12\ntexture = \"builtin:" + texture + "\"\n",
      "one.toml", ".");
}

MotionField field_of(const Effect& fx, double t, double dt, const MotionOptions& opt) {
  const TextureSet tex = load_textures(fx, 1.0);
  const Frame a = evaluate(fx, t), b = evaluate(fx, t + dt);
  MotionField f;
  render_motion(fx, tex, a, b, 64, 64, canvas_view(fx.canvas, 64, 64), opt, f);
  return f;
}

size_t at(int x, int y) {
  return static_cast<size_t>(y) * 64 + static_cast<size_t>(x);
}

// The straight-alpha image of `fx` at time t on the 64x64 canvas.
std::vector<float> straight_image(const Effect& fx, double t) {
  const TextureSet tex = load_textures(fx, 1.0);
  Rasterizer r(fx, tex, 64, 64, 1);
  Image img;
  r.render(evaluate(fx, t), img);
  std::vector<float> straight(img.rgba.size());
  for (size_t i = 0; i < img.rgba.size(); i += 4) {
    const float a = img.rgba[i + 3];
    for (int c = 0; c < 3; ++c) straight[i + c] = a > 0 ? img.rgba[i + c] / a : 0;
    straight[i + 3] = a;
  }
  return straight;
}

}  // namespace

TEST_CASE("a particle's pixels carry its exact displacement: the halo sweeps its path",
          "[motion]") {
  // 40 px/s right for 0.25 s: 10 px; the particle is centred at
  // (22, 32) on screen at t = 0.5 (12 x 12 px), two steps after its birth.
  const Effect fx = one_particle(40, 0, 0, "disc", -30);
  MotionOptions opt;
  const MotionField f = field_of(fx, 0.5, 0.25, opt);
  REQUIRE(f.width == 64);
  // Covered: exactly 10 px right (a pure translation), 0 down.
  CHECK(f.source[at(22, 32)] == 2);
  CHECK(f.xy[2 * at(22, 32)] == Approx(10).margin(1e-4));
  CHECK(f.xy[2 * at(22, 32) + 1] == Approx(0).margin(1e-4));
  // The halo: ahead of the particle by less than half the displacement
  // (5 px past its edge at x = 28, plus the 1 px least halo), and behind.
  CHECK(f.source[at(31, 32)] == 1);
  CHECK(f.xy[2 * at(31, 32)] == Approx(10).margin(1e-4));
  CHECK(f.source[at(13, 32)] == 1);
  // Not beside it (the halo follows the motion), nor farther ahead.
  CHECK(f.source[at(22, 45)] == 0);
  CHECK(f.source[at(36, 32)] == 0);
  CHECK(f.xy[2 * at(36, 32)] == 0);
  // Without dilation the halo is the least one pixel.
  opt.dilate = 0;
  const MotionField g = field_of(fx, 0.5, 0.25, opt);
  CHECK(g.source[at(31, 32)] == 0);
  CHECK(g.source[at(28, 32)] == 1);
}

TEST_CASE("the halo stops where the particle was born and where it dies", "[motion]") {
  // 40 px/s right, 10 px a step of 0.25 s, 0.05 s (a fifth of a step) after
  // its birth: centred at (24, 32) on screen, covering x 18..30, grown by
  // the least halo to 17..31. Behind it the halo reaches back to where it
  // was born, 2 px (x >= 15), not the 5 px of half a step.
  const MotionField young = field_of(one_particle(40, 0, 0), 0.05, 0.25, MotionOptions{});
  CHECK(young.source[at(15, 32)] == 1);
  CHECK(young.xy[2 * at(15, 32)] == Approx(10).margin(1e-4));
  CHECK(young.source[at(14, 32)] == 0);
  CHECK(young.source[at(13, 32)] == 0);
  // Ahead, a long life: half a step, 5 px (x < 36).
  CHECK(young.source[at(35, 32)] == 1);
  CHECK(young.source[at(36, 32)] == 0);
  // A particle that dies 0.05 s later: ahead only 2 px (x < 33).
  const MotionField dying =
      field_of(one_particle(40, 0, 0, "disc", -10, 0.1), 0.05, 0.25, MotionOptions{});
  CHECK(dying.source[at(32, 32)] == 1);
  CHECK(dying.source[at(33, 32)] == 0);
  CHECK(dying.source[at(35, 32)] == 0);
  // Two steps into its life, centred at (22, 32), covering 16..28: both
  // ways reach half a step (x 10..33).
  const MotionField grown =
      field_of(one_particle(40, 0, 0, "disc", -30), 0.5, 0.25, MotionOptions{});
  CHECK(grown.source[at(10, 32)] == 1);
  CHECK(grown.source[at(9, 32)] == 0);
  CHECK(grown.source[at(33, 32)] == 1);
  CHECK(grown.source[at(34, 32)] == 0);
}

TEST_CASE("a spinning particle's vectors are the rotation of each point", "[motion]") {
  // 90 degrees/s for 0.5 s: every point turns 45 degrees counter-clockwise
  // (y up) about the centre (22, 32) on screen.
  const Effect fx = one_particle(0, 0, 90, "solid");
  const MotionField f = field_of(fx, 0, 0.5, MotionOptions{});
  const double c = std::cos(3.14159265358979323846 / 4), s = std::sin(3.14159265358979323846 / 4);
  for (const auto& [x, y] : {std::pair<int, int>{25, 32}, {22, 29}, {24, 34}}) {
    INFO(x << "," << y);
    REQUIRE(f.source[at(x, y)] == 2);
    const double rx = x + 0.5 - 22, ry_up = -(y + 0.5 - 32);
    const double nx = c * rx - s * ry_up, ny_up = s * rx + c * ry_up;
    CHECK(f.xy[2 * at(x, y)] == Approx(nx - rx).margin(1e-3));
    CHECK(f.xy[2 * at(x, y) + 1] == Approx(-(ny_up - ry_up)).margin(1e-3));
  }
}

TEST_CASE("motion fields are the same for any thread count", "[motion]") {
  const Effect fx = load_effect(R"(
[canvas]
size = [64, 64]
[[emitter]]
rate = 80
lifetime = 1
speed = [20, 90]
spread = 180
rotation_speed = [-200, 200]
size = [[0, 4, 3], [1, 14]]
trail = { count = 4, length = 0.1 }
)",
                                "many.toml", ".");
  const TextureSet tex = load_textures(fx, 1.0);
  const Frame a = evaluate(fx, 1.0), b = evaluate(fx, 1.05);
  MotionField one, three;
  MotionOptions opt;
  render_motion(fx, tex, a, b, 64, 64, canvas_view(fx.canvas, 64, 64), opt, one);
  opt.threads = 3;
  render_motion(fx, tex, a, b, 64, 64, canvas_view(fx.canvas, 64, 64), opt, three);
  CHECK(one.xy == three.xy);
  CHECK(one.source == three.source);
  for (const float v : one.xy) CHECK(std::isfinite(v));
}

TEST_CASE("each encoding stores what its shader reads back", "[motion]") {
  MotionField f;
  f.width = 3;
  f.height = 1;
  f.xy = {12.8f, -6.4f, 0, 0, -32, 32};  // px, y down; cells of 128 x 64
  f.source = {2, 0, 2};
  for (const char* name : {"unity", "sidefx", "unreal"}) {
    INFO(name);
    const MotionEncoding enc = motion_encoding_from_name(name);
    CHECK(motion_encoding_name(enc) == std::string(name));
    std::vector<uint16_t> px;
    CHECK(encode_motion(f, 128, 64, 0.5, enc, px) == 0);
    for (int i = 0; i < 3; ++i) {
      double dx, dy;
      decode_motion(px[4 * i] / 65535.0, px[4 * i + 1] / 65535.0, 128, 64, 0.5, enc, dx, dy);
      // 16 bits: within 2 * 0.5 / 65535 cells.
      CHECK(dx == Approx(f.xy[2 * i]).margin(128 * 2e-5));
      CHECK(dy == Approx(f.xy[2 * i + 1]).margin(64 * 2e-5));
      CHECK(px[4 * i + 3] == 65535);
    }
    CHECK(px[4] == motion_neutral16(enc));  // no motion
    // Beyond the scale: clamped and counted.
    CHECK(encode_motion(f, 128, 64, 0.1, enc, px) == 2);
  }
  // The conventions, written out: Unity's red grows rightward and green
  // upward; SideFX stores minus the motion, green y down; Unreal's 128 is
  // neutral, green y down.
  std::vector<uint16_t> px;
  MotionField right_up;
  right_up.width = right_up.height = 1;
  right_up.xy = {64, -32};
  right_up.source = {2};
  encode_motion(right_up, 128, 64, 1, MotionEncoding::kUnity, px);
  CHECK(px[0] > 32768);
  CHECK(px[1] > 32768);
  encode_motion(right_up, 128, 64, 1, MotionEncoding::kSideFx, px);
  CHECK(px[0] < 32768);
  CHECK(px[1] > 32768);
  encode_motion(right_up, 128, 64, 1, MotionEncoding::kUnreal, px);
  CHECK(px[0] > 32896);
  CHECK(px[1] < 32896);
  CHECK(motion_neutral16(MotionEncoding::kUnreal) == 128 * 257);
  CHECK_THROWS_WITH(motion_encoding_from_name("unity6"),
                    Catch::Contains("must be unity, sidefx or unreal"));
}

TEST_CASE("blending two cells with their true vectors gives the frame in between", "[motion]") {
  // A disc moving 8 px right per step: with the field's vectors the blend at
  // f = 1/2 is the disc 4 px along, which a crossfade is not.
  const Effect fx = one_particle(32, 0, 0);
  const MotionField fa = field_of(fx, 0, 0.25, MotionOptions{});
  const MotionField fb = field_of(fx, 0.25, 0.25, MotionOptions{});
  const std::vector<float> a = straight_image(fx, 0), b = straight_image(fx, 0.25),
                           truth = straight_image(fx, 0.125);
  const std::vector<float> none(64 * 64 * 2, 0.0f);
  std::vector<float> blend, fade;
  blend_cells(a, b, fa.xy, fb.xy, 64, 64, 0.5, blend);
  blend_cells(a, b, none, none, 64, 64, 0.5, fade);
  const double values = 64.0 * 64 * 4;
  const double mv_db = psnr_db(premultiplied_sq_error(blend, truth), values);
  const double fade_db = psnr_db(premultiplied_sq_error(fade, truth), values);
  INFO(mv_db << " dB against " << fade_db << " dB");
  CHECK(mv_db > 60);  // whole-pixel shifts: exact but for float rounding
  CHECK(fade_db < 30);
  CHECK(psnr_db(0, values) == 100);
}

namespace {

// Three cells of `fx` a step `dt` apart from t0, their fields, and the
// exact in-betweens at `fractions` of the two steps.
struct Sheet {
  std::vector<std::vector<float>> cells;
  std::vector<MotionField> fields;
  std::vector<std::vector<std::vector<float>>> truth;
  BlendFit fit;
};

Sheet three_cells(const Effect& fx, double t0, double dt, const std::vector<double>& fractions) {
  Sheet s;
  for (int i = 0; i < 3; ++i) {
    s.cells.push_back(straight_image(fx, t0 + i * dt));
    MotionOptions opt;
    opt.candidates = true;
    s.fields.push_back(field_of(fx, t0 + i * dt, dt, opt));
    s.truth.emplace_back();
    if (i < 2)
      for (double f : fractions) s.truth.back().push_back(straight_image(fx, t0 + (i + f) * dt));
  }
  s.fit.next = {1, 2, -1};
  s.fit.fractions = fractions;
  for (int i = 0; i < 3; ++i) {
    s.fit.cells.push_back(&s.cells[static_cast<size_t>(i)]);
    s.fit.truth.emplace_back();
    for (const auto& t : s.truth[static_cast<size_t>(i)]) s.fit.truth.back().push_back(&t);
  }
  return s;
}

// The summed error of the blends of both steps at fraction f.
double blend_error(const Sheet& s, const std::vector<MotionField>& fields, double f,
                   const std::vector<std::vector<float>>& truth_at_f) {
  double e = 0;
  std::vector<float> out;
  for (size_t i = 0; i < 2; ++i) {
    blend_cells(s.cells[i], s.cells[i + 1], fields[i].xy, fields[i + 1].xy, 64, 64, f, out);
    e += premultiplied_sq_error(out, truth_at_f[i]);
  }
  return e;
}

}  // namespace

TEST_CASE("vectors fitted to the blend beat the exact ones where one vector cannot say it all",
          "[motion]") {
  // Thin velocity-aligned streaks, one after another along a line, each
  // moving along it: a crossfade of the line sliding along itself is nearly
  // right, while displacing each cell by the streaks' exact motion resamples
  // a 1 px line between texels and blurs it.
  const Effect fx = load_effect(R"(
[canvas]
size = [64, 64]
[[emitter]]
rate = 30
lifetime = 3
position = [-30, 0]
speed = 24
direction = 0
spread = 0
orientation = "velocity_parallel"
rotation = 90
size = 3
squash = 3
texture = "builtin:spark"
)",
                                "streaks.toml", ".");
  const std::vector<double> fractions = {0.25, 0.75};
  Sheet s = three_cells(fx, 2.0, 0.125, fractions);
  std::vector<std::vector<float>> at_quarter = {s.truth[0][0], s.truth[1][0]};
  std::vector<std::vector<float>> at_half = {straight_image(fx, 2.0 + 0.5 * 0.125),
                                             straight_image(fx, 2.0 + 1.5 * 0.125)};
  const std::vector<MotionField> exact = s.fields;
  std::vector<MotionField> none = s.fields;
  for (MotionField& f : none) std::fill(f.xy.begin(), f.xy.end(), 0.0f);

  std::vector<MotionField> fitted = s.fields;
  s.fit.threads = 1;
  const uint64_t changed = fit_motion_to_blend(s.fit, 64, 64, fitted);
  CHECK(changed > 0);
  // At the fractions fitted to, never worse than the exact vectors, and
  // here better; at a fraction not fitted to (1/2), better than both the
  // exact vectors and a crossfade.
  const double fit_q = blend_error(s, fitted, 0.25, at_quarter);
  const double exact_q = blend_error(s, exact, 0.25, at_quarter);
  CHECK(fit_q < exact_q);
  const double fit_h = blend_error(s, fitted, 0.5, at_half);
  const double exact_h = blend_error(s, exact, 0.5, at_half);
  const double fade_h = blend_error(s, none, 0.5, at_half);
  INFO("at 1/2: fitted " << fit_h << ", exact " << exact_h << ", crossfade " << fade_h);
  CHECK(fit_h < exact_h);
  CHECK(fit_h < fade_h);

  // The same choices on any number of threads.
  std::vector<MotionField> three = s.fields;
  s.fit.threads = 3;
  CHECK(fit_motion_to_blend(s.fit, 64, 64, three) == changed);
  for (size_t i = 0; i < 3; ++i) CHECK(three[i].xy == fitted[i].xy);
  // The last cell follows none: as the second cell of the last step only.
  // A cell that two cells lead to is refused.
  s.fit.next = {2, 2, -1};
  CHECK_THROWS_WITH(fit_motion_to_blend(s.fit, 64, 64, three),
                    Catch::Contains("follows two cells"));
}
