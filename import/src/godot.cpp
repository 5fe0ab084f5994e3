// Godot 2D particles into the model (docs/import.md, following
// godot-format.md): GPUParticles2D with a ParticleProcessMaterial and
// CPUParticles2D (Godot 4), Particles2D with a ParticlesMaterial and
// CPUParticles2D (Godot 3), one emitter per node, placed by the node
// transforms.
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
#include "spritz/raster/png.h"
#include "spritz/rate.h"
#include "texture.h"

namespace spritz::import_detail {

namespace {

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
std::vector<double> fit_times(const Fn& f, std::vector<double> must, double tol, double* err) {
  constexpr int kGrid = 1000;
  std::vector<std::vector<double>> y(kGrid + 1);
  for (int i = 0; i <= kGrid; ++i) y[i] = f(i / double(kGrid));
  std::set<int> keys{0, kGrid};
  for (double t : must)
    if (t > 0 && t < 1) keys.insert(static_cast<int>(std::lround(t * kGrid)));
  while (static_cast<int>(keys.size()) > kMaxCurveKeys) keys.erase(std::next(keys.begin()));
  double worst = 0;
  while (true) {
    worst = 0;
    int at = -1;
    for (auto it = keys.begin(); std::next(it) != keys.end(); ++it) {
      const int a = *it, b = *std::next(it);
      for (int i = a + 1; i < b; ++i) {
        const double w = double(i - a) / (b - a);
        for (size_t d = 0; d < y[i].size(); ++d) {
          const double e = std::abs(y[a][d] + (y[b][d] - y[a][d]) * w - y[i][d]);
          if (e > worst) worst = e, at = i;
        }
      }
    }
    if (worst <= tol || at < 0 || static_cast<int>(keys.size()) >= kMaxCurveKeys) break;
    keys.insert(at);
  }
  *err = worst;
  std::vector<double> out;
  for (int k : keys) out.push_back(k / double(kGrid));
  return out;
}

// Godot's Curve (godot-format.md 5): points with tangents, a cubic Bezier in
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

Vec2 turn(Vec2 v, double a) {  // Godot's y-down rotation: clockwise on screen
  return {v.x * std::cos(a) - v.y * std::sin(a), v.x * std::sin(a) + v.y * std::cos(a)};
}

// One particle node into an emitter (godot-format.md 2-7).
struct Timing {
  double cycle = 1, amount = 8, explosiveness = 0, preprocess = 0;
  bool one_shot = false;
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
  void note(const SourceLoc& at, std::string m) { r_.notes.push_back({at, std::move(m)}); }

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
  void map_color(const Section& node, const Process& p, const Section* cm, Emitter& em);
  void map_flipbook(const Section& node, const Process& p, const Section* cm, int hf, int vf,
                    Emitter& em);
  const Section* process_of(const Section& node, const Doc** doc);
  bool godot3_names(const Section& proc, const std::string& type);
  void map_motion(const Section& node, const Process& p, const Xform& x, double s, Emitter& em);
  void map_shape(const Section& node, const Process& p, const Xform& x, Emitter& em);
  std::string texture_file(const Rgba8Image& img, const std::string& origin, bool file,
                           const std::string& emitter);
  std::map<std::string, std::string> texture_names_;  // origin -> file name
  std::optional<Rgba8Image> texture(const Value* v, const Doc& in, std::string* origin, bool* file,
                                    const SourceLoc& at);
  std::optional<Rgba8Image> rasterise(const Ref& ref);
};

void GodotImporter::index(Doc& d) {
  for (const Section& s : d.doc.sections) {
    if (s.tag == "sub_resource") d.subs[s.attr_text("id")] = &s;
    if (s.tag == "ext_resource")
      d.exts[s.attr_text("id")] = {s.attr_text("type"), s.attr_text("path")};
    if (s.tag == "resource") d.resource = &s;
  }
}

// res:// paths are relative to the folder holding project.godot (walking up
// from the scene's); without one, to the scene's folder.
std::string GodotImporter::resolve_res(const std::string& res_path) {
  if (res_path.rfind("res://", 0) != 0)
    return (fs::path(base_dir_) / res_path).lexically_normal().string();
  if (!project_looked_) {
    project_looked_ = true;
    fs::path dir = fs::path(base_dir_.empty() ? "." : base_dir_);
    for (int up = 0; up < 32; ++up) {
      if (read_file_((dir / "project.godot").string())) {
        project_root_ = dir.string();
        break;
      }
      const fs::path parent = fs::absolute(dir).lexically_normal().parent_path();
      if (parent == fs::absolute(dir).lexically_normal()) break;
      dir = dir / "..";
    }
  }
  const std::string rel = res_path.substr(6);
  return (fs::path(project_root_.value_or(base_dir_)) / rel).lexically_normal().string();
}

const Doc* GodotImporter::load_tres(const std::string& path, const SourceLoc& at) {
  auto it = loaded_.find(path);
  if (it != loaded_.end()) return it->second.get();
  if (loaded_.size() >= 256) throw Error(at, "more than 256 external resources: refused");
  auto bytes = read_file_(path);
  if (!bytes) {
    loaded_[path] = nullptr;
    return nullptr;
  }
  auto d = std::make_unique<Doc>();
  d->path = path;
  d->doc = godot::parse_document(
      std::string_view(reinterpret_cast<const char*>(bytes->data()), bytes->size()), path);
  index(*d);
  r_.source_files.push_back(path);
  return (loaded_[path] = std::move(d)).get();
}

// SubResource("id") or ExtResource("id") to the section it names; an
// external .tres is read (and its own [resource] returned), another external
// file is named in Ref::file. nullopt, with a warning, when the value names
// nothing readable.
std::optional<Ref> GodotImporter::deref(const Value& v, const Doc& in) {
  if (v.kind != Value::Kind::kCall || v.items.empty()) return std::nullopt;
  const std::string id = v.items[0].as_text();
  if (v.text == "SubResource") {
    auto it = in.subs.find(id);
    if (it == in.subs.end()) {
      warn(v.loc, "SubResource(\"" + printable(id) + "\") names no sub_resource in this file");
      return std::nullopt;
    }
    return Ref{it->second, &in, it->second->attr_text("type"), {}};
  }
  if (v.text == "ExtResource") {
    auto it = in.exts.find(id);
    if (it == in.exts.end()) {
      warn(v.loc, "ExtResource(\"" + printable(id) + "\") names no ext_resource in this file");
      return std::nullopt;
    }
    const std::string& p = it->second.path;
    if (fs::path(p).extension() != ".tres") return Ref{nullptr, &in, it->second.type, p};
    const std::string file = resolve_res(p);
    const Doc* d = load_tres(file, v.loc);
    if (!d || !d->resource) {
      warn(v.loc, "the external resource " + printable(p) + " (" + printable(file) +
                      ") is missing or not a text resource: what it gives is left out");
      return std::nullopt;
    }
    std::string type;
    for (const Section& s : d->doc.sections)
      if (s.tag == "gd_resource") type = s.attr_text("type");
    return Ref{d->resource, d, type, {}};
  }
  return std::nullopt;
}

double GodotImporter::num(const Section& s, std::string_view key, double def) {
  const Value* v = s.prop(key);
  if (!v) return def;
  if (v->kind == Value::Kind::kBool) return v->boolean ? 1 : 0;
  if (!v->is_number() || !std::isfinite(v->number) || std::abs(v->number) > 1e9)
    throw Error(v->loc, std::string(key) + " must be a finite number within ±1e9");
  return v->number;
}

bool GodotImporter::flag(const Section& s, std::string_view key, bool def) {
  const Value* v = s.prop(key);
  if (!v) return def;
  if (v->kind == Value::Kind::kBool) return v->boolean;
  if (v->is_number()) return v->number != 0;
  throw Error(v->loc, std::string(key) + " must be true or false");
}

std::optional<Vec2> GodotImporter::vec(const Section& s, std::string_view key) {
  const Value* v = s.prop(key);
  if (!v) return std::nullopt;
  const std::vector<double> n = v->numbers();
  if ((!v->is_call("Vector2") && !v->is_call("Vector3") && !v->is_call("Vector2i")) || n.size() < 2)
    throw Error(v->loc, std::string(key) + " must be a Vector2 or Vector3");
  for (double x : n)
    if (!std::isfinite(x) || std::abs(x) > 1e9)
      throw Error(v->loc, std::string(key) + " must hold finite numbers within ±1e9");
  return Vec2{n[0], n[1]};
}

// Godot 4: base_min / base_max.
Range GodotImporter::range4(const Section& s, const std::string& base, Range def) const {
  return {num(s, base + "_min", def.min), num(s, base + "_max", def.max)};
}

// Godot 3: param * mix(1, u, random), i.e. [param (1 - random), param].
Range GodotImporter::range3(const Section& s, const std::string& base, double def) const {
  const double p = num(s, base, def);
  const double r = std::clamp(num(s, base + "_random", 0), 0.0, 1.0);
  const double lo = p * (1 - r);
  return {std::min(lo, p), std::max(lo, p)};
}

GodotCurve GodotImporter::read_curve(const Section& s) {
  GodotCurve c;
  const Value* data = s.prop("_data");
  if (!data) return c;
  // Godot 4 and 3 alike: [Vector2(x, y), left, right, left_mode, right_mode, ...];
  // older Godot 3 files hold a dictionary {"points": PoolRealArray(x, y, l, r, ...)}.
  const std::vector<Value>* items = &data->items;
  std::vector<Value> from_dict;
  if (data->kind == Value::Kind::kDict) {
    if (const Value* p = data->entry("points")) {
      const std::vector<double> n = p->numbers();
      for (size_t i = 0; i + 3 < n.size(); i += 4)
        c.points.push_back({n[i], n[i + 1], n[i + 2], n[i + 3]});
    }
  } else {
    for (size_t i = 0; i + 2 < items->size(); i += 5) {
      const Value& pv = (*items)[i];
      const std::vector<double> xy = pv.numbers();
      if (!pv.is_call("Vector2") || xy.size() != 2)
        throw Error(pv.loc, "a Curve point must be a Vector2");
      const double l = (*items)[i + 1].is_number() ? (*items)[i + 1].number : 0;
      const double rt = (*items)[i + 2].is_number() ? (*items)[i + 2].number : 0;
      c.points.push_back({xy[0], xy[1], l, rt});
    }
  }
  for (const auto& p : c.points)
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.left) ||
        !std::isfinite(p.right) || std::abs(p.y) > 1e9 || std::abs(p.left) > 1e9 ||
        std::abs(p.right) > 1e9)
      throw Error(data->loc, "a Curve holds a value that is not a finite number within ±1e9");
  std::stable_sort(c.points.begin(), c.points.end(),
                   [](const auto& a, const auto& b) { return a.x < b.x; });
  return c;
}

