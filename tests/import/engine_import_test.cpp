// The Godot and Roblox importers (docs/import.md): their mapping of small
// files written for these tests (tests/data/import/godot, roblox), bad
// input, and the imported effects against reference simulators written from
// docs/formats/godot.md's and roblox.md's update rules (not from the
// importer), particle by particle at equal ages. The reference takes each
// engine's random draws from the channel spritz rolls for that property (as
// the importer must map them: a mirrored spread or a reversed range takes
// 1 - u), its parameters as the test file writes them, and steps or solves
// the motion in the engine's own axes.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "import/import_support.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/import/import.h"
#include "spritz/load.h"
#include "spritz/write.h"

using namespace spritz;
using namespace spritz::test;
namespace fs = std::filesystem;

namespace {

const fs::path kData = fs::path(SPRITZ_SOURCE_DIR) / "tests/data/import";
const fs::path kProject = kData / "godot/project";
const fs::path kCorpus = spritz_corpus_dir(SPRITZ_SOURCE_DIR);

std::string import_error(const std::string& text, const std::string& name = "bad.tscn") {
  try {
    import_text(text, name);
  } catch (const Error& e) {
    return e.diagnostics().front().to_string();
  }
  return "";
}

const Emitter& named(const Effect& fx, const std::string& name) {
  for (const Emitter& e : fx.emitters)
    if (e.name == name) return e;
  FAIL("no emitter " << name);
  return fx.emitters.front();
}

const EmitterFrame& frame_of(const Frame& f, const Effect& fx, const std::string& name) {
  for (const EmitterFrame& ef : f.emitters)
    if (fx.emitters[ef.emitter].name == name) return ef;
  FAIL("no frame for " << name);
  return f.emitters.front();
}

double lerp(double a, double b, double t) {
  return a + (b - a) * t;
}

struct V2 {
  double x = 0, y = 0;
};
V2 turn(V2 v, double a) {
  return {v.x * std::cos(a) - v.y * std::sin(a), v.x * std::sin(a) + v.y * std::cos(a)};
}

// Godot's Curve (docs/formats/godot.md 5): cubic Bezier in y, controls y +- dx/3 tangent.
double godot_curve(const std::vector<std::array<double, 4>>& pts, double x) {
  if (x <= pts.front()[0]) return pts.front()[1];
  if (x >= pts.back()[0]) return pts.back()[1];
  size_t i = 0;
  while (x >= pts[i + 1][0]) ++i;
  const auto &a = pts[i], &b = pts[i + 1];
  const double d = b[0] - a[0], t = (x - a[0]) / d, s = 1 - t;
  const double p1 = a[1] + a[3] * d / 3, p2 = b[1] - b[2] * d / 3;
  return s * s * s * a[1] + 3 * s * s * t * p1 + 3 * s * t * t * p2 + t * t * t * b[1];
}

// The Godot process step (docs/formats/godot.md 5), in Godot's own axes (y down):
// forces, then damping, then the orbit turn about the origin, then the move.
struct GodotStep {
  V2 gravity;
  double damping = 0, orbit_turns = 0, radial = 0, tangential = 0;
  V2 origin;
  void run(V2& p, V2& v, double age, double h) const {
    const auto step = [&](double dt) {
      const V2 d{p.x - origin.x, p.y - origin.y};
      const double r = std::hypot(d.x, d.y);
      const V2 u = r > 0 ? V2{d.x / r, d.y / r} : V2{};
      const V2 t{-u.y, u.x};  // normalize(diff.yx * (-1, 1))
      v.x += (gravity.x + radial * u.x + tangential * t.x) * dt;
      v.y += (gravity.y + radial * u.y + tangential * t.y) * dt;
      const double s = std::hypot(v.x, v.y);
      if (damping > 0 && s > 0) {
        const double k = std::max(s - damping * dt, 0.0) / s;
        v.x *= k, v.y *= k;
      }
      if (orbit_turns != 0) {
        // mat2(vec2(cos, -sin), vec2(sin, cos)) * diff, as the shader writes it.
        const double a = orbit_turns * dt * 2 * kPi;
        const V2 rd{std::cos(a) * d.x + std::sin(a) * d.y, -std::sin(a) * d.x + std::cos(a) * d.y};
        p = {origin.x + rd.x, origin.y + rd.y};
      }
      p.x += v.x * dt, p.y += v.y * dt;
    };
    const double n = std::floor(age / h);
    for (int i = 0; i < static_cast<int>(n); ++i) step(h);
    if (age - n * h > 1e-15) step(age - n * h);
  }
};

}  // namespace

