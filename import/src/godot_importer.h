// The Godot importer's parts (docs/import.md, "Godot"): what the scene and
// resource files hold once read (Doc, Ref), Godot's curves and gradients,
// the particle process in Godot's terms, and the importer whose methods are
// spread by concept over
//   godot_resources.cpp  resources: res:// paths, .tres files, references,
//                        property readers, curves, gradients, points
//   godot_process.cpp    the process material (or CPUParticles2D node) read
//   godot_textures.cpp   textures: image files, rasterised gradients and noise
//   godot_look.cpp       size, rotation, colour, flipbook and blend mapped
//   godot.cpp            a node's motion, shape and timing, and the scene
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include "common.h"
#include "godot_text.h"
#include "spritz/angle.h"
#include "spritz/elementary.h"
#include "spritz/raster/png.h"
#include "spritz/rate.h"
#include "texture.h"

namespace spritz::import_detail::godot_import {

namespace fs = std::filesystem;
using godot::Document;
using godot::Section;
using godot::Value;

// The most points an emission-point texture may give (shape kind "points").
constexpr size_t kMaxPoints = 65536;

// A value read from one file: the section that holds it, in its document.
struct Doc {
  Document doc;
  std::string path;  // the file, as read_file takes it
  std::map<std::string, const Section*> subs;
  struct Ext {
    std::string type, path;
  };
  std::map<std::string, Ext> exts;
  const Section* resource = nullptr;  // a .tres's [resource]
};

struct Ref {
  const Section* sec = nullptr;  // null for an external file that is not a .tres
  const Doc* doc = nullptr;
  std::string type;  // the resource's class
  std::string file;  // that external file's res:// path (an image, a binary resource)
};

// A 1D function over a particle's life, sampled for fitting.
using Fn = std::function<std::vector<double>(double)>;

// Key times for a piecewise-linear fit of f (dims values) over [0, 1] with at
// most kMaxCurveKeys keys: the given breakpoints, then wherever the fit is
// worst, until within tol or out of keys. Returns the times and the largest
// deviation left (over 1001 samples).
std::vector<double> fit_times(const Fn& f, std::vector<double> must, double tol, double* err);

// Godot's Curve (docs/formats/godot.md 5): points with tangents, a cubic Bezier in
// y between neighbours (x linear), held outside the points.
struct GodotCurve {
  struct Point {
    double x, y, left, right;
  };
  std::vector<Point> points;
  double at(double x) const {
    if (points.empty()) return 1;
    if (x <= points.front().x) return points.front().y;
    if (x >= points.back().x) return points.back().y;
    size_t i = 0;
    while (i + 2 < points.size() && x >= points[i + 1].x) ++i;
    const Point& a = points[i];
    const Point& b = points[i + 1];
    const double d = b.x - a.x;
    if (d <= 0) return b.y;
    const double t = (x - a.x) / d;
    const double p0 = a.y, p1 = a.y + a.right * d / 3, p2 = b.y - b.left * d / 3, p3 = b.y;
    const double s = 1 - t;
    return s * s * s * p0 + 3 * s * s * t * p1 + 3 * s * t * t * p2 + t * t * t * p3;
  }
  std::vector<double> breaks() const {
    std::vector<double> out;
    for (const Point& p : points) out.push_back(p.x);
    return out;
  }
};

// Godot's Gradient: offsets and RGBA colours (stored values, sRGB), linear
// or constant between them.
struct Gradient {
  std::vector<double> offsets;
  std::vector<std::array<double, 4>> colors;
  bool constant = false;
  std::array<double, 4> at(double x) const {
    if (offsets.empty()) return {1, 1, 1, 1};
    if (x <= offsets.front()) return colors.front();
    if (x >= offsets.back()) return colors.back();
    size_t i = 0;
    while (i + 2 < offsets.size() && x >= offsets[i + 1]) ++i;
    if (constant) return colors[i];
    const double d = offsets[i + 1] - offsets[i];
    const double w = d > 0 ? (x - offsets[i]) / d : 1;
    std::array<double, 4> c;
    for (int k = 0; k < 4; ++k) c[k] = colors[i][k] + (colors[i + 1][k] - colors[i][k]) * w;
    return c;
  }
};

// The particle process in Godot 4's terms (y down, degrees, turns/s for
// orbit), read from a material or a CPUParticles2D node of either version.
struct Process {
  Vec2 direction{1, 0};
  double spread = 45;
  Vec2 gravity{0, -9.8};
  bool gravity_written = false;
  Range velocity{0, 0}, angular{0, 0}, orbit{0, 0}, linear{0, 0}, radial{0, 0}, tangential{0, 0},
      damping{0, 0}, angle{0, 0}, scale{1, 1}, hue{0, 0}, anim_speed{0, 0}, anim_offset{0, 0};
  double lifetime_randomness = 0;
  std::array<double, 4> color{1, 1, 1, 1};
  std::optional<GodotCurve> scale_curve, alpha_curve;
  // The radial, tangential and linear acceleration curves (spritz's
  // Forces::CurveOf order), and Godot 3's _random of each (0 for Godot 4).
  std::array<std::optional<GodotCurve>, 3> accel_curve;
  std::array<double, 3> accel_random{};
  std::optional<Gradient> ramp;
  bool ramp_replaces = false;  // Godot 3's GPU material
  // Shape, in Godot 4's numbering: point 0, sphere 1, sphere surface 2,
  // box 3, points 4, directed points 5, ring 6.
  int shape = 0;
  SourceLoc shape_loc;
  double sphere_radius = 1, ring_radius = 1, ring_inner = 0;
  Vec2 box_extents{1, 1}, shape_offset{0, 0}, shape_scale{1, 1};
  std::vector<Vec2> points, normals;
  bool disable_z = false, align_y = false;
};

// The world transform of a node: place, rotation (radians, clockwise on
// screen) and scale, y down.
struct Xform {
  Vec2 pos{0, 0};
  double rot = 0;
  Vec2 scale{1, 1};
};

// A 3D node's transform: p -> basis p + origin, the basis by rows (as
// Godot writes Transform3D(xx, xy, xz, yx, yy, yz, zx, zy, zz, ox, oy, oz)).
struct Affine3 {
  double basis[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  double origin[3] = {0, 0, 0};
};

inline Vec2 turn(Vec2 v, double a) {  // Godot's y-down rotation: clockwise on screen
  return {v.x * math::cos(a) - v.y * math::sin(a), v.x * math::sin(a) + v.y * math::cos(a)};
}

// One particle node into an emitter (docs/formats/godot.md 2-6).
struct Timing {
  double cycle = 1, amount = 8, explosiveness = 0, preprocess = 0;
  bool one_shot = false;
  bool sub = false;  // a sub_emitter: its parent's shader times its births
  SourceLoc loc;
};

class GodotImporter {
 public:
  GodotImporter(std::string_view text, const std::string& source_name, const std::string& base_dir,
                const ImportOptions& o, const ReadFile& read_file)
      : o_(o), read_file_(read_file), base_dir_(base_dir) {
    main_.path = source_name;
    main_.doc = godot::parse_document(text, source_name);
    index(main_);
  }

