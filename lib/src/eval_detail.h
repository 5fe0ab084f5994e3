// What evaluation's parts share inside the library (docs/model.md 3-9): the
// key windows, a particle's motion, trails and sub-emitters' children. Not
// installed; the public entry points are in spritz/eval.h.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "numeric.h"
#include "spritz/angle.h"
#include "spritz/elementary.h"
#include "spritz/eval.h"
#include "spritz/motion.h"

namespace spritz::detail {

inline bool finite_particle(const Particle& p) {
  return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.vx) && std::isfinite(p.vy) &&
         std::isfinite(p.w) && std::isfinite(p.h) && std::isfinite(p.rotation_deg) &&
         std::isfinite(p.alpha);
}

// The keys of `em` that can be alive at `clock`, without evaluating them:
// on_stream(lo, hi) for the stream indices lo..hi, then on_firing(tb, b, count)
// for each burst firing at clock tb with burst index b. Shared by evaluation
// and by the particle count a frame may need (window_size), so the two agree.
//
// `lookback` (default: the longest lifetime) is how far before `clock` a key
// may have been born and still matter; a sub-emitter's parents look back over
// their life and their children's.
template <typename OnStream, typename OnFiring>
void for_each_window(const Effect& fx, const Emitter& em, double clock, OnStream on_stream,
                     OnFiring on_firing, double lookback = -1) {
  if (!(em.lifetime_s.max > 0)) return;
  const double life_max = lookback >= 0 ? lookback : em.lifetime_s.max;

  // Stream: ceil((c - L_max) r) <= i <= floor(c r), i >= 0; with an
  // animated rate, ceil(N(c - L_max)) <= i <= floor(N(c)).
  // Indices stay below 2^62, so they convert to int64 and their keys (2 i)
  // fit 64 bits even where rate x clock is absurd (1e15/s at 1e9 s).
  const auto stream = [&](double lo_d, double hi_d) {
    constexpr double kMaxIndex = 0x1p62;
    lo_d = std::min(std::max(0.0, lo_d), kMaxIndex);
    hi_d = std::min(hi_d, kMaxIndex);
    if (hi_d >= lo_d) on_stream(saturating_cast<int64_t>(lo_d), saturating_cast<int64_t>(hi_d));
  };
  const double r = em.stream_rate_per_s;
  if (!em.rate_curve.empty()) {
    if (r > 0)
      stream(std::ceil(em.rate_curve.count(clock - life_max)),
             std::floor(em.rate_curve.count(clock)));
  } else if (r > 0) {
    stream(std::ceil((clock - life_max) * r), std::floor(clock * r));
  }

  // Bursts: occurrence k of a group fires at T_b = time + k interval; it can
  // only have live particles while T_b <= c < T_b + L_max. A looped effect
  // repeats every burst every period T.
  const double period = fx.loop ? fx.duration_s : 0;
  const bool cycling = fx.loop && !fx.seamless;  // model.md 4.5
  for (const BurstGroup& g : em.bursts) {
    if (g.count == 0) continue;
    const double last = g.time_s + static_cast<double>(g.repeat - 1) * g.interval_s;
    int64_t m_lo = 0, m_hi = 0;
    if (period > 0) {
      m_lo = saturating_cast<int64_t>(std::floor((clock - life_max - last) / period));
      m_hi = saturating_cast<int64_t>(std::ceil((clock - g.time_s) / period));
      if (cycling) m_lo = std::max<int64_t>(m_lo, 0);  // it starts at clock 0
    }
    for (int64_t m = m_lo; m <= m_hi; ++m) {
      const double shift = static_cast<double>(m) * period;
      // Occurrences k with c - L_max < time + k interval + shift <= c.
      uint64_t k_lo = 0, k_hi = g.repeat - 1;
      if (g.interval_s > 0) {
        const double a = std::floor((clock - life_max - g.time_s - shift) / g.interval_s);
        const double b = std::floor((clock - g.time_s - shift) / g.interval_s);
        if (b < 0) continue;
        k_lo = a < 0 ? 0 : saturating_cast<uint64_t>(std::min(a, 1e18));
        k_hi = std::min<uint64_t>(k_hi, saturating_cast<uint64_t>(std::min(b, 1e18)));
      }
      for (uint64_t k = k_lo; k <= k_hi; ++k) {
        const double tb = g.time_s + static_cast<double>(k) * g.interval_s + shift;
        if (!(clock >= tb && clock < tb + life_max)) continue;
        const uint64_t b = g.first_index + k;
        on_firing(
            tb,
            cycling ? b + static_cast<uint64_t>(m) % em.period_index_wrap * em.period_firings : b,
            g.count);
      }
    }
  }
}

// The clock at which stream particle i of `em` is born (model.md 3; with an
// animated rate, where the integrated rate reaches i).
inline double stream_birth(const Emitter& em, int64_t i) {
  return em.rate_curve.empty() ? static_cast<double>(i) / em.stream_rate_per_s
                               : em.rate_curve.birth(static_cast<uint64_t>(i));
}

// The key of stream particle i (model.md 4.1, 4.4).
inline uint64_t stream_key(const Emitter& em, int64_t i) {
  const uint64_t idx = static_cast<uint64_t>(i);
  return 2 * (em.loop_keys ? idx % em.loop_keys : idx);
}

