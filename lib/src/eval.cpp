#include "spritz/eval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"

namespace spritz {
namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;
constexpr double kRadToDeg = 180.0 / 3.14159265358979323846;

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
  double r = std::fmod(x, period);
  if (r < 0) r += period;
  if (r >= period) r = 0;  // fmod of a tiny negative can round up to period
  return r;
}

bool is_whole(double x) {
  return std::abs(x - std::round(x)) <= 1e-9 * std::max(1.0, std::abs(x));
}

}  // namespace

int flipbook_cell(const Flipbook& fb, uint32_t st, double age, double tau) {
  const int64_t n = fb.cells();
  const int64_t n0 =
      fb.random_start
          ? std::min<int64_t>(
                n, 1 + static_cast<int64_t>(std::floor(n * unit(st, Channel::kFlipbookStart))))
          : 1;
  const double f = fb.fps.at(unit(st, Channel::kFlipbookRate));
  const uint64_t w = static_cast<uint64_t>(std::max(0.0, std::floor(age * f)));
  switch (fb.mode) {
    case FlipbookMode::kOneshot: {
      const int64_t k = static_cast<int64_t>(std::floor(tau * static_cast<double>(n - n0 + 1)));
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
      return static_cast<int>(std::min<int64_t>(n, 1 + static_cast<int64_t>(std::floor(n * u))));
    }
  }
  return 1;
}

namespace {

bool finite_particle(const Particle& p) {
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
    if (hi_d >= lo_d) on_stream(static_cast<int64_t>(lo_d), static_cast<int64_t>(hi_d));
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
  for (const BurstGroup& g : em.bursts) {
    if (g.count == 0) continue;
    const double last = g.time_s + static_cast<double>(g.repeat - 1) * g.interval_s;
    int64_t m_lo = 0, m_hi = 0;
    if (period > 0) {
      m_lo = static_cast<int64_t>(std::floor((clock - life_max - last) / period));
      m_hi = static_cast<int64_t>(std::ceil((clock - g.time_s) / period));
    }
    for (int64_t m = m_lo; m <= m_hi; ++m) {
      const double shift = static_cast<double>(m) * period;
      // Occurrences k with c - L_max < time + k interval + shift <= c.
      uint64_t k_lo = 0, k_hi = g.repeat - 1;
      if (g.interval_s > 0) {
        const double a = std::floor((clock - life_max - g.time_s - shift) / g.interval_s);
        const double b = std::floor((clock - g.time_s - shift) / g.interval_s);
        if (b < 0) continue;
        k_lo = a < 0 ? 0 : static_cast<uint64_t>(std::min(a, 1e18));
        k_hi = std::min<uint64_t>(k_hi, static_cast<uint64_t>(std::min(b, 1e18)));
      }
      for (uint64_t k = k_lo; k <= k_hi; ++k) {
        const double tb = g.time_s + static_cast<double>(k) * g.interval_s + shift;
        if (!(clock >= tb && clock < tb + life_max)) continue;
        on_firing(tb, g.first_index + k, g.count);
      }
    }
  }
}

// The clock at which stream particle i of `em` is born (model.md 3; with an
// animated rate, where the integrated rate reaches i).
double stream_birth(const Emitter& em, int64_t i) {
  return em.rate_curve.empty() ? static_cast<double>(i) / em.stream_rate_per_s
                               : em.rate_curve.birth(static_cast<uint64_t>(i));
}

// The key of stream particle i (model.md 4.1, 4.4).
uint64_t stream_key(const Emitter& em, int64_t i) {
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

// model.md 5, 6 and 9: where the particle with stream `st` born at
// `birth_s` is at `clock`, and its velocity, for any age (a parent's place at
// its death too). A sub-emitter's child starts at its parent's place and adds
// inherit_velocity times its parent's velocity. Turbulence adds
// A(tau) noise(p0 f, age speed + phase unit(st, 16)), p0 being the start
// point in the frame the particle moves in (a local-space particle's, without
// the path), and its time derivative to the velocity.
//
// `at_death` asks for the state at the particle's death (a sub-emitter's
// parent, model.md 9.3): its velocity is the limit from below, whichever side
// of 1 age / life rounds to. The amplitude's slope there is the last
// segment's, and A = max(A_raw, 0) has the left derivative A_raw'(1) when
// A_raw(1) > 0, min(A_raw'(1), 0) when A_raw(1) = 0, and 0 below.
MotionState particle_motion(const Emitter& em, uint32_t st, double birth_s, double clock,
                            const ParentState* parent = nullptr, bool at_death = false) {
  const ShapeSample s = sample_shape(em.shape, em.direction, unit(st, Channel::kShapeU),
                                     unit(st, Channel::kShapeV), unit(st, Channel::kInOutCoin));
  const double spread = (2 * unit(st, Channel::kSpread) - 1) * em.spread_deg * kDegToRad;
  const Vec2 dir = em.spread_deg != 0 ? rotate(s.normal, spread) : s.normal;
  const double speed = em.speed_px_per_s.at(unit(st, Channel::kSpeed));
  Vec2 origin = em.position;
  Vec2 v0 = dir * speed;
  if (parent) {
    origin = origin + parent->position;
    if (em.inherit_velocity != 0) v0 = v0 + parent->velocity * em.inherit_velocity;
  } else if (!em.path.empty()) {
    origin = origin + em.path.at(em.space == Space::kLocal ? clock : birth_s);
    if (em.inherit_velocity != 0) v0 = v0 + em.path.velocity(birth_s) * em.inherit_velocity;
  }
  const Vec2 start = origin + s.offset;
  const double age = clock - birth_s;
  MotionState m = move_particle(start, v0, em.acceleration, em.drag_per_s, age);
  if (em.turbulence.enabled) {
    const Turbulence& tb = em.turbulence;
    const bool riding = !parent && !em.path.empty() && em.space == Space::kLocal;
    const Vec2 p0 = riding ? em.position + s.offset : start;
    const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
    const double tau = life > 0 ? age / life : 0;
    const double eps =
        tb.amplitude_has_envelope ? 2 * unit(st, Channel::kTurbulenceEnvelope) - 1 : 0.0;
    const double a_raw = tb.amplitude.evaluate(tau, eps);
    const double a = std::max(a_raw, 0.0);
    const double z =
        age * tb.speed + (tb.phase != 0 ? tb.phase * unit(st, Channel::kNoisePhase) : 0);
    const NoiseVector n = noise2(tb.fields, p0 * tb.frequency, z);
    double da = 0;
    if (life > 0 && at_death) {
      const double a1 = tb.amplitude.evaluate(1, eps), s1 = tb.amplitude.slope_from_below(1, eps);
      da = (a1 > 0 ? s1 : a1 == 0 ? std::min(s1, 0.0) : 0.0) / life;
    } else if (life > 0 && a_raw > 0) {
      da = tb.amplitude.slope(tau, eps) / life;
    }
    m.position = m.position + n.value * a;
    m.velocity = m.velocity + n.value * da + n.dz * (a * tb.speed);
  }
  return m;
}

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
      g.trail = ghosts[i].k;
      out.scratch.push_back(g);
    }
    out.scratch.push_back(p);
  }
  out.particles.swap(out.scratch);
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

