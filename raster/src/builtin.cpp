// Procedural built-in textures: white shapes with alpha, generated in linear
// premultiplied form at any resolution. Every falloff reaches zero before the
// cell's border so edge-clamped sampling never shows a hard edge.
#include <algorithm>
#include <cmath>
#include <functional>

#include "smoke.h"
#include "spritz/angle.h"
#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/raster/texture.h"

namespace spritz {
namespace {

using detail::smoothstep;

// Alpha of each shape at (x, y) in [-1, 1]^2 (y down), frame phase t in [0, 1).
using Shader = double (*)(double x, double y, double t);

double disc(double x, double y, double, int n) {
  const double r = std::sqrt(x * x + y * y);
  return std::clamp((1 - r) * n * 0.5 + 0.5, 0.0, 1.0);  // one-texel anti-aliased edge
}
double soft(double x, double y, double) {
  const double r2 = x * x + y * y;
  return r2 < 1 ? (1 - r2) * (1 - r2) : 0.0;
}
double spark(double x, double y, double) {
  const double across = math::exp(-x * x / (2 * 0.13 * 0.13));
  const double along = std::max(0.0, 1 - y * y);
  return across * along * along;
}
double ring(double x, double y, double) {
  const double r = std::sqrt(x * x + y * y);
  const double d = (r - 0.74) / 0.11;
  return math::exp(-d * d) * smoothstep(1.0, 0.92, r);
}
double star_at(double x, double y, double rays, double angle) {
  double c, s;
  math::sincos(angle, &s, &c);
  const double u = x * c - y * s, v = x * s + y * c;
  const double r2 = x * x + y * y;
  const double core = math::exp(-r2 / (2 * 0.07 * 0.07));
  const double halo = 0.35 * math::exp(-r2 / (2 * 0.22 * 0.22));
  const double ray_u =
      math::exp(-v * v / (2 * 0.035 * 0.035)) * math::pow(std::max(0.0, 1 - std::abs(u)), 2.5);
  const double ray_v =
      math::exp(-u * u / (2 * 0.035 * 0.035)) * math::pow(std::max(0.0, 1 - std::abs(v)), 2.5);
  const double fade = smoothstep(1.0, 0.85, std::sqrt(r2));
  return std::clamp(core + halo + rays * (ray_u + ray_v), 0.0, 1.0) * fade;
}
double star(double x, double y, double) {
  return star_at(x, y, 0.9, 0);
}
double sparkle(double x, double y, double t) {
  // A twinkle: the rays swell and turn over one cycle.
  const double pulse = 0.5 - 0.5 * math::cos(2 * kPi * t);
  return star_at(x, y, 0.25 + 0.75 * pulse, t * kPi / 4) * (0.35 + 0.65 * pulse);
}
double solid(double, double, double) {
  return 1.0;
}

struct Builtin {
  std::string_view name;
  Shader shader;  // nullptr for disc, which needs the resolution, and smoke (smoke.h)
  bool animated;
};

const Builtin kBuiltins[] = {
    {"disc", nullptr, false}, {"soft", soft, false},      {"spark", spark, false},
    {"ring", ring, false},    {"star", star, false},      {"solid", solid, false},
    {"smoke", nullptr, true}, {"sparkle", sparkle, true},
};

}  // namespace

const std::vector<std::string_view>& builtin_texture_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const Builtin& b : kBuiltins) v.push_back(b.name);
    return v;
  }();
  return names;
}

Texture builtin_texture(std::string_view name, int cell_px, int cols, int rows, int threads) {
  const Builtin* found = nullptr;
  for (const Builtin& b : kBuiltins)
    if (b.name == name) found = &b;
  if (!found) {
    std::string list;
    for (std::string_view n : builtin_texture_names())
      list += (list.empty() ? "" : ", ") + std::string("builtin:") + std::string(n);
    throw Error("unknown built-in texture 'builtin:" + std::string(name) + "' (available: " + list +
                ")");
  }
  const int n = std::max(1, cell_px);
  const int frames = cols * rows;
  // Each cell is shaded straight into its own full-size level: no image of
  // the whole flipbook (16 MB for smoke's 16 cells of 256 px) is made and
  // copied first.
  return texture_from_cells(
      n, n, cols, rows,
      [&](int frame, float* rgba) {
        const double t = found->animated ? (frame + 0.5) / frames : 0.0;
        if (found->name == "smoke") {
          detail::smoke_cell(n, t, rgba, true);  // smoke.h: its noise from per-cell tables
          return;
        }
        for (int j = 0; j < n; ++j) {
          const double y = (j + 0.5) / n * 2 - 1;
          for (int i = 0; i < n; ++i) {
            const double x = (i + 0.5) / n * 2 - 1;
            const double a = found->shader ? found->shader(x, y, t) : disc(x, y, t, n);
            float* p =
                rgba +
                (static_cast<size_t>(j) * static_cast<size_t>(n) + static_cast<size_t>(i)) * 4;
            p[0] = p[1] = p[2] = p[3] = static_cast<float>(a);  // white, premultiplied
          }
        }
      },
      threads);
}

}  // namespace spritz