Gradient GodotImporter::read_gradient(const Section& s) {
  Gradient g;
  const Value* off = s.prop("offsets");
  const Value* col = s.prop("colors");
  // Either omitted is Godot's default: offsets (0, 1), colours black and white.
  g.offsets = off ? off->numbers() : std::vector<double>{0, 1};
  std::vector<double> c = col ? col->numbers() : std::vector<double>{0, 0, 0, 1, 1, 1, 1, 1};
  if (c.size() != 4 * g.offsets.size() || g.offsets.empty())
    throw Error(off ? off->loc : s.loc,
                "a Gradient needs as many colours (4 numbers each) as offsets");
  for (size_t i = 0; i < g.offsets.size(); ++i) {
    g.colors.push_back({c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]});
    for (int k = 0; k < 4; ++k)
      if (!std::isfinite(c[4 * i + k]) || std::abs(c[4 * i + k]) > 1e3)
        throw Error(col ? col->loc : s.loc,
                    "a Gradient colour must hold finite numbers within ±1000");
    if (!std::isfinite(g.offsets[i]))
      throw Error(off ? off->loc : s.loc, "a Gradient offset must be finite");
  }
  // Sorted by offset, as Godot keeps them.
  std::vector<size_t> order(g.offsets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return g.offsets[a] < g.offsets[b]; });
  Gradient sorted;
  for (size_t i : order)
    sorted.offsets.push_back(g.offsets[i]), sorted.colors.push_back(g.colors[i]);
  sorted.constant = num(s, "interpolation_mode", 0) == 1;
  return sorted;
}

