// Ribbons (docs/rendering.md, "Ribbons"): a trail's samples joined into one
// strip, cut into segments between neighbouring samples, each drawn with the
// exact area of its outline inside every pixel.
#include <algorithm>
#include <array>
#include <cmath>

#include "kernels/sampling.h"
#include "sprite.h"
#include "spritz/angle.h"
#include "spritz/elementary.h"

namespace spritz {
namespace {

using detail::blend_scalar;
using detail::kMaxHalfExtentPx;
using detail::particle_colour;
using detail::sample_scalar;

// A ribbon segment's outline, and one new corner per side of a pixel.
constexpr int kMaxClipped = 4 + 2 * kRibbonCapPoints + 4;

// The area of the polygon (x[i], y[i]), i < n (n <= 4 + 2 kRibbonCapPoints), inside the pixel
// [px, px + 1] x [py, py + 1]: Sutherland-Hodgman against the pixel's four
// sides, then the shoelace formula; its absolute value.
double area_in_pixel(const double* x, const double* y, int n, double px, double py) {
  // In the pixel's own coordinates, so the shoelace sums stay small.
  double ax[kMaxClipped], ay[kMaxClipped], bx[kMaxClipped], by[kMaxClipped];
  for (int i = 0; i < n; ++i) ax[i] = x[i] - px, ay[i] = y[i] - py;
  // Sides as (axis, bound, keep >= or <=).
  const double bounds[4] = {0, 1, 0, 1};
  for (int side = 0; side < 4 && n > 0; ++side) {
    const bool along_x = side < 2, keep_above = side % 2 == 0;
    const double b = bounds[side];
    int m = 0;
    for (int i = 0; i < n; ++i) {
      const int j = (i + 1) % n;
      const double ci = (along_x ? ax[i] : ay[i]) - b, cj = (along_x ? ax[j] : ay[j]) - b;
      const bool in_i = keep_above ? ci >= 0 : ci <= 0, in_j = keep_above ? cj >= 0 : cj <= 0;
      if (in_i) bx[m] = ax[i], by[m] = ay[i], ++m;
      if (in_i != in_j) {
        const double t = ci / (ci - cj);
        bx[m] = ax[i] + (ax[j] - ax[i]) * t;
        by[m] = ay[i] + (ay[j] - ay[i]) * t;
        if (along_x)
          bx[m] = b;
        else
          by[m] = b;
        ++m;
      }
    }
    n = m;
    for (int i = 0; i < n; ++i) ax[i] = bx[i], ay[i] = by[i];
  }
  double twice = 0;
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    twice += ax[i] * ay[j] - ax[j] * ay[i];
  }
  return std::abs(0.5 * twice);
}

// The pixel bounds of segment r from a to b = (bx, by) (its corners and its
// caps' discs), clipped to the canvas, into s; false when nothing is left
// (off canvas, a point, or not finite).
bool segment_bounds(const RibbonSegment& r, double bx, double by, int width, int height,
                    Sprite& s) {
  double x_lo = r.corner_x[0], x_hi = x_lo, y_lo = r.corner_y[0], y_hi = y_lo;
  for (int c = 1; c < 4; ++c) {
    x_lo = std::min(x_lo, r.corner_x[c]);
    x_hi = std::max(x_hi, r.corner_x[c]);
    y_lo = std::min(y_lo, r.corner_y[c]);
    y_hi = std::max(y_hi, r.corner_y[c]);
  }
  if (r.cap_a) {
    x_lo = std::min(x_lo, r.ax - r.hw_a), x_hi = std::max(x_hi, r.ax + r.hw_a);
    y_lo = std::min(y_lo, r.ay - r.hw_a), y_hi = std::max(y_hi, r.ay + r.hw_a);
  }
  if (r.cap_b) {
    x_lo = std::min(x_lo, bx - r.hw_b), x_hi = std::max(x_hi, bx + r.hw_b);
    y_lo = std::min(y_lo, by - r.hw_b), y_hi = std::max(y_hi, by + r.hw_b);
  }
  const double x0 = std::max(0.0, std::floor(x_lo)), x1 = std::min<double>(width, std::ceil(x_hi));
  const double y0 = std::max(0.0, std::floor(y_lo)), y1 = std::min<double>(height, std::ceil(y_hi));
  if (!(x0 < x1) || !(y0 < y1)) return false;
  s.x0 = static_cast<int>(x0);
  s.x1 = static_cast<int>(x1);
  s.y0 = static_cast<int>(y0);
  s.y1 = static_cast<int>(y1);
  return true;
}

}  // namespace

