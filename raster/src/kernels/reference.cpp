// The reference kernel: the plain scalar loop over the bounding box that
// every other kernel must match bit for bit.
#include "kernels/sampling.h"

namespace spritz {

using detail::blend_scalar;
using detail::pixel_geometry;
using detail::PixelGeometry;
using detail::sample_scalar;

uint64_t draw_sprite_reference(const Sprite& s, Image& img, int row_begin, int row_end) {
  if (s.ribbon) return draw_ribbon_segment(s, img, row_begin, row_end);
  const detail::ExactEdges edges(s);
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* row = img.row(y);
    const float fy = static_cast<float>(y) + 0.5f - s.cy;
    for (int x = s.x0; x < s.x1; ++x) {
      const PixelGeometry g = pixel_geometry(s, edges, x, y, fy);
      if (g.cov <= 0) continue;
      const float u = std::clamp(detail::fused(g.lx, s.inv_w, 0.5f), 0.0f, 1.0f);
      const float v = std::clamp(detail::fused(-g.ly, s.inv_h, 0.5f), 0.0f, 1.0f);
      float t[4];
      sample_scalar(s, u, v, t);
      // C = colour texel cov, A(1 - E) = alpha (1 - E) texel_alpha cov.
      float src[4];
      for (int c = 0; c < 4; ++c) src[c] = s.colour[c] * t[c] * g.cov;
      blend_scalar(row + x * 4, src);
      ++blended;
    }
  }
  return blended;
}

}  // namespace spritz
