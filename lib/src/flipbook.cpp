// Flipbook cells (docs/model.md 7.5).
#include <algorithm>
#include <cmath>

#include "numeric.h"
#include "spritz/eval.h"
#include "spritz/hash.h"

namespace spritz {

int flipbook_cell(const Flipbook& fb, uint32_t st, double age, double tau) {
  const int64_t n = fb.cells();
  const int64_t n0 =
      fb.random_start ? std::min<int64_t>(
                            n, 1 + saturating_cast<int64_t>(std::floor(
                                       static_cast<double>(n) * unit(st, Channel::kFlipbookStart))))
                      : 1;
  const double f = fb.fps.at(unit(st, Channel::kFlipbookRate));
  // cycles (per_life): f plays of the N cells per life, window floor(tau f N).
  const double steps = fb.per_life ? tau * f * static_cast<double>(n) : age * f;
  const uint64_t w = saturating_cast<uint64_t>(std::max(0.0, std::floor(steps)));
  switch (fb.mode) {
    case FlipbookMode::kOneshot: {
      const int64_t k = saturating_cast<int64_t>(std::floor(tau * static_cast<double>(n - n0 + 1)));
      return static_cast<int>(std::clamp<int64_t>(n0 + k, 1, n));
    }
    case FlipbookMode::kLoop:
      return static_cast<int>(1 + (static_cast<uint64_t>(n0 - 1) + w) % static_cast<uint64_t>(n));
    case FlipbookMode::kPingpong: {
      if (n <= 1) return 1;
      const uint64_t period = static_cast<uint64_t>(2 * n - 2);
      const int64_t m = static_cast<int64_t>((static_cast<uint64_t>(n0 - 1) + w) % period);
      return static_cast<int>(1 + std::min<int64_t>(m, 2 * n - 2 - m));
    }
    case FlipbookMode::kRandom: {
      const double u = unit_raw(st, flipbook_window_channel(w));
      return static_cast<int>(std::min<int64_t>(
          n, 1 + saturating_cast<int64_t>(std::floor(static_cast<double>(n) * u))));
    }
  }
  return 1;
}

}  // namespace spritz