// Resources that hold resources: a chain this long is a loop.
constexpr int kMaxResourceDepth = 8;

// A Curve, or a CurveTexture holding one (curve = SubResource(...)).
std::optional<GodotCurve> GodotImporter::curve_of(const Value* v, const Doc& in, int depth) {
  if (!v || v->kind == Value::Kind::kNull) return std::nullopt;
  if (depth > kMaxResourceDepth)
    throw Error(v->loc, "these resources refer to each other in a loop");
  auto ref = deref(*v, in);
  if (!ref || !ref->sec) return std::nullopt;
  if (ref->type == "Curve") return read_curve(*ref->sec);
  if (const Value* c = ref->sec->prop("curve")) return curve_of(c, *ref->doc, depth + 1);
  return std::nullopt;
}

// A Gradient, or a GradientTexture(1D) holding one.
std::optional<Gradient> GodotImporter::gradient_of(const Value* v, const Doc& in, int depth) {
  if (!v || v->kind == Value::Kind::kNull) return std::nullopt;
  if (depth > kMaxResourceDepth)
    throw Error(v->loc, "these resources refer to each other in a loop");
  auto ref = deref(*v, in);
  if (!ref || !ref->sec) return std::nullopt;
  if (ref->type == "Gradient") return read_gradient(*ref->sec);
  if (const Value* g = ref->sec->prop("gradient")) return gradient_of(g, *ref->doc, depth + 1);
  if (ref->type.rfind("GradientTexture", 0) == 0) return read_gradient(Section{});
  return std::nullopt;
}

