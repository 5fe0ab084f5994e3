// Flipbook shaders' blend of two cells with motion vectors, and the vectors
// fitted to that blend (atlas --mv-fit blend), with the error measures the
// fit and --mv-check report.
#pragma once

#include <cstdint>
#include <vector>

#include "spritz/raster/motion_vectors.h"

namespace spritz {

// An in-between of two cells as flipbook shaders blend them with motion
// vectors, at fraction f of the step from cell a to cell b:
//   s0 = a sampled at p - f m_a(p),  s1 = b sampled at p + (1 - f) m_b(p),
//   out = s0 + (s1 - s0) f
// a, b and out are straight-alpha RGBA floats (w x h, 4 per pixel), m_a and
// m_b the decoded displacements (px, y down, 2 per pixel; all 0 gives a
// plain crossfade). Bilinear, clamped to the cell's edge.
void blend_cells(const std::vector<float>& a, const std::vector<float>& b,
                 const std::vector<float>& motion_a, const std::vector<float>& motion_b, int w,
                 int h, double f, std::vector<float>& out);

// Fitting a sheet's vectors to the blend that reads them (atlas --mv-fit
// blend, docs/rendering.md "Fitted to the blend"). One vector per pixel
// cannot say everything: where a thin streak slides along itself, or a
// covered pixel has a faster particle passing through it, the exact vector
// can make the shader's blend worse than no vector at all. Here each pixel
// of each cell takes one of its candidates (its exact vector, those of the
// four pixels beside it, the halo's, the strongest particle's and the
// strongest halo's, or none), the choice that makes the blends of the
// pairs the cell takes part in (as their first cell and as their second)
// closest to the exact renders in between. A cell's choice at a pixel
// meets only its neighbours' choices at the same pixel, so the best choice
// for a chain (or loop) of cells is found exactly, pixel by pixel, by
// dynamic programming; four passes let a choice spread to the pixels
// beside it.
struct BlendFit {
  // Straight-alpha RGBA floats of every cell, as stored in the sheet.
  std::vector<const std::vector<float>*> cells;
  // next[i]: the cell blended after cell i, or -1. Every cell is next of
  // at most one other.
  std::vector<int> next;
  // fractions[k] and truth[i][k]: the exact render (as cells are stored)
  // at fraction fractions[k] of the step from cell i to next[i].
  std::vector<double> fractions;
  std::vector<std::vector<const std::vector<float>*>> truth;
  // SideFX's shader displaces both cells by the first cell's vectors.
  bool first_cells_vectors = false;
  int threads = 1;
};

// Replaces each field's `xy` with the chosen candidates (the fields in cell
// order, each cell's size, drawn with MotionOptions::candidates). Never worse than the exact
// vectors at the given fractions; returns how many pixels' vectors differ from the exact ones.
// Throws spritz::Error on inputs that do not fit together.
uint64_t fit_motion_to_blend(const BlendFit& fit, int w, int h, std::vector<MotionField>& fields);

// The sum of squared differences of two straight-alpha RGBA float images
// compared premultiplied (colour times alpha, and alpha), which ignores the
// colour under transparent pixels.
double premultiplied_sq_error(const std::vector<float>& a, const std::vector<float>& b);

// PSNR in dB of a summed squared error over `values` channel values in
// [0, 1]; 100 for identical images.
double psnr_db(double sq_error, double values);

}  // namespace spritz
