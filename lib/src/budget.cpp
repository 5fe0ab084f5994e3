// How many particles a frame can hold, without evaluating them: for sizing
// memory and refusing frames that would not fit (docs/model.md 4).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "eval_detail.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz {

using detail::children_per_parent;
using detail::for_each_window;

double keys_born_within(const Effect& fx, const Emitter& em, double span) {
  const double life = em.lifetime_s.max, cap = em.max_particles;
  if (!(life > 0)) return 0;
  // (c - span, c] holds at most ceil(r span) + 1 stream keys; with
  // r = P / L_max and span = L_max that is P + 1 at the instant one key is
  // born as another dies.
  double n = std::min(cap * (span / life) + 1, std::ceil(em.stream_rate_per_s * span) + 1);
  // A looped effect repeats its bursts every period: ceil(span / T) + 1
  // periods can hold them at once.
  const double periods = fx.loop && fx.duration_s > 0 ? std::ceil(span / fx.duration_s) + 1 : 1;
  for (const BurstGroup& b : em.bursts) {
    // Firings `interval` apart: at most ceil(span / interval) + 1 of them.
    const double overlap = b.interval_s > 0 ? std::ceil(span / b.interval_s) + 1 : 1;
    const double firings = std::min(static_cast<double>(b.repeat), overlap) * periods;
    n += b.count * firings;
  }
  return n;
}

uint64_t max_alive(const Effect& fx) {
  double total = 0;  // summed in double: 200,000 emitters of huge bursts overflow 64 bits
  for (const Emitter& em : fx.emitters) {
    if (!em.enabled) continue;
    double n = keys_born_within(fx, em, em.lifetime_s.max);
    if (em.is_sub() && em.lifetime_s.max > 0) {
      // The parents whose events can have live children at once.
      const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
      if (parent.enabled)
        n += keys_born_within(fx, parent, sub_parent_span(parent, em)) * children_per_parent(em);
    }
    total += n * (1.0 + em.trail.count);  // and each one's trail ghosts
  }
  return static_cast<uint64_t>(std::min(total, 1e18));
}

namespace {

// A sample's flight searches with colliders: up to max_impacts + 1 flights,
// each searching every collider (model.md 9.7).
double collision_weight(const Emitter& em) {
  if (!em.collision.enabled()) return 1;
  return 1.0 + static_cast<double>(em.collision.colliders.size()) *
                   (static_cast<double>(em.collision.max_impacts()) + 1);
}

// A program particle's evaluation (model.md 11.5): start() and pose() once,
// process() once a step from birth, at most lifetime.max / step + 1 steps;
// 64 instructions weigh as much as a built-in particle's evaluation.
double program_weight(const Emitter& em) {
  if (!em.program || !em.program->program) return 1;
  const Program& p = *em.program->program;
  double instructions = static_cast<double>(p.instructions(Stage::kStart)) +
                        static_cast<double>(p.instructions(Stage::kPose));
  if (p.has(Stage::kProcess))
    instructions += (std::ceil(em.lifetime_s.max / em.forces.step_s) + 1) *
                    static_cast<double>(p.instructions(Stage::kProcess));
  return 1.0 + instructions / 64;
}

// The keys of every enabled emitter that can be alive at `clock`, each with
// its trail ghosts and, with `collisions`, weighted by collision_weight (and
// a colliding parent whose children read its impacts, by its flights), and
// weighted by what their programs run (a program parent's children run it
// for their start).
uint64_t weighted_window(const Effect& fx, double clock, bool collisions,
                         uint64_t defer_above = std::numeric_limits<uint64_t>::max()) {
  double total = 0;  // in double, like max_alive: no 64-bit wrap-around
  const auto weight = [&](const Emitter& em) {
    return collisions ? collision_weight(em) + program_weight(em) - 1 : 1.0;
  };
  for (uint32_t e : fx.draw_order) {
    const Emitter& em = fx.emitters[e];
    const double each = (1.0 + em.trail.count) * weight(em);  // a particle and its trail
    const auto add = [](double& sum, double per) {
      return
          [&sum, per](int64_t lo, int64_t hi) { sum += (static_cast<double>(hi - lo) + 1) * per; };
    };
    const auto burst = [](double& sum, double per) {
      return [&sum, per](double, uint64_t, uint32_t count) { sum += count * per; };
    };
    // The emitter's own keys, left out where evaluate() defers them.
    double own = 0;
    detail::for_each_window(fx, em, clock, add(own, each), burst(own, each));
    if (!(own > static_cast<double>(defer_above) && deferrable(em, clock))) total += own;
    if (!em.is_sub() || !(em.lifetime_s.max > 0)) continue;
    const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
    if (!parent.enabled) continue;
    // The parent's own work once for its event, or once per child born
    // through its life; a Godot shader parent's once for all it emitted,
    // and once more for each child with a trail (its ghosts find it again).
    double parent_runs = em.sub.on == SubEvent::kLife ? detail::children_per_parent(em) : 1.0;
    if (em.sub.on == SubEvent::kProgram && em.trail.count > 0)
      parent_runs += detail::children_per_parent(em);
    const double per_parent =
        detail::children_per_parent(em) * each + (weight(parent) - 1) * parent_runs;
    detail::for_each_window(fx, parent, clock, add(total, per_parent), burst(total, per_parent),
                            parent.lifetime_s.max + em.lifetime_s.max);
  }
  return static_cast<uint64_t>(std::min(total, 1e18));
}

}  // namespace

uint64_t window_size(const Effect& fx, double clock) {
  return weighted_window(fx, clock, false);
}

uint64_t held_window_size(const Effect& fx, double clock, uint64_t defer_above) {
  return weighted_window(fx, clock, false, defer_above);
}

uint64_t frame_work(const Effect& fx, double clock) {
  return weighted_window(fx, clock, true);
}

}  // namespace spritz
