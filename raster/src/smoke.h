// Internal to the rasterizer: builtin:smoke's cells (builtin.cpp). A cell
// is shaded row by row, four texels at a time with AVX2 where the CPU has
// it (smoke_avx2.cpp) and one at a time otherwise (smoke.cpp): the same IEEE
// double operations in the same order, so the same texels (tested against
// the noise computed texel by texel, tests/raster/texture_test.cpp).
#pragma once

#include <algorithm>
#include <vector>

namespace spritz::detail {

// smoothstep(e0, e1, x): t = clamp((x - e0) / (e1 - e0), 0, 1), t t (3 - 2 t).
inline double smoothstep(double e0, double e1, double x) {
  const double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3 - 2 * t);
}

// One octave of the puff's noise over a cell (SmokeCell says how).
struct SmokeOctave {
  // Per column: the offset of its lattice cell in `points`, and its
  // smoothed fraction; per row the same, the offset a multiple of stride.
  std::vector<int> col_cell, row_cell;
  std::vector<double> col_smooth, row_smooth;
  std::vector<double> points;  // the lattice values, row by row
  int stride = 0;
};

// One flipbook cell of builtin:smoke, n x n texels at phase t: a puff that
// billows outward (radius 0.5 + 0.42 sqrt(t)) and thins as it ages, its
// density four octaves of value noise (fbm) at x * 2.6 + 11.3 + t * 0.9,
// y * 2.6 - 4.1 - t * 1.3, each octave's coordinates 2.03 times the
// last's. Evaluated texel by texel, the noise was most of the flipbook's
// cost. But an octave's x depends on the texel's column alone and its y on
// the row, so each column's lattice cell and smoothed fraction, and each
// row's, are computed once here, and each octave's lattice points (at most
// about 55 x 55 in a 256 px cell, against 16 hashes a texel) are hashed
// once into a table.
struct SmokeCell {
  SmokeCell(int n, double t);
  int n;
  double radius, fade;         // 0.5 + 0.42 sqrt(t) and 1.1 - 0.75 t
  std::vector<double> centre;  // texel centres in [-1, 1], (i + 0.5) / n * 2 - 1
  static constexpr int kOctaves = 4;
  SmokeOctave octaves[kOctaves];
};

// Texels [i0, n) of row j into `row` (the row's RGBA floats, all four the
// alpha: white, premultiplied).
void smoke_row(const SmokeCell& cell, int j, int i0, float* row);

// Whether this CPU runs smoke_row_avx2 (x86-64 with AVX2; never elsewhere).
bool smoke_avx2_available();
// Texels [0, n & ~3) of row j, four at a time; only where available.
void smoke_row_avx2(const SmokeCell& cell, int j, float* row);

// A whole cell into rgba (n x n RGBA floats); `avx2` only where available.
void smoke_cell(int n, double t, float* rgba, bool avx2);

}  // namespace spritz::detail
