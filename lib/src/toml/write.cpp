// The TOML writer: the model back into docs/config.md's format, one key per
// line, every number with the digits that read back as the same double.
#include "spritz/write.h"

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "format.h"
#include "toml/spellings.h"
#include "toml/text.h"

namespace spritz {
namespace {

namespace fs = std::filesystem;

// The shortest decimal that reads back as `v` (fmt_number), made a TOML
// float or integer ("1e+20" is valid TOML; so is "5").
std::string num(double v) {
  return fmt_number(v == 0 ? 0.0 : v);  // -0 reads back as 0 and compares equal
}

std::string range(const Range& r) {
  return r.min == r.max ? num(r.min) : "[" + num(r.min) + ", " + num(r.max) + "]";
}

std::string vec2(Vec2 v) {
  return "[" + num(v.x) + ", " + num(v.y) + "]";
}

std::string rgb(Rgb c) {
  return "[" + num(c.r) + ", " + num(c.g) + ", " + num(c.b) + "]";
}

std::string rgba(Rgba c) {
  return "[" + num(c.r) + ", " + num(c.g) + ", " + num(c.b) + ", " + num(c.a) + "]";
}

// Keypoints [[t, value, envelope], ...] (the envelope left out where it is
// 0) of a curve with `count` keys; `value(k)` writes key k's value. A
// constant with an envelope is written as two equal keys at 0 and 1.
template <typename CurveT, typename Value>
std::string keypoints(const CurveT& c, Value value) {
  std::string out = "[";
  const int n = c.count == 1 ? 2 : c.count;
  for (int k = 0; k < n; ++k) {
    const size_t i = static_cast<size_t>(c.count == 1 ? 0 : k);
    const double t = c.count == 1 ? k : c.t[i];
    out += (k ? ", [" : "[") + num(t) + ", " + value(i);
    if (c.envelope[i] != 0) out += ", " + num(c.envelope[i]);
    out += "]";
  }
  return out + "]";
}

// A number curve: a plain number when constant, else keypoints.
std::string curve(const Curve& c) {
  if (c.count == 1 && c.envelope[0] == 0) return num(c.value[0]);
  return keypoints(c, [&](size_t i) { return num(c.value[i]); });
}

std::string color_curve(const ColorCurve& c) {
  if (c.count == 1 && c.envelope[0] == 0) return rgb(c.srgb[0]);
  return keypoints(c, [&](size_t i) { return rgb(c.srgb[i]); });
}

std::string ramp(const Ramp& r) {
  return "{ start = " + range(r.start) + ", end = " + range(r.end) + " }";
}

std::string color_ramp(const ColorRamp& r) {
  const auto pair = [](Rgb a, Rgb b) {
    const bool same = a.r == b.r && a.g == b.g && a.b == b.b;
    return same ? rgb(a) : "[" + rgb(a) + ", " + rgb(b) + "]";
  };
  return "{ start = " + pair(r.start_min, r.start_max) + ", end = " + pair(r.end_min, r.end_max) +
         " }";
}

std::string quote(const std::string& s) {
  return toml_load::toml_quote(s);
}

template <typename E>
std::string word(E value) {
  return quote(std::string(toml_load::word_of(value)));
}

std::string texture_path(const std::string& path, const std::string& base_dir) {
  if (base_dir == ".") return path;
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  const fs::path base = fs::absolute(base_dir, ec);
  const fs::path rel = abs.lexically_normal().lexically_relative(base.lexically_normal());
  return rel.empty() ? abs.lexically_normal().string() : rel.string();
}

void write_effect_table(std::ostream& o, const Effect& fx) {
  o << "[effect]\n"
    << "name = " << quote(fx.name) << "\n"
    << "seed = " << fx.seed << "\n"
    << "duration = " << num(fx.duration_s) << "\n"
    << "fps = " << num(fx.fps) << "\n"
    << "loop = " << (fx.loop ? "true" : "false") << "\n"
    << (fx.seamless ? "" : "seamless = false\n") << "start = " << num(fx.start_s) << "\n"
    << "time_scale = " << num(fx.time_scale) << "\n\n";
}

void write_canvas(std::ostream& o, const Canvas& c) {
  o << "[canvas]\n"
    << "size = [" << c.width << ", " << c.height << "]\n"
    << "background = " << rgba(c.background_srgb) << "\n"
    << "ambient = " << rgb(c.ambient_srgb) << "\n"
    << "tonemap = " << word(c.tonemap) << "\n"
    << "alpha = " << word(c.alpha) << "\n"
    << "blend = " << word(c.blend) << "\n"
    << "motion_blur = { samples = " << c.blur_samples << ", shutter = " << num(c.shutter)
    << " }\n\n";
}

void write_check(std::ostream& o, const CheckSpec& c) {
  const bool any = !c.times.empty() || c.threshold >= 0 || c.max_diff_pixels >= 0 ||
                   c.max_diff_ratio >= 0 || c.max_channel_diff >= 0;
  if (!any) return;
  o << "[check]\n";
  if (!c.times.empty()) {
    o << "times = [";
    for (size_t i = 0; i < c.times.size(); ++i) o << (i ? ", " : "") << num(c.times[i]);
    o << "]\n";
  }
  if (c.threshold >= 0) o << "threshold = " << num(c.threshold) << "\n";
  if (c.max_diff_pixels >= 0) o << "max_diff_pixels = " << c.max_diff_pixels << "\n";
  if (c.max_diff_ratio >= 0) o << "max_diff_ratio = " << num(c.max_diff_ratio) << "\n";
  if (c.max_channel_diff >= 0) o << "max_channel_diff = " << c.max_channel_diff << "\n";
  o << "\n";
}

// rate, bursts, path and space: what a sub-emitter does not have.
void write_emission(std::ostream& o, const Emitter& em) {
  if (em.rate_curve.empty()) {
    o << "rate = " << num(em.rate_per_s) << "\n";
  } else {
    o << "rate = [";
    for (size_t k = 0; k < em.rate_curve.key_t.size(); ++k)
      o << (k ? ", " : "") << "[" << num(em.rate_curve.key_t[k]) << ", "
        << num(em.rate_curve.key_r[k]) << "]";
    o << "]\n";
  }
  if (em.is_sub() || !em.sub.parent_name.empty()) return;
  if (!em.bursts.empty()) {
    o << "bursts = [";
    for (size_t i = 0; i < em.bursts.size(); ++i) {
      const BurstGroup& b = em.bursts[i];
      o << (i ? ", " : "") << "{ time = " << num(b.time_s) << ", count = " << b.count
        << ", repeat = " << b.repeat;
      if (b.repeat > 1) o << ", interval = " << num(b.interval_s);
      o << " }";
    }
    o << "]\n";
  }
  if (!em.path.empty()) {
    o << "path = [";
    for (size_t k = 0; k < em.path.t.size(); ++k)
      o << (k ? ", " : "") << "[" << num(em.path.t[k]) << ", " << num(em.path.p[k].x) << ", "
        << num(em.path.p[k].y) << "]";
    o << "]\n"
      << "path_interpolation = " << quote(em.path.smooth ? "smooth" : "linear") << "\n";
  }
  o << "space = " << word(em.space) << "\n";
}

void write_collision(std::ostream& o, const Collision& c) {
  if (!c.enabled()) return;
  o << "collision = { response = " << word(c.response) << ", restitution = " << num(c.restitution)
    << ", friction = " << num(c.friction);
  if (c.response == CollisionResponse::kBounce)
    o << ", max_bounces = " << c.max_bounces << ", rest_speed = " << num(c.rest_speed_px_per_s);
  o << " }\ncolliders = [\n";
  for (const Collider& k : c.colliders) {
    switch (k.kind) {
      case ColliderKind::kLine:
        o << "  { kind = \"line\", point = " << vec2(k.point)
          << ", normal = " << vec2(k.normal_written);
        break;
      case ColliderKind::kCircle:
        o << "  { kind = \"circle\", center = " << vec2(k.point) << ", radius = " << num(k.radius);
        break;
      case ColliderKind::kBox:
        o << "  { kind = \"box\", center = " << vec2(k.point) << ", size = " << vec2(k.half * 2);
        break;
    }
    if (k.kind != ColliderKind::kLine) o << ", side = " << quote(k.inside ? "inside" : "outside");
    o << " },\n";
  }
  o << "]\n";
}

void write_program(std::ostream& o, const EmitterProgram& ep);

void write_parts(std::ostream& o, const Emitter& em) {
  if (em.flipbook.enabled) {
    const Flipbook& f = em.flipbook;
    o << "flipbook = { layout = [" << f.cols << ", " << f.rows << "], mode = " << word(f.mode)
      << (f.per_life ? ", cycles = " : ", fps = ") << range(f.fps)
      << ", random_start = " << (f.random_start ? "true" : "false") << " }\n";
  }
  const Shape& s = em.shape;
  if (s.kind == ShapeKind::kPoints) {
    const auto list = [&](const std::vector<Vec2>& v) {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + vec2(v[i]);
      return out + "]";
    };
    o << "shape = { kind = \"points\", in_out = " << word(s.in_out)
      << ", points = " << list(s.points);
    if (!s.normals.empty()) o << ", normals = " << list(s.normals);
  } else {
    o << "shape = { kind = " << word(s.kind) << ", size = [" << num(2 * s.a) << ", " << num(2 * s.b)
      << "], style = " << word(s.style) << ", in_out = " << word(s.in_out)
      << ", inner = " << num(s.inner) << (s.along_direction ? ", along = \"direction\"" : "");
  }
  if (s.rotation_deg != 0) o << ", rotation = " << num(s.rotation_deg);
  o << " }\n";
  if (em.trail.count > 0) {
    const Trail& t = em.trail;
    o << "trail = { count = " << t.count << ", length = " << num(t.length_s)
      << ", fade = " << curve(t.fade) << ", scale = " << curve(t.scale)
      << ", style = " << quote(t.ribbon ? "ribbon" : "ghosts") << " }\n";
  }
  if (em.turbulence.enabled) {
    const Turbulence& t = em.turbulence;
    o << "turbulence = { amplitude = " << curve(t.amplitude) << ", frequency = " << num(t.frequency)
      << ", speed = " << num(t.speed) << ", phase = " << num(t.phase) << " }\n";
  }
  write_collision(o, em.collision);
  if (em.program) write_program(o, *em.program);
  if (!em.sub.parent_name.empty()) {
    o << "sub = { parent = " << quote(em.sub.parent_name) << ", on = " << word(em.sub.on);
    if (em.sub.on != SubEvent::kLife) o << ", count = " << em.sub.count_asked;
    o << " }\n";
  }
}

// The program, inline (a written effect stands alone): a multi-line literal
// string where the text allows one, else an escaped string; then the
// uniforms' values.
void write_program(std::ostream& o, const EmitterProgram& ep) {
  const std::string& t = ep.source;
  bool literal = t.find("\'\'\'") == std::string::npos;
  for (const char c : t) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) literal = false;
  }
  if (literal && !t.empty() && t.back() != '\'')
    o << "program = \'\'\'\n" << t << "\'\'\'\n";
  else
    o << "program = " << quote(t) << "\n";
  const std::vector<UniformInfo>& declared = ep.program->uniforms();
  std::string values;
  for (size_t i = 0; i < declared.size() && i < ep.uniforms.size(); ++i) {
    const std::vector<double>& v = ep.uniforms[i];
    if (v.empty()) continue;
    values += (values.empty() ? "" : ", ") + declared[i].name + " = ";
    if (v.size() == 1) {
      values += num(v[0]);
    } else {
      values += "[";
      for (size_t k = 0; k < v.size(); ++k) values += (k ? ", " : "") + num(v[k]);
      values += "]";
    }
  }
  const std::vector<SamplerInfo>& samplers = ep.program->samplers();
  for (size_t i = 0; i < samplers.size() && i < ep.samplers.size(); ++i)
    if (ep.samplers[i].kind != SamplerBinding::Kind::kNone)
      values +=
          (values.empty() ? "" : ", ") + samplers[i].name + " = " + quote(ep.samplers[i].written);
  if (!values.empty()) o << "uniforms = { " << values << " }\n";
  std::string curves, gradients;
  for (size_t i = 0; i < ep.curves.size(); ++i)
    curves += (i ? ", " : "") + ep.curve_names[i] + " = " + curve(ep.curves[i]);
  for (size_t i = 0; i < ep.gradients.size(); ++i)
    gradients += (i ? ", " : "") + ep.gradient_names[i] + " = " + color_curve(ep.gradients[i]);
  if (!curves.empty()) o << "curves = { " << curves << " }\n";
  if (!gradients.empty()) o << "gradients = { " << gradients << " }\n";
  if (ep.godot) {
    const GodotDialect& g = *ep.godot;
    const auto list = [&](const double* v, size_t n) {
      std::string s = "[";
      for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + num(v[i]);
      return s + "]";
    };
    o << "godot = { amount = " << g.amount << ", speed_scale = " << num(g.speed_scale)
      << ", to_canvas = " << list(g.to_canvas.data(), 6)
      << ", offset = " << list(g.offset.data(), 2)
      << ", emission_transform = " << list(g.emission_transform.data(), 16) << " }\n";
  }
}

