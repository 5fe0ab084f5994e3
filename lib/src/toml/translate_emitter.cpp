// One [[emitter]] table: its keys, shape, flipbook and appearance curves,
// and the warnings about emitters that can never show.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "format.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/noise.h"
#include "toml/keys.h"
#include "toml/spellings.h"
#include "toml/text.h"
#include "toml/translator.h"

namespace spritz::toml_load {

namespace fs = std::filesystem;

void Translator::read_emitter(const toml::table& t, Emitter& em) {
  check_keys(t, kEmitterKeys, "[[emitter]]");
  if (auto n = t.get("name"))
    if (auto s = string(*n, "emitter name")) {
      if (const char* why = emitter_name_problem(*s))
        error(*n, "emitter name " + quoted_excerpt(*s) + " " + why);
      else
        em.name = *s;
    }
  if (auto n = t.get("enabled"))
    if (auto v = boolean(*n, "enabled")) em.enabled = *v;
  if (auto n = t.get("position"))
    if (auto v = vec2(*n, "position")) em.position = *v;
  read_emission(t, em);
  read_motion(t, em);
  read_appearance(t, em);
  read_texture(t, em);
  if (auto n = t.get("filter"))
    if (auto i = choice(*n, "filter", words_of<TextureFilter>()))
      em.filter = static_cast<TextureFilter>(*i);
  if (auto n = t.get("flipbook")) read_flipbook(*n, em.flipbook);
  if (auto n = t.get("shape")) read_shape(*n, em.shape);
  if (auto n = t.get("bursts")) read_bursts(*n, em, em.max_particles);
  if (auto n = t.get("trail")) read_trail(*n, em.trail, em.name);
  if (auto n = t.get("turbulence")) read_turbulence(*n, em.turbulence, em.name);
  if (auto n = t.get("path")) {
    em.path_loc = loc(*n);
    read_path(*n, em.path);
  }
  if (auto n = t.get("path_interpolation"))
    if (auto i = choice(*n, "path_interpolation", {"linear", "smooth"})) em.path.smooth = *i == 1;
  if (auto n = t.get("space"))
    if (auto i = choice(*n, "space", words_of<Space>())) em.space = static_cast<Space>(*i);
  if (auto n = t.get("inherit_velocity"))
    if (auto v = bounded(*n, "inherit_velocity", -1e3, 1e3)) em.inherit_velocity = *v;
  if (auto n = t.get("sub")) read_sub(*n, em.sub);
  if (!em.sub.parent_name.empty()) check_sub_keys(t, em);
  read_collisions(t, em);
  read_program(t, em);
}

// rate (a number or keyframes), max_particles, lifetime, speed, direction, spread.
void Translator::read_emission(const toml::table& t, Emitter& em) {
  if (auto n = t.get("rate")) {
    em.rate_loc = loc(*n);
    if (n->is_array()) {
      read_rate_keys(*n, em.rate_curve);
      if (!em.rate_curve.empty())
        em.rate_per_s = *std::max_element(em.rate_curve.key_r.begin(), em.rate_curve.key_r.end());
    } else if (auto v = bounded(*n, "rate", 0, std::numeric_limits<double>::max(), {},
                                Bounds::kNonNegative)) {
      em.rate_per_s = *v;
    }
  }
  if (auto n = t.get("max_particles"))
    if (auto v = integer(*n, "max_particles", 1, kMaxParticlesLimit))
      em.max_particles = static_cast<uint32_t>(*v);
  if (auto n = t.get("lifetime"))
    if (auto r = range(*n, "lifetime", 0, kMaxLifetimeS)) em.lifetime_s = *r;
  if (auto n = t.get("speed"))
    if (auto r = range(*n, "speed", -std::numeric_limits<double>::max())) em.speed_px_per_s = *r;
  if (auto n = t.get("direction")) {
    if (n->is_string()) {
      if (auto i = choice(*n, "direction", {"right", "up", "left", "down"}))
        em.direction_deg = 90.0 * static_cast<double>(*i);
    } else if (auto v = number(*n, "direction")) {
      em.direction_deg = *v;
    }
  }
  if (auto n = t.get("spread"))
    if (auto v = bounded(*n, "spread", 0, 180, "degrees")) em.spread_deg = *v;
}

// acceleration, drag, rotation, rotation speed, orientation.
void Translator::read_motion(const toml::table& t, Emitter& em) {
  if (auto n = t.get("acceleration"))
    if (auto v = vec2(*n, "acceleration")) em.acceleration = *v;
  if (auto n = t.get("drag"))
    if (auto v = number(*n, "drag")) em.drag_per_s = *v;
  if (auto n = t.get("rotation"))
    if (auto r = range(*n, "rotation", -std::numeric_limits<double>::max())) em.rotation_deg = *r;
  if (auto n = t.get("rotation_speed"))
    if (auto r = range(*n, "rotation_speed", -std::numeric_limits<double>::max()))
      em.rotation_speed_deg_per_s = *r;
  if (auto n = t.get("rotation_end"))
    if (auto r = range(*n, "rotation_end", -std::numeric_limits<double>::max())) {
      em.rotation_end_deg = *r;
      em.has_rotation_end = true;
    }
  if (auto n = t.get("orientation"))
    if (auto i = choice(*n, "orientation", words_of<Orientation>()))
      em.orientation = static_cast<Orientation>(*i);
  read_forces(t, em);
  if (auto n = t.get("orbit")) read_orbit(*n, em.orbit);
}

// acceleration_curves = { radial, tangential, linear }: factors over life of
// the three accelerations (model.md 6.1), number curves without envelopes.
void Translator::read_acceleration_curves(const toml::node& n, Forces& f) {
  const toml::table* t =
      inline_table(n, kAccelerationCurveKeys, "acceleration_curves",
                   "acceleration_curves must be a table { radial = [[0, 1], [1, 0]], ... }");
  if (!t) return;
  const char* const names[Forces::kAccelerationCurves] = {"radial", "tangential", "linear"};
  for (size_t i = 0; i < Forces::kAccelerationCurves; ++i) {
    const toml::node* c = t->get(names[i]);
    if (!c) continue;
    const std::string what = std::string("acceleration_curves.") + names[i];
    auto curve_read = curve(*c, what);
    if (!curve_read) continue;
    if (curve_read->has_envelope()) {
      error(*c, what + " takes no envelope: the acceleration's own range varies it");
      continue;
    }
    if (curve_read->max_value() > 1e6 || curve_read->min_value() < -1e6) {
      error(*c, what + " values must be within [-1e6, 1e6]");
      continue;
    }
    f.curves[i] = *curve_read;
    f.curved[i] = true;
  }
}

// radial_, tangential_ and linear_acceleration and their integration step
// (model.md 6.1), and what they cannot be combined with.
void Translator::read_forces(const toml::table& t, Emitter& em) {
  const double any = -std::numeric_limits<double>::max();
  if (auto n = t.get("radial_acceleration"))
    if (auto r = range(*n, "radial_acceleration", any)) em.forces.radial = *r;
  if (auto n = t.get("tangential_acceleration"))
    if (auto r = range(*n, "tangential_acceleration", any)) em.forces.tangential = *r;
  if (auto n = t.get("linear_acceleration"))
    if (auto r = range(*n, "linear_acceleration", any)) em.forces.linear = *r;
  const double huge = std::numeric_limits<double>::max();
  if (auto n = t.get("damping"))
    if (auto r = range(*n, "damping", 0, huge)) em.forces.damping = *r;
  if (auto n = t.get("orbit_velocity"))
    if (auto r = range(*n, "orbit_velocity", any)) em.forces.orbit_velocity = *r;
  if (auto n = t.get("acceleration_curves")) read_acceleration_curves(*n, em.forces);
  if (auto n = t.get("integration")) {
    const toml::table* it = inline_table(*n, kIntegrationKeys, "integration",
                                         "integration must be a table { step = 0.0166667 }");
    if (it)
      if (auto s = it->get("step"))
        if (auto v = bounded(*s, "integration.step", kMinForceStepS, 1, "s")) em.forces.step_s = *v;
  }
  if (const toml::node* o = t.get("orbit")) {
    const bool moving =
        em.forces.any() || em.acceleration.x != 0 || em.acceleration.y != 0 || em.drag_per_s != 0;
    if (moving || t.get("colliders") || t.get("collision"))
      error(*o,
            "orbit motion replaces the ballistic motion: it takes no acceleration, drag, "
            "radial, tangential or linear acceleration, damping, orbit_velocity or colliders "
            "(set them to 0 or remove them)");
    return;
  }
  if (!em.forces.any()) return;
  const char* first = nullptr;
  for (const char* k : {"radial_acceleration", "tangential_acceleration", "linear_acceleration",
                        "damping", "orbit_velocity"})
    if (t.get(k) && !first) first = k;
  const toml::node& at = *t.get(first);
  if (integrated_motion(em) && em.lifetime_s.max / em.forces.step_s > kMaxForceSteps)
    error(at, std::string(first) + " integrates each particle's life in steps of " +
                  fmt_number(em.forces.step_s) + " s, and a lifetime of " +
                  fmt_number(em.lifetime_s.max) + " s needs more than 1e6 of them: " +
                  "shorten the lifetime or lengthen integration.step");
  if (t.get("colliders") || t.get("collision"))
    error(at, std::string(first) +
                  " cannot be combined with colliders (collisions are solved on the closed-form "
                  "ballistic motion)");
}

// orbit = { radius, radius_end, angular_speed } (model.md 6.2).
void Translator::read_orbit(const toml::node& n, Orbit& orbit) {
  const toml::table* t = inline_table(
      n, kOrbitKeys, "orbit",
      "orbit must be a table { radius = [min, max], radius_end = [min, max], angular_speed = 90 }");
  if (!t) return;
  orbit.enabled = true;
  const double any = -std::numeric_limits<double>::max();
  if (auto r = t->get("radius")) {
    if (auto v = range(*r, "orbit.radius", any)) orbit.radius = *v;
  } else {
    error(n, "orbit needs a radius = [min, max] (design px)");
  }
  if (auto r = t->get("radius_end"))
    if (auto v = range(*r, "orbit.radius_end", any)) {
      orbit.radius_end = *v;
      orbit.has_radius_end = true;
    }
  if (auto r = t->get("angular_speed"))
    if (auto v = range(*r, "orbit.angular_speed", any)) orbit.angular_speed_deg_per_s = *v;
}

// size / transparency = { start = [min, max], end = [min, max] } (model.md 7.7).
void Translator::read_ramp(const toml::node& n, std::string_view what, double lo, double hi,
                           Ramp& ramp) {
  const std::string w(what);
  const toml::table* t = inline_table(n, kRampKeys, what,
                                      w + " must be a number, keypoints or { start = [min, max], "
                                          "end = [min, max] }");
  if (!t) return;
  const toml::node* s = t->get("start");
  const toml::node* e = t->get("end");
  if (!s || !e) {
    error(n, w + " = { start, end } needs both start and end");
    return;
  }
  auto a = range(*s, w + ".start", lo, hi);
  auto b = range(*e, w + ".end", lo, hi);
  if (!a || !b) return;
  ramp.enabled = true;
  ramp.start = *a;
  ramp.end = *b;
}

// A colour of a ramp: "#rrggbb" or [r, g, b] whose components may lie
// outside [0, 1] (each roll is clamped at birth, as cocos2d does), within
// ±kMaxColorComponent.
std::optional<Rgb> Translator::ramp_color(const toml::node& n, const std::string& what) {
  const toml::array* a = n.as_array();
  if (!a) return opaque_color(n, what);
  if (a->size() != 3) {
    error(n, what + " must be [r, g, b]");
    return std::nullopt;
  }
  double c[3];
  for (size_t k = 0; k < 3; ++k) {
    auto v = bounded((*a)[k], what + " component", -kMaxColorComponent, kMaxColorComponent);
    if (!v) return std::nullopt;
    c[k] = *v;
  }
  return Rgb{c[0], c[1], c[2]};
}

// color = { start = [colour, colour] or colour, end = ... } (model.md 7.7).
void Translator::read_color_ramp(const toml::node& n, ColorRamp& ramp) {
  const toml::table* t =
      inline_table(n, kRampKeys, "color",
                   "color must be a colour, keypoints or { start = [[r, g, b], [r, g, b]], "
                   "end = [[r, g, b], [r, g, b]] }");
  if (!t) return;
  const auto pair = [&](const toml::node* v, std::string_view which, Rgb& lo, Rgb& hi) {
    const std::string w = "color." + std::string(which);
    if (!v) {
      error(n, "color = { start, end } needs both start and end");
      return false;
    }
    const toml::array* a = v->as_array();
    if (a && a->size() == 2 && !(*a)[0].is_number()) {
      auto c0 = ramp_color((*a)[0], w + " first colour");
      auto c1 = ramp_color((*a)[1], w + " second colour");
      if (!c0 || !c1) return false;
      lo = *c0, hi = *c1;
      return true;
    }
    auto c = ramp_color(*v, w);
    if (!c) return false;
    lo = hi = *c;
    return true;
  };
  if (pair(t->get("start"), "start", ramp.start_min, ramp.start_max) &&
      pair(t->get("end"), "end", ramp.end_min, ramp.end_max))
    ramp.enabled = true;
}

// The curves over life, colour, brightness, light and draw order.
void Translator::read_appearance(const toml::table& t, Emitter& em) {
  if (auto n = t.get("size")) {
    if (n->is_table())
      read_ramp(*n, "size", -std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                em.size_ramp);
    else if (auto c = curve(*n, "size"))
      em.size_px = *c;
  }
  if (auto n = t.get("transparency")) {
    if (n->is_table())
      read_ramp(*n, "transparency", -std::numeric_limits<double>::max(),
                std::numeric_limits<double>::max(), em.transparency_ramp);
    else if (auto c = curve(*n, "transparency"))
      em.transparency = *c;
  }
  if (auto n = t.get("squash"))
    if (auto c = curve(*n, "squash")) em.squash = *c;
  if (auto n = t.get("hue_variation"))
    if (auto r = range(*n, "hue_variation", -1e6, 1e6)) em.hue_variation = *r;
  if (auto n = t.get("envelope_rolls"))
    if (auto i = choice(*n, "envelope_rolls", {"per_curve", "per_key"}))
      em.envelope_per_key = *i == 1;
  if (auto n = t.get("color")) {
    if (n->is_table())
      read_color_ramp(*n, em.color_ramp);
    else if (auto c = color_curve(*n, "color"))
      em.color = *c;
  }
  if (auto n = t.get("brightness"))
    if (auto v = bounded(*n, "brightness", 0, 1e6)) em.brightness = *v;
  if (auto n = t.get("light_emission"))
    if (auto v = bounded(*n, "light_emission", 0, 1)) em.light_emission = *v;
  if (auto n = t.get("light_influence"))
    if (auto v = bounded(*n, "light_influence", 0, 1)) em.light_influence = *v;
  if (auto n = t.get("z_offset"))
    if (auto v = integer(*n, "z_offset", -1'000'000'000, 1'000'000'000)) em.z_offset = *v;
  if (auto n = t.get("draw_order"))
    if (auto i = choice(*n, "draw_order", words_of<DrawOrder>()))
      em.draw_order = static_cast<DrawOrder>(*i);
  if (auto n = t.get("slots")) {
    if (em.draw_order != DrawOrder::kBySlot)
      error(*n, "slots is read with draw_order = \"by_slot\" only");
    else if (auto v = integer(*n, "slots", 1, 1'000'000'000))
      em.slots = static_cast<uint64_t>(*v);
  }
}

// `texture`: "builtin:NAME" or a PNG path, resolved against the effect's
// folder; the load step checks that the file is there, so a typo is
// reported with the rest.
void Translator::read_texture(const toml::table& t, Emitter& em) {
  if (auto n = t.get("texture")) {
    if (auto s = string(*n, "texture")) {
      em.texture_loc = loc(*n);
      em.texture = TextureRef::parse(*s);
      if (em.texture.builtin()) {
        // The name is checked against the built-ins when the texture is made.
      } else if (s->empty()) {
        error(*n, "texture must be \"builtin:NAME\" or a PNG path");
      } else {
        fs::path p(*s);
        if (p.is_relative() && base_dir_ != ".") p = fs::path(base_dir_) / p;
        em.texture.path = p.lexically_normal().string();
        if (std::find(provided_textures.begin(), provided_textures.end(), em.texture.path) !=
            provided_textures.end())
          return;
        const bool from_set = n->source().path && n->source().path->rfind(kSetPrefix, 0) == 0;
        texture_files.push_back({loc(*n), *s, p.string(), from_set});
      }
    }
  } else {
    em.texture_loc = loc(t);
  }
}

void Translator::read_shape(const toml::node& n, Shape& shape) {
  const toml::table* t = inline_table(
      n, kShapeKeys, "shape", "shape must be a table { kind = \"ellipse\", size = [w, h] }");
  if (!t) return;
  if (auto k = t->get("kind"))
    if (auto i = choice(*k, "shape.kind", words_of<ShapeKind>()))
      shape.kind = static_cast<ShapeKind>(*i);
  read_shape_points(*t, n, shape);
  double w = 0, h = 0;
  if (auto s = t->get("size")) {
    if (s->is_number()) {
      if (auto v = bounded(*s, "shape.size", 0, 1e7)) w = h = *v;
    } else if (auto v = vec2(*s, "shape.size")) {
      if (v->x < 0 || v->y < 0)
        error(*s, "shape.size must not be negative");
      else
        w = v->x, h = v->y;
    }
  }
  shape.a = w / 2;
  shape.b = h / 2;
  if (auto s = t->get("style"))
    if (auto i = choice(*s, "shape.style", words_of<ShapeStyle>()))
      shape.style = static_cast<ShapeStyle>(*i);
  if (auto s = t->get("in_out"))
    if (auto i = choice(*s, "shape.in_out", words_of<InOut>()))
      shape.in_out = static_cast<InOut>(*i);
  if (auto s = t->get("inner"))
    if (auto v = bounded_as(*s, "shape.inner", 0, 0.999999, "within [0, 1)")) shape.inner = *v;
  if (auto s = t->get("along")) {
    if (auto i = choice(*s, "shape.along", {"normal", "direction"}))
      shape.along_direction = *i == 1;
    if (shape.kind != ShapeKind::kEllipse)
      error(*s,
            "shape.along belongs to kind = \"ellipse\" (a box and points emit along the "
            "direction already)");
  }
  if (auto s = t->get("rotation"))
    if (auto v = bounded(*s, "shape.rotation", -1e6, 1e6)) shape.rotation_deg = *v;
  if (shape.kind == ShapeKind::kEllipse) {
    if (shape.a == 0 && shape.b == 0) {
      shape.kind = ShapeKind::kPoint;  // both semi-axes 0: a point
    } else if (shape.a <= 0 || shape.b <= 0) {
      error(t->get("size") ? *t->get("size") : n,
            "an ellipse needs both sizes > 0 (or both 0 for a point)");
    }
  }
}

// shape = { kind = "points", points = [[x, y], ...], normals = [[x, y], ...] }.
void Translator::read_shape_points(const toml::table& t, const toml::node& n, Shape& shape) {
  const auto list = [&](const char* key, std::vector<Vec2>& out) {
    const toml::node* p = t.get(key);
    if (!p) return;
    if (shape.kind != ShapeKind::kPoints) {
      error(*p, std::string("shape.") + key + " belongs to kind = \"points\"");
      return;
    }
    const toml::array* a = p->as_array();
    if (!a || a->empty() || a->size() > kMaxShapePoints) {
      error(*p, std::string("shape.") + key + " must be 1 to 65536 [x, y] pairs");
      return;
    }
    for (const toml::node& e : *a)
      if (auto v = vec2(e, std::string("shape.") + key)) out.push_back(*v);
  };
  list("points", shape.points);
  list("normals", shape.normals);
  if (shape.kind != ShapeKind::kPoints) return;
  if (!t.get("points")) error(n, "shape kind \"points\" needs points = [[x, y], ...]");
  if (t.get("size") || t.get("inner") || t.get("style"))
    error(n, "shape kind \"points\" takes points and normals, not size, style or inner");
  if (t.get("normals") && shape.normals.size() != shape.points.size())
    error(*t.get("normals"), "shape.normals must give one normal per point (" +
                                 std::to_string(shape.points.size()) + "), got " +
                                 std::to_string(shape.normals.size()));
}

void Translator::read_flipbook(const toml::node& n, Flipbook& fb) {
  const toml::table* t =
      inline_table(n, kFlipbookKeys, "flipbook",
                   "flipbook must be a table { layout = [cols, rows], mode = \"loop\", fps = 10 }");
  if (!t) return;
  fb.enabled = true;
  if (auto l = t->get("layout")) {
    const toml::array* a = l->as_array();
    if (!a || a->size() != 2) {
      error(*l, "flipbook.layout must be [cols, rows]");
    } else {
      auto c = integer((*a)[0], "flipbook columns", 1, 256);
      auto r = integer((*a)[1], "flipbook rows", 1, 256);
      if (c && r) {
        fb.cols = static_cast<int>(*c);
        fb.rows = static_cast<int>(*r);
      }
    }
  } else {
    error(n, "flipbook needs a layout = [cols, rows]");
  }
  if (auto m = t->get("mode"))
    if (auto i = choice(*m, "flipbook.mode", words_of<FlipbookMode>()))
      fb.mode = static_cast<FlipbookMode>(*i);
  if (auto f = t->get("fps"))
    if (auto r = range(*f, "flipbook.fps", 0, kMaxFlipbookFps)) fb.fps = *r;
  if (auto f = t->get("cycles")) {
    if (t->get("fps"))
      error(*f, "flipbook takes fps (cells per second) or cycles (plays per life), not both");
    else if (auto r = range(*f, "flipbook.cycles", 0, kMaxFlipbookFps)) {
      fb.fps = *r;
      fb.per_life = true;
    }
  }
  if (auto r = t->get("random_start"))
    if (auto b = boolean(*r, "flipbook.random_start")) fb.random_start = *b;
}

// A curve of one value per position along a trail: within [0, 1], and no
// envelope (a trail has no random roll of its own).
std::optional<Curve> Translator::unit_curve(const toml::node& n, std::string_view what) {
  auto c = curve(n, what);
  if (!c) return std::nullopt;
  if (c->has_envelope()) {
    error(n, std::string(what) + " takes no envelope: give [time, value] keypoints");
    return std::nullopt;
  }
  if (c->min_value() < 0 || c->max_value() > 1) {
    error(n, std::string(what) + " values must be within [0, 1], got " +
                 fmt_number(c->min_value() < 0 ? c->min_value() : c->max_value()));
    return std::nullopt;
  }
  return c;
}

// An enabled emitter that loads but can never show a particle: a mistake the
// renderer would answer with a silent empty frame.
void Translator::warn_invisible(const toml::table& t, const Emitter& em) {
  if (!em.enabled) return;
  const std::string who = "emitter '" + em.name + "' ";
  const bool bursts = std::any_of(em.bursts.begin(), em.bursts.end(),
                                  [](const BurstGroup& b) { return b.count > 0; });
  if (!em.sub.parent_name.empty()) {
    if (em.sub.on == SubEvent::kLife ? em.rate_per_s == 0 : em.sub.count == 0)
      warnings.push_back({em.sub.loc, who + "never emits: its " +
                                          (em.sub.on == SubEvent::kLife ? "rate" : "sub.count") +
                                          " is 0"});
  } else if (em.rate_per_s == 0 && !bursts) {
    warnings.push_back({loc(t.get("rate") ? *t.get("rate") : static_cast<const toml::node&>(t)),
                        who + "never emits: its rate is 0 and it has no bursts"});
  }
  // A parent drawn invisibly is a carrier for its sub-emitters: no warning.
  if (const toml::node* n = t.get("transparency");
      n && em.transparency.min_value() >= 1 && !has_children(em))
    warnings.push_back({loc(*n), who + "is invisible: its transparency is 1 or more over the whole "
                                       "life (transparency 0 is opaque, 1 fully transparent)"});
  if (const toml::node* n = t.get("size"); n && em.size_px.max_value() <= 0 && !has_children(em))
    warnings.push_back({loc(*n), who + "draws nothing: its size is 0 or less over the whole life"});
}

}  // namespace spritz::toml_load
