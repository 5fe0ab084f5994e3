// Godot 2D particles into the model (docs/import.md, following
// docs/formats/godot.md): GPUParticles2D with a ParticleProcessMaterial and
// CPUParticles2D (Godot 4), Particles2D with a ParticlesMaterial and
// CPUParticles2D (Godot 3), one emitter per node, placed by the node
// transforms.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include "common.h"
#include "godot_importer.h"
#include "godot_text.h"
#include "spritz/angle.h"
#include "spritz/elementary.h"
#include "spritz/raster/png.h"
#include "spritz/rate.h"
#include "texture.h"

namespace spritz::import_detail {
namespace godot_import {

// Launch, gravity and forces, in spritz's y-up terms (docs/formats/godot.md 4, 5).
void GodotImporter::map_motion(const Section& node, const Process& p, const Xform& x, double s,
                               Emitter& em) {
  // Godot's vectors turn with the node and flip their y; the node's scale
  // multiplies speeds and shape offsets.
  const double sc = std::sqrt(std::abs(x.scale.x * x.scale.y));
  const Vec2 dir = turn(p.direction, x.rot);
  em.direction_deg = math::atan2(-dir.y, dir.x) * 180 / kPi;
  em.spread_deg = std::clamp(p.spread, 0.0, 180.0);
  em.speed_px_per_s = {p.velocity.min * sc * s, p.velocity.max * sc * s};
  const bool local = flag(node, "local_coords", v3_);
  Vec2 g = local ? turn(p.gravity, x.rot) * sc : p.gravity;
  em.acceleration = {g.x * s * s, -g.y * s * s};
  em.space = local ? Space::kLocal : Space::kWorld;
  // In world space the process runs in the scene's pixels (only the launch
  // goes through the node's transform); in local space all of it scales.
  const double fs = local ? sc : 1.0;
  em.forces.radial = {p.radial.min * fs * s * s, p.radial.max * fs * s * s};
  em.forces.tangential = {-p.tangential.max * fs * s * s, -p.tangential.min * fs * s * s};
  em.forces.linear = {p.linear.min * fs * s * s, p.linear.max * fs * s * s};
  map_accel_curves(p, fs * s * s, em.forces);
  em.forces.damping = {std::max(0.0, p.damping.min) * fs * s * s,
                       std::max(0.0, p.damping.max) * fs * s * s};
  em.forces.orbit_velocity = {p.orbit.min * 360 * s, p.orbit.max * 360 * s};
  em.forces.step_s = o_.step_s / s;
  if (integrated_motion(em) && em.lifetime_s.max / em.forces.step_s > 1e6)
    throw Error(node.loc, "a lifetime of " + fmt(em.lifetime_s.max) +
                              " s needs more than 1e6 steps of " + fmt(em.forces.step_s) +
                              " s to integrate its forces; import with a longer --step");
  if (!p.disable_z)
    note(node.loc,
         "the material is not in 2D mode (particle_flag_disable_z): Godot spreads it in a "
         "3D cone seen flat; spritz spreads it in the plane");
}

// The acceleration curves (docs/formats/godot.md 2.3) as spritz's factors
// over life. Godot 4 multiplies the rolled acceleration by its curve. Godot 3
// adds the curve before the roll: (a + c(tau)) mix(1, u, r), which is the
// rolled a times 1 + c / a, or, where a is 0, a unit acceleration rolled the
// same way times c. `k` turns Godot's px/s^2 into spritz's.
void GodotImporter::map_accel_curves(const Process& p, double k, Forces& f) {
  Range* const ranges[3] = {&f.radial, &f.tangential, &f.linear};
  for (size_t i = 0; i < 3; ++i) {
    if (!p.accel_curve[i]) continue;
    const GodotCurve& c = *p.accel_curve[i];
    Range& r = *ranges[i];
    const double sign = i == Forces::kTangentialCurve ? -1 : 1;  // clockwise on screen in Godot
    double base = 0;  // Godot 3's a, in Godot's units; 0: the curve alone
    if (v3_) {
      base = sign * (std::abs(r.max) >= std::abs(r.min) ? r.max : r.min) / k;
      if (base == 0) {
        const double lo = (1 - p.accel_random[i]) * k * sign, hi = k * sign;
        r = {std::min(lo, hi), std::max(lo, hi)};
      }
    }
    double err = 0;
    const std::vector<double> times =
        fit_times([&](double t) { return std::vector<double>{c.at(t)}; }, c.breaks(), 0.002, &err);
    Curve out;
    out.count = static_cast<int>(times.size());
    for (size_t j = 0; j < times.size(); ++j) {
      out.t[j] = times[j];
      out.value[j] = base != 0 ? 1 + c.at(times[j]) / base : c.at(times[j]);
    }
    f.curves[i] = out;
    f.curved[i] = true;
  }
}

// The emission shape (docs/formats/godot.md 2.5), placed by the node.
void GodotImporter::map_shape(const Process& p, const Xform& x, Emitter& em) {
  // The shape, centred on the node (plus the material's offset).
  Shape& sh = em.shape;
  const Vec2 off = turn(Vec2{p.shape_offset.x * x.scale.x, p.shape_offset.y * x.scale.y}, x.rot);
  em.position = {x.pos.x + off.x, -(x.pos.y + off.y)};
  const double ssx = std::abs(x.scale.x * p.shape_scale.x),
               ssy = std::abs(x.scale.y * p.shape_scale.y);
  switch (p.shape) {
    case 0:
      break;
    case 1:
    case 2:
    case 6: {
      const double R = std::abs(p.shape == 6 ? p.ring_radius : p.sphere_radius);
      if (R > 0) {
        sh.kind = ShapeKind::kEllipse;
        sh.a = R * ssx, sh.b = R * ssy;
        sh.along_direction = true;
        if (p.shape == 6) sh.inner = std::clamp(p.ring_inner / R, 0.0, 0.999999);
      }
      if (p.shape == 1)
        note(p.shape_loc,
             "a sphere is emitted from a uniform disc (Godot's 2D sphere is denser toward the "
             "centre)");
      if (p.shape == 2)
        note(p.shape_loc,
             "a sphere surface seen flat is a disc denser toward the rim: emitted from a uniform "
             "disc");
      break;
    }
    case 3:
      sh.kind = ShapeKind::kBox;
      sh.a = std::abs(p.box_extents.x) * ssx, sh.b = std::abs(p.box_extents.y) * ssy;
      break;
    case 4:
    case 5:
      if (p.points.empty()) break;
      sh.kind = ShapeKind::kPoints;
      for (const Vec2& q : p.points) {
        const Vec2 w = turn(Vec2{q.x * x.scale.x, q.y * x.scale.y}, x.rot);
        sh.points.push_back({w.x, -w.y});
      }
      if (p.shape == 5 && !p.normals.empty()) {
        // Godot turns the launch onto each normal with a mirror (rotm =
        // [n, (n.y, -n.x)]: the launch angle phi goes to angle(n) - phi),
        // then by the node. In spritz's y-up terms that is the normal
        // flipped and the direction measured from it as phi - rotation.
        for (const Vec2& q : p.normals) sh.normals.push_back({q.x, -q.y});
        em.direction_deg = (math::atan2(p.direction.y, p.direction.x) - x.rot) * 180 / kPi;
      }
      break;
    default:
      warn(p.shape_loc,
           "emission_shape " + std::to_string(p.shape) + " is not one Godot defines: a point");
  }
  // The node's turn, clockwise in Godot's y-down canvas, is counter-clockwise
  // negated in spritz's y-up one (the points above are turned already; a
  // circle looks the same turned, and is left as it is).
  if (sh.kind == ShapeKind::kBox || (sh.kind == ShapeKind::kEllipse && sh.a != sh.b))
    sh.rotation_deg = -x.rot * 180 / kPi;
}

// What spritz does not import (docs/import.md): each said where it is.
void GodotImporter::note_dropped(const Section& node, const Section& proc) {
  static const char* const kDropped[] = {"sub_emitter",
                                         "sub_emitter_mode",
                                         "trail_enabled",
                                         "turbulence_enabled",
                                         "collision_mode",
                                         "color_initial_ramp",
                                         "emission_curve",
                                         "angle_curve",
                                         "angular_velocity_curve",
                                         "hue_variation_curve",
                                         "orbit_velocity_curve",
                                         "damping_curve",
                                         "anim_speed_curve",
                                         "anim_offset_curve",
                                         "directional_velocity_min",
                                         "radial_velocity_min",
                                         "velocity_limit_curve",
                                         "scale_over_velocity_curve",
                                         "inherit_velocity_ratio",
                                         "particle_flag_damping_as_friction"};
  for (const char* k : kDropped)
    for (const Section* sec : {&proc, &node})
      if (const Value* v = sec->prop(k); v && !(v->kind == Value::Kind::kBool && !v->boolean) &&
                                         !(v->is_number() && v->number == 0))
        note(v->loc, std::string(k) + " is not imported (docs/import.md, Godot)");
  // Godot 3's trails: its default, 1, is no trail, so it needs its own test.
  for (const Section* sec : {&proc, &node})
    if (const Value* v = sec->prop("trail_divisor"); v && v->is_number() && v->number > 1) {
      char n[32];
      std::snprintf(n, sizeof n, "%g", v->number);
      note(v->loc, "trail_divisor " + std::string(n) +
                       " is not imported: Godot draws all but one slot in each group of that many "
                       "as a trail following its leader, spritz draws every particle on its own "
                       "(docs/import.md, Godot)");
    }
}

// How far Godot's preprocess runs the node, in spritz's seconds (the
// node's seconds divided by speed_scale, as lifetimes are).
// - Godot 3 steps the system by 1/fixed_fps (1/30 without one), in floats,
//   while the time left is at least 0, each step advancing the particles by
//   the step times speed_scale: one step more than asked, and in spritz's
//   seconds the steps times the step, whatever the speed scale.
// - Godot 4, as its current source reads, runs exactly the time asked with
//   speed_scale held at 1 meanwhile (the last step cut short): the time
//   divided by speed_scale. (Godot 4's first releases stepped as Godot 3
//   did; a scene does not say which release wrote it.)
double GodotImporter::preprocess_seconds(double preprocess, double fixed_fps, double speed_scale,
                                         bool godot3) {
  if (preprocess <= 0) return 0;
  if (!godot3) return preprocess / speed_scale;
  const double step = fixed_fps > 0 ? 1 / fixed_fps : 1.0 / 30;
  if (preprocess / step > 1e7) return (std::floor(preprocess / step) + 1) * step;
  const float frame = static_cast<float>(step);
  double steps = 0;
  for (float todo = static_cast<float>(preprocess); todo >= 0; todo -= frame) ++steps;
  return steps * static_cast<double>(frame);
}

bool GodotImporter::map_node(const Section& node, const Xform& x, Effect& fx, Timing& timing) {
  const std::string type = node.attr_text("type");
  const bool cpu = type == "CPUParticles2D";
  const std::string name = node.attr_text("name");
  const Doc* shader_doc = nullptr;
  if (!cpu)
    if (const Section* sm = shader_material_of(node, &shader_doc))
      return map_shader_node(node, x, *sm, *shader_doc, fx, timing);
  const Doc* proc_doc = nullptr;
  const Section* proc = process_of(node, &proc_doc);
  if (!proc) return false;
  v3_ = godot3_names(*proc, type);
  Process p = read_process(*proc, *proc_doc, cpu, cpu && v3_);
  // GPUParticles2D's fix-up (docs/formats/godot.md 2.3): a material still at the
  // 3D default gravity and not in 2D mode becomes 2D with gravity (0, 98).
  if (!cpu && !p.disable_z && p.gravity.x == 0 && p.gravity.y == -9.8) {
    p.disable_z = true;
    p.gravity = {0, 98};
  }
  Emitter em;
  em.name = emitter_name(name, fx);
  const double s = num(node, "speed_scale", 1);
  const double amount =
      std::floor(num(node, "amount", 8)) * std::clamp(num(node, "amount_ratio", 1), 0.0, 1.0);
  const double life = num(node, "lifetime", 1);
  if (s <= 0 || amount < 1 || life <= 0) {
    warn(node.loc, "the " + type + " '" + printable(name) + "' emits nothing (amount " +
                       fmt(amount) + ", lifetime " + fmt(life) + ", speed_scale " + fmt(s) +
                       "): left out");
    return false;
  }
  if (amount > 1e7 || life > 1e6)
    throw Error(node.loc, "amount must be at most 1e7 and lifetime at most 1e6 s");
  const double L = life / s;
  timing.cycle = L;
  timing.amount = amount;
  timing.explosiveness = std::clamp(num(node, "explosiveness", 0), 0.0, 1.0);
  timing.one_shot = flag(node, "one_shot", false);
  timing.preprocess = preprocess_seconds(std::max(0.0, num(node, "preprocess", 0)),
                                         num(node, "fixed_fps", 0), s, main_.doc.format < 3);
  timing.loc = node.loc;
  em.lifetime_s = {L * (1 - p.lifetime_randomness), L};
  em.max_particles = static_cast<uint32_t>(amount + 1);
  if (num(node, "randomness", 0) != 0)
    note(node.loc,
         "randomness (a jitter of each birth by under one gap) is dropped: births are "
         "evenly spaced");
  if (!flag(node, "emitting", true))
    note(node.loc, "emitting = false (a script starts it): imported as emitting from time 0");
  if (node.prop("visible") && !flag(node, "visible", true))
    note(node.loc, "visible = false (a script shows it): imported as drawn");
  map_motion(node, p, x, s, em);
  map_shape(p, x, em);
  // Index draws by slot: particle i of a cycle of `amount` restarts slot
  // i mod amount, a burst's j slot j (model.md 8); Lifetime is oldest first.
  const int order = static_cast<int>(num(node, "draw_order", cpu || v3_ ? 0 : 1));
  em.draw_order = order == 2   ? DrawOrder::kNewestFirst
                  : order == 0 ? DrawOrder::kBySlot
                               : DrawOrder::kOldestFirst;
  if (em.draw_order == DrawOrder::kBySlot) em.slots = static_cast<uint64_t>(amount);
  // The CanvasItemMaterial: blend and flipbook.
  const Section* cm = nullptr;
  if (const Value* m = node.prop("material")) {
    auto ref = deref(*m, main_);
    if (ref && ref->sec && ref->type == "CanvasItemMaterial") cm = ref->sec;
  }
  map_appearance(node, p, x, cm, s, em);
  note_dropped(node, *proc);
  fx.emitters.push_back(std::move(em));
  return true;
}

// A loop holds a whole number of every explosive node's cycles: a
// multiple of their least common multiple (in ms), when that stays within
// a minute and 1000 cycles of each; the least such multiple that is at
// least `longest`, the longest cycle (itself when there is none).
double GodotImporter::loop_period(const std::vector<Timing>& timings, double longest) {
  double period = longest;
  uint64_t l = 1;
  bool whole = true;
  for (const Timing& t : timings) {
    if (t.sub || t.explosiveness <= 0) continue;
    const double ms = std::round(t.cycle * 1000);
    if (std::abs(ms - t.cycle * 1000) > 1e-6 || ms < 1) whole = false;
    if (!whole) break;
    const uint64_t c = static_cast<uint64_t>(ms);
    l = l / std::gcd(l, c) * c;
    if (l > 60000 || l / c > 1000) whole = false;
  }
  if (whole && l > 1) {
    const double lcm_s = static_cast<double>(l) / 1000.0;
    period = lcm_s * std::ceil(period / lcm_s - 1e-9);
  }
  return period;
}

// One node's births over its cycles (`reps` of them in a loop): bursts for
// a fully explosive node, a rate squeezed into the first (1 - e) of each
// cycle for a partly explosive or one-shot one, else the steady stream.
void GodotImporter::map_cycle(const Effect& fx, const Timing& t, double reps, Emitter& em) {
  const double e = t.explosiveness;
  if (e >= 1) {
    BurstGroup b;
    b.count = static_cast<uint32_t>(t.amount);
    b.repeat = static_cast<uint64_t>(t.one_shot ? 1 : reps);
    b.interval_s = t.cycle;
    em.bursts.push_back(b);
    em.rate_per_s = 0;
  } else if (e > 0 || t.one_shot) {
    const double r = t.amount / ((1 - e) * t.cycle);
    em.rate_per_s = r;
    const size_t n = std::min<size_t>(static_cast<size_t>(t.one_shot ? 1 : reps), kMaxRateKeys / 4);
    for (size_t k = 0; k < n; ++k) {
      const double t0 = static_cast<double>(k) * t.cycle, t1 = t0 + (1 - e) * t.cycle;
      for (auto [kt, kr] : {std::pair{t0, r}, {t1, r}, {t1, 0.0}})
        em.rate_curve.key_t.push_back(kt), em.rate_curve.key_r.push_back(kr);
    }
    // Looped: the next cycle's births start at the period's end, so the
    // rate there is the first cycle's (the seam is the cycle's own step).
    if (fx.loop && em.rate_curve.key_t.back() < fx.duration_s)
      for (double kr : {0.0, r})
        em.rate_curve.key_t.push_back(fx.duration_s), em.rate_curve.key_r.push_back(kr);
  } else {
    em.rate_per_s = t.amount / t.cycle;
  }
}

// Emission over time (docs/formats/godot.md 3): the stream amount / cycle; an
// explosive node's births squeezed into the first (1 - e) of each cycle;
// one-shot nodes keep one cycle.
void GodotImporter::map_timing(Effect& fx, const std::vector<Timing>& timings) {
  const bool any_once = std::any_of(timings.begin(), timings.end(),
                                    [](const Timing& t) { return t.one_shot && !t.sub; });
  double period = 0, end = 0;
  double child_life = 0;  // a sub-emitter's children outlive their parents' births
  for (size_t i = 0; i < timings.size(); ++i) {
    const Timing& t = timings[i];
    if (t.sub) {  // born when its parent's shader says
      child_life = std::max(child_life, fx.emitters[i].lifetime_s.max);
      continue;
    }
    period = std::max(period, timings[i].cycle);
    end = std::max(
        end, t.cycle * (t.one_shot ? 1 - t.explosiveness : 2) + fx.emitters[i].lifetime_s.max);
  }
  fx.loop = !any_once;
  fx.seamless = o_.seamless;  // Godot's own: a cycling loop (model.md 4.5)
  if (fx.loop) period = loop_period(timings, period);
  fx.duration_s = fx.loop ? period : std::max(end + child_life, 1.0 / fx.fps);
  double pre = -1;
  for (size_t i = 0; i < timings.size(); ++i) {
    const Timing& t = timings[i];
    Emitter& em = fx.emitters[i];
    if (t.sub) continue;
    const double e = t.explosiveness;
    const double reps = fx.loop ? std::max(1.0, std::floor(period / t.cycle + 1e-9)) : 1;
    if (fx.loop && std::abs(reps * t.cycle - period) > 1e-9 * period && (e > 0))
      note(t.loc, "this node's cycle (" + fmt(t.cycle) +
                      " s) does not divide the effect's period (" + fmt(period) +
                      " s): its last cycle is cut short at the loop");
    map_cycle(fx, t, reps, em);
    // spritz's Little's-law clamp holds the rate to P / life at every
    // instant: room for the squeezed rate, not only Godot's pool.
    em.max_particles = static_cast<uint32_t>(std::clamp(
        std::max<double>(em.max_particles, std::ceil(em.rate_per_s * em.lifetime_s.max) + 1), 1.0,
        1e7));
    if (t.preprocess > 0) {
      if (pre < 0)
        pre = t.preprocess;
      else if (pre != t.preprocess)
        note(t.loc, "preprocess differs between nodes; spritz's start is one for the effect: " +
                        fmt(pre) + " s is used");
    }
  }
  if (pre > 0 && !(fx.loop && fx.seamless))
    fx.start_s = pre;
  else if (pre > 0)
    note(timings.front().loc,
         "preprocess is not needed: the seamless loop is shown in its steady state");
}

// The world transform of node `s`, from its parent's in `world`, which
// gets the node's own under its path ("." for the root).
Xform GodotImporter::place_node(const Section& s, std::map<std::string, Xform>& world,
                                bool& root_seen, std::string& path) {
  const std::string name = s.attr_text("name");
  const Value* parent_v = s.attr("parent");
  path.clear();
  Xform parent;
  if (!parent_v) {
    if (root_seen) warn(s.loc, "a second root node: read as a child of the first");
    root_seen = true;
    path = ".";
  } else {
    const std::string pp = parent_v->text;
    auto it = world.find(pp);
    if (it == world.end()) {
      warn(s.loc, "the parent " + printable(pp) + " of node '" + printable(name) +
                      "' is not in the scene: placed at the origin");
    } else {
      parent = it->second;
    }
    path = pp == "." ? name : pp + "/" + name;
  }
  Xform local;
  if (auto p = vec(s, "position")) local.pos = *p;
  if (auto p = vec(s, "scale")) local.scale = *p;
  local.rot =
      s.prop("rotation") ? num(s, "rotation", 0) : num(s, "rotation_degrees", 0) * kPi / 180;
  Xform w;
  w.pos = parent.pos +
          turn(Vec2{local.pos.x * parent.scale.x, local.pos.y * parent.scale.y}, parent.rot);
  w.rot = parent.rot + local.rot;
  w.scale = {parent.scale.x * local.scale.x, parent.scale.y * local.scale.y};
  world[path] = w;
  return w;
}

// An instance of another scene that overrides a particle node's process
// material: read as that node, with Godot's defaults for what the
// instanced scene (not read) would set.
void GodotImporter::map_instance(const Section& s, const Xform& w, Effect& fx,
                                 std::vector<Timing>& timings) {
  const std::string type = main_.doc.format < 3 ? "Particles2D" : "GPUParticles2D";
  note(s.loc, "an instance of another scene that sets a process_material: read as a " + type +
                  " with Godot's defaults for what that scene sets (amount, lifetime, texture)");
  Section node = s;
  Value v;
  v.kind = Value::Kind::kString;
  v.text = type;
  v.loc = s.loc;
  node.attrs.emplace_back("type", v);
  Timing t;
  if (map_node(node, w, fx, t)) timings.push_back(t);
}

// No node spritz can read: the error says what the scene has, and why each
// particle node was left out.
void GodotImporter::refuse_empty(std::vector<std::string> found) {
  std::string what;
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  for (size_t i = 0; i < found.size() && i < 8; ++i) what += (i ? ", " : "") + printable(found[i]);
  std::string why;
  for (const Diagnostic& d : r_.warnings) why += "\n  " + d.to_string();
  throw Error(SourceLoc{main_.path, 1, 1},
              "no particle emitter could be imported: the scene has " +
                  (what.empty() ? std::string("no nodes") : "nodes of type " + what) +
                  " and no GPUParticles2D, Particles2D or CPUParticles2D (nor a 3D particle node "
                  "running a ShaderMaterial) that spritz can read" +
                  why);
}

ImportResult GodotImporter::run() {
  Effect& fx = r_.fx;
  r_.format = EffectFormat::kGodot;
  fx.name = effect_name_from(main_.path);
  fx.fps = 60;
  fx.canvas.tonemap = Tonemap::kClamp;
  fx.canvas.blend = BlendSpace::kSrgb;  // Godot's 2D renderer blends the stored values
  // Node paths and world transforms ("." is the root's children's parent).
  std::map<std::string, Xform> world;
  std::vector<Timing> timings;
  std::vector<std::string> found;
  std::map<std::string, Affine3> world3;     // 3D nodes' transforms
  std::map<std::string, size_t> emitter_of;  // node path -> its emitter
  std::vector<SubLink> links;
  bool root_seen = false;
  for (const Section& s : main_.doc.sections) {
    if (s.tag != "node") continue;
    std::string path;
    const Xform w = place_node(s, world, root_seen, path);
    const Affine3 w3 = place_node_3d(s, path, world3);
    const size_t before = fx.emitters.size();
    const std::string type = s.attr_text("type");
    if (type.empty() && s.attr("instance") && s.prop("process_material")) {
      map_instance(s, w, fx, timings);
      continue;
    }
    if (type == "GPUParticles2D" || type == "Particles2D" || type == "CPUParticles2D") {
      Timing t;
      if (map_node(s, w, fx, t)) {
        timings.push_back(t);
        emitter_of[path] = before;
        if (const Value* to = s.prop("sub_emitter"); to && fx.emitters[before].program)
          links.push_back({before, path, to});
      }
      if (fx.emitters.size() > 256) throw Error(s.loc, "more than 256 particle nodes: refused");
    } else if (type == "GPUParticles3D" || type == "Particles") {
      Timing t;
      if (map_node_3d(s, w3, fx, t))
        timings.push_back(t);
      else
        found.push_back(type);
    } else if (!type.empty()) {
      found.push_back(type);
    }
  }
  // A .tres holding a process material alone: one emitter with Godot's
  // defaults for the node.
  if (!root_seen && main_.resource) {
    // A Shader resource: the shader alone, as a .gdshader file would be.
    const Value* code = main_.resource->prop("code");
    if (code && code->kind == Value::Kind::kString && looks_like_godot_shader(code->text))
      return godot_shader_effect(code->text, main_.path, o_,
                                 ProgramOrigin{code->loc.file, code->loc.line, code->loc.col + 1});
    for (const Section& s : main_.doc.sections)
      if (s.tag == "gd_resource")
        throw Error(s.loc, "a " + printable(s.attr_text("type")) +
                               " resource holds no particle node: import "
                               "the scene (.tscn) that uses it");
  }
  if (fx.emitters.empty()) refuse_empty(found);
  link_sub_emitters(fx, timings, emitter_of, links);
  map_timing(fx, timings);
  // Positions were Godot's (the root at 0): the fit centres them.
  fit_canvas(r_, o_);
  const bool v4 = main_.doc.format >= 3;
  note(SourceLoc{main_.path, 1, 1}, std::string("read as a Godot ") + (v4 ? "4" : "3") +
                                        " scene (format=" + std::to_string(main_.doc.format) +
                                        "), " + std::to_string(fx.emitters.size()) + " emitter" +
                                        (fx.emitters.size() == 1 ? "" : "s"));
  return std::move(r_);
}

}  // namespace godot_import

ImportResult import_godot(std::string_view text, const std::string& source_name,
                          const std::string& base_dir, const ImportOptions& options,
                          const ReadFile& read_file) {
  godot_import::GodotImporter g(text, source_name, base_dir, options, read_file);
  ImportResult r = g.run();
  return finish(std::move(r), source_name, "Godot scene");
}

}  // namespace spritz::import_detail