// Points stored in an embedded Image (RGFloat: x, y per texel), the form
// the GPU material's emission_point_texture takes.
std::vector<Vec2> GodotImporter::image_points(const Value* tex, const Doc& in, size_t count,
                                              const SourceLoc& at) {
  std::vector<Vec2> out;
  if (!tex) return out;
  auto t = deref(*tex, in);
  if (!t || !t->sec) return out;
  const Value* iv = t->sec->prop("image");
  auto img = iv ? deref(*iv, *t->doc) : std::nullopt;
  const Value* data = img && img->sec ? img->sec->prop("data") : nullptr;
  const Value* bytes = data ? data->entry("data") : nullptr;
  const Value* format = data ? data->entry("format") : nullptr;
  const std::string f = format ? format->text : "";
  const size_t stride = f == "RGFloat" || f == "RGF" ? 8 : f == "RGBFloat" || f == "RGBF" ? 12 : 0;
  if (!bytes || stride == 0) {
    warn(at, "the emission points are not in an embedded RGFloat image: the shape is a point");
    return out;
  }
  std::vector<uint8_t> b;
  b.reserve(bytes->items.size());
  for (const Value& x : bytes->items)
    b.push_back(x.is_number() && x.number >= 0 && x.number <= 255 ? static_cast<uint8_t>(x.number)
                                                                  : 0);
  const size_t n = std::min({count, b.size() / stride, kMaxPoints});
  for (size_t i = 0; i < n; ++i) {
    float xy[2];
    std::memcpy(xy, &b[i * stride], 8);  // little-endian floats, as Godot stores them
    if (!std::isfinite(xy[0]) || !std::isfinite(xy[1])) continue;
    out.push_back({xy[0], xy[1]});
  }
  return out;
}