TEST_CASE("a Godot 4 scene: nodes, transforms, materials, curves and the texture via res://",
          "[import][godot]") {
  const ImportResult r = import_path(kProject / "fx/embers.tscn");
  CHECK(r.format == EffectFormat::kGodot);
  REQUIRE(r.fx.emitters.size() == 3);
  const Emitter& em = named(r.fx, "Embers");
  // amount / lifetime, squeezed by explosiveness 0.25 into the first 3/4 of
  // each 1.5 s cycle, with room for that rate under the Little's-law clamp.
  REQUIRE(em.rate_curve.key_t.size() >= 3);
  CHECK(em.rate_curve.key_r[0] == Approx(40 / (0.75 * 1.5)));
  CHECK(em.rate_curve.key_t[1] == Approx(1.125));
  CHECK(em.max_particles >= std::ceil(40 / 1.125 * 1.5));
  // Direction (1, -1) in y-down axes: up and right (the root's turn undone
  // by the node's own).
  CHECK(em.direction_deg == Approx(45));
  // Turned 0.5 rad clockwise on screen by the root.
  CHECK(named(r.fx, "Puff").direction_deg == Approx(-0.5 * 180 / kPi));
  // The emission shapes turn with the nodes: the embers' box not at all (the
  // root's turn undone by the node's), the puff's disc not either (a circle
  // looks the same turned).
  CHECK(em.shape.kind == ShapeKind::kBox);
  CHECK(em.shape.rotation_deg == Approx(0).margin(1e-12));
  CHECK(named(r.fx, "Puff").shape.rotation_deg == 0);
  CHECK(em.spread_deg == 30);
  CHECK(em.speed_px_per_s.min == Approx(160));  // scale 2
  CHECK(em.acceleration.y == Approx(-98));      // gravity down, not turned (world space)
  CHECK(em.forces.damping.max == Approx(40));   // world space: the scene's px, not the node's
  CHECK(em.light_emission == 1);
  REQUIRE(em.flipbook.enabled);
  CHECK(em.flipbook.per_life);
  CHECK(em.flipbook.cols == 2);
  // The texture through res:// from project.godot's folder, one cell 8 px.
  REQUIRE(r.textures.size() == 1);
  CHECK(r.textures[0].origin == (kProject / "textures/spark.png").lexically_normal().string());
  CHECK(em.size_px.value[0] == Approx(8 * 2 * 0.2 * 1.0));
  CHECK(em.size_px.envelope[0] == Approx(8 * 2 * 0.2 * 0.5));
  // The ramp from the external .tres, times the colour's alpha.
  CHECK(em.color.count == 3);
  CHECK(em.transparency.value[1] == Approx(1 - 0.9 * 0.8));
  CHECK(std::find(r.source_files.begin(), r.source_files.end(),
                  (kProject / "fx/ramp.tres").lexically_normal().string()) != r.source_files.end());
  // A burst node at twice the speed; a CPU node's directed points.
  const Emitter& puff = named(r.fx, "Puff");
  REQUIRE(puff.bursts.size() == 1);
  CHECK(puff.bursts[0].count == 24);
  CHECK(puff.bursts[0].interval_s == Approx(0.5));
  CHECK(puff.lifetime_s.max == Approx(0.5));
  CHECK(puff.texture.label() == "builtin:solid");  // no texture: Godot's 1 px square
  CHECK(puff.size_px.value[0] == Approx(2));       // times the node scale
  const Emitter& swirl = named(r.fx, "Swirl");
  CHECK(swirl.shape.kind == ShapeKind::kPoints);
  CHECK(swirl.shape.points.size() == 4);
  CHECK(swirl.shape.normals.size() == 4);
  CHECK(swirl.forces.orbit_velocity.min == Approx(90));
  // The notes say which version was read.
  bool said = false;
  for (const Diagnostic& d : r.notes) said |= d.message.find("read as a Godot 4 scene") == 0;
  CHECK(said);
}

TEST_CASE("a Godot 3 scene: param_random, the Godot 3 shapes and the ramp that replaces",
          "[import][godot]") {
  const ImportResult r = import_path(kProject / "fx/torch3.tscn");
  REQUIRE(r.fx.emitters.size() == 1);
  const Emitter& em = r.fx.emitters[0];
  // speed_scale 1.5: lifetimes shorter, speeds faster, accelerations by 1.5^2.
  CHECK(em.lifetime_s.max == Approx(1.2 / 1.5));
  CHECK(em.speed_px_per_s.min == Approx(50 * 0.6 * 1.5));
  CHECK(em.speed_px_per_s.max == Approx(50 * 1.5));
  CHECK(em.rotation_speed_deg_per_s.min == Approx(0));
  CHECK(em.rotation_speed_deg_per_s.max == Approx(270));
  CHECK(em.forces.tangential.min == Approx(-30 * 2.25));  // clockwise on screen in Godot
  CHECK(em.acceleration.y == Approx(40 * 2.25));
  CHECK(em.shape.kind == ShapeKind::kBox);  // Godot 3's 2 is the box
  CHECK(em.shape.a == 5);
  CHECK(em.space == Space::kLocal);                     // Godot 3's default
  CHECK(em.size_px.value[0] == Approx((8 + 4.5) / 2));  // scale_random mixes toward 1
  CHECK(em.color.srgb[0].g == Approx(0.8));             // the ramp alone
}

