// A Godot particle node whose process material is a ShaderMaterial
// (docs/import.md, "Godot particle shaders"): the shader (embedded in the
// scene or a resource, or an external .gdshader/.shader file) becomes the
// emitter's program in the Godot dialect, with the material's parameters
// as its uniforms, and the node's amount, lifetime, timing, place,
// coordinates, texture and blend as the scene gives them.
#include <cstring>

#include "godot_importer.h"

namespace spritz::import_detail::godot_import {
namespace {

// Where a string value's text starts: one column past its opening quote.
ProgramOrigin origin_of(const Value& v) {
  return ProgramOrigin{v.loc.file, v.loc.line, v.loc.col + 1};
}

}  // namespace

// The ShaderMaterial a node's process_material names; null when it names
// something else (process_of reports those).
const Section* GodotImporter::shader_material_of(const Section& node, const Doc** doc) {
  const Value* pm = node.prop("process_material");
  if (!pm) return nullptr;
  auto ref = deref(*pm, main_);
  if (!ref || !ref->sec || ref->type != "ShaderMaterial") return nullptr;
  *doc = ref->doc;
  return ref->sec;
}

// The shader's text and where it starts: the Shader resource's `code`, or
// the external file's; nullopt, with a warning, when there is none.
std::optional<std::pair<std::string, ProgramOrigin>> GodotImporter::shader_code(
    const Section& material, const Doc& in) {
  const Value* sv = material.prop("shader");
  if (!sv) {
    warn(material.loc, "the ShaderMaterial has no shader: Godot draws nothing for it");
    return std::nullopt;
  }
  auto ref = deref(*sv, in);
  if (!ref) return std::nullopt;
  if (ref->sec) {
    const Value* code = ref->sec->prop("code");
    if (!code || code->kind != Value::Kind::kString) {
      warn(sv->loc, "the Shader has no code: Godot draws nothing for it");
      return std::nullopt;
    }
    return std::pair{code->text, origin_of(*code)};
  }
  const std::string path = resolve_res(ref->file);
  const auto bytes = read_file_(path);
  if (!bytes) {
    warn(sv->loc, "the shader file " + printable(ref->file) + " (" + printable(path) +
                      ") is missing: the node is left out");
    return std::nullopt;
  }
  r_.source_files.push_back(path);
  return std::pair{std::string(bytes->begin(), bytes->end()), ProgramOrigin{path, 1, 1}};
}

// A texture parameter bound to sampler `i`: a CurveTexture (or Curve) as
// one of the emitter's curves, a GradientTexture (or Gradient) as one of
// its gradients, both named as the uniform (docs/programs.md, "Textures");
// false for any other texture.
bool GodotImporter::bind_texture(const Value& v, const Doc& in, size_t i, EmitterProgram& ep,
                                 const std::string& emitter) {
  const std::string& name = ep.program->samplers()[i].name;
  SamplerBinding b;
  b.written = name;
  auto ref = deref(v, in);
  if (!ref) return false;
  if (!ref->sec || (ref->type != "CurveTexture" && ref->type != "Curve" &&
                    ref->type.rfind("GradientTexture", 0) != 0 && ref->type != "Gradient")) {
    // An image: written beside the effect as a PNG the sampler reads.
    std::string origin;
    bool file = false;
    const std::optional<Rgba8Image> img = texture(&v, in, &origin, &file, v.loc);
    if (!img) return false;
    b.kind = SamplerBinding::Kind::kImage;
    b.written = texture_file(*img, origin, file, emitter + "-" + name);
    ep.samplers[i] = std::move(b);
    return true;
  }
  if (ref->type == "CurveTexture" || ref->type == "Curve") {
    const std::optional<GodotCurve> c = curve_of(&v, in);
    if (!c) return false;
    double err = 0;
    const std::vector<double> times = fit_times(
        [&](double t) { return std::vector<double>{c->at(t)}; }, c->breaks(), 0.002, &err);
    Curve k;
    k.count = static_cast<int>(times.size());
    for (size_t j = 0; j < times.size(); ++j)
      k.t[j] = times[j], k.value[j] = std::clamp(c->at(times[j]), -1e9, 1e9);
    b.kind = SamplerBinding::Kind::kCurve;
    b.index = static_cast<uint32_t>(ep.curves.size());
    ep.curve_names.push_back(name);
    ep.curves.push_back(k);
  } else if (ref->type.rfind("GradientTexture", 0) == 0 || ref->type == "Gradient") {
    const std::optional<Gradient> g = gradient_of(&v, in);
    if (!g) return false;
    double err = 0;
    const auto rgb = [&](double t) {
      const auto c = g->at(t);
      return std::vector<double>{c[0], c[1], c[2]};
    };
    const std::vector<double> times = fit_times(rgb, g->offsets, 0.002, &err);
    ColorCurve k;
    k.count = static_cast<int>(times.size());
    for (size_t j = 0; j < times.size(); ++j) {
      const std::vector<double> c = rgb(times[j]);
      k.t[j] = times[j];
      k.srgb[j] = {std::clamp(c[0], 0.0, 1e3), std::clamp(c[1], 0.0, 1e3),
                   std::clamp(c[2], 0.0, 1e3)};
    }
    note(v.loc, "the gradient of " + printable(name) +
                    " is read with alpha 1 (a sampler bound to a gradient has no alpha)");
    b.kind = SamplerBinding::Kind::kGradient;
    b.index = static_cast<uint32_t>(ep.gradients.size());
    ep.gradient_names.push_back(name);
    ep.gradients.push_back(k);
  } else {
    return false;
  }
  ep.samplers[i] = std::move(b);
  return true;
}

// The material's parameter values (Godot 3's shader_param/NAME, Godot 4's
// shader_parameter/NAME) as the program's uniforms: numbers, bools,
// vectors and colours; curve and gradient textures as the emitter's
// curves and gradients; an image as a PNG written beside the effect.
void GodotImporter::shader_parameters(const Section& material, const Doc& in, EmitterProgram& ep,
                                      const std::string& emitter) {
  const std::vector<UniformInfo>& declared = ep.program->uniforms();
  ep.uniforms.assign(declared.size(), {});
  ep.samplers.assign(ep.program->samplers().size(), {});
  for (const auto& [key, v] : material.props) {
    std::string name;
    for (const char* prefix : {"shader_param/", "shader_parameter/"})
      if (key.rfind(prefix, 0) == 0) name = key.substr(std::strlen(prefix));
    if (name.empty()) continue;
    size_t i = 0;
    while (i < declared.size() && declared[i].name != name) ++i;
    if (i == declared.size()) {
      size_t si = 0;
      const auto& samplers = ep.program->samplers();
      while (si < samplers.size() && samplers[si].name != name) ++si;
      if (si == samplers.size())
        note(v.loc, printable(name) + " is not a uniform of the shader: left out");
      else if (!bind_texture(v, in, si, ep, emitter))
        note(v.loc, "the texture of " + printable(name) +
                        " cannot be read (noise, or a missing file): the shader reads white "
                        "there");
      continue;
    }
    std::vector<double> n;
    if (v.kind == Value::Kind::kBool)
      n = {v.boolean ? 1.0 : 0.0};
    else if (v.is_number())
      n = {v.number};
    else
      n = v.numbers();
    if (n.size() > declared[i].scalars) n.resize(declared[i].scalars);  // a Color for a vec3
    bool ok = n.size() == declared[i].scalars;
    for (double& x : n) ok = ok && std::isfinite(x) && std::abs(x) <= 1e9;
    if (!ok) {
      warn(v.loc, "the value of " + printable(name) + " does not fit the uniform's " +
                      declared[i].type + ": its default is kept");
      continue;
    }
    ep.uniforms[i] = std::move(n);
  }
}

// long: one node, read in the order Godot runs it (its code, its place,
// its timing, its look).
// What a shader node is in 2D and 3D alike: the shader on the default
// emitter for `view`, and the node's amount, lifetime, timing and frames.
// False when the node is left out (said why).
bool GodotImporter::shader_emitter(const Section& node, const Section& material, const Doc& in,
                                   const std::string& view, Emitter& em, Timing& timing,
                                   ProgramOrigin& origin) {
  const std::string type = node.attr_text("type");
  const std::string name = node.attr_text("name");
  const bool godot3 = main_.doc.format < 3;
  const auto code = shader_code(material, in);
  if (!code) return false;
  const double s = num(node, "speed_scale", 1);
  const double amount = std::floor(num(node, "amount", 8));
  const double life = num(node, "lifetime", 1);
  if (s <= 0 || amount < 1 || life <= 0) {
    warn(node.loc, "the " + type + " '" + printable(name) + "' emits nothing: left out");
    return false;
  }
  if (amount > 1e7 || life > 1e6)
    throw Error(node.loc, "amount must be at most 1e7 and lifetime at most 1e6 s");
  // The shader on a default emitter, then the node's own values over it.
  ImportOptions o = o_;
  o.view = view;
  ImportResult shader;
  try {
    shader = godot_shader_effect(code->first, code->second.file, o, code->second, false);
  } catch (const Error& e) {
    // Godot draws nothing for a node whose shader does not compile.
    for (const Diagnostic& d : e.diagnostics())
      warn(d.loc, d.message + " (the " + type + " '" + printable(name) + "' is left out)");
    return false;
  }
  for (Diagnostic& d : shader.warnings) r_.warnings.push_back(std::move(d));
  em = std::move(shader.fx.emitters.front());
  em.name = emitter_name(name, r_.fx);
  origin = code->second;
  const double L = life / s;
  timing.cycle = L;
  timing.amount = amount;
  timing.explosiveness = std::clamp(num(node, "explosiveness", 0), 0.0, 1.0);
  timing.one_shot = flag(node, "one_shot", false);
  const double fixed_fps = num(node, "fixed_fps", 0);
  timing.preprocess =
      preprocess_seconds(std::max(0.0, num(node, "preprocess", 0)), fixed_fps, s, godot3);
  timing.loc = node.loc;
  em.lifetime_s = {L, L};
  em.max_particles = static_cast<uint32_t>(amount + 1);
  em.forces.step_s = std::max(1e-4, (fixed_fps > 0 ? 1 / fixed_fps : 1.0 / 60) / s);
  if (num(node, "randomness", 0) != 0)
    note(node.loc,
         "randomness (a jitter of each birth by under one gap) is dropped: births are "
         "evenly spaced");
  auto ep = std::make_shared<EmitterProgram>(*em.program);
  ep->godot->amount = static_cast<uint32_t>(amount);
  ep->godot->speed_scale = s;
  em.program = std::move(ep);
  return true;
}

bool GodotImporter::map_shader_node(const Section& node, const Xform& x, const Section& material,
                                    const Doc& in, Effect& fx, Timing& timing) {
  const bool godot3 = node.attr_text("type") == "Particles2D";
  Emitter em;
  ProgramOrigin origin;
  if (!shader_emitter(node, material, in, "2d", em, timing, origin)) return false;
  em.position = {x.pos.x, -x.pos.y};
  // Particle space: the node's (local_coords, Godot 3's default) drawn with
  // its turn and scale, or the canvas's, with the node's transform as
  // EMISSION_TRANSFORM (Godot 4's default).
  auto ep = std::make_shared<EmitterProgram>(*em.program);
  GodotDialect& g = *ep->godot;
  const Vec2 ax = turn({x.scale.x, 0}, x.rot), ay = turn({0, x.scale.y}, x.rot);
  if (flag(node, "local_coords", godot3)) {
    g.to_canvas = {ax.x, ay.x, 0, -ax.y, -ay.y, 0};
  } else {
    g.to_canvas = {1, 0, 0, 0, -1, 0};
    g.offset = {-x.pos.x, x.pos.y};
    g.emission_transform = {ax.x, ax.y, 0, 0, ay.x, ay.y, 0, 0, 0, 0, 1, 0, x.pos.x, x.pos.y, 0, 1};
  }
  ep->program = Program::compile(ep->source, origin, r_.warnings, {}, &g);
  shader_parameters(material, in, *ep, em.name);
  em.program = std::move(ep);
  // The look: the texture's quad (a 1 px one without), the filter, the
  // blend and draw order; the shader gives colour, size and turn.
  Process p;
  const Section* cm = nullptr;
  if (const Value* m = node.prop("material")) {
    auto ref = deref(*m, main_);
    if (ref && ref->sec && ref->type == "CanvasItemMaterial") cm = ref->sec;
  }
  map_appearance(node, p, Xform{}, cm, num(node, "speed_scale", 1), em);
  const int order = static_cast<int>(num(node, "draw_order", godot3 ? 0 : 1));
  em.draw_order = order == 2 ? DrawOrder::kNewestFirst : DrawOrder::kOldestFirst;
  for (const char* key : {"modulate", "self_modulate"})
    if (node.prop(key))
      note(node.prop(key)->loc, std::string(key) +
                                    " is not applied to a shader's particles: the shader's "
                                    "COLOR is drawn as it is");
  fx.emitters.push_back(std::move(em));
  return true;
}

namespace {

// A node path relative to the node at `from` ("." the root, "A/B" below
// it), as Godot resolves NodePath("../Sparks"); empty when it leaves the
// scene or is absolute.
std::string resolve_node_path(const std::string& from, const std::string& to) {
  if (to.empty() || to[0] == '/') return "";
  std::vector<std::string> parts;
  if (from != ".") {
    size_t a = 0;
    for (size_t b; (b = from.find('/', a)) != std::string::npos; a = b + 1)
      parts.push_back(from.substr(a, b - a));
    parts.push_back(from.substr(a));
  }
  size_t a = 0;
  for (;;) {
    const size_t b = to.find('/', a);
    const std::string step = to.substr(a, b == std::string::npos ? std::string::npos : b - a);
    if (step == "..") {
      if (parts.empty()) return "";
      parts.pop_back();
    } else if (!step.empty() && step != ".") {
      parts.push_back(step);
    }
    if (b == std::string::npos) break;
    a = b + 1;
  }
  std::string path;
  for (const std::string& p : parts) path += (path.empty() ? "" : "/") + p;
  return path.empty() ? "." : path;
}

}  // namespace

// A shader node's sub_emitter (Godot 4): the node it names takes the
// children the shader emits with emit_subparticle() (model.md 11.8), as a
// sub-emitter with on = "program" and Godot's amount as its count; it emits
// nothing of its own, as a node in Godot's sub-emitter mode does.
// long: each way a link can fail is said where it fails.
void GodotImporter::link_sub_emitters(Effect& fx, std::vector<Timing>& timings,
                                      const std::map<std::string, size_t>& emitter_of,
                                      const std::vector<SubLink>& links) {
  std::vector<bool> parent(fx.emitters.size(), false);
  for (const SubLink& l : links) {
    const Value& v = *l.target;
    const std::string to = v.is_call("NodePath") && !v.items.empty() ? v.items[0].as_text()
                           : v.kind == Value::Kind::kString          ? v.text
                                                                     : "";
    if (to.empty()) continue;  // NodePath(""): none
    Emitter& p = fx.emitters[l.parent];
    const auto it = emitter_of.find(resolve_node_path(l.node_path, to));
    if (it == emitter_of.end()) {
      warn(v.loc, "sub_emitter " + printable(to) +
                      " names no particle node spritz imported: the shader's "
                      "emit_subparticle() calls return false");
      continue;
    }
    Emitter& child = fx.emitters[it->second];
    if (!p.program->program->emits()) {
      note(v.loc, "sub_emitter " + printable(to) +
                      ": the shader never calls emit_subparticle(), so in Godot that node "
                      "emits nothing; imported disabled");
      child.enabled = false;
      timings[it->second].sub = true;
      continue;
    }
    if (it->second == l.parent || parent[it->second] || child.is_sub() || p.is_sub()) {
      warn(v.loc, "sub_emitter " + printable(to) +
                      " is not imported: spritz's sub-emitters have one level, and a node "
                      "takes one parent's children");
      continue;
    }
    parent[l.parent] = true;
    child.sub.parent_name = p.name;
    child.sub.on = SubEvent::kProgram;
    child.sub.loc = v.loc;
    const double amount = child.program && child.program->godot
                              ? child.program->godot->amount
                              : static_cast<double>(child.max_particles) - 1;
    child.sub.count = child.sub.count_asked =
        static_cast<uint32_t>(std::clamp(amount, 1.0, static_cast<double>(kMaxEmittedAlive)));
    child.rate_per_s = 0;
    child.rate_curve = {};
    child.bursts.clear();
    timings[it->second].sub = true;
  }
}

}  // namespace spritz::import_detail::godot_import
