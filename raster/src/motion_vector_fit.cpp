// The shaders' blend of two cells with motion vectors, and the vectors
// fitted to it by dynamic programming over each chain of cells
// (motion_vector_fit.h).
#include "spritz/raster/motion_vector_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/raster/pool.h"

namespace spritz {

namespace {

// Bilinear sample of a straight-alpha float cell (4 floats per pixel) at
// (px, py) in pixels, clamped to the cell's edge (as the padding a sheet's
// cells have extruded).
void sample_cell(const std::vector<float>& cell, int w, int h, double px, double py, float out[4]) {
  const double x = std::clamp(px - 0.5, 0.0, w - 1.0), y = std::clamp(py - 0.5, 0.0, h - 1.0);
  const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  const int x1 = std::min(x0 + 1, w - 1), y1 = std::min(y0 + 1, h - 1);
  const double tx = x - x0, ty = y - y0;
  auto at = [&](int xx, int yy, int c) {
    return cell[(static_cast<size_t>(yy) * static_cast<size_t>(w) + static_cast<size_t>(xx)) * 4 +
                static_cast<size_t>(c)];
  };
  for (int c = 0; c < 4; ++c) {
    const double top = at(x0, y0, c) + (at(x1, y0, c) - at(x0, y0, c)) * tx;
    const double bottom = at(x0, y1, c) + (at(x1, y1, c) - at(x0, y1, c)) * tx;
    out[c] = static_cast<float>(top + (bottom - top) * ty);
  }
}

}  // namespace

namespace {

// Adds to `sum` the squared error of one straight-alpha pixel against
// another, compared premultiplied: colour times alpha, and alpha, so the
// colour under a transparent pixel counts for nothing.
template <typename A>
void add_sq_error(double& sum, const A* a, const float* b) {
  const double aa = std::clamp<double>(a[3], 0.0, 1.0), ba = std::clamp<double>(b[3], 0.0, 1.0);
  for (int c = 0; c < 3; ++c) {
    const double d = a[c] * aa - b[c] * ba;
    sum += d * d;
  }
  sum += (aa - ba) * (aa - ba);
}

}  // namespace

void blend_cells(const std::vector<float>& a, const std::vector<float>& b,
                 const std::vector<float>& motion_a, const std::vector<float>& motion_b, int w,
                 int h, double f, std::vector<float>& out) {
  out.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
      const double px = x + 0.5, py = y + 0.5;
      float s0[4], s1[4];
      sample_cell(a, w, h, px - f * motion_a[2 * i], py - f * motion_a[2 * i + 1], s0);
      sample_cell(b, w, h, px + (1 - f) * motion_b[2 * i], py + (1 - f) * motion_b[2 * i + 1], s1);
      for (int c = 0; c < 4; ++c)
        out[4 * i + static_cast<size_t>(c)] = static_cast<float>(s0[c] + (s1[c] - s0[c]) * f);
    }
}