TEST_CASE("a Godot scene cycles as Godot runs it and keeps linear_accel unless imported seamless",
          "[import][godot]") {
  const char* scene =
      "[gd_scene load_steps=4 format=2]\n\n[sub_resource type=\"Curve\" id=2]\n"
      "_data = [ Vector2( 0, 0 ), 0.0, 0.0, 0, 1, Vector2( 1, 50 ), 0.0, 0.0, 1, 0 ]\n\n"
      "[sub_resource type=\"CurveTexture\" id=3]\ncurve = SubResource( 2 )\n\n"
      "[sub_resource type=\"ParticlesMaterial\" id=1]\n"
      "flag_disable_z = true\ngravity = Vector3( 0, 0, 0 )\ninitial_velocity = 50.0\n"
      "linear_accel = 25.0\nlinear_accel_random = 0.5\nlinear_accel_curve = SubResource( 3 )\n"
      "radial_accel_curve = SubResource( 3 )\n\n"
      "[node name=\"Fire\" type=\"Particles2D\"]\namount = 20\nlifetime = 2.0\n"
      "speed_scale = 2.0\npreprocess = 0.5\nh_frames = 2\nprocess_material = SubResource( 1 )\n";
  const ImportResult godot = import_text(scene, "fire.tscn");
  CHECK(godot.fx.loop);
  CHECK_FALSE(godot.fx.seamless);  // starts empty, new particles every cycle (model.md 4.5)
  CHECK(godot.fx.start_s > 0);     // so preprocess is a start again
  const Forces& f = godot.fx.emitters[0].forces;
  CHECK(f.linear.min == Approx(25 * 0.5 * 4));  // Godot 3: x mix(1, u, random); speed_scale^2
  CHECK(f.linear.max == Approx(25 * 4));
  // Godot 3 adds its curve (0 to 50, linear) before the roll: 1 + c / 25; a
  // radial curve on a radial_accel of 0 is a unit acceleration times c.
  REQUIRE(f.curved[Forces::kLinearCurve]);
  CHECK(f.curves[Forces::kLinearCurve].evaluate(0.5, 0) == Approx(1 + 25.0 / 25).epsilon(0.002));
  CHECK(f.radial.max == Approx(4));  // 1 px/s^2 x speed_scale^2
  CHECK(f.curves[Forces::kRadialCurve].evaluate(1, 0) == Approx(50).epsilon(0.002));
  // Index order (Godot 3's default) draws by slot, amount slots.
  CHECK(godot.fx.emitters[0].draw_order == DrawOrder::kBySlot);
  CHECK(godot.fx.emitters[0].slots == 20);
  bool noted = false;  // Godot 3.0's grid on the node, which 3.1 and later ignore
  for (const Diagnostic& d : godot.notes) noted |= d.message.find("h_frames") != std::string::npos;
  CHECK(noted);
  ImportOptions o;
  o.seamless = true;
  const ImportResult baked = import_text(scene, "fire.tscn", o);
  CHECK(baked.fx.seamless);
  CHECK(baked.fx.start_s == 0);  // the seamless loop is in its steady state anyway
  // At 0 s: Godot's preprocessed start against the full steady state.
  const Effect fx = load_imported(godot, "fire.tscn");
  const Effect steady = load_imported(baked, "fire.tscn");
  const size_t started = evaluate(fx, clock_at_time(fx, 0)).emitters[0].particles.size();
  CHECK(started > 0);
  CHECK(started < evaluate(steady, clock_at_time(steady, 0)).emitters[0].particles.size());
}

