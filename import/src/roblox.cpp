// Roblox ParticleEmitters into the model (docs/import.md, following
// docs/formats/roblox.md): the instance tree of an .rbxmx model or .rbxlx place
// (XML, through pugixml) or a Rojo .model.json (JSON, through
// nlohmann-json), every emitter placed by its Part or Attachment parent and
// seen from a chosen view.
#include "roblox_importer.h"
#include "spritz/elementary.h"

namespace spritz::import_detail {
namespace roblox_import {

std::vector<size_t> key_times(std::vector<double>& t) {
  const size_t n = t.size();
  for (double& x : t) x = std::clamp(x, 0.0, 1.0);
  t.front() = 0;
  t.back() = 1;
  std::vector<size_t> keep;
  std::vector<double> kt;
  for (size_t j = 0; j < n;) {
    size_t e = j;
    while (e + 1 < n && t[e + 1] <= t[j]) ++e;
    const double at = std::max(t[j], kt.empty() ? 0.0 : kt.back());
    if (e > j && at - 1e-6 >= 0 && at - 1e-6 > (kt.empty() ? -1.0 : kt.back())) {
      keep.push_back(j);
      kt.push_back(at - 1e-6);
    }
    if (kt.empty() || at > kt.back()) {
      keep.push_back(e);
      kt.push_back(at);
    }
    j = e + 1;
  }
  if (kt.empty() || kt.front() != 0) {
    keep.insert(keep.begin(), 0);
    kt.insert(kt.begin(), 0);
  }
  t = kt;
  return keep;
}

ColorCurve color_sequence(const Prop& prop) {
  const Prop* c = &prop;
  for (double v : c->nums)
    if (!std::isfinite(v)) throw Error(c->loc, "Color holds a number that is not finite");
  ColorCurve cc;
  if (c->nums.size() == 3) {
    cc = ColorCurve::constant({c->nums[0], c->nums[1], c->nums[2]});
  } else {
    if (c->nums.size() % 5 || c->nums.size() < 10 || c->nums.size() / 5 > kMaxCurveKeys)
      throw Error(c->loc, "Color must be a ColorSequence of 2 to 20 (time, r, g, b, 0) keypoints");
    std::vector<double> t(c->nums.size() / 5);
    for (size_t j = 0; j < t.size(); ++j) {
      t[j] = c->nums[5 * j];
      if (!std::isfinite(t[j]))
        throw Error(c->loc, "Color holds a keypoint time that is not finite");
    }
    const std::vector<size_t> keep = key_times(t);
    cc.count = static_cast<int>(keep.size());
    for (size_t j = 0; j < keep.size(); ++j) {
      const size_t q = 5 * keep[j];
      cc.t[j] = t[j];
      cc.srgb[j] = {std::clamp(c->nums[q + 1], 0.0, 1.0), std::clamp(c->nums[q + 2], 0.0, 1.0),
                    std::clamp(c->nums[q + 3], 0.0, 1.0)};
    }
  }
  return cc;
}

void RobloxImporter::collect(const Instance& i, std::vector<const Instance*>& out) {
  if (i.cls == "ParticleEmitter") out.push_back(&i);
  for (const auto& c : i.children) collect(*c, out);
}

// The emitter's frame: its Attachment's (on its part) or its Part's; a
// model root or folder is the world origin.
Frame3 RobloxImporter::frame_of(const Instance& e, bool* attachment,
                                std::array<double, 3>* size) const {
  *attachment = false;
  *size = {0, 0, 0};
  const auto frame = [&](const Instance& i) {
    Frame3 f;
    if (const Prop* c = i.get("CFrame"); c && c->nums.size() == 12) {
      for (int k = 0; k < 3; ++k) f.p[k] = c->nums[k];
      for (int k = 0; k < 9; ++k) f.r[k] = c->nums[3 + k];
    } else if (const Prop* q = i.get("Position"); q && q->nums.size() == 3) {
      for (int k = 0; k < 3; ++k) f.p[k] = q->nums[k];
    }
    for (double x : f.p)
      if (!std::isfinite(x) || std::abs(x) > 1e7)
        throw Error(i.loc, "a CFrame's position must be within ±1e7 studs");
    for (double x : f.r)
      if (!std::isfinite(x) || std::abs(x) > 2)
        throw Error(i.loc, "a CFrame's rotation must be finite (within ±2)");
    return f;
  };
  const Instance* p = e.parent;
  if (!p) return {};
  const auto part_size = [&](const Instance& part) {
    for (const char* k : {"size", "Size"})
      if (const Prop* s = part.get(k); s && s->nums.size() == 3) {
        for (int j = 0; j < 3; ++j) {
          if (!std::isfinite(s->nums[j])) throw Error(s->loc, std::string(k) + " must be finite");
          (*size)[j] = std::clamp(std::abs(s->nums[j]), 0.0, 1e6);
        }
        return;
      }
  };
  if (p->cls == "Attachment") {
    *attachment = true;
    const Frame3 local = frame(*p);
    if (p->parent && (p->parent->get("CFrame") || p->parent->get("Position")))
      return frame(*p->parent).then(local);
    return local;
  }
  if (p->get("CFrame") || p->get("Position")) {
    part_size(*p);
    return frame(*p);
  }
  return {};
}

// A NumberSequence as a curve (times clamped to [0, 1], values scaled and
// clamped), at most 20 keys as Roblox allows.
std::optional<Curve> RobloxImporter::sequence(const Instance& i, const std::string& k, double scale,
                                              double lo, double hi, const char* what) {
  const Prop* p = i.get(k);
  if (!p) return std::nullopt;
  if (p->nums.size() == 1) {  // a bare number (Rojo implicit): a constant
    Curve c = Curve::constant(std::clamp(p->nums[0] * scale, lo, hi));
    return c;
  }
  if (p->nums.size() % 3 || p->nums.size() < 6)
    throw Error(p->loc,
                k + " must be a NumberSequence of (time, value, envelope) keypoints, at least two");
  Curve c;
  const size_t n = p->nums.size() / 3;
  std::vector<double> t(n);
  for (size_t j = 0; j < n; ++j) {
    t[j] = p->nums[3 * j];
    if (!std::isfinite(t[j])) throw Error(p->loc, k + " holds a keypoint time that is not finite");
  }
  const std::vector<size_t> keep = key_times(t);
  if (keep.size() > kMaxCurveKeys)
    throw Error(p->loc, k + " has " + std::to_string(n) + " keypoints; Roblox allows at most 20");
  c.count = static_cast<int>(keep.size());
  bool clamped = false;
  for (size_t j = 0; j < keep.size(); ++j) {
    const double v = p->nums[3 * keep[j] + 1], e = p->nums[3 * keep[j] + 2];
    if (!std::isfinite(v) || !std::isfinite(e) || std::abs(v) > 1e9 || std::abs(e) > 1e9)
      throw Error(p->loc, k + " holds a keypoint that is not finite");
    const double sv = std::clamp(v * scale, lo, hi);
    clamped |= sv != v * scale;
    c.t[j] = t[j], c.value[j] = sv, c.envelope[j] = std::abs(e * scale);
  }
  if (clamped) warn(p->loc, k + " holds values outside " + what + ": clamped");
  return c;
}

// Rate, lifetime and the Emit() bursts (docs/formats/roblox.md 4.1, 4.4); returns
// the lifetime range in Roblox's own seconds.
Range RobloxImporter::map_emission(const Instance& e, double s, Emitter& em) {
  // Rate 0 or disabled: the Emit() count the attributes hold, else --emit.
  const double rate = std::clamp(num(e, "Rate", 20), 0.0, 400.0);
  if (num(e, "Rate", 20) > 400)
    warn(loc(e, "Rate"), "Rate above 400 is clamped to 400, as Roblox does");
  Range life = range(e, "Lifetime", {5, 10});
  if (life.max > 20)
    warn(loc(e, "Lifetime"), "Lifetime above 20 s is clamped to 20, as Roblox does");
  life = {std::clamp(life.min, 0.0, 20.0), std::clamp(life.max, 0.0, 20.0)};
  em.lifetime_s = {life.min / std::max(s, 1e-9), std::max(life.max, 1e-6) / std::max(s, 1e-9)};
  std::map<std::string, double> attrs;
  if (const Prop* a = e.get("AttributesSerialize"); a && a->is_text && !a->text.empty())
    attrs = numeric_attributes(decode_base64(a->text, a->loc));
  for (const auto& [k, p] : e.props)
    if (k.size() > 1 && k[0] == '@' && !p.nums.empty()) attrs[k.substr(1)] = p.nums[0];
  const bool enabled = boolean(e, "Enabled", true);
  if (enabled && rate > 0) {
    em.rate_per_s = rate * s;
  } else {
    em.rate_per_s = 0;
    BurstGroup b;
    auto count = attrs.find("EmitCount");
    if (count != attrs.end() && std::round(count->second) < 1) {
      warn(loc(e, "AttributesSerialize"), "the EmitCount attribute is " + fmt(count->second) +
                                              ", which emits nothing: --emit's " +
                                              std::to_string(o_.emit_count) + " are used instead");
      count = attrs.end();
    }
    const double n =
        count != attrs.end() ? std::clamp(std::round(count->second), 0.0, 1e6) : o_.emit_count;
    b.count = static_cast<uint32_t>(n);
    const auto delay = attrs.find("EmitDelay");
    if (delay != attrs.end()) b.time_s = std::clamp(delay->second, 0.0, 1e6);
    em.bursts.push_back(b);
    note(loc(e, enabled ? "Rate" : "Enabled"),
         std::string(enabled ? "Rate 0" : "Enabled false") +
             ": the emitter only Emit()s; imported as a burst of " + std::to_string(b.count) +
             " at " + fmt(b.time_s) + " s (" +
             (count != attrs.end() ? "its EmitCount attribute" : "--emit") + ")");
  }
  em.max_particles =
      static_cast<uint32_t>(std::clamp(std::ceil(em.rate_per_s * em.lifetime_s.max) + 1 +
                                           (em.bursts.empty() ? 0 : em.bursts[0].count),
                                       1.0, 1e7));
  return life;
}

// Direction, spread, speed, acceleration and drag, seen from the view
// (docs/formats/roblox.md 5).
void RobloxImporter::map_launch(const Instance& e, const Frame3& f, double s, Emitter& em) {
  // Direction: the face's axis turned by the parent, seen from the view.
  static const std::array<std::array<double, 3>, 6> kFaces = {
      {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}};
  int face =
      enum_of(e, "EmissionDirection", 1, {"Right", "Top", "Back", "Left", "Bottom", "Front"});
  if (face < 0 || face > 5) {
    warn(loc(e, "EmissionDirection"),
         "EmissionDirection " + std::to_string(face) + " is not a face: Top is used");
    face = 1;
  }
  const auto axis = f.apply(kFaces[face]);
  const Vec2 d = proj(axis);
  const double dl = std::sqrt(d.x * d.x + d.y * d.y);
  // SpreadAngle: the component whose deviation axis lies most in the view
  // plane spreads in it; the other tilts out of it.
  std::array<double, 3> a1{1, 0, 0}, a2{0, 0, 1};
  if (face == 0 || face == 3) a1 = {0, 1, 0}, a2 = {0, 0, 1};
  if (face == 2 || face == 5) a1 = {1, 0, 0}, a2 = {0, 1, 0};
  const Vec2 p1 = proj(f.apply(a1)), p2 = proj(f.apply(a2));
  double sx =
      std::abs(num(e, "SpreadAngle", e.get("SpreadAngle") ? 0 : num(e, "VelocitySpread", 0), 0));
  double sy = std::abs(num(e, "SpreadAngle", sx, 1));
  if (!e.get("SpreadAngle") && e.get("VelocitySpread")) sy = sx;
  const bool first_in_plane = math::hypot(p1.x, p1.y) >= math::hypot(p2.x, p2.y);
  const double in_plane = first_in_plane ? sx : sy, out_plane = first_in_plane ? sy : sx;
  Range speed = range(e, "Speed", {5, 5});
  if (dl < 1e-6) {
    // Facing the camera: particles fly out of the screen, a radial fan.
    em.direction_deg = 90;
    em.spread_deg = 180;
    const double sn = math::sin(std::min(std::max(sx, sy), 90.0) * kPi / 180);
    speed = {0, std::max(std::abs(speed.min), std::abs(speed.max)) * sn};
    note(loc(e, "EmissionDirection"),
         "the emitter points along the view: its particles fly out of the "
         "screen, imported as a fan (--view sets another view)");
  } else {
    em.direction_deg = math::atan2(d.y, d.x) * 180 / kPi;
    em.spread_deg = std::min(in_plane, 180.0);
    const double c = math::cos(std::min(out_plane, 90.0) * kPi / 180);
    // Speed along the view plane: the axis's own foreshortening, and the
    // out-of-plane spread's cos at the slow end.
    speed = {speed.min * dl * (speed.min >= 0 ? (c < 1e-9 ? 0.0 : c) : 1), speed.max * dl};
    if (speed.min > speed.max) std::swap(speed.min, speed.max);
  }
  const double k = 1;  // studs for now: scaled to px once every emitter is known
  em.speed_px_per_s = {speed.min * k * s, speed.max * k * s};
  const std::array<double, 3> acc{num(e, "Acceleration", 0, 0), num(e, "Acceleration", 0, 1),
                                  num(e, "Acceleration", 0, 2)};
  const Vec2 a = proj(acc);
  em.acceleration = a * (s * s);
  em.drag_per_s = num(e, "Drag", 0) * math::log(2.0) * s;
  if (em.drag_per_s != 0 && (a.x != 0 || a.y != 0))
    note(loc(e, "Drag"),
         "Drag with Acceleration: spritz's drag also slows what the acceleration adds "
         "(terminal velocity a / k)");
  em.space = boolean(e, "LockedToPart", false) ? Space::kLocal : Space::kWorld;
  if (num(e, "VelocityInheritance", 0) != 0)
    note(loc(e, "VelocityInheritance"),
         "VelocityInheritance is dropped: a file has no moving parent");
  if (boolean(e, "WindAffectsDrag", false))
    note(loc(e, "WindAffectsDrag"), "WindAffectsDrag is dropped: no wind offline");
}

// The shape: the part's size seen from the view; a point under an Attachment.
void RobloxImporter::map_shape(const Instance& e, bool attachment,
                               const std::array<double, 3>& part, Emitter& em) {
  const int shape = enum_of(e, "Shape", 0, {"Box", "Sphere", "Cylinder", "Disc"});
  const int style = enum_of(e, "ShapeStyle", 0, {"Volume", "Surface"});
  const int inout = enum_of(e, "ShapeInOut", 0, {"Outward", "Inward", "InAndOut"});
  const double sw =
      std::abs(part[0] * dot3(view_.right, {1, 0, 0}) + part[1] * dot3(view_.right, {0, 1, 0}) +
               part[2] * dot3(view_.right, {0, 0, 1}));
  const double shh =
      std::abs(part[0] * dot3(view_.up, {1, 0, 0}) + part[1] * dot3(view_.up, {0, 1, 0}) +
               part[2] * dot3(view_.up, {0, 0, 1}));
  if (!attachment && sw > 0 && shh > 0) {
    em.shape.kind = shape == 0 ? ShapeKind::kBox : ShapeKind::kEllipse;
    em.shape.a = sw / 2, em.shape.b = shh / 2;
    em.shape.style = style == 1 && shape != 1 ? ShapeStyle::kSurface : ShapeStyle::kVolume;
    if (shape == 3)
      em.shape.inner = std::clamp(num(e, "ShapePartial", 1) < 1 ? num(e, "ShapePartial", 1) : 0.0,
                                  0.0, 0.999999);
    if (shape == 0) em.shape.style = ShapeStyle::kVolume;
  }
  em.shape.in_out = inout == 1 ? InOut::kInward : inout == 2 ? InOut::kBoth : InOut::kOutward;
}

// The flipbook: layout, mode and frame rate (docs/formats/roblox.md 4.3).
void RobloxImporter::map_flipbook(const Instance& e, double s, Emitter& em) {
  const int layout =
      enum_of(e, "FlipbookLayout", 0, {"None", "Grid2x2", "Grid4x4", "Grid8x8", "Custom"});
  if (layout > 0) {
    Flipbook& fb = em.flipbook;
    fb.enabled = true;
    const int g = layout == 1 ? 2 : layout == 2 ? 4 : 8;
    fb.cols = layout == 4 ? std::clamp(static_cast<int>(num(e, "FlipbookSizeX", 1)), 1, 256) : g;
    fb.rows = layout == 4 ? std::clamp(static_cast<int>(num(e, "FlipbookSizeY", 1)), 1, 256) : g;
    const int mode = enum_of(e, "FlipbookMode", 0, {"Loop", "OneShot", "PingPong", "Random"});
    fb.mode = mode == 1   ? FlipbookMode::kOneshot
              : mode == 2 ? FlipbookMode::kPingpong
              : mode == 3 ? FlipbookMode::kRandom
                          : FlipbookMode::kLoop;
    const Range fr = range(e, "FlipbookFramerate", {1, 1});
    fb.fps = {std::clamp(fr.min, 0.0, 30.0) * s, std::clamp(fr.max, 0.0, 30.0) * s};
    fb.random_start = boolean(e, "FlipbookStartRandom", false);
    if (boolean(e, "FlipbookBlendFrames", true))
      note(loc(e, "FlipbookLayout"),
           "FlipbookBlendFrames: Roblox crossfades cells; spritz cuts from one to the next");
    if (fb.cols * fb.rows == 1) fb.enabled = false;
  }
}

// Size, transparency, squash, colour, light, orientation, spin and the
// flipbook (docs/formats/roblox.md 4.2, 4.3; sizes in studs for now).
void RobloxImporter::map_look(const Instance& e, double s, Emitter& em) {
  if (auto c = sequence(e, "Size", 1, 0, 1e6, "[0, 1e6] studs"))
    em.size_px = *c;
  else
    em.size_px = Curve::constant(1);
  if (auto c = sequence(e, "Transparency", 1, 0, 1, "[0, 1]")) em.transparency = *c;
  if (auto c = sequence(e, "Squash", 1, -1e3, 1e3, "[-1000, 1000]")) em.squash = *c;
  em.envelope_per_key = true;
  if (const Prop* c = e.get("Color")) em.color = color_sequence(*c);
  const double le = num(e, "LightEmission", 0), li = num(e, "LightInfluence", 0);
  if (le < 0 || le > 1)
    warn(loc(e, "LightEmission"), "LightEmission " + fmt(le) + " is outside [0, 1]: clamped");
  if (li < 0 || li > 1)
    warn(loc(e, "LightInfluence"), "LightInfluence " + fmt(li) + " is outside [0, 1]: clamped");
  em.light_emission = std::clamp(le, 0.0, 1.0);
  em.light_influence = std::clamp(li, 0.0, 1.0);
  em.brightness = std::clamp(num(e, "Brightness", 1), 0.0, 1e6);
  em.z_offset =
      static_cast<int64_t>(std::llround(std::clamp(num(e, "ZOffset", 0), -1e6, 1e6) * 1000));
  const int orient =
      enum_of(e, "Orientation", 0,
              {"FacingCamera", "FacingCameraWorldUp", "VelocityParallel", "VelocityPerpendicular"});
  const Range rot = range(e, "Rotation", {0, 0}), spin = range(e, "RotSpeed", {0, 0});
  em.rotation_deg = {-rot.max, -rot.min};
  em.rotation_speed_deg_per_s = {-spin.max * s, -spin.min * s};
  if (orient == 2) {
    em.orientation = Orientation::kVelocityParallel;
    em.rotation_deg = {em.rotation_deg.min + 90, em.rotation_deg.max + 90};
  } else if (orient == 3) {
    em.orientation = Orientation::kVelocityPerpendicular;
    note(loc(e, "Orientation"),
         "VelocityPerpendicular turns the quad in 3D (seen edge-on in the plane): drawn "
         "turned a quarter from the velocity, face-on");
  }
  map_flipbook(e, s, em);
}

Pending RobloxImporter::map_emitter(const Instance& e) {
  Pending out{&e, Emitter{}, 0, {}};
  Emitter& em = out.em;
  const double s = std::clamp(num(e, "TimeScale", 1), 0.0, 1.0);
  bool attachment = false;
  std::array<double, 3> part{0, 0, 0};
  const Frame3 f = frame_of(e, &attachment, &part);
  out.pos_studs = proj(f.p);
  const Range life = map_emission(e, s, em);
  map_launch(e, f, s, em);
  map_shape(e, attachment, part, em);
  map_look(e, s, em);
  if (s < 1)
    note(loc(e, "TimeScale"),
         "TimeScale " + fmt(s) +
             ": rates, speeds, spins and the flipbook are slowed, "
             "lifetimes lengthened, accelerations scaled by its square (exact)");
  // Reach, in studs, for the default scale.
  const double t = life.max / std::max(s, 1e-9);
  out.reach_studs = std::max(std::abs(em.speed_px_per_s.min), std::abs(em.speed_px_per_s.max)) * t +
                    0.5 * math::hypot(em.acceleration.x, em.acceleration.y) * t * t +
                    em.size_px.max_value() + std::max(em.shape.a, em.shape.b);
  return out;
}

// No emitter: say what the file holds instead.
[[noreturn]] void refuse_empty(const Instance& top) {
  std::map<std::string, int> classes;
  std::function<void(const Instance&)> count = [&](const Instance& i) {
    if (i.cls != "<file>") ++classes[i.cls];
    for (const auto& c : i.children) count(*c);
  };
  count(top);
  std::string what;
  int shown = 0;
  for (const auto& [c, n] : classes)
    if (shown++ < 8) what += (what.empty() ? "" : ", ") + std::to_string(n) + " " + printable(c);
  throw Error(top.loc, "no ParticleEmitter in this file: it holds " +
                           (what.empty() ? std::string("no instances") : what));
}

// The scale in px per stud: given, or the largest reach at about 200 px (80%
// of a 512 px canvas's half), or 40% of the shorter side of --size; and the
// emitters' common centre, in studs.
double RobloxImporter::scale(const Instance& top, const std::vector<Pending>& pending,
                             Vec2* centre) {
  double reach = 0;
  Vec2 lo{1e300, 1e300}, hi{-1e300, -1e300};
  for (const Pending& p : pending) {
    reach = std::max(reach, p.reach_studs);
    lo = {std::min(lo.x, p.pos_studs.x), std::min(lo.y, p.pos_studs.y)};
    hi = {std::max(hi.x, p.pos_studs.x), std::max(hi.y, p.pos_studs.y)};
  }
  *centre = {(lo.x + hi.x) / 2, (lo.y + hi.y) / 2};
  reach += std::max(hi.x - lo.x, hi.y - lo.y) / 2;
  const double target =
      o_.canvas_width > 0 ? 0.4 * std::min(o_.canvas_width, o_.canvas_height) : 200;
  const double k = std::clamp(o_.px_per_stud > 0 ? o_.px_per_stud
                              : reach > 0        ? target / reach
                                                 : 10,
                              1e-3, 1e4);
  if (o_.px_per_stud <= 0)
    note(top.loc, "scale: " + fmt(k) +
                      " px per stud, fitted so the farthest particle reaches about " + fmt(target) +
                      " px (--px-per-stud sets it)");
  return k;
}

ImportResult RobloxImporter::run(const Instance& top) {
  r_.format = EffectFormat::kRoblox;
  Effect& fx = r_.fx;
  fx.name = effect_name_from(name_);
  fx.fps = 60;
  fx.canvas.tonemap = Tonemap::kClamp;
  read_map();
  std::vector<const Instance*> emitters;
  collect(top, emitters);
  if (emitters.empty()) refuse_empty(top);
  if (emitters.size() > 256)
    throw Error(emitters[256]->loc, "more than 256 ParticleEmitters: refused");
  std::vector<Pending> pending;
  for (const Instance* e : emitters) {
    if (num(*e, "TimeScale", 1) <= 0) {
      warn(loc(*e, "TimeScale"),
           "TimeScale 0 freezes this emitter: nothing is emitted, so it is left out");
      continue;
    }
    pending.push_back(map_emitter(*e));
  }
  if (pending.empty())
    throw Error(top.loc,
                "no ParticleEmitter could be imported (every one is frozen by TimeScale 0)");
  Vec2 centre;
  const double k = scale(top, pending, &centre);
  double longest = 0;
  bool any_burst = false;
  for (Pending& p : pending) {
    Emitter& em = p.em;
    em.position = (p.pos_studs - centre) * k;
    em.speed_px_per_s = {em.speed_px_per_s.min * k, em.speed_px_per_s.max * k};
    em.acceleration = em.acceleration * k;
    em.shape.a *= k, em.shape.b *= k;
    for (int j = 0; j < em.size_px.count; ++j)
      em.size_px.value[j] *= k, em.size_px.envelope[j] *= k;
    const std::string tex = texture_for(*p.inst, p.inst->loc);
    if (tex.rfind("builtin:", 0) == 0) {
      em.texture = TextureRef::parse(tex);
      // A still built-in in a flipbook would show slices of itself: only the
      // animated ones (smoke, sparkle) fill cells.
      if (em.flipbook.enabled && tex != "builtin:smoke" && tex != "builtin:sparkle") {
        em.flipbook.enabled = false;
        note(loc(*p.inst, "FlipbookLayout"),
             "the flipbook is dropped: its texture is not available, "
             "and " +
                 tex + " is a still image");
      }
    } else {
      em.texture.kind = TextureRef::Kind::kFile;
      em.texture.path = tex;  // beside the TOML
    }
    em.name = emitter_name(p.inst->name, fx);
    longest = std::max(longest, em.lifetime_s.max);
    any_burst |= !em.bursts.empty();
    fx.emitters.push_back(std::move(em));
  }
  // Streams loop in their steady state; an Emit()-only effect plays once.
  // A stream loops over its longest life; a burst-only effect plays until
  // its last particle dies.
  fx.loop = !any_burst;
  double end = 0;
  for (const Emitter& em : fx.emitters)
    for (const BurstGroup& b : em.bursts) end = std::max(end, b.time_s + em.lifetime_s.max);
  fx.duration_s = fx.loop
                      ? std::max(1.0, std::ceil(longest * 2) / 2)
                      : std::max(1.0 / fx.fps, std::ceil(std::max(end, longest) * fx.fps) / fx.fps);
  fit_canvas(r_, o_);
  note(top.loc, std::string("read ") + std::to_string(fx.emitters.size()) + " ParticleEmitter" +
                    (fx.emitters.size() == 1 ? "" : "s") + ", seen from the " + o_.view + " view");
  return std::move(r_);
}

}  // namespace roblox_import

ImportResult import_roblox(std::string_view text, const std::string& source_name,
                           const std::string& base_dir, const ImportOptions& options,
                           const ReadFile& read_file) {
  ImportOptions o = options;
  if (o.view.empty()) o.view = "front";
  if (o.view != "front" && o.view != "side" && o.view != "top")
    throw Error("the view must be front, side or top, got \"" + printable(o.view) + "\"");
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const bool json = i < text.size() && text[i] == '{';
  const std::unique_ptr<roblox::Instance> top =
      json ? roblox::parse_json(text, source_name) : roblox::parse_xml(text, source_name);
  roblox_import::RobloxImporter imp(source_name, base_dir, o, read_file);
  ImportResult r = imp.run(*top);
  return finish(std::move(r), source_name, json ? "Rojo model JSON" : "Roblox XML");
}

}  // namespace spritz::import_detail