void GodotImporter::read_points(const Section& s, const Doc& in, Process& p) {
  const Value* pts = s.prop("emission_points");
  if (pts) {
    const std::vector<double> n = pts->numbers();
    for (size_t i = 0; i + 1 < n.size() && p.points.size() < kMaxPoints; i += 2)
      if (std::isfinite(n[i]) && std::isfinite(n[i + 1])) p.points.push_back({n[i], n[i + 1]});
    if (const Value* nv = s.prop("emission_normals")) {
      const std::vector<double> m = nv->numbers();
      for (size_t i = 0; i + 1 < m.size() && p.normals.size() < p.points.size(); i += 2)
        p.normals.push_back(std::isfinite(m[i]) && std::isfinite(m[i + 1]) &&
                                    std::abs(m[i]) < 1e9 && std::abs(m[i + 1]) < 1e9
                                ? Vec2{m[i], m[i + 1]}
                                : Vec2{0, 0});
    }
  } else {
    const size_t count =
        static_cast<size_t>(std::clamp(num(s, "emission_point_count", 1), 0.0, 1e6));
    p.points = image_points(s.prop("emission_point_texture"), in, count, p.shape_loc);
    if (p.shape == 5)
      p.normals = image_points(s.prop("emission_normal_texture"), in, count, p.shape_loc);
  }
  if (p.normals.size() != p.points.size()) p.normals.clear();
}

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

// A texture: an image file (PNG, or TIFF) found through res://, beside the
// scene or in --texture-dir, or a gradient texture rasterised.
std::optional<Rgba8Image> GodotImporter::texture(const Value* v, const Doc& in, std::string* origin,
                                                 bool* file, const SourceLoc& at) {
  *file = false;
  if (!v || v->kind == Value::Kind::kNull) return std::nullopt;
  auto ref = deref(*v, in);
  if (!ref) return std::nullopt;
  if (!ref->file.empty()) {
    const std::string& res = ref->file;
    std::vector<std::string> tried{resolve_res(res)};
    tried.push_back((fs::path(base_dir_) / fs::path(res).filename()).lexically_normal().string());
    for (const std::string& d : o_.texture_dirs)
      tried.push_back((fs::path(d) / fs::path(res).filename()).lexically_normal().string());
    std::string list;
    for (const std::string& p : tried) {
      list += (list.empty() ? "" : ", ") + printable(p);
      auto bytes = read_file_(p);
      if (!bytes) continue;
      const std::string ext = fs::path(p).extension().string();
      if (ext == ".svg" || ext == ".webp" || ext == ".jpg" || ext == ".jpeg") {
        warn(at, "the texture " + printable(p) + " is " + ext.substr(1) +
                     ", which spritz cannot read: convert it to PNG (drawn as Godot draws "
                     "no texture meanwhile)");
        return std::nullopt;
      }
      *origin = p;
      *file = true;
      return decode_image(*bytes, "texture " + printable(p), at);
    }
    warn(at, "the texture " + printable(res) + " was not found (" + list +
                 "): drawn as Godot draws a particle with no texture, a 1 px square scaled "
                 "by the particle scale (--texture-dir adds a folder to look in)");
    return std::nullopt;
  }
  if (!ref->sec) return std::nullopt;
  if (ref->type.rfind("GradientTexture", 0) == 0) {
    *origin = ref->type + " " + ref->sec->attr_text("id") + " of " +
              fs::path(ref->doc->path).filename().string() + " (rasterised)";
    return rasterise(*ref);
  }
  warn(at, "a " + printable(ref->type) +
               " texture cannot be imported: drawn as Godot draws no texture");
  return std::nullopt;
}