TEST_CASE("imported Godot emitters agree with the Godot reference, particle by particle",
          "[import][godot]") {
  const ImportResult r = import_path(kProject / "fx/embers.tscn");
  const Effect fx = load_imported(r, kProject / "fx/embers.tscn");
  const double root_rot = 0.5;
  const V2 root{100, 50};
  int checked = 0;
  double worst = 0, worst_swirl = 0, worst_puff = 0, worst_size = 0, worst_alpha = 0, worst_rot = 0;
  for (double t : {0.4, 1.3, 1.9}) {
    const Frame f = evaluate(fx, clock_at_time(fx, t));
    {  // Embers: box, spread, damping with gravity, stepped at 1/60.
      const Emitter& em = named(fx, "Embers");
      const V2 node = [&] {
        const V2 o = turn({20, 0}, root_rot);
        return V2{root.x + o.x, root.y + o.y};
      }();
      for (const Particle& p : frame_of(f, fx, "Embers").particles) {
        const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
        const double ru = 2 * (1 - unit(st, Channel::kSpread)) - 1;  // Godot's y-down spread
        const double a = std::atan2(-1.0, 1.0) + ru * 30 * kPi / 180;
        const double speed = lerp(80, 120, unit(st, Channel::kSpeed));
        const V2 box{(2 * unit(st, Channel::kShapeU) - 1) * 10,
                     -(2 * unit(st, Channel::kShapeV) - 1) * 4};
        // The node's -0.5 undoes the root's 0.5: only the scale 2 remains.
        const V2 off{2 * box.x, 2 * box.y};
        const V2 vel{2 * speed * std::cos(a), 2 * speed * std::sin(a)};
        V2 pos{node.x + off.x, node.y + off.y}, v = vel;
        GodotStep g;
        g.gravity = {0, 98};
        g.damping = lerp(20, 40, unit(st, Channel::kDamping));
        g.origin = node;
        g.run(pos, v, p.age_s, 1.0 / 60);
        worst = std::max({worst, std::abs((p.x - em.position.x) - (pos.x - node.x)),
                          std::abs((p.y - em.position.y) + (pos.y - node.y))});
        const double tau = p.age_s / p.life_s;
        const std::vector<std::array<double, 4>> curve = {
            {0, 0.2, 0, 3}, {0.5, 1, 0, 0}, {1, 0.4, -1, 0}};
        const double size =
            8 * 2 * godot_curve(curve, tau) * lerp(0.5, 1.5, unit(st, Channel::kSizeEnvelope));
        worst_size = std::max(worst_size, std::abs(p.w - size) / std::max(size, 1.0));
        const double ramp_a = tau < 0.4 ? lerp(1, 0.8, tau / 0.4) : lerp(0.8, 0, (tau - 0.4) / 0.6);
        worst_alpha = std::max(worst_alpha, std::abs(p.alpha - 0.9 * ramp_a));
        const double angle = lerp(0, 90, unit(st, Channel::kRotation)) + 45 * p.age_s;
        worst_rot = std::max(worst_rot, std::abs(p.rotation_deg - angle));
        ++checked;
      }
    }
    {  // Swirl: directed points and orbit velocity, closed form against fine steps.
      const Emitter& em = named(fx, "Swirl");
      const V2 node = [&] {
        const V2 o = turn({-60, 40}, root_rot);
        return V2{root.x + o.x, root.y + o.y};
      }();
      const V2 pts[] = {{0, -10}, {10, 0}, {0, 10}, {-10, 0}};
      for (const Particle& p : frame_of(f, fx, "Swirl").particles) {
        const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
        const int i = std::min(3, static_cast<int>(std::floor(4 * unit(st, Channel::kShapeU))));
        const V2 off = turn({2 * pts[i].x, 2 * pts[i].y}, root_rot);
        // Directed points: rotm = [n, (n.y, -n.x)] times the launch (1, 0),
        // then the node's transform.
        const V2 n{pts[i].x / 10, pts[i].y / 10};
        const V2 local{n.x * 40, n.y * 40};
        const V2 w = turn({2 * local.x, 2 * local.y}, root_rot);
        V2 pos{node.x + off.x, node.y + off.y}, v = w;
        GodotStep g;
        g.orbit_turns = 0.25;
        g.origin = node;
        g.run(pos, v, p.age_s, 1e-4);
        worst_swirl = std::max({worst_swirl, std::abs((p.x - em.position.x) - (pos.x - node.x)),
                                std::abs((p.y - em.position.y) + (pos.y - node.y))});
        ++checked;
      }
    }
    {  // Puff: damping alone, closed form, against Godot's steps at 1e-4 s.
      const Emitter& em = named(fx, "Puff");
      const V2 node = [&] {
        const V2 o = turn({-60, 40}, root_rot);
        return V2{root.x + o.x, root.y + o.y};
      }();
      for (const Particle& p : frame_of(f, fx, "Puff").particles) {
        const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
        const double ru = 2 * (1 - unit(st, Channel::kSpread)) - 1;
        const double a = ru * kPi;  // direction (1, 0), turned by the node below
        const double speed = lerp(60, 90, unit(st, Channel::kSpeed));
        // A disc is the same turned: Godot's draw of the angle is taken as
        // spritz's less the node's turn, so the place needs no turning.
        const double th = 2 * kPi * unit(st, Channel::kShapeU);
        const double rho = std::sqrt(unit(st, Channel::kShapeV)) * 12;
        const V2 off{2 * rho * std::cos(th), -2 * rho * std::sin(th)};
        const V2 vel = turn({2 * speed * std::cos(a), 2 * speed * std::sin(a)}, root_rot);
        V2 pos{node.x + off.x, node.y + off.y}, v = vel;
        GodotStep g;
        g.damping = 60;
        g.origin = node;
        g.run(pos, v, 2 * p.age_s, 1e-4);  // speed_scale 2: Godot's clock runs twice as fast
        worst_puff = std::max({worst_puff, std::abs((p.x - em.position.x) - (pos.x - node.x)),
                               std::abs((p.y - em.position.y) + (pos.y - node.y))});
        ++checked;
      }
    }
  }
  INFO("worst place " << worst << ", swirl " << worst_swirl << ", puff " << worst_puff << ", size "
                      << worst_size << ", alpha " << worst_alpha << ", rotation " << worst_rot);
  CHECK(checked > 80);
  CHECK(worst < 1e-6);        // px: the same steps
  CHECK(worst_swirl < 0.05);  // px: closed form against steps of 1e-4 s
  CHECK(worst_puff < 0.05);
  CHECK(worst_size < 1e-2);  // the cubic scale curve (steep tangents) in 20 linear keys
  CHECK(worst_alpha < 1e-9);
  CHECK(worst_rot < 1e-9);
}

TEST_CASE("a Godot 3 torch agrees with the Godot 3 reference, particle by particle",
          "[import][godot]") {
  const ImportResult r = import_path(kProject / "fx/torch3.tscn");
  const Effect fx = load_imported(r, kProject / "fx/torch3.tscn");
  const Emitter& em = fx.emitters[0];
  int checked = 0;
  double worst = 0;
  for (double t : {0.3, 0.75}) {
    const Frame f = evaluate(fx, clock_at_time(fx, t));
    for (const Particle& p : f.emitters[0].particles) {
      const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
      // Godot 3: param * mix(1, u, random) (docs/formats/godot.md 2.3).
      const double speed = 50 * (1 + (unit(st, Channel::kSpeed) - 1) * 0.4);
      const double ru = 2 * (1 - unit(st, Channel::kSpread)) - 1;
      const double a = -kPi / 2 + ru * 10 * kPi / 180;
      V2 pos{(2 * unit(st, Channel::kShapeU) - 1) * 5, -(2 * unit(st, Channel::kShapeV) - 1) * 9};
      V2 v{speed * std::cos(a), speed * std::sin(a)};
      GodotStep g;
      g.gravity = {0, -40};
      g.tangential = 30;
      g.run(pos, v, 1.5 * p.age_s, 1.0 / 60);
      worst = std::max({worst, std::abs((p.x - em.position.x) - pos.x),
                        std::abs((p.y - em.position.y) + pos.y)});
      // scale 8 mixes toward 1 by 0.5 u: the import's range runs the other way.
      const double size = 8 + (1 - 8) * 0.5 * (1 - unit(st, Channel::kSizeEnvelope));
      CHECK(p.w == Approx(size).epsilon(1e-12));
      ++checked;
    }
  }
  CHECK(checked > 20);
  CHECK(worst < 1e-6);
}

