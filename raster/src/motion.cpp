// Exact motion vectors: each particle's screen transform at two clocks gives
// an affine map from where its surface is now to where it is one step later;
// the map is drawn over the particle's pixels with the rasterizer's coverage
// and texture alpha, and over a halo around it (docs/rendering.md).
#include "spritz/raster/motion.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_map>

#include "kernels/sampling.h"
#include "sprite.h"
#include "spritz/error.h"
#include "spritz/raster/pool.h"

namespace spritz {
namespace {

using detail::kDegToRad;
using detail::kMinHalfExtentPx;  // as make_sprite: thinner sprites are drawn this thin

// A particle's rectangle on screen (y down): centre, unit local axes, half
// extents.
struct Placement {
  double cx = 0, cy = 0;
  double ax_x = 1, ax_y = 0, ay_x = 0, ay_y = -1;
  double hw = kMinHalfExtentPx, hh = kMinHalfExtentPx;
};

Placement place(const Particle& p, int width, int height, const View& view) {
  Placement q;
  q.cx = width * 0.5 + (p.x - view.center_x) * view.scale;
  q.cy = height * 0.5 - (p.y - view.center_y) * view.scale;
  const double theta = std::fmod(p.rotation_deg, 360.0) * kDegToRad;
  const double c = std::cos(theta), s = std::sin(theta);
  q.ax_x = c;
  q.ax_y = -s;
  q.ay_x = -s;
  q.ay_y = -c;
  q.hw = std::max(p.w * view.scale * 0.5, kMinHalfExtentPx);
  q.hh = std::max(p.h * view.scale * 0.5, kMinHalfExtentPx);
  return q;
}

// One particle prepared for the motion pass.
struct Mover {
  Sprite sprite;          // coverage and texture, as drawn
  Placement a, b;         // now and one step later
  double du = 0, dv = 0;  // the centre's displacement in local half extents
  double gu = 1, gv = 1;  // the rectangle grown by the least halo, in half extents
  double peak = 0;        // the most the particle adds to a pixel (its halo's weight)
  // How far the halo reaches, in displacements: behind the particle no
  // farther than where it was born, ahead no farther than where it dies.
  double back = 0, ahead = 0;
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels of the rectangle and its halo, clipped
};

// Where the point of a's rectangle at local coordinates (u, v) (in half
// extents) is in b, minus where it is in a.
inline void displacement(const Mover& m, double u, double v, double& dx, double& dy) {
  const double ax = m.a.cx + (m.a.ax_x * u * m.a.hw + m.a.ay_x * v * m.a.hh);
  const double ay = m.a.cy + (m.a.ax_y * u * m.a.hw + m.a.ay_y * v * m.a.hh);
  const double bx = m.b.cx + (m.b.ax_x * u * m.b.hw + m.b.ay_x * v * m.b.hh);
  const double by = m.b.cy + (m.b.ax_y * u * m.b.hw + m.b.ay_y * v * m.b.hh);
  dx = bx - ax;
  dy = by - ay;
}

struct ParticleId {
  uint64_t key;
  int trail;
  bool operator==(const ParticleId& o) const { return key == o.key && trail == o.trail; }
};
struct ParticleIdHash {
  size_t operator()(const ParticleId& id) const {
    return std::hash<uint64_t>()(id.key * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(id.trail));
  }
};

// Every particle of `now` with its placement one step later.
std::vector<Mover> prepare(const Effect& fx, const TextureSet& textures, const Frame& now,
                           const Frame& next, int width, int height, const View& view,
                           const MotionOptions& opt) {
  std::unordered_map<uint32_t, std::unordered_map<ParticleId, const Particle*, ParticleIdHash>>
      later;
  for (const EmitterFrame& ef : next.emitters) {
    auto& m = later[ef.emitter];
    for (const Particle& p : ef.particles) m[{p.key, p.trail}] = &p;
  }
  const double dt = next.clock - now.clock;
  const Rgb ambient = srgb_to_linear(fx.canvas.ambient_srgb);
  std::vector<Mover> movers;
  for (const EmitterFrame& ef : now.emitters) {
    const Emitter& em = fx.emitters[ef.emitter];
    const auto& m = later[ef.emitter];
    for (const Particle& p : ef.particles) {
      Mover mv;
      if (!make_sprite(p, em, *textures[em.index], ambient, width, height, view, mv.sprite))
        continue;
      mv.a = place(p, width, height, view);
      const auto it = m.find({p.key, p.trail});
      if (it != m.end()) {
        mv.b = place(*it->second, width, height, view);
      } else {  // gone by then: it moves on as it was moving
        Particle q = p;
        q.x += p.vx * dt;
        q.y += p.vy * dt;
        mv.b = place(q, width, height, view);
      }
      double dx, dy;
      displacement(mv, 0, 0, dx, dy);
      if (!std::isfinite(dx) || !std::isfinite(dy)) continue;
      const Float4 c = mv.sprite.colour;
      mv.peak = std::min(1.0f, c[3]) + (c[0] + c[1] + c[2]) / 3.0;
      // A particle born less than `dilate` steps ago was nowhere on the path
      // behind it that far: a blend that drew it there (the cell it reaches,
      // displaced back) would show it before its birth, as a smear behind
      // every new particle at the emitter. Likewise ahead of one that dies
      // within the step.
      mv.back = mv.ahead = opt.dilate;
      if (dt > 0) {
        mv.back = std::clamp(p.age_s / dt, 0.0, opt.dilate);
        mv.ahead = std::clamp((p.life_s - p.age_s) / dt, 0.0, opt.dilate);
      }
      mv.du = (dx * mv.a.ax_x + dy * mv.a.ax_y) / mv.a.hw;
      mv.dv = (dx * mv.a.ay_x + dy * mv.a.ay_y) / mv.a.hh;
      mv.gu = 1 + opt.min_halo_px / mv.a.hw;
      mv.gv = 1 + opt.min_halo_px / mv.a.hh;
      const double grow = opt.min_halo_px;
      const double ext_x = std::abs(mv.a.ax_x) * mv.a.hw + std::abs(mv.a.ay_x) * mv.a.hh + grow +
                           opt.dilate * std::abs(dx);
      const double ext_y = std::abs(mv.a.ax_y) * mv.a.hw + std::abs(mv.a.ay_y) * mv.a.hh + grow +
                           opt.dilate * std::abs(dy);
      mv.x0 = static_cast<int>(std::max(0.0, std::floor(mv.a.cx - ext_x)));
      mv.x1 = static_cast<int>(std::min<double>(width, std::ceil(mv.a.cx + ext_x)));
      mv.y0 = static_cast<int>(std::max(0.0, std::floor(mv.a.cy - ext_y)));
      mv.y1 = static_cast<int>(std::min<double>(height, std::ceil(mv.a.cy + ext_y)));
      if (mv.x0 < mv.x1 && mv.y0 < mv.y1) movers.push_back(mv);
    }
  }
  return movers;
}

// Whether local point (u, v) is within the rectangle (grown by the least
// halo) moved by s displacements for some s in [-m.back, m.ahead]; `s` gets
// the smallest such |s|.
bool swept(const Mover& m, double u, double v, double& s) {
  double lo = -m.back, hi = m.ahead;
  auto limit = [&](double p, double d, double g) {
    if (std::abs(d) < 1e-12) {
      if (std::abs(p) > g) hi = lo - 1;
      return;
    }
    double a = (p - g) / d, b = (p + g) / d;
    if (a > b) std::swap(a, b);
    lo = std::max(lo, a);
    hi = std::min(hi, b);
  };
  limit(u, m.du, m.gu);
  limit(v, m.dv, m.gv);
  if (lo > hi) return false;
  s = lo > 0 ? lo : hi < 0 ? hi : 0.0;
  return true;
}

// Per pixel while a strip is drawn: the covered layer (weight, weighted
// vector, composited over like light) and the halo layer.
struct Accum {
  double w = 0, x = 0, y = 0;
  double hw = 0, hx = 0, hy = 0;
  // The one particle that adds the most here, and the one whose halo
  // weighs most: candidates for the fit.
  double tw = 0, tx = 0, ty = 0;
  double thw = 0, thx = 0, thy = 0;
};

// One pass of a particle over its pixels in a strip: the halo layer (swept
// up to `reach` displacements back and forward, less before its birth or
// after its death), then the covered layer where the
// sprite covers the pixel.
void draw_mover(const Mover& m, double reach, int row_begin, int row_end, int width,
                std::vector<Accum>& acc) {
  const Sprite& s = m.sprite;
  const detail::ExactEdges edges(s);
  const int ylo = std::max(m.y0, row_begin), yhi = std::min(m.y1, row_end);
  for (int y = ylo; y < yhi; ++y) {
    const float fy = static_cast<float>(y) + 0.5f - s.cy;
    for (int x = m.x0; x < m.x1; ++x) {
      Accum& a = acc[static_cast<size_t>(y - row_begin) * static_cast<size_t>(width) +
                     static_cast<size_t>(x)];
      // Local coordinates in half extents, for the vector.
      const double rx = x + 0.5 - m.a.cx, ry = y + 0.5 - m.a.cy;
      const double u = (rx * m.a.ax_x + ry * m.a.ax_y) / m.a.hw;
      const double v = (rx * m.a.ay_x + ry * m.a.ay_y) / m.a.hh;
      // The halo: the rectangle swept along its displacement, the motion of
      // the point it sweeps over this pixel from.
      double sh;
      if (swept(m, u, v, sh)) {
        double dx, dy;
        displacement(m, std::clamp(u - sh * m.du, -1.0, 1.0), std::clamp(v - sh * m.dv, -1.0, 1.0),
                     dx, dy);
        const double hw = m.peak * (reach > 0 ? 1 - std::abs(sh) / (reach * (1 + 1e-9)) : 1.0);
        a.hw += hw;
        a.hx += hw * dx;
        a.hy += hw * dy;
        if (hw > a.thw) a.thw = hw, a.thx = dx, a.thy = dy;
      }
      if (x < s.x0 || x >= s.x1 || y < s.y0 || y >= s.y1) continue;
      const detail::PixelGeometry g = detail::pixel_geometry(s, edges, x, y, fy);
      if (g.cov <= 0) continue;
      const float tu = std::clamp(detail::fused(g.lx, s.inv_w, 0.5f), 0.0f, 1.0f);
      const float tv = std::clamp(detail::fused(-g.ly, s.inv_h, 0.5f), 0.0f, 1.0f);
      float t[4];
      detail::sample_scalar(s, tu, tv, t);
      // What the particle adds here: its occluding alpha and its light.
      const double occl = std::min(1.0, static_cast<double>(s.colour[3]) * t[3] * g.cov);
      const double light =
          (s.colour[0] * t[0] + s.colour[1] * t[1] + s.colour[2] * t[2]) / 3.0 * g.cov;
      const double w = occl + light;
      if (!(w > 0)) continue;
      double dx, dy;
      displacement(m, u, v, dx, dy);
      a.w = a.w * (1 - occl) + w;
      a.x = a.x * (1 - occl) + w * dx;
      a.y = a.y * (1 - occl) + w * dy;
      if (w > a.tw) a.tw = w, a.tx = dx, a.ty = dy;
    }
  }
}

}  // namespace

void render_motion(const Effect& fx, const TextureSet& textures, const Frame& now,
                   const Frame& next, int width, int height, const View& view,
                   const MotionOptions& options, MotionField& out) {
  const std::vector<Mover> movers = prepare(fx, textures, now, next, width, height, view, options);
  out.width = width;
  out.height = height;
  out.xy.assign(static_cast<size_t>(width) * static_cast<size_t>(height) * 2, 0.0f);
  out.source.assign(static_cast<size_t>(width) * static_cast<size_t>(height), 0);
  const size_t candidate_floats =
      options.candidates ? static_cast<size_t>(width) * static_cast<size_t>(height) * 2 : 0;
  out.halo_xy.assign(candidate_floats, 0.0f);
  out.top_xy.assign(candidate_floats, 0.0f);
  out.top_halo_xy.assign(candidate_floats, 0.0f);
  const int strips = (height + kStripRows - 1) / kStripRows;
  ThreadPool pool(std::max(1, options.threads));
  pool.run(strips, [&](int k) {
    const int row_begin = k * kStripRows, row_end = std::min(height, row_begin + kStripRows);
    std::vector<Accum> acc(static_cast<size_t>(row_end - row_begin) * static_cast<size_t>(width));
    for (const Mover& m : movers)
      if (m.y0 < row_end && m.y1 > row_begin)
        draw_mover(m, options.dilate, row_begin, row_end, width, acc);
    for (int y = row_begin; y < row_end; ++y)
      for (int x = 0; x < width; ++x) {
        const Accum& a = acc[static_cast<size_t>(y - row_begin) * static_cast<size_t>(width) +
                             static_cast<size_t>(x)];
        const size_t i =
            static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x);
        double dx = 0, dy = 0;
        if (a.w > 1e-12) {
          dx = a.x / a.w;
          dy = a.y / a.w;
          out.source[i] = 2;
        } else if (a.hw > 1e-12) {
          dx = a.hx / a.hw;
          dy = a.hy / a.hw;
          out.source[i] = 1;
        }
        if (!std::isfinite(dx) || !std::isfinite(dy)) dx = dy = 0, out.source[i] = 0;
        out.xy[2 * i] = static_cast<float>(dx);
        out.xy[2 * i + 1] = static_cast<float>(dy);
        if (!options.candidates) continue;
        const auto keep = [&](std::vector<float>& to, double vx, double vy) {
          if (!std::isfinite(vx) || !std::isfinite(vy)) return;
          to[2 * i] = static_cast<float>(vx);
          to[2 * i + 1] = static_cast<float>(vy);
        };
        if (a.hw > 1e-12) keep(out.halo_xy, a.hx / a.hw, a.hy / a.hw);
        if (a.tw > 0) keep(out.top_xy, a.tx, a.ty);
        if (a.thw > 0) keep(out.top_halo_xy, a.thx, a.thy);
      }
  });
}

