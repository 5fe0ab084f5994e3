// Exact motion vectors: each particle's screen transform at two clocks gives
// an affine map from where its surface is now to where it is one step later;
// the map is drawn over the particle's pixels with the rasterizer's coverage
// and texture alpha, and over a halo around it (docs/rendering.md).
#include "spritz/raster/motion_vectors.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <unordered_map>

#include "kernels/sampling.h"
#include "sprite.h"
#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/raster/pool.h"

namespace spritz {
namespace {

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
  const double theta = math::fmod(p.rotation_deg, 360.0) * kDegToRad;
  double c, s;
  math::sincos(theta, &s, &c);
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

}  // namespace spritz
