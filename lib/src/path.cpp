#include "spritz/path.h"

#include <algorithm>
#include <cmath>

#include "spritz/elementary.h"

namespace spritz {

namespace {

// Hermite basis on s in [0, 1] and its derivative.
struct Basis {
  double h00, h10, h01, h11;
};

Basis hermite(double s) {
  const double s2 = s * s, s3 = s2 * s;
  return {2 * s3 - 3 * s2 + 1, s3 - 2 * s2 + s, -2 * s3 + 3 * s2, s3 - s2};
}

Basis hermite_slope(double s) {
  const double s2 = s * s;
  return {6 * s2 - 6 * s, 3 * s2 - 4 * s + 1, -6 * s2 + 6 * s, 3 * s2 - 2 * s};
}

}  // namespace

void Path::set_period(double period) {
  period_ = period;
  closed_ = period > 0 && t.size() >= 3 && t.front() == 0 && t.back() == period &&
            p.front().x == p.back().x && p.front().y == p.back().y;
}

double Path::reduce(double clock) const {
  if (!(period_ > 0)) return clock;
  double r = math::fmod(clock, period_);
  if (r < 0) r += period_;
  if (r >= period_) r = 0;
  return r;
}

Vec2 Path::tangent(size_t k) const {
  const size_t n = t.size();
  const size_t last = n - 1;
  if (k == 0 || k == last) {
    if (closed_) return (p[1] - p[last - 1]) * (1.0 / ((t[1] - t[0]) + (t[last] - t[last - 1])));
    return k == 0 ? (p[1] - p[0]) * (1.0 / (t[1] - t[0]))
                  : (p[last] - p[last - 1]) * (1.0 / (t[last] - t[last - 1]));
  }
  return (p[k + 1] - p[k - 1]) * (1.0 / (t[k + 1] - t[k - 1]));
}

Vec2 Path::at(double clock) const {
  if (t.empty()) return {};
  const double c = reduce(clock);
  if (!(c > t.front())) return p.front();  // NaN holds too
  if (c >= t.back()) return p.back();
  const size_t k = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), c) - t.begin()) - 1;
  const double h = t[k + 1] - t[k];
  const double s = (c - t[k]) / h;
  if (!smooth) return p[k] + (p[k + 1] - p[k]) * s;
  const Basis b = hermite(s);
  return p[k] * b.h00 + tangent(k) * (h * b.h10) + p[k + 1] * b.h01 + tangent(k + 1) * (h * b.h11);
}

Vec2 Path::velocity(double clock) const {
  if (t.size() < 2) return {};
  const double c = reduce(clock);
  if (!(c >= t.front()) || c >= t.back()) return {};
  const size_t k = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), c) - t.begin()) - 1;
  const double h = t[k + 1] - t[k];
  if (!smooth) return (p[k + 1] - p[k]) * (1.0 / h);
  const Basis b = hermite_slope((c - t[k]) / h);
  return (p[k] * b.h00 + p[k + 1] * b.h01) * (1.0 / h) + tangent(k) * b.h10 +
         tangent(k + 1) * b.h11;
}

}  // namespace spritz