MotionEncoding motion_encoding_from_name(std::string_view name) {
  if (name == "unity") return MotionEncoding::kUnity;
  if (name == "sidefx") return MotionEncoding::kSideFx;
  if (name == "unreal") return MotionEncoding::kUnreal;
  throw Error("motion-vector encoding must be unity, sidefx or unreal, got '" + std::string(name) +
              "'");
}

const char* motion_encoding_name(MotionEncoding enc) {
  switch (enc) {
    case MotionEncoding::kUnity:
      return "unity";
    case MotionEncoding::kSideFx:
      return "sidefx";
    case MotionEncoding::kUnreal:
      return "unreal";
  }
  return "unity";
}

double motion_extent(const MotionField& field, double cell_w, double cell_h) {
  double m = 0;
  for (size_t i = 0; i + 1 < field.xy.size(); i += 2)
    m = std::max({m, std::abs(field.xy[i] / cell_w), std::abs(field.xy[i + 1] / cell_h)});
  return m;
}

namespace {

// The red and green values in [0, 1] for a displacement of (mx, my) cell
// units (y down) at scale S, unclamped.
void encode_pair(double mx, double my, double scale, MotionEncoding enc, double& r, double& g) {
  const double x = mx / scale, y = my / scale;
  r = g = 0.5;
  switch (enc) {
    case MotionEncoding::kUnity:  // rg * 2 - 1 = (x, y up)
      r = 0.5 + 0.5 * x;
      g = 0.5 - 0.5 * y;
      return;
    case MotionEncoding::kSideFx:  // (r, 1 - g) * 2 - 1 = -(x, y up)
      r = 0.5 - 0.5 * x;
      g = 0.5 - 0.5 * y;
      return;
    case MotionEncoding::kUnreal:  // (255 v - 128) / 127 = (x, y down)
      r = (128 + 127 * x) / 255;
      g = (128 + 127 * y) / 255;
      return;
  }
}

}  // namespace

