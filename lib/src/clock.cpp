// Time (docs/model.md 3, 4.4, 9.5): requested times and frames to the effect
// clock, a looped effect's steady state, and motion blur's sample clocks.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "eval_detail.h"
#include "numeric.h"
#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz {
namespace {

// The longest a particle can live after the key that made it was born: a
// child of a sub-emitter lives up to its parent's life and then its own.
double max_lifetime(const Effect& fx) {
  double m = 0;
  for (const Emitter& em : fx.emitters) {
    if (!em.enabled) continue;
    const double parent =
        em.is_sub() ? fx.emitters[static_cast<size_t>(em.sub.parent)].lifetime_s.max : 0;
    m = std::max(m, parent + em.lifetime_s.max);
  }
  return m;
}

// Reduces x into [0, period).
double wrap(double x, double period) {
  double r = math::fmod(x, period);
  if (r < 0) r += period;
  if (r >= period) r = 0;  // fmod of a tiny negative can round up to period
  return r;
}

bool is_whole(double x) {
  return std::abs(x - std::round(x)) <= 1e-9 * std::max(1.0, std::abs(x));
}

}  // namespace

double loop_warmup(const Effect& fx) {
  const double period = fx.duration_s;
  return period * std::ceil(max_lifetime(fx) / period);
}

double clock_at_time(const Effect& fx, double t) {
  const double effect_time = fx.start_s + fx.time_scale * t;
  if (!fx.loop || !fx.seamless) return effect_time;  // a cycling loop runs on (model.md 4.5)
  return loop_warmup(fx) + wrap(effect_time, fx.duration_s);
}

void shutter_clocks(const Effect& fx, double clock, double fps, std::vector<double>& out) {
  const int n = std::max(1, fx.canvas.blur_samples);
  out.assign(static_cast<size_t>(n), clock);
  if (n == 1) return;
  const bool wraps = fx.loop && fx.seamless;
  const double warmup = wraps ? loop_warmup(fx) : 0;
  for (int k = 0; k < n; ++k) {
    const double frames = fx.canvas.shutter * (2.0 * k + 1 - n) / (2.0 * n);
    double c = clock + fx.time_scale * frames / fps;
    if (wraps && c < warmup) c += fx.duration_s;
    out[static_cast<size_t>(k)] = c;
  }
}

double clock_at_frame(const Effect& fx, int64_t frame, double fps) {
  if (fx.loop && fx.seamless) {
    // Period and offset in frames; when both are whole, reduce the index
    // exactly so the clock is bit-identical one period later.
    const double period_frames = fx.duration_s * fps / fx.time_scale;
    const double offset_frames = fx.start_s * fps / fx.time_scale;
    if (fx.time_scale != 0 && is_whole(period_frames) && is_whole(offset_frames) &&
        std::abs(period_frames) >= 1) {
      const int64_t pf = saturating_cast<int64_t>(std::round(std::abs(period_frames)));
      const int64_t g = frame + saturating_cast<int64_t>(std::round(offset_frames));
      const int64_t m = ((g % pf) + pf) % pf;
      const double effect_time = fx.time_scale * (static_cast<double>(m) / fps);
      return loop_warmup(fx) + wrap(effect_time, fx.duration_s);
    }
  }
  return clock_at_time(fx, static_cast<double>(frame) / fps);
}

}  // namespace spritz