// GradientTexture1D (a strip) and GradientTexture2D (linear, radial or
// square fill between fill_from and fill_to, in UV units).
std::optional<Rgba8Image> GodotImporter::rasterise(const Ref& ref) {
  const Section& s = *ref.sec;
  const Gradient g = gradient_of(s.prop("gradient"), *ref.doc).value_or(read_gradient(Section{}));
  const bool two_d = ref.type == "GradientTexture2D";
  const int w = static_cast<int>(std::clamp(num(s, "width", two_d ? 64 : 256), 1.0, 4096.0));
  const int h = two_d ? static_cast<int>(std::clamp(num(s, "height", 64), 1.0, 4096.0)) : 1;
  const int fill = static_cast<int>(num(s, "fill", 0));
  const Vec2 from = vec(s, "fill_from").value_or(Vec2{0, 0});
  const Vec2 to = vec(s, "fill_to").value_or(Vec2{1, 0});
  Rgba8Image img;
  img.width = w, img.height = h;
  img.rgba.resize(size_t(w) * h * 4);
  const Vec2 d = to - from;
  const double len2 = d.x * d.x + d.y * d.y;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const Vec2 p{(x + 0.5) / w, (y + 0.5) / h};
      double t = p.x;
      if (two_d) {
        const Vec2 q = p - from;
        if (fill == 1)
          t = len2 > 0 ? std::sqrt((q.x * q.x + q.y * q.y) / len2) : 0;
        else if (fill == 2)
          t = std::max(std::abs(q.x), std::abs(q.y)) /
              std::max(std::max(std::abs(d.x), std::abs(d.y)), 1e-9);
        else
          t = len2 > 0 ? (q.x * d.x + q.y * d.y) / len2 : 0;
      }
      const auto c = g.at(std::clamp(t, 0.0, 1.0));
      for (int k = 0; k < 4; ++k)
        img.rgba[(size_t(y) * w + x) * 4 + k] =
            static_cast<uint8_t>(std::lround(std::clamp(c[k], 0.0, 1.0) * 255));
    }
  return img;
}

std::string GodotImporter::texture_file(const Rgba8Image& img, const std::string& origin, bool file,
                                        const std::string& emitter) {
  auto it = texture_names_.find(origin);
  if (it != texture_names_.end()) return it->second;
  ImportResult::Texture t;
  t.name = r_.fx.name + "-" + emitter + ".png";
  t.png = encode_png(img.rgba.data(), img.width, img.height);
  t.origin = origin;
  t.from_file = file;
  r_.textures.push_back(t);
  return texture_names_[origin] = t.name;
}