uint16_t motion_neutral16(MotionEncoding enc) {
  double r, g;
  encode_pair(0, 0, 1, enc, r, g);
  return static_cast<uint16_t>(std::lround(r * 65535));
}

uint64_t encode_motion(const MotionField& field, double cell_w, double cell_h, double scale,
                       MotionEncoding enc, std::vector<uint16_t>& rgba16) {
  const size_t n = static_cast<size_t>(field.width) * static_cast<size_t>(field.height);
  rgba16.resize(n * 4);
  uint64_t clamped = 0;
  for (size_t i = 0; i < n; ++i) {
    double r, g;
    encode_pair(field.xy[2 * i] / cell_w, field.xy[2 * i + 1] / cell_h, scale, enc, r, g);
    if (r < 0 || r > 1 || g < 0 || g > 1) ++clamped;
    rgba16[4 * i] = static_cast<uint16_t>(std::lround(std::clamp(r, 0.0, 1.0) * 65535));
    rgba16[4 * i + 1] = static_cast<uint16_t>(std::lround(std::clamp(g, 0.0, 1.0) * 65535));
    rgba16[4 * i + 2] = 0;
    rgba16[4 * i + 3] = 65535;
  }
  return clamped;
}

void decode_motion(double r, double g, double cell_w, double cell_h, double scale,
                   MotionEncoding enc, double& dx, double& dy) {
  double x = 0, y = 0;  // cell units, y down
  switch (enc) {
    case MotionEncoding::kUnity:
      x = (r * 2 - 1) * scale;
      y = -(g * 2 - 1) * scale;
      break;
    case MotionEncoding::kSideFx: {
      // The shader's vector (y up) is minus the motion.
      const double sx = (r * 2 - 1) * scale, sy_up = ((1 - g) * 2 - 1) * scale;
      x = -sx;
      y = sy_up;  // -(-sy_up): minus the motion, and up to down
      break;
    }
    case MotionEncoding::kUnreal:
      x = (r * 255 - 128) / 127 * scale;
      y = (g * 255 - 128) / 127 * scale;
      break;
  }
  dx = x * cell_w;
  dy = y * cell_h;
}