uint64_t draw_ribbon_segment(const Sprite& s, Image& img, int row_begin, int row_end) {
  const RibbonSegment& r = *s.ribbon;
  // The outline: L_a, L_b, [b's cap], R_b, R_a, [a's cap]. A cap runs from
  // C + N cos(phi) + T hw sin(phi) for phi in (0, pi), N = L - C.
  static const auto arc = [] {
    std::array<std::pair<double, double>, kRibbonCapPoints> a{};
    for (int c = 0; c < kRibbonCapPoints; ++c) {
      const double phi = kPi * (c + 1) / (kRibbonCapPoints + 1);
      a[static_cast<size_t>(c)] = {math::cos(phi), math::sin(phi)};
    }
    return a;
  }();
  double outline_x[4 + 2 * kRibbonCapPoints], outline_y[4 + 2 * kRibbonCapPoints];
  int corners = 0;
  const auto add = [&](double x, double y) {
    outline_x[corners] = x;
    outline_y[corners] = y;
    ++corners;
  };
  const auto cap = [&](double cx, double cy, double lx, double ly, double hw, double ox,
                       double oy) {
    const double nx = lx - cx, ny = ly - cy;
    for (const auto& [c, sn] : arc) add(cx + nx * c + ox * hw * sn, cy + ny * c + oy * hw * sn);
  };
  add(r.corner_x[0], r.corner_y[0]);
  add(r.corner_x[1], r.corner_y[1]);
  if (r.cap_b) cap(r.ax + r.dx, r.ay + r.dy, r.corner_x[1], r.corner_y[1], r.hw_b, r.tx, r.ty);
  add(r.corner_x[2], r.corner_y[2]);
  add(r.corner_x[3], r.corner_y[3]);
  if (r.cap_a) cap(r.ax, r.ay, r.corner_x[3], r.corner_y[3], r.hw_a, -r.tx, -r.ty);
  const double reach = std::max(r.hw_a, r.hw_b) + 0.75;
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* row = img.row(y);
    const double py = y + 0.5;
    for (int x = s.x0; x < s.x1; ++x) {
      // The pixel centre's place along the centre line (0 at a, 1 at b) and
      // its distance to the line's nearest point (on a cap, where t is
      // clamped to 0 or 1, the distance to the end point, so a soft profile
      // rounds off with the cap).
      const double px = x + 0.5;
      const double t =
          r.len2 > 0 ? std::clamp(((px - r.ax) * r.dx + (py - r.ay) * r.dy) / r.len2, 0.0, 1.0)
                     : 0.0;
      const double qx = r.ax + r.dx * t, qy = r.ay + r.dy * t;
      const double ex = px - qx, ey = py - qy;
      const double dist = math::hypot(ex, ey);
      // The outline lies within the wider half width of the centre line
      // (its corners and caps do), and the pixel within 0.71 of its centre:
      // farther off, no clipping is needed to know it is outside.
      if (dist > reach) continue;
      const float cov =
          static_cast<float>(std::min(1.0, area_in_pixel(outline_x, outline_y, corners, x, y)));
      if (!(cov > 0)) continue;
      // Across the line: -1 .. 1 over the half width there, signed by side.
      const double hw = r.hw_a + (r.hw_b - r.hw_a) * t;
      const double across = hw > 0 ? (ey * r.tx - ex * r.ty < 0 ? -dist : dist) / hw : 0.0;
      const float v = static_cast<float>(std::clamp(0.5 + 0.5 * across, 0.0, 1.0));
      float tex[4];
      sample_scalar(s, 0.5f, v, tex);
      const float tf = static_cast<float>(t);
      float src[4];
      for (int c = 0; c < 4; ++c)
        src[c] = detail::fused(r.colour_b[c] - r.colour_a[c], tf, r.colour_a[c]) * tex[c] * cov;
      blend_scalar(row + x * 4, src);
      ++blended;
    }
  }
  return blended;
}

