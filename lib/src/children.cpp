// Sub-emitters (docs/model.md 9.3): the children of every parent whose event
// can have live children, each starting from its parent's closed-form state.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

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
  if (em.sub.on == SubEvent::kCollision) return static_cast<double>(em.sub.spacing);
  if (em.sub.on != SubEvent::kLife) return em.sub.count;
  return std::min(static_cast<double>(em.sub.spacing),
                  std::ceil(em.sub.rate_per_s * em.lifetime_s.max) + 1);
}

namespace {

// A parent's flight with its colliders (model.md 9.7), from its start.
Flight parent_flight(const Emitter& parent, uint32_t st, double birth, double life, Vec2& noise) {
  const Launch l = launch(parent, st, birth, birth, nullptr);
  noise = l.noise_origin;
  return Flight(parent.collision, l.start, l.v0, parent.acceleration, parent.drag_per_s, life);
}

// The parent's state where it is drawn at `age`: `m` plus its turbulence.
ParentState drawn(const Emitter& parent, uint32_t st, Vec2 noise, double age, bool at_death,
                  MotionState m) {
  if (parent.turbulence.enabled) add_turbulence(parent, st, noise, age, at_death, m);
  return {m.position, m.velocity};
}

bool finite_state(const ParentState& s) {
  return std::isfinite(s.position.x) && std::isfinite(s.position.y) &&
         std::isfinite(s.velocity.x) && std::isfinite(s.velocity.y);
}

}  // namespace

// A parent's lifetime: the built-in one, or the one its program's start()
// gives it (model.md 11.6), worked out from the key's representative birth
// so that every child of the parent agrees; negative when it never starts.
double parent_life(const Emitter& parent, uint64_t key, uint32_t st) {
  if (parent.program && parent.program->program &&
      parent.program->program->writes(ProgramVar::kLifetime))
    return program_lifetime(parent, key, representative_birth(parent, key), nullptr);
  return parent.lifetime_s.at(unit(st, Channel::kLifetime));
}

// A birth of the parent particle with key `key`: its only one in an effect
// that does not loop; in a looped one the first period's, since every
// period's particle with that key moves alike (the path repeats with the
// period). A colliding parent's flight is worked out from this birth, by
// its children and their trail ghosts alike, so they agree bit for bit.
double representative_birth(const Emitter& parent, uint64_t key) {
  if (key % 2 == 0) return stream_birth(parent, static_cast<int64_t>(key / 2));
  uint64_t b = (key - 1) / 2 / parent.max_particles;
  double shift = 0;  // a cycling loop's period m (model.md 4.5)
  if (parent.period_firings > 0 && b >= parent.period_firings) {
    shift = static_cast<double>(b / parent.period_firings) * parent.loop_period_s;
    b %= parent.period_firings;
  }
  for (const BurstGroup& g : parent.bursts)
    if (b >= g.first_index && b - g.first_index < g.repeat)
      return g.time_s + static_cast<double>(b - g.first_index) * g.interval_s + shift;
  return 0;
}

// When a colliding parent dies and its state then: at its life's end, or at
// the impact that killed it (its arriving velocity: the limit from below).
// False when it never lives (born inside a collider).
bool colliding_death(const Emitter& parent, uint32_t st, double birth, double life,
                     double& death_age, ParentState& out) {
  Vec2 noise;
  Flight f = parent_flight(parent, st, birth, life, noise);
  if (f.born_inside()) return false;
  while (const Impact* im = f.next_impact()) {
    if (parent.collision.response == CollisionResponse::kKill) {
      death_age = im->age_s;
      out = drawn(parent, st, noise, death_age, false, {im->position, im->velocity_in});
      return finite_state(out);
    }
    f.take();
  }
  death_age = life;
  const MotionState m = f.at(life);
  out = drawn(parent, st, noise, life, true, m);
  return finite_state(out);
}

// Impact `m` of a parent: where it is drawn then and its outgoing velocity
// (the bounce law's, for stop and kill too). False when it has fewer impacts.
bool parent_impact(const Emitter& parent, uint32_t st, double birth, double life, uint64_t m,
                   double& event_age, ParentState& out) {
  Vec2 noise;
  Flight f = parent_flight(parent, st, birth, life, noise);
  if (f.born_inside()) return false;
  for (uint64_t i = 0;; ++i) {
    const Impact* im = f.next_impact();
    if (!im) return false;
    if (i == m) {
      event_age = im->age_s;
      out = drawn(parent, st, noise, event_age, false, {im->position, im->velocity_out});
      return finite_state(out);
    }
    f.take();
  }
}

