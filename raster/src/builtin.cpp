// Procedural built-in textures: white shapes with alpha, generated in linear
// premultiplied form at any resolution. Every falloff reaches zero before the
// cell's border so edge-clamped sampling never shows a hard edge.
#include <algorithm>
#include <cmath>
#include <functional>

#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/raster/texture.h"

namespace spritz {
namespace {

constexpr double kPi = 3.14159265358979323846;

double smoothstep(double e0, double e1, double x) {
  const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3 - 2 * t);
}

// Value noise on an integer lattice, hashed (no tables, no state).
double lattice(int x, int y, uint32_t seed) {
  const uint32_t h =
      mix32(static_cast<uint32_t>(x) * 0x8da6b343u ^ static_cast<uint32_t>(y) * 0xd8163841u ^ seed);
  return h * (1.0 / 4294967296.0);
}
double value_noise(double x, double y, uint32_t seed) {
  const double fx = std::floor(x), fy = std::floor(y);
  const int ix = static_cast<int>(fx), iy = static_cast<int>(fy);
  const double tx = smoothstep(0, 1, x - fx), ty = smoothstep(0, 1, y - fy);
  const double a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
  const double c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}
double fbm(double x, double y, uint32_t seed) {
  double sum = 0, amp = 0.5, norm = 0;
  for (int o = 0; o < 4; ++o) {
    sum += amp * value_noise(x, y, seed + static_cast<uint32_t>(o) * 0x9E3779B9u);
    norm += amp;
    x *= 2.03;
    y *= 2.03;
    amp *= 0.5;
  }
  return sum / norm;
}

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
  const double across = std::exp(-x * x / (2 * 0.13 * 0.13));
  const double along = std::max(0.0, 1 - y * y);
  return across * along * along;
}
double ring(double x, double y, double) {
  const double r = std::sqrt(x * x + y * y);
  const double d = (r - 0.74) / 0.11;
  return std::exp(-d * d) * smoothstep(1.0, 0.92, r);
}
double star_at(double x, double y, double rays, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  const double u = x * c - y * s, v = x * s + y * c;
  const double r2 = x * x + y * y;
  const double core = std::exp(-r2 / (2 * 0.07 * 0.07));
  const double halo = 0.35 * std::exp(-r2 / (2 * 0.22 * 0.22));
  const double ray_u =
      std::exp(-v * v / (2 * 0.035 * 0.035)) * std::pow(std::max(0.0, 1 - std::abs(u)), 2.5);
  const double ray_v =
      std::exp(-u * u / (2 * 0.035 * 0.035)) * std::pow(std::max(0.0, 1 - std::abs(v)), 2.5);
  const double fade = smoothstep(1.0, 0.85, std::sqrt(r2));
  return std::clamp(core + halo + rays * (ray_u + ray_v), 0.0, 1.0) * fade;
}
double star(double x, double y, double) {
  return star_at(x, y, 0.9, 0);
}
double sparkle(double x, double y, double t) {
  // A twinkle: the rays swell and turn over one cycle.
  const double pulse = 0.5 - 0.5 * std::cos(2 * kPi * t);
  return star_at(x, y, 0.25 + 0.75 * pulse, t * kPi / 4) * (0.35 + 0.65 * pulse);
}
double smoke(double x, double y, double t) {
  // A puff that billows outward and thins as it ages.
  const double radius = 0.5 + 0.42 * std::sqrt(t);
  const double r = std::sqrt(x * x + y * y) / radius;
  const double body = smoothstep(1.0, 0.25, r);
  // Outside the puff (body 0) or the cell's round edge (the last factor 0)
  // the product below is exactly +0 whatever the noise: its four octaves,
  // most of the texture's cost, are not computed there.
  if (body == 0 || std::sqrt(x * x + y * y) >= 1.0) return 0.0;
  const double n = fbm(x * 2.6 + 11.3 + t * 0.9, y * 2.6 - 4.1 - t * 1.3, 0x51a3u);
  const double density = std::clamp(0.25 + 1.1 * n, 0.0, 1.0);
  return std::clamp(body * density * (1.1 - 0.75 * t), 0.0, 1.0) *
         smoothstep(1.0, 0.9, std::sqrt(x * x + y * y));
}
double solid(double, double, double) {
  return 1.0;
}

struct Builtin {
  std::string_view name;
  Shader shader;  // nullptr for disc, which needs the resolution
  bool animated;
};

const Builtin kBuiltins[] = {
    {"disc", nullptr, false}, {"soft", soft, false},      {"spark", spark, false},
    {"ring", ring, false},    {"star", star, false},      {"solid", solid, false},
    {"smoke", smoke, true},   {"sparkle", sparkle, true},
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
