// How a Godot particle looks, mapped (godot_importer.h): size, rotation,
// colour, flipbook and blend.
#include "godot_importer.h"

namespace spritz::import_detail::godot_import {

// How Godot 2D samples a particle's texture (docs/formats/godot.md 6): its
// textures have no mipmaps unless the node asks for them, so a small sprite
// stays sharp. Godot 4's `texture_filter`: 0 inherits (linear at the root),
// 1 nearest, 2 linear, 3-6 the same with mipmaps; Godot 3 imports 2D
// textures filtered and without mipmaps.
TextureFilter GodotImporter::texture_filter(const Section& node) {
  const int f = static_cast<int>(num(node, "texture_filter", 0));
  if (f == 1) return TextureFilter::kNearest;
  if (f >= 3 && f <= 6) {
    if (f == 3 || f == 5)
      note(node.loc, "texture_filter " + std::to_string(f) +
                         " (nearest with mipmaps) is drawn trilinear, spritz's nearest has none");
    return TextureFilter::kTrilinear;
  }
  return TextureFilter::kBilinear;
}

// Size, rotation, colour, flipbook and blend (docs/formats/godot.md 2.1, 2.3, 2.4).
void GodotImporter::map_appearance(const Section& node, const Process& p, const Xform& x,
                                   const Section* cm, double s, Emitter& em) {
  // The texture and its cells: the quad is the cell's size in px.
  std::string origin;
  bool file = false;
  const std::optional<Rgba8Image> img =
      texture(node.prop("texture"), main_, &origin, &file, node.loc);
  // Godot 3.0 kept the grid on the node (h_frames, v_frames); 3.1 moved it to
  // the CanvasItemMaterial and ignores the node's, as the engine test shows.
  if (num(node, "h_frames", 1) * num(node, "v_frames", 1) > 1)
    note(node.loc,
         "h_frames and v_frames on the node are Godot 3.0's: Godot 3.1 and later ignore them "
         "(the flipbook is the CanvasItemMaterial's), and so does spritz");
  int hf = 1, vf = 1;
  const bool anim = cm && flag(*cm, "particles_animation", false);
  if (anim) {
    hf = static_cast<int>(num(*cm, "particles_anim_h_frames", 1));
    vf = static_cast<int>(num(*cm, "particles_anim_v_frames", 1));
  }
  hf = std::clamp(hf, 1, 256), vf = std::clamp(vf, 1, 256);
  double qw = 1, qh = 1;
  if (img) {
    if (anim && (img->width % hf || img->height % vf)) {
      warn(node.loc, "the texture (" + std::to_string(img->width) + "x" +
                         std::to_string(img->height) + ") does not divide into " +
                         std::to_string(hf) + "x" + std::to_string(vf) +
                         " cells: the flipbook is dropped");
      hf = vf = 1;
    }
    em.texture.kind = TextureRef::Kind::kFile;
    em.texture.path = texture_file(*img, origin, file, em.name);
    qw = double(img->width) / (anim ? hf : 1);
    qh = double(img->height) / (anim ? vf : 1);
  } else {
    em.texture = TextureRef::parse("builtin:solid");
  }
  em.filter = texture_filter(node);
  // Size: quad x node scale x scale curve x the particle's scale roll.
  const double sw = qw * std::abs(x.scale.x), sh = qh * std::abs(x.scale.y);
  const double base = std::sqrt(sw * sh);
  if (sw > 0 && std::abs(sh / sw - 1) > 1e-9) {
    const double l = std::sqrt(sh > sw ? sh / sw : sw / sh);
    em.squash = Curve::constant(sh > sw ? l - 1 : -(l - 1));
  }
  const GodotCurve* sc = p.scale_curve ? &*p.scale_curve : nullptr;
  double err = 0;
  const std::vector<double> times =
      sc ? fit_times([&](double t) { return std::vector<double>{sc->at(t)}; }, sc->breaks(), 0.002,
                     &err)
         : std::vector<double>{0};
  Curve size;
  size.count = static_cast<int>(times.size());
  const double mid = (p.scale.min + p.scale.max) / 2, half = (p.scale.max - p.scale.min) / 2;
  for (size_t i = 0; i < times.size(); ++i) {
    const double c = sc ? sc->at(times[i]) : 1;
    size.t[i] = times[i];
    size.value[i] = base * c * mid;
    size.envelope[i] = base * c * std::abs(half);
  }
  em.size_px = size;
  if (sc && err > 0.002)
    note(node.loc, "the scale curve (cubic) is sampled into " + std::to_string(times.size()) +
                       " linear keys, within " + fmt(err) + " of its value");
  // Rotation: the particle angle already turns counter-clockwise on screen
  // (docs/formats/godot.md 4); the node's clockwise rotation is taken off.
  const double node_deg = x.rot * 180 / kPi;
  em.rotation_deg = {p.angle.min - node_deg, p.angle.max - node_deg};
  em.rotation_speed_deg_per_s = {p.angular.min * s, p.angular.max * s};
  if (p.align_y) {
    em.orientation = Orientation::kVelocityParallel;
    em.rotation_deg = {90, 90};
    em.rotation_speed_deg_per_s = {0, 0};
  }
  map_color(node, p, cm, em);
  if (anim && hf * vf > 1) map_flipbook(node, p, cm, hf, vf, em);
}

// Colour, alpha, hue and blend (docs/formats/godot.md 2.3, 2.4).
void GodotImporter::map_color(const Section& node, const Process& p, const Section* cm,
                              Emitter& em) {
  // Colour: the initial colour (and the node's modulate), times the ramp in
  // Godot 4 and CPUParticles2D, replaced by it in Godot 3's GPU material.
  std::array<double, 4> mod{1, 1, 1, 1};
  for (const char* key : {"modulate", "self_modulate"})
    if (const Value* m = node.prop(key)) {
      const std::vector<double> n = m->numbers();
      if (n.size() == 4)
        for (int k = 0; k < 4; ++k)
          mod[k] *= std::isfinite(n[k]) ? std::clamp(n[k], -1e3, 1e3) : 1.0;
    }
  const Gradient* ramp = p.ramp ? &*p.ramp : nullptr;
  const GodotCurve* ac = p.alpha_curve ? &*p.alpha_curve : nullptr;
  const auto rgba = [&](double t) {
    std::array<double, 4> c = ramp && p.ramp_replaces ? std::array<double, 4>{1, 1, 1, 1} : p.color;
    if (ramp) {
      const auto g = ramp->at(t);
      for (int k = 0; k < 4; ++k) c[k] *= g[k];
    }
    if (ac) c[3] *= ac->at(t);
    for (int k = 0; k < 4; ++k) c[k] = std::max(0.0, c[k] * mod[k]);
    return c;
  };
  std::vector<double> breaks;
  if (ramp) breaks = ramp->offsets;
  if (ac)
    for (double b : ac->breaks()) breaks.push_back(b);
  double cerr = 0;
  const std::vector<double> ct = ramp || ac ? fit_times(
                                                  [&](double t) {
                                                    auto c = rgba(t);
                                                    return std::vector<double>(c.begin(), c.end());
                                                  },
                                                  breaks, 1.0 / 512, &cerr)
                                            : std::vector<double>{0};
  double peak = 1;
  for (double t : ct) {
    const auto c = rgba(t);
    peak = std::max({peak, c[0], c[1], c[2]});
  }
  em.brightness = std::min(peak, 1e6);
  ColorCurve cc;
  Curve tr;
  cc.count = tr.count = static_cast<int>(ct.size());
  for (size_t i = 0; i < ct.size(); ++i) {
    const auto c = rgba(ct[i]);
    cc.t[i] = tr.t[i] = ct[i];
    cc.srgb[i] = {c[0] / peak, c[1] / peak, c[2] / peak};
    tr.value[i] = 1 - std::clamp(c[3], 0.0, 1.0);
  }
  em.color = cc;
  em.transparency = tr;
  if (ramp && ramp->constant)
    note(node.loc, "the colour ramp is constant-interpolated: sampled into linear keys");
  em.hue_variation = p.hue;  // turns, the shader's own matrix (model.md 7.6)
  // Blend (CanvasItemMaterial).
  const int blend = cm ? static_cast<int>(num(*cm, "blend_mode", 0)) : 0;
  em.light_emission = blend == 1 ? 1 : 0;
  if (blend == 2 || blend == 3)
    warn(cm->loc, std::string("blend_mode ") + (blend == 2 ? "SUB" : "MUL") +
                      " has no spritz equivalent: drawn alpha-over");
}

// The flipbook: the phase is anim_offset + tau anim_speed, in plays per
// life (docs/formats/godot.md 2.4).
void GodotImporter::map_flipbook(const Section& node, const Process& p, const Section* cm, int hf,
                                 int vf, Emitter& em) {
  Flipbook& fb = em.flipbook;
  fb.enabled = true;
  fb.cols = hf, fb.rows = vf;
  const bool loop = cm ? flag(*cm, "particles_anim_loop", false) : true;
  const bool random_offset = p.anim_offset.min <= 0.01 && p.anim_offset.max >= 0.99;
  fb.random_start = random_offset;
  if (p.anim_speed.max == 0) {
    fb.mode = FlipbookMode::kLoop;
    fb.fps = {0, 0};
  } else if (loop) {
    fb.mode = FlipbookMode::kLoop;
    fb.per_life = true;
    fb.fps = {std::max(0.0, p.anim_speed.min), std::max(0.0, p.anim_speed.max)};
  } else {
    fb.mode = FlipbookMode::kOneshot;
    if (p.anim_speed.min != 1 || p.anim_speed.max != 1)
      note(node.loc, "anim_speed " + fmt(p.anim_speed.min) + ".." + fmt(p.anim_speed.max) +
                         " without particles_anim_loop: spritz's one-shot plays the cells once "
                         "over the life (anim_speed 1)");
  }
  if (!random_offset && p.anim_offset.max * hf * vf >= 1)
    note(node.loc, "anim_offset " + fmt(p.anim_offset.min) + ".." + fmt(p.anim_offset.max) +
                       " is dropped: spritz starts on the first cell or a random one");
}

}  // namespace spritz::import_detail::godot_import