void evaluate_emitter(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out) {
  out.particles.clear();
  out.stats = {};
  Particle p;
  const uint64_t pcap = em.max_particles;
  if (em.is_sub()) evaluate_children(fx, em, clock, out, p);
  for_each_window(
      fx, em, clock,
      [&](int64_t lo, int64_t hi) {
        out.stats.window += static_cast<uint64_t>(hi - lo + 1);
        for (int64_t i = lo; i <= hi; ++i) {
          ++out.stats.visited;
          if (evaluate_particle(em, stream_key(em, i), stream_birth(em, i), clock, p) &&
              finite_particle(p))
            out.particles.push_back(p);
        }
      },
      [&](double tb, uint64_t b, uint32_t count) {
        out.stats.window += count;
        for (uint32_t j = 0; j < count; ++j) {
          const uint64_t key = 2 * (b * pcap + j) + 1;
          ++out.stats.visited;
          if (evaluate_particle(em, key, tb, clock, p) && finite_particle(p))
            out.particles.push_back(p);
        }
      });

  // Oldest first (newest on top) unless newest_first; ties by key.
  const bool newest_first = em.draw_order == DrawOrder::kNewestFirst;
  std::sort(out.particles.begin(), out.particles.end(),
            [newest_first](const Particle& a, const Particle& b) {
              if (a.birth_s != b.birth_s)
                return newest_first ? a.birth_s > b.birth_s : a.birth_s < b.birth_s;
              return a.key < b.key;
            });
  out.stats.alive = out.particles.size();
  if (em.trail.count > 0) add_trails(fx, em, clock, out);
}

}  // namespace

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

