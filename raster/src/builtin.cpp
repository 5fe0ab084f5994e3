// Procedural built-in textures: white shapes with alpha, generated in linear
// premultiplied form at any resolution. Every falloff reaches zero before the
// cell's border so edge-clamped sampling never shows a hard edge.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

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

// The smoke puff's noise for one flipbook cell of n x n texels: four
// octaves of value noise (fbm) at x * 2.6 + 11.3 + t * 0.9,
// y * 2.6 - 4.1 - t * 1.3, each octave's coordinates 2.03 times the last's.
// That was most of the flipbook's cost, done texel by texel. But an
// octave's x depends on the texel's column alone and its y on the row, so
// each column's lattice cell and smoothed fraction, and each row's, are
// computed once here, and each octave's lattice points (at most about
// 55 x 55 in a 256 px cell, against 16 hashes a texel) are hashed once
// into a table. The operations and their order are those of evaluating
// the noise texel by texel, so the texels are the same doubles.
class SmokeNoise {
 public:
  SmokeNoise(int n, double t) {
    for (int o = 0; o < kOctaves; ++o) {
      octaves_[o].cols.resize(static_cast<size_t>(n));
      octaves_[o].rows.resize(static_cast<size_t>(n));
    }
    // Texel centres as the cell's loop computes them; each octave's
    // coordinate from the last one's, as fbm steps it.
    for (int i = 0; i < n; ++i) {
      const double c = (i + 0.5) / n * 2 - 1;
      double x = c * 2.6 + 11.3 + t * 0.9, y = c * 2.6 - 4.1 - t * 1.3;
      for (Octave& oc : octaves_) {
        oc.cols[static_cast<size_t>(i)] = axis(x);
        oc.rows[static_cast<size_t>(i)] = axis(y);
        x *= 2.03;
        y *= 2.03;
      }
    }
    for (int o = 0; o < kOctaves; ++o) {
      Octave& oc = octaves_[o];
      const uint32_t seed = 0x51a3u + static_cast<uint32_t>(o) * 0x9E3779B9u;
      const auto [x0, x1] = span(oc.cols);
      const auto [y0, y1] = span(oc.rows);
      oc.stride = x1 + 2 - x0;  // the points x0 .. x1 + 1
      for (Axis& a : oc.cols) a.cell -= x0;
      for (Axis& a : oc.rows) a.cell = (a.cell - y0) * oc.stride;
      oc.points.resize(static_cast<size_t>(oc.stride) * static_cast<size_t>(y1 + 2 - y0));
      for (int y = y0; y <= y1 + 1; ++y)
        for (int x = x0; x <= x1 + 1; ++x)
          oc.points[static_cast<size_t>((y - y0) * oc.stride + (x - x0))] = lattice(x, y, seed);
    }
  }

  // fbm at texel (i, j) of the cell.
  double at(int i, int j) const {
    double sum = 0, amp = 0.5, norm = 0;
    for (const Octave& oc : octaves_) {
      const Axis& cx = oc.cols[static_cast<size_t>(i)];
      const Axis& cy = oc.rows[static_cast<size_t>(j)];
      const double* p = oc.points.data() + cy.cell + cx.cell;
      const double a = p[0], b = p[1], c = p[oc.stride], d = p[oc.stride + 1];
      const double tx = cx.smooth, ty = cy.smooth;
      sum += amp * ((a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty);
      norm += amp;
      amp *= 0.5;
    }
    return sum / norm;
  }

 private:
  static constexpr int kOctaves = 4;
  // One coordinate's lattice cell (an offset into the point table once the
  // table is laid out) and its smoothed fraction.
  struct Axis {
    int cell = 0;
    double smooth = 0;
  };
  struct Octave {
    std::vector<Axis> cols, rows;
    std::vector<double> points;  // lattice values, row by row
    int stride = 0;
  };
  static Axis axis(double v) {
    const double f = std::floor(v);
    return {static_cast<int>(f), smoothstep(0, 1, v - f)};
  }
  static std::pair<int, int> span(const std::vector<Axis>& axes) {
    int lo = axes.front().cell, hi = lo;
    for (const Axis& a : axes) lo = std::min(lo, a.cell), hi = std::max(hi, a.cell);
    return {lo, hi};
  }

  Octave octaves_[kOctaves];
};

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
// A puff that billows outward and thins as it ages: at phase t its radius
// is 0.5 + 0.42 * sqrt(t), computed once per cell; (i, j) is the texel at
// (x, y), where `noise` (the cell's) is read.
double smoke(double x, double y, double t, double radius, const SmokeNoise& noise, int i, int j) {
  const double from_centre = std::sqrt(x * x + y * y);
  const double body = smoothstep(1.0, 0.25, from_centre / radius);
  // Outside the puff (body 0) or the cell's round edge (the last factor 0)
  // the product below is exactly +0 whatever the noise: its four octaves,
  // most of the texture's cost, are not computed there.
  if (body == 0 || from_centre >= 1.0) return 0.0;
  const double n = noise.at(i, j);
  const double density = std::clamp(0.25 + 1.1 * n, 0.0, 1.0);
  return std::clamp(body * density * (1.1 - 0.75 * t), 0.0, 1.0) *
         smoothstep(1.0, 0.9, from_centre);
}
double solid(double, double, double) {
  return 1.0;
}

struct Builtin {
  std::string_view name;
  Shader shader;  // nullptr for disc, which needs the resolution, and smoke (SmokeNoise)
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
        // Texel centres in [-1, 1], a column's the same for every row.
        std::vector<double> centre(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) centre[static_cast<size_t>(i)] = (i + 0.5) / n * 2 - 1;
        const auto shade = [&](auto alpha) {
          for (int j = 0; j < n; ++j) {
            const double y = centre[static_cast<size_t>(j)];
            for (int i = 0; i < n; ++i) {
              const double x = centre[static_cast<size_t>(i)];
              float* p =
                  rgba +
                  (static_cast<size_t>(j) * static_cast<size_t>(n) + static_cast<size_t>(i)) * 4;
              p[0] = p[1] = p[2] = p[3] =
                  static_cast<float>(alpha(x, y, i, j));  // white, premultiplied
            }
          }
        };
        if (found->shader) {
          shade([&](double x, double y, int, int) { return found->shader(x, y, t); });
        } else if (found->name == "smoke") {
          const SmokeNoise noise(n, t);
          const double radius = 0.5 + 0.42 * std::sqrt(t);
          shade([&](double x, double y, int i, int j) {
            return smoke(x, y, t, radius, noise, i, j);
          });
        } else {
          shade([&](double x, double y, int, int) { return disc(x, y, t, n); });
        }
      },
      threads);
}

}  // namespace spritz
