// A Godot 3D particle node (GPUParticles3D, Godot 3's Particles) whose
// process material is a ShaderMaterial, seen from a view as the Roblox
// importer sees models (docs/import.md, "Godot particle shaders"): the
// node's 3D transform and its particle space are projected by the view's
// map (front, side or top, 32 design px a unit), and each particle is the
// draw pass's quad.
#include "godot_importer.h"

namespace spritz::import_detail::godot_import {
namespace {

// The transform p -> a (b p).
Affine3 compose(const Affine3& a, const Affine3& b) {
  Affine3 w;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      w.basis[r * 3 + c] = a.basis[r * 3] * b.basis[c] + a.basis[r * 3 + 1] * b.basis[3 + c] +
                           a.basis[r * 3 + 2] * b.basis[6 + c];
    w.origin[r] = a.basis[r * 3] * b.origin[0] + a.basis[r * 3 + 1] * b.origin[1] +
                  a.basis[r * 3 + 2] * b.origin[2] + a.origin[r];
  }
  return w;
}

}  // namespace

// A node's transform in the scene, from its parent's in `world`, which
// gets the node's own under `path`. Godot writes a Node3D's `transform` as
// Transform3D(...) (Godot 4) or Transform(...) (Godot 3): twelve numbers.
Affine3 GodotImporter::place_node_3d(const Section& s, const std::string& path,
                                     std::map<std::string, Affine3>& world) {
  Affine3 parent, local;
  if (const Value* p = s.attr("parent"))
    if (const auto it = world.find(p->text); it != world.end()) parent = it->second;
  if (const Value* t = s.prop("transform");
      t && (t->is_call("Transform3D") || t->is_call("Transform")))
    if (const std::vector<double> n = t->numbers(); n.size() == 12) {
      std::copy(n.begin(), n.begin() + 9, local.basis);
      std::copy(n.begin() + 9, n.end(), local.origin);
    }
  const Affine3 w = compose(parent, local);
  world[path] = w;
  return w;
}

// A 3D particle node: seen from a view when it runs a shader; said and
// left out when its process material is a built-in one.
bool GodotImporter::map_node_3d(const Section& node, const Affine3& world, Effect& fx,
                                Timing& timing) {
  const Doc* doc = nullptr;
  if (const Section* sm = shader_material_of(node, &doc))
    return map_shader_node_3d(node, world, *sm, *doc, fx, timing);
  note(node.loc, "a " + node.attr_text("type") +
                     " with a built-in process material is not imported: spritz reads 3D "
                     "particle nodes that run a ShaderMaterial, seen from --view");
  return false;
}

// long: the node's place, its particle space and its quad, each said where it is read.
bool GodotImporter::map_shader_node_3d(const Section& node, const Affine3& world,
                                       const Section& material, const Doc& in, Effect& fx,
                                       Timing& timing) {
  const std::string view = o_.view.empty() ? "front" : o_.view;
  const std::string type = node.attr_text("type");
  if (view == "2d") {
    warn(node.loc, "the " + type + " '" + printable(node.attr_text("name")) +
                       "' is 3D: seen from --view front, side or top, not 2d; left out");
    return false;
  }
  Emitter em;
  ProgramOrigin origin;
  if (!shader_emitter(node, material, in, view, em, timing, origin)) return false;
  auto ep = std::make_shared<EmitterProgram>(*em.program);
  GodotDialect& g = *ep->godot;
  const std::array<double, 6> v = g.to_canvas;  // the view: design px a unit
  const auto seen = [&](const double* p) {
    return Vec2{v[0] * p[0] + v[1] * p[1] + v[2] * p[2], v[3] * p[0] + v[4] * p[1] + v[5] * p[2]};
  };
  em.position = seen(world.origin);
  const double* b = world.basis;
  if (flag(node, "local_coords", main_.doc.format < 3)) {
    // Particle space is the node's: the view of its basis.
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c)
        g.to_canvas[r * 3 + c] =
            v[r * 3] * b[c] + v[r * 3 + 1] * b[3 + c] + v[r * 3 + 2] * b[6 + c];
  } else {
    // The scene's space, with the node's transform as EMISSION_TRANSFORM.
    g.offset = {-em.position.x, -em.position.y};
    g.emission_transform = {b[0],
                            b[3],
                            b[6],
                            0,
                            b[1],
                            b[4],
                            b[7],
                            0,
                            b[2],
                            b[5],
                            b[8],
                            0,
                            world.origin[0],
                            world.origin[1],
                            world.origin[2],
                            1};
  }
  ep->program = Program::compile(ep->source, origin, r_.warnings, {}, &g);
  shader_parameters(material, in, *ep, em.name);
  em.program = std::move(ep);
  // Each particle is the first draw pass's mesh: a QuadMesh's size in
  // units (Godot's default 1 x 1); another mesh is drawn as a unit quad.
  double size = 1;
  if (const Value* pass = node.prop("draw_pass_1")) {
    auto ref = deref(*pass, main_);
    if (ref && ref->sec && ref->type == "QuadMesh") {
      if (const auto q = vec(*ref->sec, "size")) {
        size = 0.5 * (q->x + q->y);
        if (q->x != q->y)
          note(pass->loc, "the QuadMesh is " + fmt(q->x) + " x " + fmt(q->y) + ": drawn square, " +
                              fmt(size) + " units wide");
      }
    } else if (ref) {
      note(pass->loc, "draw_pass_1 is a " + printable(ref->type) +
                          ": each particle is drawn as spritz's soft dot, a unit wide");
    }
  }
  em.size_px = Curve::constant(size);
  note(node.loc, "the " + type + " '" + printable(node.attr_text("name")) + "' is seen from the " +
                     view +
                     " (docs/import.md): its meshes' materials are not read, each particle is a "
                     "soft white dot the quad's size, coloured by the shader");
  fx.emitters.push_back(std::move(em));
  return true;
}

}  // namespace spritz::import_detail::godot_import
