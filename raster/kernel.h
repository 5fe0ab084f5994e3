// Internal to the rasterizer: the per-sprite draw kernels and what they
// share. Every kernel computes the same IEEE single-precision operations in
// the same order (no FMA: -ffp-contract=off), so all of them give the same
// bytes as draw_sprite_reference (tested), and a render farm of mixed CPUs
// produces identical frames.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "image.h"
#include "raster.h"

namespace spritz::detail {

// The pixels of each row that can touch a sprite: where |lx| < half_w +
// foot_x and |ly| < half_h + foot_y. Each constraint |a fx + b fy| < e gives
// fx in (-|e / a| - (b / a) fy, |e / a| - (b / a) fy), so a row's span costs a
// few multiply-adds of terms computed once per sprite.
//
// A span only has to contain every pixel that the per-pixel coverage test
// (single precision) accepts; the reference walks the whole bounding box
// instead, and the kernels must match it bit for bit. The test can accept a
// pixel outside the exact span only by its rounding error, at most a few
// units in the last place of |cx|, |a fx|, |b fy| and e; divided by |a| that
// is a distance in pixels. Each side is widened by 16 times that bound plus
// 0.001 px (a few thousandths of a pixel for ordinary sprites), so no
// accepted pixel is ever left out and no wasted one is taken in.
class RowSpans {
 public:
  explicit RowSpans(const Sprite& s) : cx_(static_cast<double>(s.cx) - 0.5), x0_(s.x0), x1_(s.x1) {
    const double fx_max = std::abs(static_cast<double>(s.cx)) + std::max(std::abs(s.x0), std::abs(s.x1)) + 1;
    const double fy_max = std::abs(static_cast<double>(s.cy)) + std::max(std::abs(s.y0), std::abs(s.y1)) + 1;
    add(0, s.ax_x, s.ax_y, static_cast<double>(s.half_w) + s.foot_x, fx_max, fy_max);
    add(1, s.ay_x, s.ay_y, static_cast<double>(s.half_h) + s.foot_y, fx_max, fy_max);
  }

  // Pixels [*xa, *xb) of the row whose centre is fy below the sprite's centre.
  void at(float fy, int* xa, int* xb) const {
    const double f = fy;
    for (int i = 0; i < 2; ++i)
      if (std::abs(fixed_b_[i] * f) >= fixed_e_[i]) {  // a degenerate axis rules the row out
        *xa = *xb = x0_;
        return;
      }
    const double lo = std::max(lo_[0] + slope_[0] * f, lo_[1] + slope_[1] * f);
    const double hi = std::min(hi_[0] + slope_[0] * f, hi_[1] + slope_[1] * f);
    // Pixel x can touch when x + 0.5 - cx is in (lo, hi).
    const double a = std::floor(lo + cx_) + 1, b = std::ceil(hi + cx_);
    *xa = static_cast<int>(std::clamp(a, static_cast<double>(x0_), static_cast<double>(x1_)));
    *xb = static_cast<int>(std::clamp(b, static_cast<double>(*xa), static_cast<double>(x1_)));
  }

 private:
  void add(int i, double a, double b, double e, double fx_max, double fy_max) {
    if (std::abs(a) < 1e-12) {  // the constraint does not depend on x
      lo_[i] = -1e300, hi_[i] = 1e300, slope_[i] = 0;
      fixed_b_[i] = b, fixed_e_[i] = e + 1e-6 * (std::abs(b) * fy_max + e) + 1e-3;
      return;
    }
    const double margin = std::min(2.0, 1e-3 + 1e-6 * (fx_max + (std::abs(b) * fy_max + e) / std::abs(a)));
    const double r = std::abs(e / a) + margin;
    lo_[i] = -r, hi_[i] = r, slope_[i] = -b / a;
    fixed_b_[i] = 0, fixed_e_[i] = 1;  // never rules a row out
  }

  double cx_;
  int x0_, x1_;
  double lo_[2], hi_[2], slope_[2];
  double fixed_b_[2], fixed_e_[2];
};

// The portable kernel (GCC vector extensions: SSE2 on x86-64, NEON on ARM).
uint64_t draw_sprite_portable(const Sprite& s, Image& img, int row_begin, int row_end);

// The AVX2 kernel: eight pixels' geometry at a time, two pixels' texels per
// 256-bit vector. Only call it when cpu_has_avx2(); sprites with exact edge
// coverage (thinner than 3 px) go to the portable kernel.
uint64_t draw_sprite_avx2(const Sprite& s, Image& img, int row_begin, int row_end);
bool cpu_has_avx2();

}  // namespace spritz::detail
