// Sub-emitters (docs/model.md 9.3): the children of every parent whose event
// can have live children, each starting from its parent's closed-form state.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "eval_detail.h"
#include "particle_motion.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz {
namespace detail {

// At most how many children of one parent a sub-emitter has alive at once.
double children_per_parent(const Emitter& em) {
  if (em.sub.on != SubEvent::kLife) return em.sub.count;
  return std::min(static_cast<double>(em.sub.spacing),
                  std::ceil(em.sub.rate_per_s * em.lifetime_s.max) + 1);
}

// A sub-emitter's children alive at `clock`: for each parent key born within
// the parent's and the child's longest lives before it, the children of its
// death, its birth, or its life (born every 1 / rate seconds of it), each
// starting at the parent's closed-form place and velocity then.
void evaluate_children(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out,
                       Particle& p) {
  const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
  const SubEmitter& sub = em.sub;
  const double child_life = em.lifetime_s.max;
  if (!parent.enabled || !(child_life > 0)) return;
  // Parent keys past this would wrap their children's keys (K spacing + j)
  // around 2^64, and key / spacing would no longer name the parent.
  const uint64_t max_parent_key = (UINT64_MAX - (sub.spacing - 1)) / sub.spacing;
  // Children j_lo..j_hi of the parent with key `key`, child j born at
  // event(j); one event shared by all takes the parent's state once.
  const auto children = [&](uint64_t key, uint64_t j_lo, uint64_t j_hi, auto event, bool shared) {
    out.stats.window += j_hi - j_lo + 1;
    ParentState src;
    bool finite = false;
    for (uint64_t j = j_lo; j <= j_hi; ++j) {
      const uint64_t child_key = key * sub.spacing + j;
      const double at = event(j);
      if (!shared || j == j_lo) finite = sub_parent_state(fx, em, child_key, at, src);
      ++out.stats.visited;
      if (finite && evaluate_particle(em, child_key, at, clock, p, &src) && finite_particle(p))
        out.particles.push_back(p);
    }
  };
  for_each_key(fx, parent, clock, parent.lifetime_s.max + child_life,
               [&](uint64_t key, double birth) {
                 if (key > max_parent_key) return;
                 const uint32_t st = particle_stream(parent.seed, static_cast<uint32_t>(key));
                 const double life = parent.lifetime_s.at(unit(st, Channel::kLifetime));
                 if (sub.on == SubEvent::kLife) {
                   // Children j = 0, 1, ... at birth + j / rate while that is within the
                   // parent's life; those born within child_life before clock can live.
                   const double r = sub.rate_per_s;
                   if (!(r > 0) || !(life > 0)) return;
                   const double n = std::ceil(life * r);  // j < n: j / r < life
                   const double lo = std::max(0.0, std::ceil((clock - child_life - birth) * r));
                   const double hi = std::min(n - 1, std::floor((clock - birth) * r));
                   if (!(hi >= lo)) return;
                   children(
                       key, static_cast<uint64_t>(lo), static_cast<uint64_t>(hi),
                       [&](uint64_t j) { return birth + static_cast<double>(j) / r; }, false);
                   return;
                 }
                 const double event = sub.on == SubEvent::kDeath ? birth + life : birth;
                 if (sub.count == 0 || !(clock >= event && clock < event + child_life)) return;
                 children(
                     key, 0, sub.count - 1, [&](uint64_t) { return event; }, true);
               });
}

}  // namespace detail

double sub_parent_span(const Emitter& parent, const Emitter& child) {
  const double lc = child.lifetime_s.max;
  switch (child.sub.on) {
    case SubEvent::kDeath:
      return lc + (parent.lifetime_s.max - parent.lifetime_s.min);
    case SubEvent::kBirth:
      return lc;
    case SubEvent::kLife:
      return lc + parent.lifetime_s.max;
  }
  return lc;
}

bool sub_parent_state(const Effect& fx, const Emitter& em, uint64_t key, double birth_s,
                      ParentState& out) {
  const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
  const uint64_t parent_key = key / em.sub.spacing, j = key % em.sub.spacing;
  const uint32_t st = particle_stream(parent.seed, static_cast<uint32_t>(parent_key));
  double parent_birth = birth_s;  // on = birth
  if (em.sub.on == SubEvent::kDeath)
    parent_birth = birth_s - parent.lifetime_s.at(unit(st, Channel::kLifetime));
  else if (em.sub.on == SubEvent::kLife)
    parent_birth = birth_s - static_cast<double>(j) / em.sub.rate_per_s;
  const MotionState m = detail::particle_motion(parent, st, parent_birth, birth_s, nullptr,
                                                /*at_death=*/em.sub.on == SubEvent::kDeath);
  out = {m.position, m.velocity};
  return std::isfinite(out.position.x) && std::isfinite(out.position.y) &&
         std::isfinite(out.velocity.x) && std::isfinite(out.velocity.y);
}

}  // namespace spritz