namespace {

// Bilinear sample of a straight-alpha float cell (4 floats per pixel) at
// (px, py) in pixels, clamped to the cell's edge (as the padding a sheet's
// cells have extruded).
void sample_cell(const std::vector<float>& cell, int w, int h, double px, double py, float out[4]) {
  const double x = std::clamp(px - 0.5, 0.0, w - 1.0), y = std::clamp(py - 0.5, 0.0, h - 1.0);
  const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  const int x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
  const double tx = x - x0, ty = y - y0;
  auto at = [&](int xx, int yy, int c) {
    return cell[(static_cast<size_t>(yy) * static_cast<size_t>(w) + static_cast<size_t>(xx)) * 4 +
                static_cast<size_t>(c)];
  };
  for (int c = 0; c < 4; ++c) {
    const double top = at(x0, y0, c) + (at(x1, y0, c) - at(x0, y0, c)) * tx;
    const double bottom = at(x0, y1, c) + (at(x1, y1, c) - at(x0, y1, c)) * tx;
    out[c] = static_cast<float>(top + (bottom - top) * ty);
  }
}

}  // namespace

namespace {

// Adds to `sum` the squared error of one straight-alpha pixel against
// another, compared premultiplied: colour times alpha, and alpha, so the
// colour under a transparent pixel counts for nothing.
template <typename A>
void add_sq_error(double& sum, const A* a, const float* b) {
  const double aa = std::clamp<double>(a[3], 0.0, 1.0), ba = std::clamp<double>(b[3], 0.0, 1.0);
  for (int c = 0; c < 3; ++c) {
    const double d = a[c] * aa - b[c] * ba;
    sum += d * d;
  }
  sum += (aa - ba) * (aa - ba);
}

}  // namespace

