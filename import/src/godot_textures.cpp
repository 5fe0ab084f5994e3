// Godot textures for the importer (godot_importer.h): image files found
// through res://, beside the scene or in --texture-dir, and gradient
// textures rasterised.
#include "godot_importer.h"
#include "spritz/hash.h"
#include "spritz/noise.h"

namespace spritz::import_detail::godot_import {

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
  if (ref->type == "NoiseTexture" || ref->type == "NoiseTexture2D") {
    *origin = ref->type + " " + ref->sec->attr_text("id") + " of " +
              fs::path(ref->doc->path).filename().string() + " (spritz's noise)";
    return noise_image(*ref, at);
  }
  warn(at, "a " + printable(ref->type) +
               " texture cannot be imported: drawn as Godot draws no texture");
  return std::nullopt;
}

// A NoiseTexture (Godot 3, with an OpenSimplexNoise) or NoiseTexture2D
// (Godot 4, with a FastNoiseLite) approximated: the same size, scale,
// octaves, lacunarity, gain, seed and mapping to grey (Godot 4's normalize
// to the image's own range, Godot 3's v / 2 + 1 / 2; invert; a colour
// ramp), but spritz's gradient noise (model.md 9.6) in place of Godot's
// simplex noise, so the values differ pixel by pixel and the look matches.
// long: each property read where it applies, then one loop over the pixels.
Rgba8Image GodotImporter::noise_image(const Ref& ref, const SourceLoc& at) {
  const Section& s = *ref.sec;
  const bool v4 = ref.type == "NoiseTexture2D";
  const int w = static_cast<int>(std::clamp(num(s, "width", 512), 1.0, 2048.0));
  const int h = static_cast<int>(std::clamp(num(s, "height", 512), 1.0, 2048.0));
  // The noise resource's own values (Godot's defaults where it has none).
  Section none;
  const Section* n = &none;
  if (const Value* nv = s.prop("noise"))
    if (auto r = deref(*nv, *ref.doc); r && r->sec) n = r->sec;
  const double seed = num(*n, "seed", 0);
  const double frequency =
      v4 ? num(*n, "frequency", 0.01) : 1 / std::max(1e-3, num(*n, "period", 64));
  const int octaves = static_cast<int>(
      std::clamp(v4 ? (num(*n, "fractal_type", 1) == 0 ? 1 : num(*n, "fractal_octaves", 5))
                    : num(*n, "octaves", 3),
                 1.0, 9.0));
  const double lacunarity = v4 ? num(*n, "fractal_lacunarity", 2) : num(*n, "lacunarity", 2);
  const double gain = v4 ? num(*n, "fractal_gain", 0.5) : num(*n, "persistence", 0.5);
  const uint32_t field = mix32(static_cast<uint32_t>(static_cast<int64_t>(seed)) ^ 0x4E4F4953u);
  std::vector<double> v(size_t(w) * h);
  double lo = 1e300, hi = -1e300;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0, weight = 0, amp = 1, f = frequency;
      for (int o = 0; o < octaves; ++o, amp *= gain, f *= lacunarity) {
        sum += amp * gradient_noise(field, x * f, y * f, 0.5 + 17.0 * o).value;
        weight += amp;
      }
      const double value = weight > 0 ? sum / weight : 0;
      v[size_t(y) * w + x] = value;
      lo = std::min(lo, value), hi = std::max(hi, value);
    }
  const bool normalize = v4 && flag(s, "normalize", true);
  const bool invert = flag(s, "invert", false);
  const std::optional<Gradient> ramp =
      s.prop("color_ramp") ? gradient_of(s.prop("color_ramp"), *ref.doc) : std::nullopt;
  if (flag(s, v4 ? "as_normal_map" : "as_normalmap", false))
    note(at, "the noise texture's normal map is read as its heights (grey)");
  note(at, "the " + ref.type +
               " is spritz's gradient noise with its size, frequency, octaves, "
               "lacunarity, gain and seed: the same look, other values than Godot's simplex "
               "noise");
  Rgba8Image img;
  img.width = w, img.height = h;
  img.rgba.resize(size_t(w) * h * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    double t = normalize ? (hi > lo ? (v[i] - lo) / (hi - lo) : 0.5) : v[i] * 0.5 + 0.5;
    t = std::clamp(invert ? 1 - t : t, 0.0, 1.0);
    std::array<double, 4> c{t, t, t, 1};
    if (ramp) c = ramp->at(t);
    for (int k = 0; k < 4; ++k)
      img.rgba[i * 4 + k] = static_cast<uint8_t>(std::lround(std::clamp(c[k], 0.0, 1.0) * 255));
  }
  return img;
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

}  // namespace spritz::import_detail::godot_import