  ImportResult run();

 private:
  const ImportOptions& o_;
  const ReadFile& read_file_;
  std::string base_dir_;
  Doc main_;
  std::map<std::string, std::unique_ptr<Doc>> loaded_;  // .tres files by path
  std::optional<std::string> project_root_;
  bool project_looked_ = false;
  ImportResult r_;
  bool v3_ = false;  // Godot 3 property names in this node/material
  bool half_warned_ = false;

  void warn(const SourceLoc& at, std::string m) { r_.warnings.push_back({at, std::move(m)}); }
  // Once per place and text: a resource several nodes share says each thing once.
  void note(const SourceLoc& at, std::string m) {
    for (const auto& n : r_.notes)
      if (n.loc.file == at.file && n.loc.line == at.line && n.loc.col == at.col && n.message == m)
        return;
    r_.notes.push_back({at, std::move(m)});
  }

  static void index(Doc& d);
  std::string resolve_res(const std::string& res_path);
  std::optional<Ref> deref(const Value& v, const Doc& in);
  const Doc* load_tres(const std::string& path, const SourceLoc& at);

  // Property readers on a section (defaults when absent).
  static double num(const Section& s, std::string_view key, double def);
  static bool flag(const Section& s, std::string_view key, bool def);
  static std::optional<Vec2> vec(const Section& s, std::string_view key);
  Range range4(const Section& s, const std::string& base, Range def) const;
  Range range3(const Section& s, const std::string& base, double def) const;

