// The portable kernel: the reference's arithmetic over each row's span only,
// four channels at a time (GCC vector extensions), for CPUs without AVX2.
#include "kernels/sampling.h"

namespace spritz::detail {

uint64_t draw_sprite_portable(const Sprite& sprite, Image& img, int row_begin, int row_end) {
  const Sprite s = sprite;  // a local copy: stores to the image cannot alias it
  const LevelView l0 = level_view(s.cell->levels[static_cast<size_t>(s.level0)]);
  const LevelView l1 = level_view(s.cell->levels[static_cast<size_t>(s.level1)]);
  const float mix = s.level_mix;
  const RowSpans spans(s);
  const ExactEdges edges(s);
  const int ylo = std::max(s.y0, row_begin), yhi = std::min(s.y1, row_end);
  uint64_t blended = 0;
  for (int y = ylo; y < yhi; ++y) {
    float* __restrict row = img.row(y);
    const float fy = static_cast<float>(y) + 0.5f - s.cy;
    int xa, xb;
    spans.at(fy, &xa, &xb);
    for (int x = xa; x < xb; ++x) {
      const PixelGeometry g = pixel_geometry(s, edges, x, y, fy);
      if (g.cov <= 0) continue;
      const float u = std::clamp(fused(g.lx, s.inv_w, 0.5f), 0.0f, 1.0f);
      const float v = std::clamp(fused(-g.ly, s.inv_h, 0.5f), 0.0f, 1.0f);
      // src = colour texel cov: (C, A (1 - E)); k = 1 - A (1 - E):
      //   dst = src + dst k, fused
      const Float4 src = s.colour * sample4(l0, l1, mix, s.nearest, u, v) * g.cov;
      const float occl = std::min(1.0f, src[3]);
      Float4 add = src;
      add[3] = occl;
      const Float4 d = fused(load4(row + x * 4), splat(1 - occl), add);
      std::memcpy(row + x * 4, &d, sizeof d);
      ++blended;
    }
  }
  return blended;
}

}  // namespace spritz::detail