namespace {

const char* kRobloxRef = R"(<roblox version="4">
  <Item class="Part" referent="1">
    <Properties>
      <CoordinateFrame name="CFrame"><X>2</X><Y>1</Y><Z>5</Z>
        <R00>1</R00><R01>0</R01><R02>0</R02><R10>0</R10><R11>1</R11><R12>0</R12>
        <R20>0</R20><R21>0</R21><R22>1</R22></CoordinateFrame>
      <Vector3 name="size"><X>2</X><Y>1</Y><Z>1</Z></Vector3>
    </Properties>
    <Item class="ParticleEmitter" referent="2">
      <Properties>
        <string name="Name">Jet</string>
        <float name="Rate">40</float>
        <NumberRange name="Lifetime">1 3 </NumberRange>
        <NumberRange name="Speed">3 6 </NumberRange>
        <Vector2 name="SpreadAngle"><X>25</X><Y>0</Y></Vector2>
        <Vector3 name="Acceleration"><X>1</X><Y>-2</Y><Z>9</Z></Vector3>
        <float name="Drag">0.5</float>
        <NumberSequence name="Size">0 1 0.4 0.3 2 1 1 0.5 0.25 </NumberSequence>
        <NumberSequence name="Transparency">0 0.3 0.2 1 0.9 0.1 </NumberSequence>
        <NumberRange name="Rotation">10 50 </NumberRange>
        <NumberRange name="RotSpeed">20 80 </NumberRange>
        <float name="TimeScale">0.8</float>
      </Properties>
    </Item>
  </Item>
</roblox>
)";

}  // namespace

TEST_CASE("imported Roblox emitters agree with the Roblox reference, particle by particle",
          "[import][roblox]") {
  ImportOptions o;
  o.px_per_stud = 20;
  const ImportResult r = import_text(kRobloxRef, "jet.rbxmx", o);
  const Effect fx = load_effect(r.toml, "jet.rbxmx", ".");
  const Emitter& em = fx.emitters[0];
  CHECK(em.envelope_per_key);
  const double s = 0.8, k = 20, drag = 0.5 * std::log(2.0);
  int checked = 0;
  double worst = 0;
  for (double t : {0.7, 2.2, 3.9}) {
    const Frame f = evaluate(fx, clock_at_time(fx, t));
    for (const Particle& p : f.emitters[0].particles) {
      const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
      const double tr = s * p.age_s;  // Roblox's own clock runs at TimeScale
      // Launch: Top, spread within the front plane, the part's box.
      const double a = kPi / 2 + (2 * unit(st, Channel::kSpread) - 1) * 25 * kPi / 180;
      const double speed = lerp(3, 6, unit(st, Channel::kSpeed));
      const V2 p0{(2 * unit(st, Channel::kShapeU) - 1) * 1,
                  (2 * unit(st, Channel::kShapeV) - 1) * 0.5};
      const V2 v0{speed * std::cos(a), speed * std::sin(a)}, acc{1, -2};  // z dropped
      // Drag k = Drag ln 2 (halvings per second), on dv/dt = a - k v.
      const double e = std::exp(-drag * tr), sig = (1 - e) / drag;
      const V2 vin{acc.x / drag, acc.y / drag};
      const V2 pos{p0.x + vin.x * tr + (v0.x - vin.x) * sig,
                   p0.y + vin.y * tr + (v0.y - vin.y) * sig};
      worst = std::max({worst, std::abs((p.x - em.position.x) / k - pos.x),
                        std::abs((p.y - em.position.y) / k - pos.y)});
      // Size and transparency: each keypoint's envelope rolled apart.
      const double tau = p.age_s / p.life_s;
      const auto key = [&](uint32_t base, int i, double v, double env) {
        return v + env * (2 * unit_raw(st, base + i) - 1);
      };
      const uint32_t sb = static_cast<uint32_t>(Channel::kSizeKeyEnvelope0);
      const double s0 = key(sb, 0, 1, 0.4), s1 = key(sb, 1, 2, 1), s2 = key(sb, 2, 0.5, 0.25);
      const double size = tau < 0.3 ? lerp(s0, s1, tau / 0.3) : lerp(s1, s2, (tau - 0.3) / 0.7);
      CHECK(p.w == Approx(k * size).epsilon(1e-9));
      const uint32_t tb = static_cast<uint32_t>(Channel::kTransparencyKeyEnvelope0);
      const double tt = lerp(key(tb, 0, 0.3, 0.2), key(tb, 1, 0.9, 0.1), tau);
      CHECK(p.alpha == Approx(1 - std::clamp(tt, 0.0, 1.0)).margin(1e-9));
      // Rotation: clockwise in Roblox; the import's range runs the other way.
      const double rot = lerp(10, 50, 1 - unit(st, Channel::kRotation)) +
                         lerp(20, 80, 1 - unit(st, Channel::kRotationSpeed)) * tr;
      CHECK(p.rotation_deg == Approx(-rot).margin(1e-9));
      ++checked;
    }
  }
  CHECK(checked > 100);
  CHECK(worst < 1e-9);
}