namespace {

// At most this many candidates per pixel: the vector held, the exact
// vector, the exact vectors of the four pixels beside it, the halo's, the
// strongest particle's, the strongest halo's, none.
constexpr int kMaxCandidates = 10;
constexpr int kFitPasses = 4;

struct Candidates {
  int count = 0;
  float x[kMaxCandidates], y[kMaxCandidates];
  void add(float vx, float vy) {
    if (!std::isfinite(vx) || !std::isfinite(vy)) return;
    for (int k = 0; k < count; ++k)
      if (x[k] == vx && y[k] == vy) return;
    x[count] = vx;
    y[count] = vy;
    ++count;
  }
};

// Cells that blend one into the next: a chain from a cell no cell leads
// to, or a loop.
struct Chain {
  std::vector<int> cells;
  bool loop = false;
};

// Checks that the fit's inputs fit together; the chains and loops of cells.
std::vector<Chain> fit_chains(const BlendFit& fit, int w, int h,
                              const std::vector<MotionField>& fields) {
  const size_t n = fields.size();
  const size_t pixels = static_cast<size_t>(w) * static_cast<size_t>(h);
  if (fit.cells.size() != n || fit.next.size() != n || fit.truth.size() != n)
    throw Error("fit_motion_to_blend: cells, next, truth and fields differ in number");
  std::vector<int> prev(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const MotionField& f = fields[i];
    if (f.width != w || f.height != h || f.xy.size() != 2 * pixels ||
        fit.cells[i]->size() != 4 * pixels)
      throw Error("fit_motion_to_blend: a cell or field is not " + std::to_string(w) + "x" +
                  std::to_string(h));
    if (f.halo_xy.size() != 2 * pixels || f.top_xy.size() != 2 * pixels ||
        f.top_halo_xy.size() != 2 * pixels)
      throw Error(
          "fit_motion_to_blend: a field was drawn without its candidates "
          "(MotionOptions::candidates)");
    const int j = fit.next[i];
    if (j < 0) continue;
    if (static_cast<size_t>(j) >= n || prev[static_cast<size_t>(j)] >= 0)
      throw Error("fit_motion_to_blend: a cell follows two cells, or one not in the sheet");
    prev[static_cast<size_t>(j)] = static_cast<int>(i);
    if (fit.truth[i].size() != fit.fractions.size())
      throw Error("fit_motion_to_blend: a step lacks its in-betweens");
    for (const std::vector<float>* t : fit.truth[i])
      if (t->size() != 4 * pixels) throw Error("fit_motion_to_blend: an in-between's size differs");
  }
  std::vector<Chain> chains;
  std::vector<bool> seen(n, false);
  const auto walk = [&](size_t start, bool loop) {
    Chain c;
    c.loop = loop;
    for (int i = static_cast<int>(start); i >= 0 && !seen[static_cast<size_t>(i)];
         i = fit.next[static_cast<size_t>(i)]) {
      seen[static_cast<size_t>(i)] = true;
      c.cells.push_back(i);
    }
    if (c.cells.size() > 1) chains.push_back(std::move(c));
  };
  for (size_t i = 0; i < n; ++i)
    if (prev[i] < 0) walk(i, false);
  for (size_t i = 0; i < n; ++i)
    if (!seen[i]) walk(i, true);  // what is left lies on loops
  return chains;
}

// The candidates of cell `cell` at pixel (x, y): `held` is the vectors as
// the pass before left them, `exact` the exact ones.
void gather_candidates(const MotionField& f, const std::vector<float>& held,
                       const std::vector<float>& exact, int x, int y, Candidates& k) {
  const int w = f.width, h = f.height;
  const size_t p = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
  k.count = 0;
  k.add(held[2 * p], held[2 * p + 1]);
  k.add(exact[2 * p], exact[2 * p + 1]);
  static constexpr int kOx[4] = {-1, 1, 0, 0}, kOy[4] = {0, 0, -1, 1};
  for (int d = 0; d < 4; ++d) {
    const int nx = x + kOx[d], ny = y + kOy[d];
    if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
    const size_t q = static_cast<size_t>(ny) * static_cast<size_t>(w) + static_cast<size_t>(nx);
    k.add(held[2 * q], held[2 * q + 1]);
  }
  k.add(f.halo_xy[2 * p], f.halo_xy[2 * p + 1]);
  k.add(f.top_xy[2 * p], f.top_xy[2 * p + 1]);
  k.add(f.top_halo_xy[2 * p], f.top_halo_xy[2 * p + 1]);
  k.add(0.0f, 0.0f);
}

using StepCost = std::array<double, kMaxCandidates * kMaxCandidates>;  // [first's][second's]

// The error at pixel (x, y) of the blends of cell a into cell b, summed over
// the fit's fractions, for each pair of their candidates ka and kb.
void step_cost(const BlendFit& fit, int a, int b, const Candidates& ka, const Candidates& kb, int x,
               int y, int w, int h, StepCost& e) {
  const size_t p = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
  const double px = x + 0.5, py = y + 0.5;
  // With the first cell's vectors (SideFX) the second cell's choice plays
  // no part: B is displaced by A's candidate, the same in every column.
  const Candidates& shift_b = fit.first_cells_vectors ? ka : kb;
  std::fill(e.begin(), e.end(), 0.0);
  for (size_t q = 0; q < fit.fractions.size(); ++q) {
    const double f = fit.fractions[q];
    const float* truth = fit.truth[static_cast<size_t>(a)][q]->data() + 4 * p;
    float sa[kMaxCandidates][4], sb[kMaxCandidates][4];
    for (int k = 0; k < ka.count; ++k)
      sample_cell(*fit.cells[static_cast<size_t>(a)], w, h, px - f * ka.x[k], py - f * ka.y[k],
                  sa[k]);
    for (int k = 0; k < shift_b.count; ++k)
      sample_cell(*fit.cells[static_cast<size_t>(b)], w, h, px + (1 - f) * shift_b.x[k],
                  py + (1 - f) * shift_b.y[k], sb[k]);
    for (int i = 0; i < ka.count; ++i)
      for (int j = 0; j < kb.count; ++j) {
        const float* s1 = sb[fit.first_cells_vectors ? i : j];
        double out[4];
        for (int c = 0; c < 4; ++c) out[c] = sa[i][c] + (static_cast<double>(s1[c]) - sa[i][c]) * f;
        add_sq_error(e[static_cast<size_t>(i * kMaxCandidates + j)], out, truth);
      }
  }
}

// The choice per cell of a chain (indices into its candidates) with the
// least summed step cost, if less than `held` (every cell's first
// candidate); else all 0. A chain's first cell starts free; a loop is
// closed once for each choice of its first cell. Ties keep the earlier
// candidate.
struct Viterbi {
  std::vector<std::array<uint8_t, kMaxCandidates>> back;
  std::vector<int> chosen;

