// An emitter's time-dependent parts: bursts, keyed rates, paths, trails,
// turbulence, and sub-emitters with their parents resolved by name.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "format.h"
#include "spritz/eval.h"
#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/noise.h"
#include "toml/keys.h"
#include "toml/spellings.h"
#include "toml/text.h"
#include "toml/translator.h"

namespace spritz::toml_load {

namespace fs = std::filesystem;

void Translator::read_bursts(const toml::node& n, Emitter& em, uint64_t max_count) {
  const toml::array* a = n.as_array();
  if (!a) {
    error(n, "bursts must be an array of tables [{ time = 0, count = 10 }, ...]");
    return;
  }
  if (a->size() > kMaxBurstTables) {
    error(n, "bursts has " + std::to_string(a->size()) + " entries, more than " +
                 std::to_string(kMaxBurstTables) +
                 "; a burst with repeat and interval fires many "
                 "times from one entry");
    return;
  }
  uint64_t next_index = 0;
  for (const toml::node& item : *a) {
    const toml::table* t = item.as_table();
    if (!t) {
      error(item, "each burst must be a table { time = 0, count = 10 }");
      continue;
    }
    check_keys(*t, kBurstKeys, "burst");
    BurstGroup b;
    bool ok = true;
    if (auto v = t->get("time")) {
      auto x = bounded(*v, "burst time", -1e9, 1e9, "seconds");
      ok = ok && x;
      if (x) b.time_s = *x;
    }
    if (auto v = t->get("count")) {
      // Counts beyond max_particles are clamped (model.md 4.3), not refused.
      auto x = integer(*v, "burst count", 0, std::numeric_limits<int64_t>::max(), {},
                       Bounds::kNonNegative);
      ok = ok && x;
      if (x) b.count = static_cast<uint32_t>(std::min<uint64_t>(*x, max_count));
    } else {
      error(item, "a burst needs a count");
      ok = false;
    }
    if (auto v = t->get("repeat")) {
      auto x = integer(*v, "burst repeat", 1, 1'000'000'000);
      ok = ok && x;
      if (x) b.repeat = static_cast<uint64_t>(*x);
    }
    if (auto v = t->get("interval")) {
      auto x = bounded(*v, "burst interval", 0, 1e9, "seconds");
      ok = ok && x;
      if (x) b.interval_s = *x;
    }
    if (ok && b.repeat > 1 && b.interval_s <= 0) {
      error(item, "a burst with repeat > 1 needs an interval > 0 (seconds between firings)");
      ok = false;
    }
    // A repeating burst is a rate in disguise: as for the stream, at most
    // max_particles of its particles may be alive at once. Firings that
    // overlap within one lifetime share that budget, so the count is clamped
    // to max_particles / overlap (and more overlapping firings than
    // max_particles is refused).
    if (ok && b.repeat > 1) {
      const double overlap_d =
          std::min(static_cast<double>(b.repeat), std::floor(em.lifetime_s.max / b.interval_s) + 1);
      if (overlap_d > static_cast<double>(max_count)) {
        error(item, "this burst fires " + fmt_number(overlap_d) +
                        " times within one lifetime, more than max_particles (" +
                        std::to_string(max_count) + "); raise its interval or lower its repeat");
        ok = false;
      } else {
        const uint64_t overlap = static_cast<uint64_t>(overlap_d);
        b.count = static_cast<uint32_t>(std::min<uint64_t>(b.count, max_count / overlap));
      }
    }
    b.first_index = next_index;
    next_index += b.repeat;
    if (ok) em.bursts.push_back(b);
  }
  check_burst_keys(n, next_index, max_count);
}

void Translator::check_burst_keys(const toml::node& n, uint64_t firings, uint64_t max_count) {
  // Burst keys are 2 (b max_particles + j) + 1 for firing b (model.md 4.3).
  constexpr double kMaxKeyedParticles = 0x1p61;
  if (static_cast<double>(firings) * static_cast<double>(max_count) > kMaxKeyedParticles)
    error(n, "these bursts fire " + std::to_string(firings) + " times in all, each with room for " +
                 std::to_string(max_count) +
                 " particles (max_particles): more than 2^61 particles to number; lower the "
                 "repeats or max_particles");
}

// The keyframes of a `what` key: 1 to max_keys arrays of `form`'s arity (form
// reads like "[t, x, y]"). Empty, after an error naming `must_be`, when not.
std::vector<const toml::array*> Translator::keyframes(const toml::node& n, std::string_view what,
                                                      std::string_view form, size_t arity,
                                                      size_t max_keys, std::string_view must_be) {
  std::vector<const toml::array*> out;
  const toml::array* keys = n.as_array();
  if (!keys || keys->empty() || !(*keys)[0].is_array()) {
    error(n, std::string(must_be));
    return out;
  }
  if (keys->size() > max_keys) {
    error(n, std::string(what) + " must have 1 to " + std::to_string(max_keys) +
                 " keyframes, got " + std::to_string(keys->size()));
    return out;
  }
  for (const toml::node& key : *keys) {
    const toml::array* kf = key.as_array();
    if (!kf || kf->size() != arity) {
      error(key, "a " + std::string(what) + " keyframe is " + std::string(form) + ", got " +
                     (kf ? std::to_string(kf->size()) + (kf->size() == 1 ? " value" : " values")
                         : type_name(key)));
      out.clear();
      return out;
    }
    out.push_back(kf);
  }
  return out;
}

void Translator::read_rate_keys(const toml::node& n, RateCurve& curve) {
  for (const toml::array* kf :
       keyframes(n, "rate", "[t, rate]", 2, kMaxRateKeys,
                 "rate must be a number or keyframes [[t, rate], ...] in effect-clock seconds and "
                 "particles/s")) {
    auto t = bounded((*kf)[0], "rate time", -1e9, 1e9, "s", Bounds::kPlusMinus);
    auto r = bounded((*kf)[1], "rate", 0, 1e15, "particles/s");
    if (!t || !r) return;
    const std::vector<double>& kt = curve.key_t;
    if (!kt.empty() && *t < kt.back()) {
      error((*kf)[0], "rate times must not decrease, got " + fmt_number(*t) + " after " +
                          fmt_number(kt.back()));
      return;
    }
    if (kt.size() >= 2 && *t == kt.back() && *t == kt[kt.size() - 2]) {
      error((*kf)[0],
            "at most two rate keyframes share a time (a step), got a third at " + fmt_number(*t));
      return;
    }
    curve.key_t.push_back(*t);
    curve.key_r.push_back(*r);
  }
}

void Translator::read_path(const toml::node& n, Path& path) {
  for (const toml::array* kf :
       keyframes(n, "path", "[t, x, y]", 3, kMaxPathKeys,
                 "path must be keyframes [[t, x, y], ...] in effect-clock seconds and design px")) {
    auto t = bounded((*kf)[0], "path time", -1e9, 1e9, "s", Bounds::kPlusMinus);
    auto x = bounded((*kf)[1], "path x", -1e9, 1e9, "px", Bounds::kPlusMinus);
    auto y = bounded((*kf)[2], "path y", -1e9, 1e9, "px", Bounds::kPlusMinus);
    if (!t || !x || !y) return;
    if (!path.t.empty() && !(*t > path.t.back())) {
      error((*kf)[0], "path times must be strictly increasing, got " + fmt_number(*t) + " after " +
                          fmt_number(path.t.back()));
      return;
    }
    path.t.push_back(*t);
    path.p.push_back({*x, *y});
  }
}

void Translator::read_trail(const toml::node& n, Trail& trail, const std::string& emitter) {
  const toml::table* t =
      inline_table(n, kTrailKeys, "trail", "trail must be a table { count = 8, length = 0.1 }");
  if (!t) return;
  // Present means on: 8 ghosts over 0.1 s, fading out, unless given.
  trail.count = 8;
  trail.fade = Curve::line(1, 0);
  if (auto c = t->get("count"))
    if (auto v = integer(*c, "trail.count", 0, kMaxTrailCount)) trail.count = static_cast<int>(*v);
  if (auto l = t->get("length"))
    if (auto v = bounded(*l, "trail.length", 0, 1e4, "seconds")) trail.length_s = *v;
  if (auto f = t->get("fade"))
    if (auto c = unit_curve(*f, "trail.fade")) trail.fade = *c;
  if (auto f = t->get("scale"))
    if (auto c = unit_curve(*f, "trail.scale")) trail.scale = *c;
  if (auto f = t->get("style"))
    if (auto i = choice(*f, "trail.style", {"ghosts", "ribbon"})) trail.ribbon = *i == 1;
  if (trail.count > 0 && trail.length_s == 0)
    warnings.push_back(
        {loc(*t->get("length")),
         "emitter '" + emitter + "' trail.length is 0: " +
             (trail.ribbon ? "the ribbon has no length, so each particle is drawn as a disc"
                           : "every ghost is drawn on its particle")});
  else if (trail.count > 0 && (trail.fade.max_value() <= 0 || trail.scale.max_value() <= 0))
    warnings.push_back({loc(n), "emitter '" + emitter + "' trail draws nothing: its " +
                                    std::string(trail.fade.max_value() <= 0 ? "fade" : "scale") +
                                    " is 0 along the whole trail"});
}

void Translator::read_turbulence(const toml::node& n, Turbulence& turb,
                                 const std::string& emitter) {
  const toml::table* t =
      inline_table(n, kTurbulenceKeys, "turbulence",
                   "turbulence must be a table { amplitude = 20, frequency = 0.02, speed = 1 }");
  if (!t) return;
  // Present means on, with the defaults of effect.h unless given.
  turb.enabled = true;
  if (auto a = t->get("amplitude")) {
    if (auto c = curve(*a, "turbulence.amplitude")) {
      // The keys' values; an envelope may reach below 0, where the
      // amplitude is 0 (as a size is).
      const double lo = *std::min_element(c->value.begin(), c->value.begin() + c->count);
      if (lo < 0 || c->max_value() > 1e6)
        error(*a, "turbulence.amplitude values must be within [0, 1e6] design px, got " +
                      fmt_number(lo < 0 ? lo : c->max_value()));
      else
        turb.amplitude = *c;
    }
  }
  if (auto f = t->get("frequency"))
    if (auto v = bounded(*f, "turbulence.frequency", 0, 1e3, "cells per design px"))
      turb.frequency = *v;
  if (auto f = t->get("speed"))
    if (auto v = bounded(*f, "turbulence.speed", 0, 1e6, "cells per second")) turb.speed = *v;
  if (auto f = t->get("phase"))
    if (auto v = bounded(*f, "turbulence.phase", 0, 1e6, "cells")) turb.phase = *v;
  if (turb.amplitude.max_value() <= 0)
    warnings.push_back({loc(t->get("amplitude") ? *t->get("amplitude") : n),
                        "emitter '" + emitter + "' turbulence moves nothing: its amplitude is 0"});
  else if (turb.frequency == 0 && turb.speed == 0 && turb.phase == 0)
    warnings.push_back(
        {loc(n), "emitter '" + emitter +
                     "' turbulence moves nothing: with frequency, speed and phase 0 the noise "
                     "is read at its lattice point (0, 0, 0), where it is 0"});
}

void Translator::read_sub(const toml::node& n, SubEmitter& sub) {
  const toml::table* t = inline_table(
      n, kSubKeys, "sub", "sub must be a table { parent = \"NAME\", on = \"death\", count = 10 }");
  if (!t) return;
  sub.loc = loc(n);
  if (auto p = t->get("parent")) {
    if (auto s = string(*p, "sub.parent")) {
      sub.parent_name = s->empty() ? std::string(" ") : *s;
      sub.loc = loc(*p);
    }
  } else {
    error(n, "sub needs a parent: the name of the emitter whose particles emit this one's");
    sub.parent_name = " ";  // still a sub-emitter, for the checks that follow
  }
  if (auto o = t->get("on"))
    if (auto i = choice(*o, "sub.on", words_of<SubEvent>())) sub.on = static_cast<SubEvent>(*i);
  if (auto c = t->get("count")) {
    if (sub.on == SubEvent::kLife)
      error(*c,
            "sub.count is for on = \"death\", \"birth\", \"collision\" or \"program\"; with on = "
            "\"life\" the "
            "emitter's rate "
            "sets the children per second of each parent's life");
    else if (auto v = integer(*c, "sub.count", 0, kMaxSubCount))
      sub.count = sub.count_asked = static_cast<uint32_t>(*v);
  }
}

// Keys that place or time an ordinary emitter's particles do not apply to a
// sub-emitter's, which start at their parent: an error, not a silent no-op.
void Translator::check_sub_keys(const toml::table& t, const Emitter& em) {
  for (std::string_view key : {"bursts", "path", "path_interpolation", "space"})
    if (const toml::node* n = t.get(key))
      error(*n, std::string(key) +
                    " does not apply to a sub-emitter: its particles start where their parent is");
  if (const toml::node* n = t.get("rate")) {
    if (em.sub.on != SubEvent::kLife)
      error(*n,
            "rate applies to a sub-emitter only with sub.on = \"life\" (children per second of "
            "each parent's life); on = \"" +
                std::string(em.sub.on == SubEvent::kDeath       ? "death"
                            : em.sub.on == SubEvent::kBirth     ? "birth"
                            : em.sub.on == SubEvent::kCollision ? "collision"
                                                                : "program") +
                "\" uses sub.count");
    else if (n->is_array())
      error(*n, "a sub-emitter's rate is a number: children per second of each parent's life");
  }
}

// Sub-emitters name their parent by name; once every emitter is read, find
// it. One level: a parent is an ordinary emitter.
void Translator::resolve_subs(Effect& fx) {
  for (Emitter& em : fx.emitters) {
    if (em.sub.parent_name.empty() || em.sub.parent_name == " ") continue;
    const std::string& name = em.sub.parent_name;
    const auto it = std::find_if(fx.emitters.begin(), fx.emitters.end(),
                                 [&](const Emitter& e) { return e.name == name; });
    if (it == fx.emitters.end()) {
      std::vector<std::string_view> names;
      for (const Emitter& e : fx.emitters) names.push_back(e.name);
      const std::string hint = closest_match(name, names);
      error_at(em.sub.loc, "sub.parent names no emitter: '" + name + "'" +
                               (hint.empty() ? std::string() : "; did you mean '" + hint + "'?"));
    } else if (&*it == &em) {
      error_at(em.sub.loc, "emitter '" + em.name + "' cannot be its own parent");
    } else if (!it->sub.parent_name.empty()) {
      error_at(em.sub.loc,
               "sub.parent '" + name + "' is itself a sub-emitter; sub-emitters have one level");
    } else {
      em.sub.parent = static_cast<int32_t>(it - fx.emitters.begin());
      if (em.sub.on == SubEvent::kCollision && !it->collision.enabled())
        error_at(em.sub.loc, "sub.on = \"collision\" needs colliders on the parent '" + name +
                                 "': its particles never hit anything");
      if (!it->enabled && em.enabled)
        warnings.push_back({em.sub.loc, "emitter '" + em.name + "' never emits: its parent '" +
                                            name + "' is disabled (enabled = false)"});
    }
  }
}

}  // namespace spritz::toml_load