TEST_CASE("a Roblox model: parents, attributes, enums, sequences and the texture map",
          "[import][roblox]") {
  ImportOptions o;
  o.texture_map_name = (kData / "roblox/assets.toml").string();
  o.texture_map_text = read_text(o.texture_map_name);
  const ImportResult r = import_path(kData / "roblox/campfire.rbxmx", o);
  CHECK(r.format == EffectFormat::kRoblox);
  REQUIRE(r.fx.emitters.size() == 3);
  const Emitter& flames = named(r.fx, "Flames");
  const Emitter& embers = named(r.fx, "Embers");
  const Emitter& smoke = named(r.fx, "Smoke");
  // TimeScale 0.5, exact: rates and speeds halved, lives doubled.
  CHECK(flames.rate_per_s == Approx(15));
  CHECK(flames.lifetime_s.max == Approx(4));
  CHECK(flames.spread_deg == 20);  // SpreadAngle.X: in the front plane for Top
  CHECK(flames.shape.kind == ShapeKind::kBox);
  CHECK(flames.shape.a / flames.shape.b == Approx(4));  // the part's 4 x 1 studs seen in front
  CHECK(flames.z_offset == 500);
  CHECK(flames.texture.path == "campfire-1234567.png");  // through the map
  // Emit() only: the EmitCount and EmitDelay attributes, past a string one.
  REQUIRE(embers.bursts.size() == 1);
  CHECK(embers.bursts[0].count == 24);
  CHECK(embers.bursts[0].time_s == Approx(0.25));
  CHECK(embers.direction_deg == 0);  // Right
  CHECK(embers.orientation == Orientation::kVelocityParallel);
  CHECK(embers.flipbook.cols == 2);  // Grid2x2 on builtin:smoke, which fills cells
  CHECK(embers.texture.label() == "builtin:smoke");
  // The attachment: 3 studs above the part, a point; LightEmission -1 clamped.
  const double k = (flames.shape.a * 2) / 4;  // px per stud
  CHECK(smoke.position.y - flames.position.y == Approx(3 * k));
  CHECK(smoke.shape.kind == ShapeKind::kPoint);
  CHECK(smoke.light_emission == 0);
  bool warned = false;
  for (const Diagnostic& d : r.warnings) warned |= d.message.find("LightEmission -1") == 0;
  CHECK(warned);
  // The Rojo form: implicit and explicit values, enum names.
  const ImportResult j = import_path(kData / "roblox/sparks.model.json");
  REQUIRE(j.fx.emitters.size() == 1);
  const Emitter& sp = j.fx.emitters[0];
  CHECK(sp.spread_deg == 60);
  CHECK(sp.orientation == Orientation::kVelocityParallel);
  CHECK(sp.size_px.count == 2);
  CHECK(sp.texture.label() == "builtin:star");  // sparkles_main has no file offline
  CHECK(sp.acceleration.y < 0);
  // The view: from the side the Top emitter still points up; from the top
  // it points out of the screen, a fan.
  ImportOptions side;
  side.view = "side";
  CHECK(import_path(kData / "roblox/sparks.model.json", side).fx.emitters[0].direction_deg == 90);
  ImportOptions top;
  top.view = "top";
  CHECK(import_path(kData / "roblox/sparks.model.json", top).fx.emitters[0].spread_deg == 180);
}

TEST_CASE("bad Godot and Roblox input: located messages, never a crash", "[import]") {
  CHECK(
      import_error("[gd_scene format=3]\n[node name=\"A\" type=\"Node2D\"\n").find("bad.tscn:2:") ==
      0);
  CHECK(import_error("[gd_scene format=3]\n[node name=\"A\" type=\"Node2D\"]\nposition = "
                     "Vector2(1, \n")
            .find("is not closed") != std::string::npos);
  const std::string none = import_error(
      "[gd_scene format=3]\n[node name=\"A\" type=\"Node2D\"]\n[node name=\"B\" "
      "type=\"Sprite2D\" parent=\".\"]\n");
  CHECK(none.find("no particle emitter could be imported") != std::string::npos);
  CHECK(none.find("Node2D, Sprite2D") != std::string::npos);
  CHECK(import_error("[gd_scene format=3]\n[sub_resource type=\"ShaderMaterial\" id=\"s\"]\n"
                     "[node name=\"P\" type=\"GPUParticles2D\"]\nprocess_material = "
                     "SubResource(\"s\")\n")
            .find("the ShaderMaterial has no shader") != std::string::npos);
  CHECK(import_error("[gd_scene format=3]\n[node name=\"P\" type=\"CPUParticles2D\"]\nlifetime "
                     "= 1e300\n")
            .find("bad.tscn:3:12: lifetime must be a finite number") == 0);
  // A format past any int (found by fuzz_import): refused where it stands.
  CHECK(import_error("[gd_scene load_steps=4 format=21e308]\n")
            .find("bad.tscn:1:31: format=inf is not a Godot scene format") == 0);
  CHECK(import_error("[gd_scene format=2.5]\n").find("is not a Godot scene format") !=
        std::string::npos);
  std::string deep = "[gd_scene format=3]\n[node name=\"P\" type=\"CPUParticles2D\"]\nx = ";
  for (int i = 0; i < 100; ++i) deep += "[";
  CHECK(import_error(deep).find("nested too deeply") != std::string::npos);
  // A missing external material: the node is left out, with a located warning.
  const ImportResult r = import_text(
      "[gd_scene format=3]\n[ext_resource type=\"Material\" path=\"res://gone.tres\" id=\"1\"]\n"
      "[node name=\"P\" type=\"CPUParticles2D\"]\n[node name=\"Q\" type=\"GPUParticles2D\" "
      "parent=\".\"]\n"
      "process_material = ExtResource(\"1\")\n",
      "two.tscn");
  CHECK(r.fx.emitters.size() == 1);
  CHECK(r.warnings.front().to_string().find(
            "two.tscn:5:20: the external resource res://gone.tres") == 0);
  // Roblox.
  CHECK(import_error("<roblox version=\"4\"><Item class=\"Part\">", "bad.rbxmx")
            .find("bad.rbxmx:1:") == 0);
  CHECK(import_error("<roblox version=\"4\"><Item class=\"Part\"><Properties/></Item></roblox>",
                     "bad.rbxmx")
            .find("no ParticleEmitter in this file: it holds 1 Part") != std::string::npos);
  CHECK(import_error("{\"className\": \"ParticleEmitter\", \"properties\": {\"Rate\": }}",
                     "bad.model.json")
            .find("bad.model.json:1:") == 0);
  CHECK(import_error("{\"className\": \"ParticleEmitter\", \"properties\": {\n  \"Shape\": "
                     "\"Cube\"}}",
                     "bad.model.json")
            .find("bad.model.json:2:3: Shape Cube is not one Roblox defines") == 0);
  CHECK(import_error("<roblox version=\"4\"><Item class=\"ParticleEmitter\"><Properties><float "
                     "name=\"Rate\">1e30</float></Properties></Item></roblox>",
                     "bad.rbxmx")
            .find("Rate must be a finite number") != std::string::npos);
  CHECK(import_error("{\"properties\": {\"Rate\": 5}}", "Fire.meta.json")
            .find("names no className") != std::string::npos);
  // An init.meta.json that makes its folder a ParticleEmitter imports as one.
  const ImportResult meta = import_text(
      "{\"className\": \"ParticleEmitter\", \"properties\": {\"Rate\": 5, \"Speed\": "
      "{\"NumberRange\": [2, 3]}}}",
      "Fire/init.meta.json");
  REQUIRE(meta.fx.emitters.size() == 1);
  CHECK(meta.fx.emitters[0].name == "Fire");
  CHECK(meta.fx.emitters[0].rate_per_s == 5);
  // Nesting past 256 levels is refused before anything walks it (300,000
  // levels once overflowed the stack).
  std::string deep_json = "{\"className\": \"Part\", \"properties\": {\"X\": ";
  deep_json += std::string(300000, '[') + std::string(300000, ']') + "}}";
  CHECK(import_error(deep_json, "deep.model.json").find("nested more than 256 deep") !=
        std::string::npos);
  CHECK(import_error("<roblox!\x89\xff binary", "bad.rbxm").find("save it from Studio as .rbxmx") !=
        std::string::npos);
}

