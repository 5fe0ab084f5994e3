// Godot resources for the importer (godot_importer.h): res:// paths, .tres
// files, references between resources, property readers, curves,
// gradients and emission points.
#include "godot_importer.h"

namespace spritz::import_detail::godot_import {

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
  // Godot's setters keep min <= max as the file's lines set them, in order:
  // a min above the max raises the max to it, a max below the min lowers
  // the min (ParticleProcessMaterial::set_param_min/_max).
  Range r = def;
  const Value* lo = s.prop(base + "_min");
  const Value* hi = s.prop(base + "_max");
  const auto set_min = [&] {
    r.min = num(s, base + "_min", def.min);
    if (r.min > r.max) r.max = r.min;
  };
  const auto set_max = [&] {
    r.max = num(s, base + "_max", def.max);
    if (r.max < r.min) r.min = r.max;
  };
  const bool max_last =
      lo && hi &&
      (hi->loc.line > lo->loc.line || (hi->loc.line == lo->loc.line && hi->loc.col > lo->loc.col));
  if (max_last) {
    set_min();
    set_max();
  } else {
    if (hi) set_max();
    if (lo) set_min();
  }
  return r;
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

}  // namespace spritz::import_detail::godot_import
