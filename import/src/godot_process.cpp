// The particle process a Godot node runs (godot_importer.h): its process
// material or the CPUParticles2D node itself, in Godot 3's or 4's names.
#include "godot_importer.h"

namespace spritz::import_detail::godot_import {

// The process parameters of a material (GPU) or a CPUParticles2D node.
Process GodotImporter::read_process(const Section& s, const Doc& in, bool cpu_node,
                                    bool godot3_cpu) {
  Process p;
  const bool v3 = v3_;
  if (auto d = vec(s, "direction")) p.direction = *d;
  p.spread = num(s, "spread", 45);
  p.gravity_written = s.prop("gravity") != nullptr;
  p.gravity = cpu_node ? Vec2{0, godot3_cpu ? 98.0 : 980.0} : Vec2{0, -9.8};
  if (auto g = vec(s, "gravity")) p.gravity = *g;
  if (!v3) {
    p.velocity = range4(s, "initial_velocity", {0, 0});
    p.angular = range4(s, "angular_velocity", {0, 0});
    p.orbit = range4(s, "orbit_velocity", {0, 0});
    p.linear = range4(s, "linear_accel", {0, 0});
    p.radial = range4(s, "radial_accel", {0, 0});
    p.tangential = range4(s, "tangential_accel", {0, 0});
    p.damping = range4(s, "damping", {0, 0});
    p.angle = range4(s, "angle", {0, 0});
    p.scale = range4(s, cpu_node ? "scale_amount" : "scale", {1, 1});
    p.hue = range4(s, "hue_variation", {0, 0});
    p.anim_speed = range4(s, "anim_speed", {0, 0});
    p.anim_offset = range4(s, "anim_offset", {0, 0});
  } else {
    p.velocity = range3(s, "initial_velocity", 0);
    const double av = num(s, "angular_velocity", 0);
    const double ar = std::clamp(num(s, "angular_velocity_random", 0), 0.0, 1.0);
    p.angular = {std::min(av * (1 - 2 * ar), av), std::max(av * (1 - 2 * ar), av)};
    p.orbit = range3(s, "orbit_velocity", 0);
    p.linear = range3(s, "linear_accel", 0);
    p.radial = range3(s, "radial_accel", 0);
    p.tangential = range3(s, "tangential_accel", 0);
    p.damping = range3(s, "damping", 0);
    p.angle = range3(s, "angle", 0);
    const std::string sk = cpu_node ? "scale_amount" : "scale";
    const double sc = num(s, sk, 1);
    const double sr = std::clamp(num(s, sk + "_random", 0), 0.0, 1.0);
    const double other = sc + (1 - sc) * sr;  // mix(scale, 1, random u): toward 1
    p.scale = {std::min(sc, other), std::max(sc, other)};
    const double hv = num(s, "hue_variation", 0);
    const double hr = std::clamp(num(s, "hue_variation_random", 0), 0.0, 1.0);
    p.hue = {std::min(hv * (1 - 2 * hr), hv),
             std::max(hv * (1 - 2 * hr), hv)};  // mix(1, 2u - 1, r)
    p.anim_speed = range3(s, "anim_speed", 0);
    p.anim_offset = range3(s, "anim_offset", 0);
  }
  p.lifetime_randomness = std::clamp(num(s, "lifetime_randomness", 0), 0.0, 1.0);
  if (const Value* c = s.prop("color")) {
    const std::vector<double> n = c->numbers();
    if (!c->is_call("Color") || n.size() != 4)
      throw Error(c->loc, "color must be a Color(r, g, b, a)");
    for (double x : n)
      if (!std::isfinite(x) || std::abs(x) > 1e3)
        throw Error(c->loc, "color components must be within ±1000");
    p.color = {n[0], n[1], n[2], n[3]};
  }
  p.scale_curve = curve_of(s.prop(cpu_node ? "scale_amount_curve" : "scale_curve"), in);
  p.alpha_curve = curve_of(s.prop("alpha_curve"), in);
  const char* const accel[3] = {"radial_accel", "tangential_accel", "linear_accel"};
  for (size_t i = 0; i < 3; ++i) {
    p.accel_curve[i] = curve_of(s.prop(std::string(accel[i]) + "_curve"), in);
    if (v3) p.accel_random[i] = std::clamp(num(s, std::string(accel[i]) + "_random", 0), 0.0, 1.0);
  }
  p.ramp = gradient_of(s.prop("color_ramp"), in);
  p.ramp_replaces = v3 && !cpu_node;
  // Shapes, renumbered to Godot 4's.
  const Value* shape = s.prop("emission_shape");
  p.shape_loc = shape ? shape->loc : s.loc;
  int k = static_cast<int>(num(s, "emission_shape", 0));
  if (v3 && cpu_node) {
    static const int map3cpu[] = {0, 1, 3, 4, 5};  // point, circle, rectangle, points, directed
    k = k >= 0 && k < 5 ? map3cpu[k] : -1;
    if (k == 1) k = 2;  // Godot 3.1's circle is a ring of directions: the surface
  } else if (v3) {
    static const int map3[] = {0, 2, 3, 4,
                               5, 6};  // point, sphere (surface only), box, points, directed, ring
    k = k >= 0 && k < 6 ? map3[k] : -1;
  }
  p.shape = k;
  p.sphere_radius = num(s, "emission_sphere_radius", 1);
  if (auto e = vec(s, cpu_node ? "emission_rect_extents" : "emission_box_extents"))
    p.box_extents = *e;
  p.ring_radius = num(s, "emission_ring_radius", 1);
  p.ring_inner = num(s, "emission_ring_inner_radius", 0);
  if (auto e = vec(s, "emission_shape_offset")) p.shape_offset = *e;
  if (auto e = vec(s, "emission_shape_scale")) p.shape_scale = *e;
  if (p.shape == 4 || p.shape == 5) read_points(s, in, p);
  p.disable_z = flag(s, v3 ? "flag_disable_z" : "particle_flag_disable_z", cpu_node);
  p.align_y = flag(s, v3 ? "flag_align_y" : "particle_flag_align_y", false);
  return p;
}

// One particle node (docs/formats/godot.md 2, 3, 4, 5).
// The process a node runs: its material (GPU nodes) or the node itself
// (CPUParticles2D); nullptr, with a warning, when it cannot be read.
const Section* GodotImporter::process_of(const Section& node, const Doc** doc) {
  const std::string type = node.attr_text("type");
  const std::string name = node.attr_text("name");
  *doc = &main_;
  if (type == "CPUParticles2D") return &node;
  const Value* pm = node.prop("process_material");
  if (!pm) {
    warn(node.loc, "the " + type + " '" + printable(name) +
                       "' has no process_material: Godot "
                       "draws nothing for it, so it is left out");
    return nullptr;
  }
  auto ref = deref(*pm, main_);
  if (ref && !ref->file.empty()) {
    warn(pm->loc, "the process material " + printable(ref->file) +
                      " is a binary resource, which cannot be read as text: the " + type + " '" +
                      printable(name) + "' is left out (save it as .tres in Godot)");
    return nullptr;
  }
  if (!ref || !ref->sec) {
    warn(pm->loc, "the " + type + " '" + printable(name) +
                      "' is left out: its process material "
                      "cannot be read");
    return nullptr;
  }
  if (ref->type != "ParticleProcessMaterial" && ref->type != "ParticlesMaterial") {
    warn(pm->loc, "the process material of '" + printable(name) + "' is a " + printable(ref->type) +
                      ", not a ParticleProcessMaterial: left out");
    return nullptr;
  }
  *doc = ref->doc;
  return ref->sec;
}

// Which names a process uses: Godot 3's param/param_random or Godot 4's
// _min/_max, else what the class and the header say.
bool GodotImporter::godot3_names(const Section& proc, const std::string& type) {
  bool names4 = false, names3 = false;
  for (const auto& [k, v] : proc.props) {
    const size_t n = k.size();
    if ((n > 4 && (k.compare(n - 4, 4, "_min") == 0 || k.compare(n - 4, 4, "_max") == 0)) ||
        k.rfind("particle_flag_", 0) == 0)
      names4 = true;
    if ((n > 7 && k.compare(n - 7, 7, "_random") == 0) || k.rfind("flag_", 0) == 0 ||
        k == "initial_velocity" || k == "scale" || k == "scale_amount")
      names3 = true;
  }
  const bool cpu = type == "CPUParticles2D";
  const bool class4 = type == "GPUParticles2D" || (cpu && main_.doc.format >= 3);
  const bool v3 = names3 && !names4 ? true : names4 ? false : !class4 || main_.doc.format == 2;
  if (type == "GPUParticles2D" && v3 && !half_warned_) {
    half_warned_ = true;
    warn(proc.loc,
         "a Godot 4 GPUParticles2D whose material uses Godot 3 property names (a "
         "half-converted scene): read with Godot 3's names, as the file was meant");
  }
  return v3;
}

}  // namespace spritz::import_detail::godot_import