// Size, rotation, colour, flipbook and blend (godot-format.md 2.1, 2.3, 2.4).
void GodotImporter::map_appearance(const Section& node, const Process& p, const Xform& x,
                                   const Section* cm, double s, Emitter& em) {
  // The texture and its cells: the quad is the cell's size in px.
  std::string origin;
  bool file = false;
  const std::optional<Rgba8Image> img =
      texture(node.prop("texture"), main_, &origin, &file, node.loc);
  int hf = static_cast<int>(num(node, "h_frames", 1)),
      vf = static_cast<int>(num(node, "v_frames", 1));
  const bool anim = cm ? flag(*cm, "particles_animation", false) : hf * vf > 1;
  if (cm && anim) {
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
  // (godot-format.md 4); the node's clockwise rotation is taken off.
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

// Colour, alpha, hue and blend (godot-format.md 2.3, 2.4).
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
// life (godot-format.md 2.4).
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

// One particle node (godot-format.md 2, 3, 4, 5).
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
  if (ref->type == "ShaderMaterial") {
    warn(pm->loc, "the " + type + " '" + printable(name) +
                      "' runs a ShaderMaterial (custom "
                      "particle code), which cannot be imported: it is left out");
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

// Launch, gravity and forces, in spritz's y-up terms (godot-format.md 4, 5).
void GodotImporter::map_motion(const Section& node, const Process& p, const Xform& x, double s,
                               Emitter& em) {
  // Godot's vectors turn with the node and flip their y; the node's scale
  // multiplies speeds and shape offsets.
  const double sc = std::sqrt(std::abs(x.scale.x * x.scale.y));
  const Vec2 dir = turn(p.direction, x.rot);
  em.direction_deg = std::atan2(-dir.y, dir.x) * 180 / kPi;
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
  em.forces.damping = {std::max(0.0, p.damping.min) * fs * s * s,
                       std::max(0.0, p.damping.max) * fs * s * s};
  em.forces.orbit_velocity = {p.orbit.min * 360 * s, p.orbit.max * 360 * s};
  em.forces.step_s = o_.step_s / s;
  if (integrated_motion(em) && em.lifetime_s.max / em.forces.step_s > 1e6)
    throw Error(node.loc, "a lifetime of " + fmt(em.lifetime_s.max) +
                              " s needs more than 1e6 steps of " + fmt(em.forces.step_s) +
                              " s to integrate its forces; import with a longer --step");
  if (p.linear.min != 0 || p.linear.max != 0)
    note(node.loc,
         "linear_accel (along each particle's velocity) is dropped: spritz has no such force");
  if (!p.disable_z)
    note(node.loc,
         "the material is not in 2D mode (particle_flag_disable_z): Godot spreads it in a "
         "3D cone seen flat; spritz spreads it in the plane");
}

// The emission shape (godot-format.md 2.5), placed by the node.
void GodotImporter::map_shape(const Section& node, const Process& p, const Xform& x, Emitter& em) {
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
        em.direction_deg = (std::atan2(p.direction.y, p.direction.x) - x.rot) * 180 / kPi;
      }
      break;
    default:
      warn(p.shape_loc,
           "emission_shape " + std::to_string(p.shape) + " is not one Godot defines: a point");
  }
  if (x.rot != 0 &&
      (sh.kind == ShapeKind::kBox || (sh.kind == ShapeKind::kEllipse && sh.a != sh.b)))
    note(node.loc,
         "the node's rotation does not turn the emission box or ellipse (spritz's shapes "
         "are axis-aligned)");
}

bool GodotImporter::map_node(const Section& node, const Xform& x, Effect& fx, Timing& timing) {
  const std::string type = node.attr_text("type");
  const bool cpu = type == "CPUParticles2D";
  const std::string name = node.attr_text("name");
  const Doc* proc_doc = nullptr;
  const Section* proc = process_of(node, &proc_doc);
  if (!proc) return false;
  v3_ = godot3_names(*proc, type);
  Process p = read_process(*proc, *proc_doc, cpu, cpu && v3_);
  // GPUParticles2D's fix-up (godot-format.md 2.3): a material still at the
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
  timing.preprocess = std::max(0.0, num(node, "preprocess", 0)) / s;
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
  map_shape(node, p, x, em);
  const int order = static_cast<int>(num(node, "draw_order", cpu || v3_ ? 0 : 1));
  em.draw_order = order == 2 ? DrawOrder::kNewestFirst : DrawOrder::kOldestFirst;
  // The CanvasItemMaterial: blend and flipbook.
  const Section* cm = nullptr;
  if (const Value* m = node.prop("material")) {
    auto ref = deref(*m, main_);
    if (ref && ref->sec && ref->type == "CanvasItemMaterial") cm = ref->sec;
  }
  map_appearance(node, p, x, cm, s, em);
  // What spritz does not import (docs/import.md): each said where it is.
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
                                         "radial_accel_curve",
                                         "tangential_accel_curve",
                                         "linear_accel_curve",
                                         "anim_speed_curve",
                                         "anim_offset_curve",
                                         "directional_velocity_min",
                                         "radial_velocity_min",
                                         "velocity_limit_curve",
                                         "scale_over_velocity_curve",
                                         "inherit_velocity_ratio",
                                         "particle_flag_damping_as_friction"};
  for (const char* k : kDropped)
    for (const Section* sec : {proc, &node})
      if (const Value* v = sec->prop(k); v && !(v->kind == Value::Kind::kBool && !v->boolean) &&
                                         !(v->is_number() && v->number == 0))
        note(v->loc, std::string(k) + " is not imported (docs/import.md, Godot)");
  fx.emitters.push_back(std::move(em));
  return true;
}

