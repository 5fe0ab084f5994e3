// Trails (docs/model.md 9.4): each particle's ghosts, the particle itself at
// earlier clocks.
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

namespace spritz::detail {

// Puts each particle's trail ghosts just before it, oldest first: ghost k at
// u = k / count is the particle at clock - u length (not yet born: none),
// opacity times fade(u), size times scale(u).
void add_trails(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out) {
  const Trail& trail = em.trail;
  // The ghosts that show, oldest first; the same for every particle.
  struct Ghost {
    int k;
    double age_back, fade, scale;
  };
  Ghost ghosts[kMaxTrailCount];
  int n = 0;
  for (int k = std::min(trail.count, kMaxTrailCount); k >= 1; --k) {
    const double u = static_cast<double>(k) / trail.count;
    const double fade = std::clamp(trail.fade.evaluate(u, 0), 0.0, 1.0);
    const double scale = std::clamp(trail.scale.evaluate(u, 0), 0.0, 1.0);
    // A ribbon keeps the samples that draw nothing: its strip fades or
    // narrows toward them.
    if (trail.ribbon || (fade > 0 && scale > 0)) ghosts[n++] = {k, u * trail.length_s, fade, scale};
  }
  out.scratch.clear();
  Particle g;
  ParentState parent;
  for (const Particle& p : out.particles) {
    const bool child = em.is_sub();
    if (child && !sub_parent_state(fx, em, p.key, p.birth_s, parent)) continue;
    for (int i = 0; i < n; ++i) {
      if (!evaluate_particle(em, p.key, p.birth_s, clock - ghosts[i].age_back, g,
                             child ? &parent : nullptr) ||
          !finite_particle(g))
        continue;
      g.alpha *= ghosts[i].fade;
      g.w *= ghosts[i].scale;
      g.h *= ghosts[i].scale;
      g.trail = static_cast<int16_t>(ghosts[i].k);
      out.scratch.push_back(g);
    }
    out.scratch.push_back(p);
  }
  out.particles.swap(out.scratch);
}

}  // namespace spritz::detail