TEST_CASE("every Godot and Roblox file of the shared corpus imports and shows particles",
          "[import][corpus]") {
  SPRITZ_SKIP_DATA_UNLESS(fs::exists(kCorpus / "godot") && fs::exists(kCorpus / "roblox"),
                          "needs the shared corpus of Godot and Roblox files at " +
                              kCorpus.string() + " (or $SPRITZ_CORPUS)");
  int files = 0;
  for (const fs::path& path : corpus_files(kCorpus, {"godot", "roblox"})) {
    INFO(path);
    ++files;
    const ImportResult r = import_path(path);
    const Effect fx = load_imported(r, path);
    // Visible particles somewhere in the effect's run.
    size_t alive = 0;
    for (int i = 0; i < 8 && alive == 0; ++i) {
      const Frame f = evaluate(fx, clock_at_time(fx, fx.duration_s * i / 8));
      for (const EmitterFrame& ef : f.emitters)
        for (const Particle& p : ef.particles) alive += p.alpha > 0 && p.w > 0;
    }
    CHECK(alive > 0);
  }
  CHECK(files >= 59);
}

// Godot 2D draws textures without mipmaps unless a node asks for them, so
// a small sprite stays sharp: an imported emitter samples bilinear, or as
// Godot 4's texture_filter says (nearest; with mipmaps, trilinear).
TEST_CASE("a Godot node's texture filter: bilinear by default, or as texture_filter says",
          "[import]") {
  const auto filter_of = [](const std::string& node_line) {
    const std::string scene =
        "[gd_scene format=3]\n[sub_resource type=\"ParticleProcessMaterial\" id=\"1\"]\n"
        "particle_flag_disable_z = true\ngravity = Vector3(0, 98, 0)\n"
        "[node name=\"Root\" type=\"Node2D\"]\n"
        "[node name=\"P\" type=\"GPUParticles2D\" parent=\".\"]\n"
        "process_material = SubResource(\"1\")\n" +
        node_line;
    const ImportResult r = import_text(scene, "filter.tscn");
    return load_effect(r.toml, "filter.tscn", ".").emitters.at(0).filter;
  };
  CHECK(filter_of("") == TextureFilter::kBilinear);
  CHECK(filter_of("texture_filter = 2\n") == TextureFilter::kBilinear);
  CHECK(filter_of("texture_filter = 1\n") == TextureFilter::kNearest);
  CHECK(filter_of("texture_filter = 4\n") == TextureFilter::kTrilinear);
  // A Godot 3 scene: filtered, no mipmaps.
  const std::string godot3 =
      "[gd_scene format=2]\n[sub_resource type=\"ParticlesMaterial\" id=1]\n"
      "flag_disable_z = true\n[node name=\"P\" type=\"Particles2D\"]\n"
      "process_material = SubResource( 1 )\n";
  CHECK(load_effect(import_text(godot3, "g3.tscn").toml, "g3.tscn", ".").emitters.at(0).filter ==
        TextureFilter::kBilinear);
}