// Calls f(key, birth) for every key of `em` born within `lookback` seconds
// before `clock` (not after it).
template <typename F>
void for_each_key(const Effect& fx, const Emitter& em, double clock, double lookback, F f) {
  const uint64_t pcap = em.max_particles;
  for_each_window(
      fx, em, clock,
      [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i <= hi; ++i) f(stream_key(em, i), stream_birth(em, i));
      },
      [&](double tb, uint64_t b, uint32_t count) {
        for (uint32_t j = 0; j < count; ++j) f(2 * (b * pcap + j) + 1, tb);
      },
      lookback);
}

// particle_motion: particle_motion.h.

// Puts each particle's trail ghosts just before it, oldest first: ghost k at
// u = k / count is the particle at clock - u length (not yet born: none),
// opacity times fade(u), size times scale(u).
void add_trails(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out);

// A sub-emitter's children alive at `clock`: for each parent key born within
// the parent's and the child's longest lives before it, the children of its
// death, its birth, or its life (born every 1 / rate seconds of it), each
// starting at the parent's closed-form place and velocity then.
void evaluate_children(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out,
                       Particle& p);

// At most how many children of one parent a sub-emitter has alive at once.
double children_per_parent(const Emitter& em);

// A parent's lifetime: the built-in one, or what its program's start()
// gives it; negative when it never starts.
double parent_life(const Emitter& parent, uint64_t key, uint32_t st);

// A birth of the parent with key `key` from which its flight is worked out
// (its only birth, or in a looped effect the first period's).
double representative_birth(const Emitter& parent, uint64_t key);
// A colliding parent's death (model.md 9.7): its age then (its life, or the
// impact that killed it) and its state. False when it never lives.
bool colliding_death(const Emitter& parent, uint32_t st, double birth, double life,
                     double& death_age, ParentState& out);
// A parent's impact m: its age and the parent's state then, with the
// outgoing velocity. False when the parent has fewer impacts.
bool parent_impact(const Emitter& parent, uint32_t st, double birth, double life, uint64_t m,
                   double& event_age, ParentState& out);

// The built-in model's particle (evaluate_particle without the program);
// without `heading`, its rotation leaves out the turn along the velocity
// that orientation adds (a program's particle takes it from its own
// velocity after the program ran: add_heading). `at_death`: the particle at
// the end of its life (age = lifetime exactly, model.md 9.3's death state),
// where it is otherwise no longer alive.
// `life`, when not negative, stands for the particle's lifetime (one a
// program's start() gave it, model.md 11.1).
bool builtin_particle(const Emitter& em, uint64_t key, double birth_s, double clock, Particle& out,
                      const ParentState* parent, bool heading = true, bool at_death = false,
                      double life = -1);

// A program particle's built-in part at `clock` (model.md 11.1, step 4): the
// whole built-in particle, or where the program owns every property, only
// its key, birth, age, life and flipbook cell. False when it is not alive.
// Where start() sets LIFETIME, only a candidate (alive within the
// emitter's longest lifetime): run_program settles its life.
bool program_base(const Emitter& em, uint64_t key, double birth_s, double clock, Particle& out,
                  const ParentState* parent, bool at_death = false);

// The lifetime a program particle has: what its start() gives LIFETIME,
// clamped to [0, lifetime.max], or the built-in one where start() does not
// set it. Negative when the particle does not start (its start() left
// ACTIVE false, or the lifetime not a number).
double program_lifetime(const Emitter& em, uint64_t key, double birth_s, const ParentState* parent);

// A program parent's place and velocity at a sub-emitter's event (model.md
// 11.5): its program run to `clock` (to the end of its life, `at_death`).
// False when the program ended it earlier or left it not finite.
bool program_parent_state(const Emitter& parent, uint64_t key, double birth_s, double clock,
                          bool at_death, ParentState& out);

// A child a Godot shader emitted with emit_subparticle() (model.md 11.8):
// its parent, its number among the parent's emissions, its birth (the end
// of the step that emitted it) and the state it starts from.
struct Emission {
  uint64_t parent_key = 0;
  uint32_t number = 0;
  double birth_s = 0;
  ParentState state;
};

// The children that parents keys[i] of `parent`, born at births[i], emitted
// by `clock` and not before `from`, appended to `out` in the order the
// parents were given and, for each, emitted.
void program_emissions(const Emitter& parent, const uint64_t* keys, const double* births, size_t n,
                       double clock, double from, std::vector<Emission>& out);

// model.md 7.4: a rotation plus the turn to `heading` when the sprite is
// oriented along its velocity (and a quarter more across it).
inline double add_heading(const Emitter& em, double rot, Vec2 heading) {
  if (em.orientation == Orientation::kFacing) return rot;
  rot += math::atan2(heading.y, heading.x) * kRadToDeg;
  if (em.orientation == Orientation::kVelocityPerpendicular) rot += 90;
  return rot;
}

// Runs `em`'s program (model.md 11) on the n built-in particles ps[0..n)
// at `clock`, in place: the ones it keeps close up in order and their
// count is returned; `dropped` (when given) counts those it left not finite.
// `state`, when given, gets each kept particle's CUSTOM and USERDATA (28
// numbers a particle, in the kept order).
// `at_death`: the particles are at the end of their lives (age = lifetime).
size_t run_program(const Emitter& em, Particle* ps, size_t n, double clock,
                   const ParentState* parent, uint64_t* dropped, double* state = nullptr,
                   bool at_death = false);

}  // namespace spritz::detail