// Radial and tangential acceleration and the orbit (model.md 6.1, 6.2).
void write_forces(std::ostream& o, const Emitter& em) {
  const Forces& f = em.forces;
  if (f.enabled())
    o << "radial_acceleration = " << range(f.radial) << "\n"
      << "tangential_acceleration = " << range(f.tangential) << "\n";
  if (Forces::nonzero(f.linear)) o << "linear_acceleration = " << range(f.linear) << "\n";
  if (f.any_curve()) {
    const char* const names[Forces::kAccelerationCurves] = {"radial", "tangential", "linear"};
    o << "acceleration_curves = {";
    const char* sep = " ";
    for (size_t i = 0; i < Forces::kAccelerationCurves; ++i)
      if (f.curved[i]) o << sep << names[i] << " = " << curve(f.curves[i]), sep = ", ";
    o << " }\n";
  }
  if (f.has_damping()) o << "damping = " << range(f.damping) << "\n";
  if (f.has_orbit_velocity()) o << "orbit_velocity = " << range(f.orbit_velocity) << "\n";
  // The step is a process() program's too (model.md 11.1).
  const bool stepped = em.program && em.program->program->has(Stage::kProcess);
  if (f.any() || stepped) o << "integration = { step = " << num(f.step_s) << " }\n";
  if (em.orbit.enabled) {
    const Orbit& b = em.orbit;
    o << "orbit = { radius = " << range(b.radius);
    if (b.has_radius_end) o << ", radius_end = " << range(b.radius_end);
    o << ", angular_speed = " << range(b.angular_speed_deg_per_s) << " }\n";
  }
}