namespace {

// At most how many children of one parent a sub-emitter has alive at once.
double children_per_parent(const Emitter& em) {
  if (em.sub.on != SubEvent::kLife) return em.sub.count;
  return std::min(static_cast<double>(em.sub.spacing),
                  std::ceil(em.sub.rate_per_s * em.lifetime_s.max) + 1);
}

}  // namespace

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

double loop_warmup(const Effect& fx) {
  const double period = fx.duration_s;
  return period * std::ceil(max_lifetime(fx) / period);
}

double clock_at_time(const Effect& fx, double t) {
  const double effect_time = fx.start_s + fx.time_scale * t;
  if (!fx.loop) return effect_time;
  return loop_warmup(fx) + wrap(effect_time, fx.duration_s);
}

void shutter_clocks(const Effect& fx, double clock, double fps, std::vector<double>& out) {
  const int n = std::max(1, fx.canvas.blur_samples);
  out.assign(static_cast<size_t>(n), clock);
  if (n == 1) return;
  const double warmup = fx.loop ? loop_warmup(fx) : 0;
  for (int k = 0; k < n; ++k) {
    const double frames = fx.canvas.shutter * (2.0 * k + 1 - n) / (2.0 * n);
    double c = clock + fx.time_scale * frames / fps;
    if (fx.loop && c < warmup) c += fx.duration_s;
    out[static_cast<size_t>(k)] = c;
  }
}

double clock_at_frame(const Effect& fx, int64_t frame, double fps) {
  if (fx.loop) {
    // Period and offset in frames; when both are whole, reduce the index
    // exactly so the clock is bit-identical one period later.
    const double period_frames = fx.duration_s * fps / fx.time_scale;
    const double offset_frames = fx.start_s * fps / fx.time_scale;
    if (fx.time_scale != 0 && is_whole(period_frames) && is_whole(offset_frames) &&
        std::abs(period_frames) >= 1) {
      const int64_t pf = static_cast<int64_t>(std::llround(std::abs(period_frames)));
      const int64_t g = frame + static_cast<int64_t>(std::llround(offset_frames));
      const int64_t m = ((g % pf) + pf) % pf;
      const double effect_time = fx.time_scale * (static_cast<double>(m) / fps);
      return loop_warmup(fx) + wrap(effect_time, fx.duration_s);
    }
  }
  return clock_at_time(fx, static_cast<double>(frame) / fps);
}

bool evaluate_particle(const Emitter& em, uint64_t key, double birth_s, double clock, Particle& out,
                       const ParentState* parent) {
  const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(key));
  // Lifetime first: most dead keys are rejected after one hash.
  const double life = em.lifetime_s.at(unit(st, Channel::kLifetime));
  const double age = clock - birth_s;
  if (!(age >= 0 && age < life)) return false;
  const double tau = age / life;

  const MotionState m = particle_motion(em, st, birth_s, clock, parent);

  // Size and squash: (w, h) = (s / l, s l) for q >= 0, (s l, s / l) for q < 0,
  // l = 1 + |q|, so w h = s^2.
  const double size_eps = 2 * unit(st, Channel::kSizeEnvelope) - 1;
  const double size = std::max(em.size_px.evaluate(tau, size_eps), 0.0);
  const double squash_eps = 2 * unit(st, Channel::kSquashEnvelope) - 1;
  const double q = em.squash.evaluate(tau, squash_eps);
  const double l = 1 + std::abs(q);
  const double w = q >= 0 ? size / l : size * l;
  const double h = q >= 0 ? size * l : size / l;

  double rot = em.rotation_deg.at(unit(st, Channel::kRotation)) +
               em.rotation_speed_deg_per_s.at(unit(st, Channel::kRotationSpeed)) * age;
  if (em.orientation != Orientation::kFacing) {
    rot += std::atan2(m.velocity.y, m.velocity.x) * kRadToDeg;
    if (em.orientation == Orientation::kVelocityPerpendicular) rot += 90;
  }

  const double transparency_eps = 2 * unit(st, Channel::kTransparencyEnvelope) - 1;
  const double color_eps = em.color_has_envelope ? 2 * unit(st, Channel::kColorEnvelope) - 1 : 0.0;

  out.key = key;
  out.birth_s = birth_s;
  out.age_s = age;
  out.life_s = life;
  out.x = m.position.x;
  out.y = m.position.y;
  out.vx = m.velocity.x;
  out.vy = m.velocity.y;
  out.w = w;
  out.h = h;
  out.rotation_deg = rot;
  out.color_srgb = em.color.evaluate(tau, color_eps);
  out.alpha = 1 - std::clamp(em.transparency.evaluate(tau, transparency_eps), 0.0, 1.0);
  out.cell = em.flipbook.enabled ? flipbook_cell(em.flipbook, st, age, tau) : 0;
  return true;
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
  const MotionState m = particle_motion(parent, st, parent_birth, birth_s, nullptr,
                                        /*at_death=*/em.sub.on == SubEvent::kDeath);
  out = {m.position, m.velocity};
  return std::isfinite(out.position.x) && std::isfinite(out.position.y) &&
         std::isfinite(out.velocity.x) && std::isfinite(out.velocity.y);
}