// What the parents of `parent` born within `lookback` before `clock` (and
// kept by `keep`) emitted with their steps run to `run_to`, from `from` on.
template <typename Keep>
std::vector<Emission> emitted_by(const Effect& fx, const Emitter& parent, double clock,
                                 double lookback, double run_to, double from, Keep keep) {
  std::vector<uint64_t> keys;
  std::vector<double> births;
  for_each_key(fx, parent, clock, lookback, [&](uint64_t key, double birth) {
    if (!keep(key)) return;
    keys.push_back(key);
    births.push_back(birth);
  });
  std::vector<Emission> out;
  program_emissions(parent, keys.data(), births.data(), keys.size(), run_to, from, out);
  return out;
}

// The children a Godot shader parent emitted (model.md 11.8): every parent
// born within its own and the child's longest lives before the clock runs
// its steps again, and each emission of a step that ends within the child's
// longest life before the clock is a child born at that step's end.
void evaluate_emitted(const Effect& fx, const Emitter& em, const Emitter& parent, double clock,
                      EmitterFrame& out, Particle& p) {
  const SubEmitter& sub = em.sub;
  const double child_life = em.lifetime_s.max;
  const uint64_t max_parent_key = (UINT64_MAX - (sub.spacing - 1)) / sub.spacing;
  const std::vector<Emission> emitted =
      emitted_by(fx, parent, clock, parent.lifetime_s.max + child_life, clock, clock - child_life,
                 [&](uint64_t key) { return key <= max_parent_key; });
  out.stats.window += emitted.size();
  for (const Emission& e : emitted) {
    if (e.number >= sub.spacing) continue;  // the limit is sub.count: not reached
    ++out.stats.visited;
    const uint64_t child_key = e.parent_key * sub.spacing + e.number;
    if (evaluate_particle(em, child_key, e.birth_s, clock, p, &e.state) && finite_particle(p))
      out.particles.push_back(p);
  }
}

// A sub-emitter's children alive at `clock`: for each parent key born within
// the parent's and the child's longest lives before it, the children of its
// death, its birth, its life (born every 1 / rate seconds of it) or its
// impacts, each starting at the parent's closed-form place and velocity then.
// long: one walk over the parents with each event kind's children inline.
void evaluate_children(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out,
                       Particle& p) {
  const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
  const SubEmitter& sub = em.sub;
  const double child_life = em.lifetime_s.max;
  if (!parent.enabled || !(child_life > 0)) return;
  if (sub.on == SubEvent::kProgram) return evaluate_emitted(fx, em, parent, clock, out, p);
  // Parent keys past this would wrap their children's keys (K spacing + j)
  // around 2^64, and key / spacing would no longer name the parent.
  const uint64_t max_parent_key = (UINT64_MAX - (sub.spacing - 1)) / sub.spacing;
  // Children j_lo..j_hi of the parent with key `key`, child j born at
  // event(j) and numbered `first + j`; `state` gives the parent's state at
  // an event (once, for an event all share).
  const auto children = [&](uint64_t key, uint64_t first, uint64_t j_lo, uint64_t j_hi, auto event,
                            bool shared, auto state) {
    out.stats.window += j_hi - j_lo + 1;
    ParentState src;
    bool finite = false;
    for (uint64_t j = j_lo; j <= j_hi; ++j) {
      const uint64_t child_key = key * sub.spacing + first + j;
      const double at = event(j);
      if (!shared || j == j_lo) finite = state(child_key, at, src);
      ++out.stats.visited;
      if (finite && evaluate_particle(em, child_key, at, clock, p, &src) && finite_particle(p))
        out.particles.push_back(p);
    }
  };
  const bool killing =
      parent.collision.enabled() && parent.collision.response == CollisionResponse::kKill;
  for_each_key(
      fx, parent, clock, parent.lifetime_s.max + child_life, [&](uint64_t key, double birth) {
        if (key > max_parent_key) return;
        const uint32_t st = particle_stream(parent.seed, static_cast<uint32_t>(key));
        const double life = parent_life(parent, key, st);
        if (life < 0) return;
        const auto derived = [&](uint64_t child_key, double at, ParentState& src) {
          return sub_parent_state(fx, em, child_key, at, src);
        };
        const auto once = [](const ParentState& known) {
          return [&known](uint64_t, double, ParentState& s) {
            s = known;
            return finite_state(s);
          };
        };
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
              key, 0, static_cast<uint64_t>(lo), static_cast<uint64_t>(hi),
              [&](uint64_t j) { return birth + static_cast<double>(j) / r; }, false, derived);
          return;
        }
        if (sub.count == 0) return;
        if (sub.on == SubEvent::kCollision) {
          // Impact m's children, numbered m count + j, at the impact.
          if (!(life > 0)) return;
          Vec2 noise;
          Flight f = parent_flight(parent, st, representative_birth(parent, key), life, noise);
          if (f.born_inside()) return;
          for (uint64_t m = 0; const Impact* im = f.next_impact(clock - birth); ++m) {
            const double event = birth + im->age_s;
            if (event > clock) break;
            if (clock < event + child_life) {
              const ParentState src =
                  drawn(parent, st, noise, im->age_s, false, {im->position, im->velocity_out});
              children(
                  key, m * sub.count, 0, sub.count - 1, [&](uint64_t) { return event; }, true,
                  once(src));
            }
            f.take();
            if (f.killed()) break;
          }
          return;
        }
        if (sub.on == SubEvent::kDeath && killing) {
          // A killing collider may end the parent's life early.
          ParentState death;
          double age = 0;
          if (!colliding_death(parent, st, representative_birth(parent, key), life, age, death))
            return;
          const double event = birth + age;
          if (clock >= event && clock < event + child_life)
            children(
                key, 0, 0, sub.count - 1, [&](uint64_t) { return event; }, true, once(death));
          return;
        }
        const double event = sub.on == SubEvent::kDeath ? birth + life : birth;
        if (!(clock >= event && clock < event + child_life)) return;
        children(
            key, 0, 0, sub.count - 1, [&](uint64_t) { return event; }, true, derived);
      });
}

}  // namespace detail