void write_emitter(std::ostream& o, const Emitter& em, const WriteOptions& options) {
  o << "[[emitter]]\n"
    << "name = " << quote(em.name) << "\n"
    << "enabled = " << (em.enabled ? "true" : "false") << "\n"
    << "position = " << vec2(em.position) << "\n";
  const bool life_child = !em.sub.parent_name.empty() && em.sub.on == SubEvent::kLife;
  if (em.sub.parent_name.empty() || life_child) write_emission(o, em);
  o << "max_particles = " << em.max_particles << "\n"
    << "lifetime = " << range(em.lifetime_s) << "\n"
    << "speed = " << range(em.speed_px_per_s) << "\n"
    << "direction = " << num(em.direction_deg) << "\n"
    << "spread = " << num(em.spread_deg) << "\n"
    << "acceleration = " << vec2(em.acceleration) << "\n"
    << "drag = " << num(em.drag_per_s) << "\n"
    << "inherit_velocity = " << num(em.inherit_velocity) << "\n"
    << "rotation = " << range(em.rotation_deg) << "\n"
    << "rotation_speed = " << range(em.rotation_speed_deg_per_s) << "\n";
  if (em.has_rotation_end) o << "rotation_end = " << range(em.rotation_end_deg) << "\n";
  write_forces(o, em);
  o << "size = " << (em.size_ramp.enabled ? ramp(em.size_ramp) : curve(em.size_px)) << "\n"
    << "transparency = "
    << (em.transparency_ramp.enabled ? ramp(em.transparency_ramp) : curve(em.transparency)) << "\n"
    << "squash = " << curve(em.squash) << "\n"
    << (em.envelope_per_key ? "envelope_rolls = \"per_key\"\n" : "")
    << (em.hue_variation.min != 0 || em.hue_variation.max != 0
            ? "hue_variation = " + range(em.hue_variation) + "\n"
            : "")
    << "color = " << (em.color_ramp.enabled ? color_ramp(em.color_ramp) : color_curve(em.color))
    << "\n"
    << "orientation = " << word(em.orientation) << "\n"
    << "brightness = " << num(em.brightness) << "\n"
    << "light_emission = " << num(em.light_emission) << "\n"
    << "light_influence = " << num(em.light_influence) << "\n"
    << "z_offset = " << em.z_offset << "\n"
    << "draw_order = " << word(em.draw_order) << "\n"
    << (em.draw_order == DrawOrder::kBySlot && em.slots > 0
            ? "slots = " + std::to_string(em.slots) + "\n"
            : std::string())
    << "texture = "
    << quote(em.texture.builtin() ? em.texture.label()
                                  : texture_path(em.texture.path, options.base_dir))
    << "\n"
    << "filter = " << word(em.filter) << "\n";
  write_parts(o, em);
  o << "\n";
}

}  // namespace

std::string write_effect(const Effect& fx, const WriteOptions& options) {
  std::ostringstream o;
  if (!options.header.empty()) {
    std::istringstream lines(options.header);
    for (std::string line; std::getline(lines, line);) o << "# " << line << "\n";
    o << "\n";
  }
  write_effect_table(o, fx);
  write_canvas(o, fx.canvas);
  write_check(o, fx.check);
  for (const Emitter& em : fx.emitters) write_emitter(o, em, options);
  return o.str();
}

}  // namespace spritz
