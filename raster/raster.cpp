#include "raster.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace spritz {
namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;
constexpr double kMaxHalfExtentPx = 1e7;
constexpr double kNormaliseBelowPx = 48;  // sprites smaller than this get their light renormalised  // larger sprites are clamped (they cover the canvas anyway)

struct Pt {
  float x, y;
};

// Clips a convex polygon against one half-plane (keep where dist >= 0).
template <typename Dist>
int clip(const Pt* in, int n, Pt* out, Dist dist) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const Pt& a = in[i];
    const Pt& b = in[(i + 1) % n];
    const float da = dist(a), db = dist(b);
    if (da >= 0) out[m++] = a;
    if ((da >= 0) != (db >= 0)) {
      const float t = da / (da - db);
      out[m++] = {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t};
    }
  }
  return m;
}

// The exact area of the sprite's rectangle inside the unit pixel whose corner
// is at (px, py): the rectangle is clipped to the pixel square (Sutherland-
// Hodgman) and measured with the shoelace formula. Summed over all pixels the
// coverage equals the rectangle's area, so light is conserved at any size.
float coverage(const Sprite& s, float px, float py) {
  const float cx = s.cx - px, cy = s.cy - py;
  const float wx = s.ax_x * s.half_w, wy = s.ax_y * s.half_w;
  const float hx = s.ay_x * s.half_h, hy = s.ay_y * s.half_h;
  Pt a[12] = {{cx + wx + hx, cy + wy + hy},
              {cx - wx + hx, cy - wy + hy},
              {cx - wx - hx, cy - wy - hy},
              {cx + wx - hx, cy + wy - hy}};
  Pt b[12];
  int n = 4;
  n = clip(a, n, b, [](Pt p) { return p.x; });
  n = clip(b, n, a, [](Pt p) { return 1 - p.x; });
  n = clip(a, n, b, [](Pt p) { return p.y; });
  n = clip(b, n, a, [](Pt p) { return 1 - p.y; });
  float area2 = 0;
  for (int i = 0; i < n; ++i) {
    const Pt& p = a[i];
    const Pt& q = a[(i + 1) % n];
    area2 += p.x * q.y - q.x * p.y;
  }
  return std::min(1.0f, std::abs(area2) * 0.5f);
}

// Bilinear sample of one mip level at (u, v) in [0, 1], clamped to the edge.
inline void bilinear(const MipLevel& m, float u, float v, float out[4]) {
  const float x = u * static_cast<float>(m.width) - 0.5f;
  const float y = v * static_cast<float>(m.height) - 0.5f;
  const float fx0 = std::floor(x), fy0 = std::floor(y);
  const float tx = x - fx0, ty = y - fy0;
  const int ix = static_cast<int>(fx0), iy = static_cast<int>(fy0);
  const int x0 = std::clamp(ix, 0, m.width - 1), x1 = std::clamp(ix + 1, 0, m.width - 1);
  const int y0 = std::clamp(iy, 0, m.height - 1), y1 = std::clamp(iy + 1, 0, m.height - 1);
  const float* r0 = m.rgba.data() + static_cast<size_t>(y0) * static_cast<size_t>(m.width) * 4;
  const float* r1 = m.rgba.data() + static_cast<size_t>(y1) * static_cast<size_t>(m.width) * 4;
  for (int c = 0; c < 4; ++c) {
    const float top = r0[x0 * 4 + c] + (r0[x1 * 4 + c] - r0[x0 * 4 + c]) * tx;
    const float bottom = r1[x0 * 4 + c] + (r1[x1 * 4 + c] - r1[x0 * 4 + c]) * tx;
    out[c] = top + (bottom - top) * ty;
  }
}

inline void sample(const Sprite& s, float u, float v, float out[4]) {
  bilinear(s.cell->levels[static_cast<size_t>(s.level0)], u, v, out);
  if (s.level_mix > 0) {
    float hi[4];
    bilinear(s.cell->levels[static_cast<size_t>(s.level1)], u, v, hi);
    for (int c = 0; c < 4; ++c) out[c] += (hi[c] - out[c]) * s.level_mix;
  }
}

// The coverage of pixel (x, y) by the sprite and the texel seen there.
inline float texel_coverage(const Sprite& s, int x, int y, float t[4]) {
  const float fx = static_cast<float>(x) + 0.5f - s.cx;
  const float fy = static_cast<float>(y) + 0.5f - s.cy;
  const float lx = fx * s.ax_x + fy * s.ax_y;
  const float ly = fx * s.ay_x + fy * s.ay_y;
  const float alx = std::abs(lx), aly = std::abs(ly);
  if (alx - s.foot_x >= s.half_w || aly - s.foot_y >= s.half_h) return 0;
  const bool inside = alx + s.foot_x <= s.half_w && aly + s.foot_y <= s.half_h;
  const float cov = inside ? 1.0f : coverage(s, static_cast<float>(x), static_cast<float>(y));
  if (cov <= 0) return 0;
  const float u = std::clamp(0.5f + lx * s.inv_w, 0.0f, 1.0f);
  const float v = std::clamp(0.5f - ly * s.inv_h, 0.0f, 1.0f);
  sample(s, u, v, t);
  return cov;
}

}  // namespace