double sub_parent_span(const Emitter& parent, const Emitter& child) {
  const double lc = child.lifetime_s.max;
  switch (child.sub.on) {
    case SubEvent::kDeath:
      // A killing collider can end a parent's life at any age.
      if (parent.collision.enabled() && parent.collision.response == CollisionResponse::kKill)
        return lc + parent.lifetime_s.max;
      return lc + (parent.lifetime_s.max - parent.lifetime_s.min);
    case SubEvent::kBirth:
      return lc;
    case SubEvent::kLife:
    case SubEvent::kCollision:
    case SubEvent::kProgram:
      return lc + parent.lifetime_s.max;
  }
  return lc;
}

bool sub_parent_state(const Effect& fx, const Emitter& em, uint64_t key, double birth_s,
                      ParentState& out) {
  const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
  const uint64_t parent_key = key / em.sub.spacing, j = key % em.sub.spacing;
  const uint32_t st = particle_stream(parent.seed, static_cast<uint32_t>(parent_key));
  const double life = detail::parent_life(parent, parent_key, st);
  if (life < 0) return false;
  if (em.sub.on == SubEvent::kProgram) {
    // Each birth of the parent key within the parent's longest life before
    // the child's, its steps run again until one emitted this child then.
    // Run to half a step past the child's birth: the step that ends there
    // is whole whichever way the clock's quotient by the step rounds.
    const std::vector<detail::Emission> found = detail::emitted_by(
        fx, parent, birth_s, parent.lifetime_s.max, birth_s + 0.5 * parent.forces.step_s, birth_s,
        [&](uint64_t k) { return k == parent_key; });
    for (const detail::Emission& e : found)
      if (e.number == j && e.birth_s == birth_s) {
        out = e.state;
        return true;
      }
    return false;
  }
  const bool killing =
      parent.collision.enabled() && parent.collision.response == CollisionResponse::kKill;
  if (em.sub.on == SubEvent::kCollision || (em.sub.on == SubEvent::kDeath && killing)) {
    // The event's age is the parent's flight's: worked out from the
    // parent's representative birth, as evaluate_children does.
    const double pb = detail::representative_birth(parent, parent_key);
    double age = 0;
    if (em.sub.on == SubEvent::kDeath)
      return detail::colliding_death(parent, st, pb, life, age, out);
    return detail::parent_impact(parent, st, pb, life, j / std::max<uint32_t>(1, em.sub.count), age,
                                 out);
  }
  double parent_birth = birth_s;  // on = birth
  if (em.sub.on == SubEvent::kDeath)
    parent_birth = birth_s - life;
  else if (em.sub.on == SubEvent::kLife)
    parent_birth = birth_s - static_cast<double>(j) / em.sub.rate_per_s;
  if (parent.program && parent.program->program)
    return detail::program_parent_state(parent, parent_key, parent_birth, birth_s,
                                        em.sub.on == SubEvent::kDeath, out);
  const detail::ParticleMotion pm = detail::particle_motion(
      parent, st, parent_birth, birth_s, nullptr, /*at_death=*/em.sub.on == SubEvent::kDeath);
  out = {pm.m.position, pm.m.velocity};
  return pm.alive && detail::finite_state(out);
}

}  // namespace spritz