void blend_cells(const std::vector<float>& a, const std::vector<float>& b,
                 const std::vector<float>& motion_a, const std::vector<float>& motion_b, int w,
                 int h, double f, std::vector<float>& out) {
  out.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
      const double px = x + 0.5, py = y + 0.5;
      float s0[4], s1[4];
      sample_cell(a, w, h, px - f * motion_a[2 * i], py - f * motion_a[2 * i + 1], s0);
      sample_cell(b, w, h, px + (1 - f) * motion_b[2 * i], py + (1 - f) * motion_b[2 * i + 1], s1);
      for (int c = 0; c < 4; ++c)
        out[4 * i + static_cast<size_t>(c)] = static_cast<float>(s0[c] + (s1[c] - s0[c]) * f);
    }
}

namespace {

// At most this many candidates per pixel: the vector held, the exact
// vector, the exact vectors of the four pixels beside it, the halo's, the
// strongest particle's, the strongest halo's, none.
constexpr int kMaxCandidates = 10;
constexpr int kFitPasses = 4;

struct Candidates {
  int count = 0;
  float x[kMaxCandidates], y[kMaxCandidates];
  void add(float vx, float vy) {
    if (!std::isfinite(vx) || !std::isfinite(vy)) return;
    for (int k = 0; k < count; ++k)
      if (x[k] == vx && y[k] == vy) return;
    x[count] = vx;
    y[count] = vy;
    ++count;
  }
};

// Cells that blend one into the next: a chain from a cell no cell leads
// to, or a loop.
struct Chain {
  std::vector<int> cells;
  bool loop = false;
};

// Checks that the fit's inputs fit together; the chains and loops of cells.
std::vector<Chain> fit_chains(const BlendFit& fit, int w, int h,
                              const std::vector<MotionField>& fields) {
  const size_t n = fields.size();
  const size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(h);
  if (fit.cells.size() != n || fit.next.size() != n || fit.truth.size() != n)
    throw Error("fit_motion_to_blend: cells, next, truth and fields differ in number");
  std::vector<int> prev(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const MotionField& f = fields[i];
    if (f.width != w || f.height != h || f.xy.size() != 2 * pixels ||
        fit.cells[i]->size() != 4 * pixels)
      throw Error("fit_motion_to_blend: a cell or field is not " + std::to_string(w) + "x" +
                  std::to_string(h));
    if (f.halo_xy.size() != 2 * pixels || f.top_xy.size() != 2 * pixels ||
        f.top_halo_xy.size() != 2 * pixels)
      throw Error(
          "fit_motion_to_blend: a field was drawn without its candidates "
          "(MotionOptions::candidates)");
    const int j = fit.next[i];
    if (j < 0) continue;
    if (static_cast<size_t>(j) >= n || prev[static_cast<size_t>(j)] >= 0)
      throw Error("fit_motion_to_blend: a cell follows two cells, or one not in the sheet");
    prev[static_cast<size_t>(j)] = static_cast<int>(i);
    if (fit.truth[i].size() != fit.fractions.size())
      throw Error("fit_motion_to_blend: a step lacks its in-betweens");
    for (const std::vector<float>* t : fit.truth[i])
      if (t->size() != 4 * pixels) throw Error("fit_motion_to_blend: an in-between's size differs");
  }
  std::vector<Chain> chains;
  std::vector<bool> seen(n, false);
  const auto walk = [&](size_t start, bool loop) {
    Chain c;
    c.loop = loop;
    for (int i = static_cast<int>(start); i >= 0 && !seen[static_cast<size_t>(i)];
         i = fit.next[static_cast<size_t>(i)]) {
      seen[static_cast<size_t>(i)] = true;
      c.cells.push_back(i);
    }
    if (c.cells.size() > 1) chains.push_back(std::move(c));
  };
  for (size_t i = 0; i < n; ++i)
    if (prev[i] < 0) walk(i, false);
  for (size_t i = 0; i < n; ++i)
    if (!seen[i]) walk(i, true);  // what is left lies on loops
  return chains;
}

// The candidates of cell `cell` at pixel (x, y): `held` is the vectors as
// the pass before left them, `exact` the exact ones.
void gather_candidates(const MotionField& f, const std::vector<float>& held,
                       const std::vector<float>& exact, int x, int y, Candidates& k) {
  const int w = f.width, h = f.height;
  const size_t p = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
  k.count = 0;
  k.add(held[2 * p], held[2 * p + 1]);
  k.add(exact[2 * p], exact[2 * p + 1]);
  static constexpr int kOx[4] = {-1, 1, 0, 0}, kOy[4] = {0, 0, -1, 1};
  for (int d = 0; d < 4; ++d) {
    const int nx = x + kOx[d], ny = y + kOy[d];
    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
    const size_t q = static_cast<size_t>(ny) * static_cast<size_t>(w) + static_cast<size_t>(nx);
    k.add(held[2 * q], held[2 * q + 1]);
  }
  k.add(f.halo_xy[2 * p], f.halo_xy[2 * p + 1]);
  k.add(f.top_xy[2 * p], f.top_xy[2 * p + 1]);
  k.add(f.top_halo_xy[2 * p], f.top_halo_xy[2 * p + 1]);
  k.add(0.0f, 0.0f);
}

using StepCost = std::array<double, kMaxCandidates * kMaxCandidates>;  // [first's][second's]

// The error at pixel (x, y) of the blends of cell a into cell b, summed over
// the fit's fractions, for each pair of their candidates ka and kb.
void step_cost(const BlendFit& fit, int a, int b, const Candidates& ka, const Candidates& kb, int x,
               int y, int w, int h, StepCost& e) {
  const size_t p = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
  const double px = x + 0.5, py = y + 0.5;
  // With the first cell's vectors (SideFX) the second cell's choice plays
  // no part: B is displaced by A's candidate, the same in every column.
  const Candidates& shift_b = fit.first_cells_vectors ? ka : kb;
  std::fill(e.begin(), e.end(), 0.0);
  for (size_t q = 0; q < fit.fractions.size(); ++q) {
    const double f = fit.fractions[q];
    const float* truth = fit.truth[static_cast<size_t>(a)][q]->data() + 4 * p;
    float sa[kMaxCandidates][4], sb[kMaxCandidates][4];
    for (int k = 0; k < ka.count; ++k)
      sample_cell(*fit.cells[static_cast<size_t>(a)], w, h, px - f * ka.x[k], py - f * ka.y[k],
                  sa[k]);
    for (int k = 0; k < shift_b.count; ++k)
      sample_cell(*fit.cells[static_cast<size_t>(b)], w, h, px + (1 - f) * shift_b.x[k],
                  py + (1 - f) * shift_b.y[k], sb[k]);
    for (int i = 0; i < ka.count; ++i)
      for (int j = 0; j < kb.count; ++j) {
        const float* s1 = sb[fit.first_cells_vectors ? i : j];
        double out[4];
        for (int c = 0; c < 4; ++c) out[c] = sa[i][c] + (static_cast<double>(s1[c]) - sa[i][c]) * f;
        add_sq_error(e[static_cast<size_t>(i * kMaxCandidates + j)], out, truth);
      }
  }
}

// The choice per cell of a chain (indices into its candidates) with the
// least summed step cost, if less than `held` (every cell's first
// candidate); else all 0. A chain's first cell starts free; a loop is
// closed once for each choice of its first cell. Ties keep the earlier
// candidate.
struct Viterbi {
  std::vector<std::array<uint8_t, kMaxCandidates>> back;
  std::vector<int> chosen;