uint64_t window_size(const Effect& fx, double clock) {
  double total = 0;  // in double, like max_alive: no 64-bit wrap-around
  for (uint32_t e : fx.draw_order) {
    const double ghosts = 1.0 + fx.emitters[e].trail.count;  // a particle and its trail
    for_each_window(
        fx, fx.emitters[e], clock,
        [&](int64_t lo, int64_t hi) { total += (static_cast<double>(hi - lo) + 1) * ghosts; },
        [&](double, uint64_t, uint32_t count) { total += count * ghosts; });
    const Emitter& em = fx.emitters[e];
    if (em.is_sub() && em.lifetime_s.max > 0) {
      const Emitter& parent = fx.emitters[static_cast<size_t>(em.sub.parent)];
      if (!parent.enabled) continue;
      const double each = children_per_parent(em) * ghosts;
      for_each_window(
          fx, parent, clock,
          [&](int64_t lo, int64_t hi) { total += (static_cast<double>(hi - lo) + 1) * each; },
          [&](double, uint64_t, uint32_t count) { total += count * each; },
          parent.lifetime_s.max + em.lifetime_s.max);
    }
  }
  return static_cast<uint64_t>(std::min(total, 1e18));
}

void evaluate(const Effect& fx, double clock, Frame& out) {
  if (out.particle_limit != std::numeric_limits<uint64_t>::max()) {
    const uint64_t need = window_size(fx, clock);
    if (need > out.particle_limit) {
      char buf[320];
      std::snprintf(
          buf, sizeof buf,
          "at clock %.6g s the effect can hold %llu particles, more than the %llu that this "
          "machine's memory allows while a frame is drawn; lower the rates, max_particles "
          "or burst counts",
          clock, static_cast<unsigned long long>(need),
          static_cast<unsigned long long>(out.particle_limit));
      throw Error(buf);
    }
  }
  out.clock = clock;
  out.emitters.resize(fx.draw_order.size());
  for (size_t k = 0; k < fx.draw_order.size(); ++k) {
    EmitterFrame& ef = out.emitters[k];
    ef.emitter = fx.draw_order[k];
    evaluate_emitter(fx, fx.emitters[ef.emitter], clock, ef);
  }
}

void Bounds::add(double xa, double ya, double xb, double yb) {
  if (empty) {
    x0 = xa, y0 = ya, x1 = xb, y1 = yb;
    empty = false;
    return;
  }
  x0 = std::min(x0, xa), y0 = std::min(y0, ya), x1 = std::max(x1, xb), y1 = std::max(y1, yb);
}

void extend_bounds(const Frame& frame, Bounds& b) {
  for (const EmitterFrame& ef : frame.emitters)
    for (const Particle& p : ef.particles) {
      if (!(p.alpha > 0) || !(p.w > 0) || !(p.h > 0)) continue;
      const double t = p.rotation_deg * kDegToRad;
      const double c = std::abs(std::cos(t)), s = std::abs(std::sin(t));
      const double ex = 0.5 * (c * p.w + s * p.h), ey = 0.5 * (s * p.w + c * p.h);
      b.add(p.x - ex, p.y - ey, p.x + ex, p.y + ey);
    }
}

Frame evaluate(const Effect& fx, double clock) {
  Frame f;
  evaluate(fx, clock, f);
  return f;
}

}  // namespace spritz
