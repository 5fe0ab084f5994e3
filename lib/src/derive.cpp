#include "derive.h"

#include <algorithm>
#include <cmath>

#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/noise.h"

namespace spritz {

namespace {

// Sub-emitters, once every parent's rate is known. max_particles caps the
// children alive at once, as Little's law caps a stream: with `parents` the
// most parents whose events can have live children at once, count is
// clamped to P / parents, and a life's rate to what keeps parents x
// (rate x life + 1) within P.
void derive_sub_emitters(Effect& fx) {
  for (Emitter& em : fx.emitters) em.emit_limit = 0, em.emit_total = 0, em.emit_window_s = 0;
  for (Emitter& em : fx.emitters) {
    if (em.sub.parent < 0) continue;
    SubEmitter& sub = em.sub;
    const Emitter& parent = fx.emitters[static_cast<size_t>(sub.parent)];
    const double life_max = em.lifetime_s.max, cap = em.max_particles;
    const double parents = std::max(1.0, keys_born_within(fx, parent, sub_parent_span(parent, em)));
    if (sub.on == SubEvent::kLife) {
      const double fit = life_max > 0 ? std::max(0.0, (cap / parents - 1) / life_max) : 0.0;
      sub.rate_per_s = std::min(em.rate_per_s, fit);
      const double n = std::ceil(sub.rate_per_s * parent.lifetime_s.max);
      sub.spacing = static_cast<uint64_t>(std::clamp(n, 1.0, 0x1p62));
    } else if (sub.on == SubEvent::kCollision) {
      // Each parent has at most max_impacts() impacts with count children each.
      const double impacts = parent.collision.max_impacts();
      sub.count =
          static_cast<uint32_t>(std::min<double>(sub.count, std::floor(cap / (parents * impacts))));
      sub.spacing =
          std::max<uint64_t>(1, static_cast<uint64_t>(sub.count) *
                                    std::max<uint32_t>(1, parent.collision.max_impacts()));
    } else if (sub.on == SubEvent::kProgram) {
      // A Godot shader parent has at most `count` children alive at once,
      // so at most count (ceil(L_parent / L_child) + 1) in its life
      // (model.md 11.8); none when its sub-emitter is turned off.
      sub.count = static_cast<uint32_t>(
          std::min<double>({static_cast<double>(sub.count), std::floor(cap / parents),
                            static_cast<double>(kMaxEmittedAlive)}));
      const double lives = life_max > 0 ? std::ceil(parent.lifetime_s.max / life_max) + 1 : 1;
      sub.spacing = static_cast<uint64_t>(std::clamp(sub.count * lives, 1.0, 0x1p40));
      Emitter& p = fx.emitters[static_cast<size_t>(sub.parent)];
      if (em.enabled) {
        p.emit_limit = sub.count;
        p.emit_window_s = life_max;
        p.emit_total = sub.count > 0 ? sub.spacing : 0;
      }
    } else {
      sub.count = static_cast<uint32_t>(std::min<double>(sub.count, std::floor(cap / parents)));
      sub.spacing = std::max<uint64_t>(1, sub.count);
    }
  }
}

// A cycling loop (model.md 4.5): the emission repeats every period as for a
// seamless one, but no key is reused: stream particle i keeps key 2 i, and
// firing b of period m takes burst index b + m F (F the firings of a
// period), m counted modulo the periods that keep every key below 2^62.
void cycle_keys(Emitter& em, double period) {
  em.loop_keys = 0;
  em.loop_period_s = period;
  uint64_t firings = 0;
  for (const BurstGroup& g : em.bursts) firings += g.repeat;
  em.period_firings = firings;
  const double per_period = static_cast<double>(firings) * std::max(1.0, double(em.max_particles));
  em.period_index_wrap =
      firings > 0 ? static_cast<uint64_t>(std::max(1.0, std::floor(0x1p60 / per_period))) : 1;
}

}  // namespace

void derive(Effect& fx) {
  for (Emitter& em : fx.emitters) {
    em.seed = emitter_seed(fx.seed, em.index);
    em.turbulence.fields = turbulence_fields(em.seed);
    em.turbulence.amplitude_has_envelope = em.turbulence.amplitude.has_envelope();
    em.direction = direction_from_degrees(em.direction_deg);
    em.color_has_envelope = em.color.has_envelope();
    em.blend_srgb = fx.canvas.blend == BlendSpace::kSrgb;
    const double life_max = em.lifetime_s.max;
    // Little's law: a steady stream holds about r * mean(life) <= r * L_max.
    double rate = life_max > 0 ? std::min(em.rate_per_s, em.max_particles / life_max) : 0.0;
    if (fx.loop && rate > 0) {
      // Round so that N = r T is whole: keys repeat every period.
      const double cap = em.max_particles * fx.duration_s / life_max;
      double n = std::round(rate * fx.duration_s);
      if (n > cap) n = std::floor(cap);
      em.loop_keys = static_cast<uint64_t>(n);
      rate = n / fx.duration_s;
    }
    em.stream_rate_per_s = rate;
    if (!em.rate_curve.empty()) {
      // An animated rate: the same clamp pointwise, the same whole count per
      // period; the window's bound is its largest rate.
      const double period = fx.loop ? fx.duration_s : 0;
      em.loop_keys = life_max > 0
                         ? em.rate_curve.prepare(em.max_particles / life_max, period,
                                                 em.max_particles * fx.duration_s / life_max)
                         : em.rate_curve.prepare(0, period, 0);
      em.stream_rate_per_s = em.rate_curve.max_rate();
    }
    em.path.set_period(fx.loop ? fx.duration_s : 0);
    if (fx.loop && !fx.seamless) cycle_keys(em, fx.duration_s);
    if (em.sub.parent >= 0) em.stream_rate_per_s = 0, em.loop_keys = 0;  // no stream of its own
  }
  derive_sub_emitters(fx);
  fx.draw_order.clear();
  for (const Emitter& em : fx.emitters)
    if (em.enabled) fx.draw_order.push_back(em.index);
  std::stable_sort(fx.draw_order.begin(), fx.draw_order.end(), [&](uint32_t a, uint32_t b) {
    return fx.emitters[a].z_offset < fx.emitters[b].z_offset;
  });
}

}  // namespace spritz