  void solve(const std::vector<Candidates>& cand, const std::vector<StepCost>& cost, bool loop,
             std::vector<int>& pick) {
    const size_t m = cand.size();
    double best = 0;
    for (const StepCost& c : cost) best += c[0];
    pick.assign(m, 0);
    back.resize(m);
    for (int s0 = 0; s0 < (loop ? cand[0].count : 1); ++s0) {
      std::array<double, kMaxCandidates> d;
      for (int k = 0; k < cand[0].count; ++k)
        d[static_cast<size_t>(k)] = !loop || k == s0 ? 0.0 : HUGE_VAL;
      for (size_t t = 0; t + 1 < m; ++t) {
        std::array<double, kMaxCandidates> nd;
        for (int j = 0; j < cand[t + 1].count; ++j) {
          double low = HUGE_VAL;
          uint8_t arg = 0;
          for (int i = 0; i < cand[t].count; ++i) {
            const double v =
                d[static_cast<size_t>(i)] + cost[t][static_cast<size_t>(i * kMaxCandidates + j)];
            if (v < low) low = v, arg = static_cast<uint8_t>(i);
          }
          nd[static_cast<size_t>(j)] = low;
          back[t + 1][static_cast<size_t>(j)] = arg;
        }
        d = nd;
      }
      int last = 0;
      double total = HUGE_VAL;
      for (int k = 0; k < cand[m - 1].count; ++k) {
        const double v = d[static_cast<size_t>(k)] +
                         (loop ? cost[m - 1][static_cast<size_t>(k * kMaxCandidates + s0)] : 0.0);
        if (v < total) total = v, last = k;
      }
      if (!(total < best)) continue;
      best = total;
      chosen.assign(m, 0);
      chosen[m - 1] = last;
      for (size_t t = m - 1; t > 0; --t) chosen[t - 1] = back[t][static_cast<size_t>(chosen[t])];
      pick = chosen;
    }
  }
};

}  // namespace

