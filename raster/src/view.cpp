// Views: design px (y up, from the canvas centre) to screen pixels.
#include <algorithm>

#include "spritz/raster/raster.h"

namespace spritz {

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

}  // namespace spritz