double canvas_scale(const Canvas& canvas, int width, int height) {
  return std::min(static_cast<double>(width) / canvas.width,
                  static_cast<double>(height) / canvas.height);
}

View canvas_view(const Canvas& canvas, int width, int height) {
  return View{canvas_scale(canvas, width, height), 0, 0};
}

View fit_view(const Bounds& b, const Canvas& canvas, int width, int height, double margin_px) {
  if (b.empty) return canvas_view(canvas, width, height);
  const double bw = std::max(b.x1 - b.x0, 1e-6), bh = std::max(b.y1 - b.y0, 1e-6);
  const double scale = std::min(std::max(1.0, width - 2 * margin_px) / bw,
                                std::max(1.0, height - 2 * margin_px) / bh);
  return View{scale, 0.5 * (b.x0 + b.x1), 0.5 * (b.y0 + b.y1)};
}

Bounds visible_bounds(const View& v, int width, int height) {
  Bounds b;
  const double hx = 0.5 * width / v.scale, hy = 0.5 * height / v.scale;
  b.add(v.center_x - hx, v.center_y - hy, v.center_x + hx, v.center_y + hy);
  return b;
}

bool make_sprite(const Particle& p, const Emitter& em, const Texture& tex, Rgb ambient_linear,
                 int width, int height, const View& view, Sprite& s) {
  if (!(p.alpha > 0) || !(p.w > 0) || !(p.h > 0)) return false;
  const double scale = view.scale;
  const double cx = width * 0.5 + (p.x - view.center_x) * scale;
  const double cy = height * 0.5 - (p.y - view.center_y) * scale;
  const double hw = std::min(p.w * scale * 0.5, kMaxHalfExtentPx);
  const double hh = std::min(p.h * scale * 0.5, kMaxHalfExtentPx);
  const double theta = std::fmod(p.rotation_deg, 360.0) * kDegToRad;
  const double c = std::cos(theta), sn = std::sin(theta);
  const double ext_x = std::abs(c) * hw + std::abs(sn) * hh;
  const double ext_y = std::abs(sn) * hw + std::abs(c) * hh;
  const double x0 = std::max(0.0, std::floor(cx - ext_x));
  const double x1 = std::min(static_cast<double>(width), std::ceil(cx + ext_x));
  const double y0 = std::max(0.0, std::floor(cy - ext_y));
  const double y1 = std::min(static_cast<double>(height), std::ceil(cy + ext_y));
  if (!(x0 < x1) || !(y0 < y1)) return false;  // off canvas (or not finite)
  s.cx = static_cast<float>(cx);
  s.cy = static_cast<float>(cy);
  // Local axes in screen space (y down): x = (cos, -sin), up = (-sin, -cos).
  s.ax_x = static_cast<float>(c);
  s.ax_y = static_cast<float>(-sn);
  s.ay_x = static_cast<float>(-sn);
  s.ay_y = static_cast<float>(-c);
  s.half_w = static_cast<float>(hw);
  s.half_h = static_cast<float>(hh);
  s.foot_x = s.foot_y = static_cast<float>(0.5 * (std::abs(c) + std::abs(sn)));
  s.inv_w = static_cast<float>(0.5 / hw);
  s.inv_h = static_cast<float>(0.5 / hh);
  s.x0 = static_cast<int>(x0);
  s.x1 = static_cast<int>(x1);
  s.y0 = static_cast<int>(y0);
  s.y1 = static_cast<int>(y1);

  // Linear colour, brightness (HDR above 1), then light influence toward the
  // ambient colour: c' = c (1 - L + L ambient).
  const Rgb lin = srgb_to_linear(p.color_srgb);
  const double li = em.light_influence;
  const double k = em.brightness * p.alpha;
  s.r = static_cast<float>(lin.r * k * (1 - li + li * ambient_linear.r));
  s.g = static_cast<float>(lin.g * k * (1 - li + li * ambient_linear.g));
  s.b = static_cast<float>(lin.b * k * (1 - li + li * ambient_linear.b));
  s.a = static_cast<float>(p.alpha);
  s.keep = static_cast<float>(1 - em.light_emission);

  s.cell = &tex.cell(p.cell >= 1 && p.cell <= static_cast<int>(tex.cells.size()) ? p.cell : 1);
  // Texels per screen pixel picks the mip level; trilinear between two levels
  // so nothing pops as a particle shrinks.
  const double texels_per_px =
      std::max(tex.cell_width / (2 * hw), tex.cell_height / (2 * hh));
  const int last = static_cast<int>(s.cell->levels.size()) - 1;
  if (texels_per_px <= 1) {
    s.level0 = s.level1 = 0;
    s.level_mix = 0;
  } else {
    const double lod = std::log2(texels_per_px);
    const int l = static_cast<int>(std::floor(lod));
    s.level0 = std::min(l, last);
    s.level1 = std::min(l + 1, last);
    s.level_mix = s.level0 == s.level1 ? 0.0f : static_cast<float>(lod - l);
  }

  // A small sprite spans few pixels, and point-sampling its texture there
  // misses or doubles light depending on its subpixel phase. Renormalise so
  // its total light is exactly area x mean texel: no popping as it shrinks or
  // moves. (Large sprites sample densely enough; the test bounds both.)
  if (std::max(hw, hh) * 2 < kNormaliseBelowPx && s.cell->mean[3] > 0) {
    const int bx0 = static_cast<int>(std::floor(cx - ext_x)), bx1 = static_cast<int>(std::ceil(cx + ext_x));
    const int by0 = static_cast<int>(std::floor(cy - ext_y)), by1 = static_cast<int>(std::ceil(cy + ext_y));
    double sum = 0;
    for (int y = by0; y < by1; ++y)
      for (int x = bx0; x < bx1; ++x) {
        float t[4];
        const float cov = texel_coverage(s, x, y, t);
        if (cov > 0) sum += static_cast<double>(cov) * t[3];
      }
    const double want = 4 * static_cast<double>(s.half_w) * s.half_h * s.cell->mean[3];
    if (sum > 0) {
      const float gain = static_cast<float>(std::clamp(want / sum, 0.5, 2.0));
      s.r *= gain;
      s.g *= gain;
      s.b *= gain;
      s.a *= gain;
    }
  }
  return true;
}

uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end) {
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* row = img.row(y);
    for (int x = s.x0; x < s.x1; ++x) {
      float t[4];
      const float cov = texel_coverage(s, x, y, t);
      if (cov <= 0) continue;
      // C = colour texel alpha cov, A = texel_alpha alpha cov, E = emission:
      //   dst.rgb = C + dst.rgb (1 - A (1 - E))
      //   dst.a   = A (1 - E) + dst.a (1 - A (1 - E))
      const float occl = std::min(1.0f, s.a * t[3] * cov * s.keep);
      const float k = 1 - occl;
      float* d = row + x * 4;
      d[0] = s.r * t[0] * cov + d[0] * k;
      d[1] = s.g * t[1] * cov + d[1] * k;
      d[2] = s.b * t[2] * cov + d[2] * k;
      d[3] = occl + d[3] * k;
      ++blended;
    }
  }
  return blended;
}

Rasterizer::Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height,
                       int threads)
    : Rasterizer(fx, textures, width, height, threads, canvas_view(fx.canvas, width, height)) {}

Rasterizer::Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height,
                       int threads, const View& view)
    : fx_(fx),
      textures_(textures),
      width_(width),
      height_(height),
      threads_(std::max(1, threads)),
      view_(view) {
  const Rgba& bg = fx.canvas.background_srgb;
  background_[0] = static_cast<float>(srgb_to_linear(bg.r) * bg.a);
  background_[1] = static_cast<float>(srgb_to_linear(bg.g) * bg.a);
  background_[2] = static_cast<float>(srgb_to_linear(bg.b) * bg.a);
  background_[3] = static_cast<float>(bg.a);
  ambient_linear_ = srgb_to_linear(fx.canvas.ambient_srgb);
}

void Rasterizer::render(const Frame& frame, Image& out) {
  out.resize(width_, height_);
  sprites_.clear();
  for (const EmitterFrame& ef : frame.emitters) {
    const Emitter& em = fx_.emitters[ef.emitter];
    const Texture& tex = *textures_[em.index];
    Sprite s;
    for (const Particle& p : ef.particles)
      if (make_sprite(p, em, tex, ambient_linear_, width_, height_, view_, s)) sprites_.push_back(s);
  }

  // Bin sprites by the strips their rows touch, keeping draw order.
  const int strips = (height_ + kStripRows - 1) / kStripRows;
  bins_.resize(static_cast<size_t>(strips));
  for (auto& bin : bins_) bin.clear();
  for (size_t i = 0; i < sprites_.size(); ++i) {
    const Sprite& s = sprites_[i];
    for (int k = s.y0 / kStripRows; k <= (s.y1 - 1) / kStripRows; ++k)
      bins_[static_cast<size_t>(k)].push_back(static_cast<uint32_t>(i));
  }

  std::atomic<int> next{0};
  std::atomic<uint64_t> blended{0};
  auto work = [&] {
    uint64_t local = 0;
    for (int k; (k = next.fetch_add(1)) < strips;) {
      const int row_begin = k * kStripRows, row_end = std::min(height_, row_begin + kStripRows);
      for (int y = row_begin; y < row_end; ++y) {
        float* row = out.row(y);
        for (int x = 0; x < width_; ++x)
          std::copy(background_, background_ + 4, row + x * 4);
      }
      for (uint32_t i : bins_[static_cast<size_t>(k)])
        local += draw_sprite(sprites_[i], out, row_begin, row_end);
    }
    blended += local;
  };
  const int helpers = std::min(threads_, strips) - 1;
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(std::max(0, helpers)));
  for (int t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  stats_.sprites = sprites_.size();
  stats_.covered_pixels = blended.load();
}

}  // namespace spritz