// Emission over time (godot-format.md 3): the stream amount / cycle; an
// explosive node's births squeezed into the first (1 - e) of each cycle;
// one-shot nodes keep one cycle.
void GodotImporter::map_timing(Effect& fx, const std::vector<Timing>& timings) {
  const bool any_once =
      std::any_of(timings.begin(), timings.end(), [](const Timing& t) { return t.one_shot; });
  double period = 0, end = 0;
  for (size_t i = 0; i < timings.size(); ++i) {
    period = std::max(period, timings[i].cycle);
    const Timing& t = timings[i];
    end = std::max(
        end, t.cycle * (t.one_shot ? 1 - t.explosiveness : 2) + fx.emitters[i].lifetime_s.max);
  }
  fx.loop = !any_once;
  // A loop holds a whole number of every explosive node's cycles: a
  // multiple of their least common multiple (in ms), when that stays within
  // a minute and 1000 cycles of each.
  if (fx.loop) {
    uint64_t l = 1;
    bool whole = true;
    for (const Timing& t : timings) {
      if (t.explosiveness <= 0) continue;
      const double ms = std::round(t.cycle * 1000);
      if (std::abs(ms - t.cycle * 1000) > 1e-6 || ms < 1) whole = false;
      if (!whole) break;
      const uint64_t c = static_cast<uint64_t>(ms);
      l = l / std::gcd(l, c) * c;
      if (l > 60000 || l / c > 1000) whole = false;
    }
    // The least multiple of it that is at least the longest cycle.
    if (whole && l > 1) period = l / 1000.0 * std::ceil(period / (l / 1000.0) - 1e-9);
  }
  fx.duration_s = fx.loop ? period : std::max(end, 1.0 / fx.fps);
  double pre = -1;
  for (size_t i = 0; i < timings.size(); ++i) {
    const Timing& t = timings[i];
    Emitter& em = fx.emitters[i];
    const double e = t.explosiveness;
    const double reps = fx.loop ? std::max(1.0, std::floor(period / t.cycle + 1e-9)) : 1;
    if (fx.loop && std::abs(reps * t.cycle - period) > 1e-9 * period && (e > 0))
      note(t.loc, "this node's cycle (" + fmt(t.cycle) +
                      " s) does not divide the effect's period (" + fmt(period) +
                      " s): its last cycle is cut short at the loop");
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
      const size_t n =
          std::min<size_t>(static_cast<size_t>(t.one_shot ? 1 : reps), kMaxRateKeys / 4);
      for (size_t k = 0; k < n; ++k) {
        const double t0 = k * t.cycle, t1 = t0 + (1 - e) * t.cycle;
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
  if (pre > 0 && !fx.loop)
    fx.start_s = pre;
  else if (pre > 0)
    note(timings.front().loc,
         "preprocess is not needed: the looped effect is shown in its steady state");
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
  bool root_seen = false;
  for (const Section& s : main_.doc.sections) {
    if (s.tag != "node") continue;
    const std::string name = s.attr_text("name");
    const Value* parent_v = s.attr("parent");
    std::string path;
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
    const std::string type = s.attr_text("type");
    if (type == "GPUParticles2D" || type == "Particles2D" || type == "CPUParticles2D") {
      Timing t;
      if (map_node(s, w, fx, t)) timings.push_back(t);
      if (fx.emitters.size() > 256) throw Error(s.loc, "more than 256 particle nodes: refused");
    } else if (!type.empty()) {
      found.push_back(type);
    }
  }
  // A .tres holding a process material alone: one emitter with Godot's
  // defaults for the node.
  if (!root_seen && main_.resource) {
    for (const Section& s : main_.doc.sections)
      if (s.tag == "gd_resource")
        throw Error(s.loc, "a " + printable(s.attr_text("type")) +
                               " resource holds no particle node: import "
                               "the scene (.tscn) that uses it");
  }
  if (fx.emitters.empty()) {
    std::string what;
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    for (size_t i = 0; i < found.size() && i < 8; ++i)
      what += (i ? ", " : "") + printable(found[i]);
    std::string why;
    for (const Diagnostic& d : r_.warnings) why += "\n  " + d.to_string();
    throw Error(SourceLoc{main_.path, 1, 1},
                "no particle emitter could be imported: the scene has " +
                    (what.empty() ? std::string("no nodes") : "nodes of type " + what) +
                    " and no GPUParticles2D, Particles2D or CPUParticles2D that spritz can read" +
                    why);
  }
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

}  // namespace

ImportResult import_godot(std::string_view text, const std::string& source_name,
                          const std::string& base_dir, const ImportOptions& options,
                          const ReadFile& read_file) {
  GodotImporter g(text, source_name, base_dir, options, read_file);
  ImportResult r = g.run();
  return finish(std::move(r), source_name, "Godot scene");
}

}  // namespace spritz::import_detail