uint64_t fit_motion_to_blend(const BlendFit& fit, int w, int h, std::vector<MotionField>& fields) {
  const std::vector<Chain> chains = fit_chains(fit, w, h, fields);
  const size_t n = fields.size();
  // The exact vectors, and the vectors as the pass before left them: the
  // candidates beside a pixel are read from these while rows on other
  // threads write their choices, so any thread count chooses alike.
  std::vector<std::vector<float>> exact(n), held(n);
  for (size_t i = 0; i < n; ++i) exact[i] = fields[i].xy;
  ThreadPool pool(std::max(1, fit.threads));
  for (int pass = 0; pass < kFitPasses; ++pass) {
    for (size_t i = 0; i < n; ++i) held[i] = fields[i].xy;
    pool.run(h, [&](int y) {
      std::vector<Candidates> cand;
      std::vector<StepCost> cost;
      std::vector<int> pick;
      Viterbi viterbi;
      for (int x = 0; x < w; ++x) {
        const size_t p = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
        for (const Chain& c : chains) {
          const size_t m = c.cells.size();
          cand.resize(m);
          bool choice = false;
          for (size_t t = 0; t < m; ++t) {
            const size_t i = static_cast<size_t>(c.cells[t]);
            gather_candidates(fields[i], held[i], exact[i], x, y, cand[t]);
            choice = choice || cand[t].count > 1;
          }
          if (!choice) continue;
          cost.resize(c.loop ? m : m - 1);
          for (size_t t = 0; t < cost.size(); ++t)
            step_cost(fit, c.cells[t], c.cells[(t + 1) % m], cand[t], cand[(t + 1) % m], x, y, w, h,
                      cost[t]);
          viterbi.solve(cand, cost, c.loop, pick);
          for (size_t t = 0; t < m; ++t) {
            if (pick[t] == 0) continue;  // as it was
            MotionField& f = fields[static_cast<size_t>(c.cells[t])];
            f.xy[2 * p] = cand[t].x[pick[t]];
            f.xy[2 * p + 1] = cand[t].y[pick[t]];
          }
        }
      }
    });
  }
  uint64_t changed = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t v = 0; v + 1 < exact[i].size(); v += 2)
      changed += fields[i].xy[v] != exact[i][v] || fields[i].xy[v + 1] != exact[i][v + 1];
  return changed;
}

double premultiplied_sq_error(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i + 3 < a.size() && i + 3 < b.size(); i += 4)
    add_sq_error(sum, a.data() + i, b.data() + i);
  return sum;
}

double psnr_db(double sq_error, double values) {
  if (!(values > 0)) return 0;
  const double mse = sq_error / values;
  return mse > 1e-10 ? -10 * std::log10(mse) : 100.0;
}

}  // namespace spritz
