#include "lint.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "format.h"
#include "spritz/path.h"
#include "spritz/rate.h"

namespace spritz {

void lint(Effect& fx) {
  if (!fx.emitters.empty() && std::none_of(fx.emitters.begin(), fx.emitters.end(),
                                           [](const Emitter& em) { return em.enabled; }))
    fx.warnings.push_back(
        Diagnostic{SourceLoc{fx.source_path, 0, 0},
                   "every emitter is disabled (enabled = false): nothing is drawn"});
  // A looped effect reads each path over one period: one that ends away from
  // where it starts jumps at the seam.
  if (fx.loop)
    for (const Emitter& em : fx.emitters) {
      if (em.path.empty() || !em.enabled) continue;
      Path open = em.path;
      open.set_period(0);
      const Vec2 a = open.at(0), b = open.at(fx.duration_s);
      if (a.x != b.x || a.y != b.y) {
        char where[160];
        std::snprintf(where, sizeof where,
                      " path is at (%g, %g) at clock 0 but at (%g, %g) when the period ends "
                      "(%g s): the loop jumps there",
                      a.x, a.y, b.x, b.y, fx.duration_s);
        fx.warnings.push_back({em.path_loc, "emitter '" + em.name + "'" + where});
      }
    }
  // A sub-emitter whose max_particles cannot hold one child per parent.
  for (const Emitter& em : fx.emitters) {
    if (!em.is_sub() || !em.enabled) continue;
    const bool life = em.sub.on == SubEvent::kLife;
    if (life ? (em.rate_per_s > 0 && !(em.sub.rate_per_s > 0))
             : (em.sub.count_asked > 0 && em.sub.count == 0))
      fx.warnings.push_back(
          {em.sub.loc, "emitter '" + em.name + "' never emits: its max_particles (" +
                           std::to_string(em.max_particles) + ") cannot hold a child for each " +
                           (em.sub.on == SubEvent::kCollision
                                ? std::string("of the ") +
                                      std::to_string(fx.emitters[static_cast<size_t>(em.sub.parent)]
                                                         .collision.max_impacts()) +
                                      " impacts each parent may have, for every parent that can "
                                      "have live children at once; raise max_particles or lower "
                                      "the parent's collision.max_bounces"
                                : std::string("parent that can have live children at once; "
                                              "raise max_particles"))});
  }
  // A looped effect reads each animated rate over one period too.
  if (fx.loop)
    for (const Emitter& em : fx.emitters) {
      const RateCurve& rc = em.rate_curve;
      if (rc.empty() || !em.enabled) continue;
      const std::string who = "emitter '" + em.name + "' rate";
      if (rc.key_t.back() > fx.duration_s)
        fx.warnings.push_back(
            {em.rate_loc, who + " has keyframes after the period's end (" +
                              fmt_number(fx.duration_s) + " s): a loop reads the rate over [0, " +
                              fmt_number(fx.duration_s) + ") only, so they are never used"});
      // The rate at clock 0 against the rate just before the period's end.
      const double a = rc.key_value(0, false), b = rc.key_value(fx.duration_s, true);
      // A step written at the period's end back to the first rate says the
      // jump is meant (a burst of births that starts each cycle).
      const size_t n = rc.key_t.size();
      const bool stated = n >= 2 && rc.key_t[n - 1] == fx.duration_s &&
                          rc.key_t[n - 2] == fx.duration_s && rc.key_r[n - 1] == a;
      if (a != b && !stated)
        fx.warnings.push_back({em.rate_loc, who + " is " + fmt_number(a) + "/s at clock 0 but " +
                                                fmt_number(b) + "/s when the period ends (" +
                                                fmt_number(fx.duration_s) +
                                                " s): emission jumps at the loop's seam"});
    }
}

}  // namespace spritz
