#include "spritz/rate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "numeric.h"

namespace spritz {
double RateCurve::key_value(double clock, bool before) const {
  const size_t j =
      static_cast<size_t>((before ? std::lower_bound(key_t.begin(), key_t.end(), clock)
                                  : std::upper_bound(key_t.begin(), key_t.end(), clock)) -
                          key_t.begin());
  if (j == 0) return key_r.front();
  if (j == key_t.size()) return key_r.back();
  const double a = key_t[j - 1], b = key_t[j];
  return key_r[j - 1] + (key_r[j] - key_r[j - 1]) * ((clock - a) / (b - a));
}

uint64_t RateCurve::prepare(double cap, double period, double max_per_period) {
  t_.clear(), r_.clear(), n_.clear();
  period_ = period > 0 ? period : 0;
  per_period_ = 0;
  max_rate_ = 0;
  if (key_t.empty()) return 0;

  // Knots from clock 0 on (the stream starts there): the rate at 0, every
  // key after 0 (before the period's end when looped), and the rate just
  // before the period's end.
  std::vector<double> kt{0}, kr{key_value(0, false)};
  for (size_t k = 0; k < key_t.size(); ++k)
    if (key_t[k] > 0 && (period_ == 0 || key_t[k] < period_))
      kt.push_back(key_t[k]), kr.push_back(key_r[k]);
  if (period_ > 0) kt.push_back(period_), kr.push_back(key_value(period_, true));

  // Little's law, pointwise: r = min(r, cap), with a knot where a segment
  // crosses the cap so the cut stays piecewise linear.
  for (size_t k = 0; k < kt.size(); ++k) {
    if (k > 0 && kt[k] > kt[k - 1] && (kr[k - 1] - cap) * (kr[k] - cap) < 0) {
      const double at = kt[k - 1] + (kt[k] - kt[k - 1]) * ((cap - kr[k - 1]) / (kr[k] - kr[k - 1]));
      t_.push_back(std::clamp(at, kt[k - 1], kt[k]));
      r_.push_back(cap);
    }
    t_.push_back(kt[k]);
    r_.push_back(std::min(kr[k], cap));
  }

  n_.assign(t_.size(), 0.0);
  for (size_t k = 1; k < t_.size(); ++k)
    n_[k] = n_[k - 1] + (t_[k] - t_[k - 1]) * 0.5 * (r_[k - 1] + r_[k]);

  if (period_ > 0) {
    // A whole number of particles per period, so keys repeat every period.
    const double total = n_.back();
    const double whole = std::min(std::round(total), std::floor(max_per_period));
    if (!(total > 0) || !(whole >= 1)) {
      r_.assign(r_.size(), 0.0);
      n_.assign(n_.size(), 0.0);
      return 0;
    }
    const double scale = whole / total;
    for (double& r : r_) r *= scale;
    for (double& n : n_) n *= scale;
    n_.back() = std::max(whole, n_[n_.size() - 2]);
    per_period_ = whole;
  }
  max_rate_ = *std::max_element(r_.begin(), r_.end());
  return period_ > 0 ? saturating_cast<uint64_t>(per_period_) : 0;
}

double RateCurve::count_in_span(double clock) const {
  const size_t k =
      static_cast<size_t>(std::upper_bound(t_.begin(), t_.end(), clock) - t_.begin()) - 1;
  if (k + 1 == t_.size())
    return period_ > 0 ? n_.back() : n_.back() + r_.back() * (clock - t_.back());
  const double tau = clock - t_[k], span = t_[k + 1] - t_[k];
  const double slope = (r_[k + 1] - r_[k]) / span;
  return std::min(n_[k] + tau * (r_[k] + 0.5 * slope * tau), n_[k + 1]);
}

double RateCurve::count(double clock) const {
  if (!(clock > 0) || t_.empty()) return 0;
  if (period_ > 0) {
    if (per_period_ == 0) return 0;
    const double m = std::floor(clock / period_);
    const double rest = std::clamp(clock - m * period_, 0.0, period_);
    return m * per_period_ + count_in_span(rest);
  }
  return count_in_span(clock);
}

// The last clock at which N is still `target`: a particle is born as the
// count passes it, so one due at a pause in emission is born when emission
// resumes (never, if it does not).
double RateCurve::birth_in_span(double target) const {
  const size_t k =
      static_cast<size_t>(std::upper_bound(n_.begin(), n_.end(), target) - n_.begin()) - 1;
  const double d = target - n_[k];
  if (k + 1 == n_.size()) {  // past the last knot (not looped): the held rate
    return r_.back() > 0 ? t_.back() + d / r_.back() : std::numeric_limits<double>::infinity();
  }
  // r(tau) = r_k + s tau on the segment, so N = n_k + r_k tau + s tau^2 / 2;
  // the root of s/2 tau^2 + r_k tau - d = 0 in the form that does not cancel.
  const double span = t_[k + 1] - t_[k];
  const double slope = (r_[k + 1] - r_[k]) / span;
  const double den = r_[k] + std::sqrt(std::max(0.0, r_[k] * r_[k] + 2 * slope * d));
  const double tau = den > 0 ? 2 * d / den : 0;
  return t_[k] + std::clamp(tau, 0.0, span);
}

double RateCurve::birth(uint64_t i) const {
  if (period_ > 0) {
    const uint64_t n = saturating_cast<uint64_t>(per_period_);
    if (n == 0) return std::numeric_limits<double>::infinity();
    return static_cast<double>(i / n) * period_ + birth_in_span(static_cast<double>(i % n));
  }
  return birth_in_span(static_cast<double>(i));
}

}  // namespace spritz
