#include "spritz/raster/diff.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "spritz/elementary.h"

namespace spritz {
namespace {

// pixelmatch's maximum YIQ delta (35215) for normalising the threshold.
constexpr double kMaxYiqDelta = 35215.0;

struct Yiq {
  double y, i, q;
};

// The pixel composited over a background grey level `bg` (255 white, 0 black).
Yiq yiq_over(const uint8_t* p, double bg) {
  const double a = p[3] / 255.0;
  const double r = bg + (p[0] - bg) * a, g = bg + (p[1] - bg) * a, b = bg + (p[2] - bg) * a;
  return {r * 0.29889531 + g * 0.58662247 + b * 0.11448223,
          r * 0.59597799 - g * 0.27417610 - b * 0.32180189,
          r * 0.21147017 - g * 0.52261711 + b * 0.31114694};
}

Yiq yiq_over_white(const uint8_t* p) {
  return yiq_over(p, 255);
}

double yiq_delta(const Yiq& a, const Yiq& b) {
  const double dy = a.y - b.y, di = a.i - b.i, dq = a.q - b.q;
  return 0.5053 * dy * dy + 0.299 * di * di + 0.1957 * dq * dq;
}

// Signed squared YIQ distance (sign: darker or lighter), pixelmatch's
// colorDelta. pixelmatch composites over white only, which makes white (or
// light) content on a transparent background invisible to it; particle
// sprites are mostly that, so spritz takes the larger of the differences over
// white and over black.
double color_delta(const uint8_t* p, const uint8_t* q, bool y_only = false) {
  if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2] && p[3] == q[3]) return 0;
  const Yiq a = yiq_over_white(p), b = yiq_over_white(q);
  if (y_only) return a.y - b.y;
  const double delta = std::max(yiq_delta(a, b), yiq_delta(yiq_over(p, 0), yiq_over(q, 0)));
  return a.y > b.y ? -delta : delta;
}

const uint8_t* at(const uint8_t* img, int w, int x, int y) {
  return img + (static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4;
}

bool has_many_siblings(const uint8_t* img, int x1, int y1, int w, int h) {
  const int x0 = std::max(x1 - 1, 0), y0 = std::max(y1 - 1, 0);
  const int x2 = std::min(x1 + 1, w - 1), y2 = std::min(y1 + 1, h - 1);
  const uint8_t* c = at(img, w, x1, y1);
  int zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0;
  for (int x = x0; x <= x2; ++x)
    for (int y = y0; y <= y2; ++y) {
      if (x == x1 && y == y1) continue;
      const uint8_t* o = at(img, w, x, y);
      if (c[0] == o[0] && c[1] == o[1] && c[2] == o[2] && c[3] == o[3]) ++zeroes;
      if (zeroes > 2) return true;
    }
  return false;
}

// pixelmatch's anti-aliasing test: the pixel is on a brightness gradient
// between a darkest and a brightest neighbour, one of which sits in a flat
// area in both images.
bool antialiased(const uint8_t* img, int x1, int y1, int w, int h, const uint8_t* other) {
  const int x0 = std::max(x1 - 1, 0), y0 = std::max(y1 - 1, 0);
  const int x2 = std::min(x1 + 1, w - 1), y2 = std::min(y1 + 1, h - 1);
  int zeroes = x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2 ? 1 : 0;
  double min = 0, max = 0;
  int minx = 0, miny = 0, maxx = 0, maxy = 0;
  for (int x = x0; x <= x2; ++x)
    for (int y = y0; y <= y2; ++y) {
      if (x == x1 && y == y1) continue;
      const double delta = color_delta(at(img, w, x1, y1), at(img, w, x, y), true);
      if (delta == 0) {
        if (++zeroes > 2) return false;
      } else if (delta < min) {
        min = delta, minx = x, miny = y;
      } else if (delta > max) {
        max = delta, maxx = x, maxy = y;
      }
    }
  if (min == 0 || max == 0) return false;
  return (has_many_siblings(img, minx, miny, w, h) && has_many_siblings(other, minx, miny, w, h)) ||
         (has_many_siblings(img, maxx, maxy, w, h) && has_many_siblings(other, maxx, maxy, w, h));
}

}  // namespace

DiffResult diff_images(const uint8_t* a, const uint8_t* b, int width, int height,
                       const DiffOptions& options) {
  DiffResult r;
  r.total = static_cast<uint64_t>(width) * static_cast<uint64_t>(height);
  if (options.want_image) r.image.resize(r.total * 4);
  const double max_delta = kMaxYiqDelta * options.threshold * options.threshold;
  double squared = 0;
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      const uint8_t* pa = at(a, width, x, y);
      const uint8_t* pb = at(b, width, x, y);
      for (int c = 0; c < 4; ++c) {
        const int d = std::abs(pa[c] - pb[c]);
        r.max_channel_diff = std::max(r.max_channel_diff, d);
        squared += static_cast<double>(d) * d;
      }
      const double delta = std::abs(color_delta(pa, pb));
      if (delta / kMaxYiqDelta > r.worst_delta) {
        r.worst_delta = delta / kMaxYiqDelta;
        r.worst_x = x;
        r.worst_y = y;
      }
      uint8_t* out = options.want_image
                         ? &r.image[(static_cast<size_t>(y) * static_cast<size_t>(width) +
                                     static_cast<size_t>(x)) *
                                    4]
                         : nullptr;
      if (delta > max_delta) {
        const bool aa = options.detect_antialiasing && (antialiased(a, x, y, width, height, b) ||
                                                        antialiased(b, x, y, width, height, a));
        if (aa) {
          ++r.antialiased;
          if (out) out[0] = 255, out[1] = 255, out[2] = 0, out[3] = 255;
        } else {
          ++r.different;
          if (out) out[0] = 255, out[1] = 0, out[2] = 0, out[3] = 255;
        }
      } else if (out) {
        // A faded grey copy of A for context.
        const double grey = yiq_over_white(pa).y;
        const auto v = static_cast<uint8_t>(std::lround(255 + (grey - 255) * 0.1));
        out[0] = out[1] = out[2] = v;
        out[3] = 255;
      }
    }
  }
  const double mse = r.total ? squared / (static_cast<double>(r.total) * 4) : 0;
  r.psnr_db =
      mse == 0 ? std::numeric_limits<double>::infinity() : 10 * math::log10(255.0 * 255.0 / mse);
  r.worst_delta = std::sqrt(r.worst_delta);  // as a threshold-comparable fraction
  return r;
}

}  // namespace spritz