bool Rasterizer::same_line(size_t a, size_t b) const {
  return particles_[a].first == particles_[b].first &&
         particles_[a].second->key == particles_[b].second->key;
}

bool Rasterizer::make_segment(size_t i, Sprite& s, RibbonSegment& r) const {
  const size_t n = particles_.size();
  if (i + 1 >= n || !same_line(i, i + 1)) return false;
  const Particle& pa = *particles_[i].second;
  const Particle& pb = *particles_[i + 1].second;
  const Emitter& em = fx_.emitters[particles_[i].first];
  if (!(pa.alpha > 0) && !(pb.alpha > 0)) return false;
  const double scale = view_.scale;
  const auto centre = [&](size_t j, double* x, double* y) {
    const Particle& p = *particles_[j].second;
    *x = width_ * 0.5 + (p.x - view_.center_x) * scale;
    *y = height_ * 0.5 - (p.y - view_.center_y) * scale;
  };
  const auto half_width = [&](const Particle& p) {
    return std::min(std::max(p.w, 0.0) * scale * 0.5, kMaxHalfExtentPx);
  };
  // A sample's normal times its half width: N normal to the line through
  // its neighbours on the ribbon (itself at the ends), the same doubles for
  // both segments that share the sample.
  const auto normal = [&](size_t j, double* nx, double* ny) {
    const size_t prev = j > 0 && same_line(j - 1, j) ? j - 1 : j;
    const size_t next = j + 1 < n && same_line(j + 1, j) ? j + 1 : j;
    double x0, y0, x1, y1;
    centre(prev, &x0, &y0);
    centre(next, &x1, &y1);
    const double dx = x1 - x0, dy = y1 - y0, len = math::hypot(dx, dy);
    const double hw = half_width(*particles_[j].second);
    // A particle that has not moved has no direction: any normal draws its
    // round ends as one disc.
    *nx = len > 0 ? -dy / len * hw : 0.0;
    *ny = len > 0 ? dx / len * hw : hw;
  };
  double bx, by, nax, nay, nbx, nby;
  centre(i, &r.ax, &r.ay);
  centre(i + 1, &bx, &by);
  normal(i, &nax, &nay);
  normal(i + 1, &nbx, &nby);
  r.dx = bx - r.ax;
  r.dy = by - r.ay;
  r.len2 = r.dx * r.dx + r.dy * r.dy;
  const double len = std::sqrt(r.len2);
  // Along the segment; for one of no length, square to the normal at b.
  const double nb = math::hypot(nbx, nby);
  const double tx = len > 0 ? r.dx / len : nb > 0 ? nby / nb : 1.0;
  const double ty = len > 0 ? r.dy / len : nb > 0 ? -nbx / nb : 0.0;
  r.tx = tx;
  r.ty = ty;
  r.hw_a = half_width(pa);
  r.hw_b = half_width(pb);
  r.colour_a = particle_colour(pa, em, ambient_linear_, 1, pass_);
  r.colour_b = particle_colour(pb, em, ambient_linear_, 1, pass_);
  r.corner_x[0] = r.ax + nax, r.corner_y[0] = r.ay + nay;
  r.corner_x[1] = bx + nbx, r.corner_y[1] = by + nby;
  r.corner_x[2] = bx - nbx, r.corner_y[2] = by - nby;
  r.corner_x[3] = r.ax - nax, r.corner_y[3] = r.ay - nay;
  r.cap_a = !(i > 0 && same_line(i - 1, i));
  r.cap_b = !(i + 2 < n && same_line(i + 2, i + 1));
  s = Sprite{};
  if (!segment_bounds(r, bx, by, width_, height_, s)) return false;
  const Texture& tex = *textures_[em.index];
  s.cell = &tex.cell(pa.cell >= 1 && pa.cell <= static_cast<int>(tex.cells.size()) ? pa.cell : 1);
  s.nearest = em.filter == TextureFilter::kNearest;
  s.ribbon = &r;
  return true;
}

}  // namespace spritz