  std::optional<GodotCurve> curve_of(const Value* v, const Doc& in, int depth = 0);
  std::optional<Gradient> gradient_of(const Value* v, const Doc& in, int depth = 0);
  static Gradient read_gradient(const Section& s);
  static GodotCurve read_curve(const Section& s);
  void read_points(const Section& s, const Doc& in, Process& p);
  std::vector<Vec2> image_points(const Value* tex, const Doc& in, size_t count,
                                 const SourceLoc& at);

  Process read_process(const Section& s, const Doc& in, bool cpu_node, bool godot3_cpu);
  // One node into an emitter of fx (false when it yields none), and its timing.
  bool map_node(const Section& node, const Xform& x, Effect& fx, Timing& timing);
  void map_appearance(const Section& node, const Process& p, const Xform& x,
                      const Section* canvas_mat, double s, Emitter& em);
  void map_timing(Effect& fx, const std::vector<Timing>& timings);
  TextureFilter texture_filter(const Section& node);
  static double preprocess_seconds(double preprocess, double fixed_fps, double speed_scale,
                                   bool godot3);
  static double loop_period(const std::vector<Timing>& timings, double longest);
  void map_cycle(const Effect& fx, const Timing& t, double reps, Emitter& em);
  void note_dropped(const Section& node, const Section& proc);
  Xform place_node(const Section& s, std::map<std::string, Xform>& world, bool& root_seen,
                   std::string& path);
  // A node's sub_emitter, read once every node is mapped.
  struct SubLink {
    size_t parent;  // index of the emitter whose node names it
    std::string node_path;
    const Value* target;
  };
  [[noreturn]] void refuse_empty(std::vector<std::string> found);
  void map_instance(const Section& s, const Xform& w, Effect& fx, std::vector<Timing>& timings);
  void link_sub_emitters(Effect& fx, std::vector<Timing>& timings,
                         const std::map<std::string, size_t>& emitter_of,
                         const std::vector<SubLink>& links);
  void map_color(const Section& node, const Process& p, const Section* cm, Emitter& em);
  void map_flipbook(const Section& node, const Process& p, const Section* cm, int hf, int vf,
                    Emitter& em);
  const Section* process_of(const Section& node, const Doc** doc);
  // A node running a ShaderMaterial (godot_shader_node.cpp).
  const Section* shader_material_of(const Section& node, const Doc** doc);
  std::optional<std::pair<std::string, ProgramOrigin>> shader_code(const Section& material,
                                                                   const Doc& in);
  void shader_parameters(const Section& material, const Doc& in, EmitterProgram& ep,
                         const std::string& emitter);
  bool bind_texture(const Value& v, const Doc& in, size_t i, EmitterProgram& ep,
                    const std::string& emitter);
  bool shader_emitter(const Section& node, const Section& material, const Doc& in,
                      const std::string& view, Emitter& em, Timing& timing, ProgramOrigin& origin);
  bool map_shader_node(const Section& node, const Xform& x, const Section& material, const Doc& in,
                       Effect& fx, Timing& timing);
  // A GPUParticles3D (Particles in Godot 3) running a shader, seen from the
  // view (godot_shader_3d.cpp); `world` its transform in the scene.
  bool map_node_3d(const Section& node, const Affine3& world, Effect& fx, Timing& timing);
  bool map_shader_node_3d(const Section& node, const Affine3& world, const Section& material,
                          const Doc& in, Effect& fx, Timing& timing);
  Affine3 place_node_3d(const Section& s, const std::string& path,
                        std::map<std::string, Affine3>& world);
  bool godot3_names(const Section& proc, const std::string& type);
  void map_motion(const Section& node, const Process& p, const Xform& x, double s, Emitter& em);
  void map_accel_curves(const Process& p, double k, Forces& f);
  void map_shape(const Process& p, const Xform& x, Emitter& em);
  std::string texture_file(const Rgba8Image& img, const std::string& origin, bool file,
                           const std::string& emitter);
  std::map<std::string, std::string> texture_names_;  // origin -> file name
  std::optional<Rgba8Image> texture(const Value* v, const Doc& in, std::string* origin, bool* file,
                                    const SourceLoc& at);
  std::optional<Rgba8Image> rasterise(const Ref& ref);
  Rgba8Image noise_image(const Ref& ref, const SourceLoc& at);
};

}  // namespace spritz::import_detail::godot_import