// Godot 3's preprocess steps the node by 1/fixed_fps (1/30 without one) in
// floats while the time left is >= 0: one step more than asked, each step
// the particles' step times speed_scale, so in spritz's seconds the steps
// times the step. Godot 4 (its current source) runs exactly the time asked
// with speed_scale held at 1: the time over speed_scale.
TEST_CASE("a Godot one-shot node's preprocess starts the effect as Godot runs it", "[import]") {
  const auto start_of = [](const std::string& node_lines, int format) {
    const bool v3 = format == 2;
    const std::string scene =
        "[gd_scene format=" + std::to_string(format) + "]\n[sub_resource type=\"" +
        (v3 ? "ParticlesMaterial" : "ParticleProcessMaterial") + "\" id=\"1\"]\n" +
        (v3 ? "flag_disable_z = true\n" : "particle_flag_disable_z = true\n") +
        "gravity = Vector3(0, 98, 0)\n[node name=\"Root\" type=\"Node2D\"]\n"
        "[node name=\"P\" type=\"" +
        (v3 ? "Particles2D" : "GPUParticles2D") +
        "\" parent=\".\"]\nprocess_material = SubResource(\"1\")\none_shot = true\n" + node_lines;
    const ImportResult r = import_text(scene, "pre.tscn");
    return load_effect(r.toml, "pre.tscn", ".").start_s;
  };
  const double step = static_cast<float>(1.0 / 30);
  CHECK(start_of("preprocess = 0.5\n", 2) == Approx(16 * step).epsilon(1e-12));
  CHECK(start_of("preprocess = 0.5\nspeed_scale = 2.0\n", 2) == Approx(16 * step).epsilon(1e-12));
  CHECK(start_of("preprocess = 0.5\nfixed_fps = 10\n", 2) ==
        Approx(6 * static_cast<double>(0.1f)).epsilon(1e-12));
  CHECK(start_of("preprocess = 0.5\n", 3) == Approx(0.5).epsilon(1e-12));
  CHECK(start_of("preprocess = 0.5\nspeed_scale = 2.0\n", 3) == Approx(0.25).epsilon(1e-12));
  CHECK(start_of("", 3) == 0);
}

// Godot 3's torch: a box of 10 x 36 px (extents 5, 18) under a node turned
// -90 degrees (counter-clockwise on Godot's y-down screen) is 36 px wide and
// 10 tall on screen; spritz turns the box with the node.
TEST_CASE("a turned node turns its emission box and ellipse", "[import][godot]") {
  const auto scene = [](const std::string& extents, const std::string& shape) {
    return "[gd_scene load_steps=2 format=2]\n[sub_resource type=\"ParticlesMaterial\" id=1]\n"
           "flag_disable_z = true\nemission_shape = " +
           shape + "\nemission_box_extents = Vector3( " + extents +
           ", 1 )\nemission_sphere_radius = 6.0\n"
           "[node name=\"P\" type=\"Particles2D\"]\nrotation = -1.5708\nprocess_material = "
           "SubResource( 1 )\n";
  };
  const ImportResult box = import_text(scene("5, 18", "2"), "torch.tscn");
  REQUIRE(box.fx.emitters.size() == 1);
  const Shape& s = box.fx.emitters[0].shape;
  CHECK(s.kind == ShapeKind::kBox);
  CHECK(s.a == Approx(5));
  CHECK(s.b == Approx(18));
  CHECK(s.rotation_deg == Approx(1.5708 * 180 / kPi));
  // As `spritz render torch.tscn` draws it: through the TOML it imports to.
  const Effect fx = load_effect(write_effect(box.fx), "torch.toml", ".");
  const Frame f = evaluate(fx, clock_at_time(fx, 3));
  double wide = 0, tall = 0;
  for (const Particle& p : frame_of(f, fx, "P").particles) {
    wide = std::max(wide, std::abs(p.x - fx.emitters[0].position.x));
    tall = std::max(tall, std::abs(p.y - fx.emitters[0].position.y));
  }
  CHECK(wide > tall);  // the flames spread across, as Godot draws them
  // A sphere looks the same turned: left unturned.
  CHECK(import_text(scene("5, 18", "1"), "disc.tscn").fx.emitters[0].shape.rotation_deg == 0);
}

// Godot 3's trail_divisor (1, its default, is no trail) is not imported:
// said once at its place, even when several nodes share the material.
TEST_CASE("a Godot 3 trail_divisor is noted once, never dropped silently", "[import][godot]") {
  const std::string scene =
      "[gd_scene load_steps=2 format=2]\n[sub_resource type=\"ParticlesMaterial\" id=1]\n"
      "flag_disable_z = true\ntrail_divisor = 5\n"
      "[node name=\"A\" type=\"Particles2D\"]\nprocess_material = SubResource( 1 )\n"
      "[node name=\"B\" type=\"Particles2D\" parent=\".\"]\nprocess_material = SubResource( 1 )\n";
  const ImportResult r = import_text(scene, "trails.tscn");
  REQUIRE(r.fx.emitters.size() == 2);
  int trail_notes = 0;
  for (const Diagnostic& d : r.notes)
    if (d.message.find("trail_divisor 5 is not imported") != std::string::npos) {
      ++trail_notes;
      CHECK(d.to_string().find("trails.tscn:4:") == 0);
    }
  CHECK(trail_notes == 1);
  // The default says nothing.
  std::string plain = scene;
  plain.replace(plain.find("trail_divisor = 5"), 17, "trail_divisor = 1");
  for (const Diagnostic& d : import_text(plain, "plain.tscn").notes)
    CHECK(d.message.find("trail_divisor") == std::string::npos);
}