  void solve(const std::vector<Candidates>& cand, const std::vector<StepCost>& cost, bool loop,
             std::vector<int>& pick) {
    const size_t m = cand.size();
    double best = 0;
    for (const StepCost& c : cost) best += c[0];
    pick.assign(m, 0);
    back.resize(m);
    for (int s0 = 0; s0 < (loop ? cand[0].count : 1); ++s0) {
      std::array<double, kMaxCandidates> d;
      for (int k = 0; k < cand[0].count; ++k)
        d[static_cast<size_t>(k)] = !loop || k == s0 ? 0.0 : HUGE_VAL;
      for (size_t t = 0; t + 1 < m; ++t) {
        std::array<double, kMaxCandidates> nd;
        for (int j = 0; j < cand[t + 1].count; ++j) {
          double low = HUGE_VAL;
          uint8_t arg = 0;
          for (int i = 0; i < cand[t].count; ++i) {
            const double v =
                d[static_cast<size_t>(i)] + cost[t][static_cast<size_t>(i * kMaxCandidates + j)];
            if (v < low) low = v, arg = static_cast<uint8_t>(i);
          }
          nd[static_cast<size_t>(j)] = low;
          back[t + 1][static_cast<size_t>(j)] = arg;
        }
        d = nd;
      }
      int last = 0;
      double total = HUGE_VAL;
      for (int k = 0; k < cand[m - 1].count; ++k) {
        const double v = d[static_cast<size_t>(k)] +
                         (loop ? cost[m - 1][static_cast<size_t>(k * kMaxCandidates + s0)] : 0.0);
        if (v < total) total = v, last = k;
      }
      if (!(total < best)) continue;
      best = total;
      chosen.assign(m, 0);
      chosen[m - 1] = last;
      for (size_t t = m - 1; t > 0; --t) chosen[t - 1] = back[t][static_cast<size_t>(chosen[t])];
      pick = chosen;
    }
  }
};

}  // namespace

uint64_t fit_motion_to_blend(const BlendFit& fit, int w, int h, std::vector<MotionField>& fields) {
  const std::vector<Chain> chains = fit_chains(fit, w, h, fields);
  const size_t n = fields.size();
  // The exact vectors, and the vectors as the pass before left them: the
  // candidates beside a pixel are read from these while rows on other
  // threads write their choices, so any thread count chooses alike.
  std::vector<std::vector<float>> exact(n), held(n);
  for (size_t i = 0; i < n; ++i) exact[i] = fields[i].xy;
  ThreadPool pool(std::max(1, fit.threads));
  for (int pass = 0; pass < kFitPasses; ++pass) {
    for (size_t i = 0; i < n; ++i) held[i] = fields[i].xy;
    pool.run(h, [&](int y) {
      std::vector<Candidates> cand;
      std::vector<StepCost> cost;
      std::vector<int> pick;
      Viterbi viterbi;
      for (int x = 0; x < w; ++x) {
        const size_t p = static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
        for (const Chain& c : chains) {
          const size_t m = c.cells.size();
          cand.resize(m);
          bool choice = false;
          for (size_t t = 0; t < m; ++t) {
            const size_t i = static_cast<size_t>(c.cells[t]);
            gather_candidates(fields[i], held[i], exact[i], x, y, cand[t]);
            choice = choice || cand[t].count > 1;
          }
          if (!choice) continue;
          cost.resize(c.loop ? m : m - 1);
          for (size_t t = 0; t < cost.size(); ++t)
            step_cost(fit, c.cells[t], c.cells[(t + 1) % m], cand[t], cand[(t + 1) % m], x, y, w, h,
                      cost[t]);
          viterbi.solve(cand, cost, c.loop, pick);
          for (size_t t = 0; t < m; ++t) {
            if (pick[t] == 0) continue;  // as it was
            MotionField& f = fields[static_cast<size_t>(c.cells[t])];
            f.xy[2 * p] = cand[t].x[pick[t]];
            f.xy[2 * p + 1] = cand[t].y[pick[t]];
          }
        }
      }
    });
  }
  uint64_t changed = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t v = 0; v + 1 < exact[i].size(); v += 2)
      changed += fields[i].xy[v] != exact[i][v] || fields[i].xy[v + 1] != exact[i][v + 1];
  return changed;
}

double premultiplied_sq_error(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i + 3 < a.size() && i + 3 < b.size(); i += 4)
    add_sq_error(sum, a.data() + i, b.data() + i);
  return sum;
}

double psnr_db(double sq_error, double values) {
  if (!(values > 0)) return 0;
  const double mse = sq_error / values;
  return mse > 1e-10 ? -10 * math::log10(mse) : 100.0;
}

}  // namespace spritz
