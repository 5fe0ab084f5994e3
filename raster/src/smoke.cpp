// builtin:smoke's cells, one texel at a time, and the choice of path
// (smoke.h).
#include "smoke.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "spritz/hash.h"

namespace spritz::detail {
namespace {

// Value noise on an integer lattice, hashed (no tables, no state).
double lattice(int x, int y, uint32_t seed) {
  const uint32_t h =
      mix32(static_cast<uint32_t>(x) * 0x8da6b343u ^ static_cast<uint32_t>(y) * 0xd8163841u ^ seed);
  return h * (1.0 / 4294967296.0);
}

// A coordinate's lattice cell and smoothed fraction.
std::pair<int, double> axis(double v) {
  const double f = std::floor(v);
  return {static_cast<int>(f), smoothstep(0, 1, v - f)};
}

std::pair<int, int> span(const std::vector<int>& cells) {
  const auto [lo, hi] = std::minmax_element(cells.begin(), cells.end());
  return {*lo, *hi};
}

// fbm at texel (i, j): each octave's lerps between its four lattice
// points, summed with halving weights, over the weights' sum.
double noise_at(const SmokeCell& cell, int i, int j) {
  double sum = 0, amp = 0.5, norm = 0;
  for (const SmokeOctave& oc : cell.octaves) {
    const double* p = oc.points.data() + oc.row_cell[static_cast<size_t>(j)] +
                      oc.col_cell[static_cast<size_t>(i)];
    const double a = p[0], b = p[1], c = p[oc.stride], d = p[oc.stride + 1];
    const double tx = oc.col_smooth[static_cast<size_t>(i)];
    const double ty = oc.row_smooth[static_cast<size_t>(j)];
    sum += amp * ((a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty);
    norm += amp;
    amp *= 0.5;
  }
  return sum / norm;
}

}  // namespace

SmokeCell::SmokeCell(int n_, double t)
    : n(n_), radius(0.5 + 0.42 * std::sqrt(t)), fade(1.1 - 0.75 * t) {
  const size_t size = static_cast<size_t>(n);
  centre.resize(size);
  for (SmokeOctave& oc : octaves) {
    oc.col_cell.resize(size), oc.row_cell.resize(size);
    oc.col_smooth.resize(size), oc.row_smooth.resize(size);
  }
  // Each octave's coordinate from the last one's, as fbm steps it.
  for (size_t i = 0; i < size; ++i) {
    const double c = (static_cast<int>(i) + 0.5) / n * 2 - 1;
    centre[i] = c;
    double x = c * 2.6 + 11.3 + t * 0.9, y = c * 2.6 - 4.1 - t * 1.3;
    for (SmokeOctave& oc : octaves) {
      std::tie(oc.col_cell[i], oc.col_smooth[i]) = axis(x);
      std::tie(oc.row_cell[i], oc.row_smooth[i]) = axis(y);
      x *= 2.03;
      y *= 2.03;
    }
  }
  for (int o = 0; o < kOctaves; ++o) {
    SmokeOctave& oc = octaves[o];
    const uint32_t seed = 0x51a3u + static_cast<uint32_t>(o) * 0x9E3779B9u;
    const auto [x0, x1] = span(oc.col_cell);
    const auto [y0, y1] = span(oc.row_cell);
    oc.stride = x1 + 2 - x0;  // the points x0 .. x1 + 1
    oc.points.resize(static_cast<size_t>(oc.stride) * static_cast<size_t>(y1 + 2 - y0));
    for (int y = y0; y <= y1 + 1; ++y)
      for (int x = x0; x <= x1 + 1; ++x)
        oc.points[static_cast<size_t>((y - y0) * oc.stride + (x - x0))] = lattice(x, y, seed);
    for (int& c : oc.col_cell) c -= x0;
    for (int& c : oc.row_cell) c = (c - y0) * oc.stride;
  }
}

void smoke_row(const SmokeCell& cell, int j, int i0, float* row) {
  const double y = cell.centre[static_cast<size_t>(j)];
  for (int i = i0; i < cell.n; ++i) {
    const double x = cell.centre[static_cast<size_t>(i)];
    const double from_centre = std::sqrt(x * x + y * y);
    const double body = smoothstep(1.0, 0.25, from_centre / cell.radius);
    // Outside the puff (body 0) or the cell's round edge (the last factor
    // 0) the alpha is exactly +0 whatever the noise: its four octaves, most
    // of the cost, are not computed there.
    double alpha = 0.0;
    if (!(body == 0 || from_centre >= 1.0)) {
      const double density = std::clamp(0.25 + 1.1 * noise_at(cell, i, j), 0.0, 1.0);
      alpha = std::clamp(body * density * cell.fade, 0.0, 1.0) * smoothstep(1.0, 0.9, from_centre);
    }
    float* p = row + static_cast<size_t>(i) * 4;
    p[0] = p[1] = p[2] = p[3] = static_cast<float>(alpha);
  }
}

void smoke_cell(int n, double t, float* rgba, bool avx2) {
  const SmokeCell cell(n, t);
  avx2 = avx2 && smoke_avx2_available();
  for (int j = 0; j < n; ++j) {
    float* row = rgba + static_cast<size_t>(j) * static_cast<size_t>(n) * 4;
    int i0 = 0;
    if (avx2) {
      smoke_row_avx2(cell, j, row);
      i0 = n & ~3;
    }
    smoke_row(cell, j, i0, row);
  }
}

}  // namespace spritz::detail
