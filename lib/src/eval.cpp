// Evaluation (docs/model.md 1, 3, 4, 7, 8): every enabled emitter's
// particles alive at a clock, in draw order, and one particle's state.
#include "spritz/eval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "eval_detail.h"
#include "particle_motion.h"
#include "spritz/angle.h"
#include "spritz/elementary.h"
#include "spritz/error.h"
#include "spritz/hash.h"
#include "spritz/motion.h"
#include "spritz/noise.h"
#include "spritz/shape.h"
#include "spritz/system/memory.h"

namespace spritz {
namespace {

using detail::add_trails;
using detail::evaluate_children;
using detail::finite_particle;
using detail::for_each_window;
using detail::particle_motion;
using detail::stream_birth;
using detail::stream_key;

// A piece of an emitter's window: stream indices [lo, hi], or burst firing
// b's particles [j0, j1).
struct Piece {
  bool burst = false;
  int64_t lo = 0, hi = -1;
  double tb = 0;
  uint64_t b = 0;
  uint32_t j0 = 0, j1 = 0;
};

// Keys per piece: a window larger than this is evaluated in pieces, on
// several threads when evaluate() is given them.
constexpr int64_t kPieceKeys = 4096;

// A program emitter's piece: its built-in particles in batches of 64,
// each batch run through the program (model.md 11), kept ones in order.
template <typename Emit>
void evaluate_program_piece(const Emitter& em, const Piece& w, double clock, uint64_t& visited,
                            uint64_t& dropped, Emit emit) {
  Particle batch[64];
  size_t n = 0;
  const auto flush = [&]() {
    const size_t kept = detail::run_program(em, batch, n, clock, nullptr, &dropped);
    for (size_t i = 0; i < kept; ++i) emit(batch[i]);
    n = 0;
  };
  const auto one = [&](uint64_t key, double birth) {
    ++visited;
    if (detail::program_base(em, key, birth, clock, batch[n], nullptr) &&
        finite_particle(batch[n]) && ++n == 64)
      flush();
  };
  if (!w.burst) {
    for (int64_t i = w.lo; i <= w.hi; ++i) one(stream_key(em, i), stream_birth(em, i));
  } else {
    for (uint32_t j = w.j0; j < w.j1; ++j) one(2 * (w.b * em.max_particles + j) + 1, w.tb);
  }
  if (n > 0) flush();
}

// Evaluates the piece's keys in order and hands emit(p) each particle alive.
template <typename Emit>
void evaluate_piece(const Emitter& em, const Piece& w, double clock, uint64_t& visited,
                    uint64_t& dropped, Emit emit) {
  if (em.program) return evaluate_program_piece(em, w, clock, visited, dropped, emit);
  Particle p;
  if (!w.burst) {
    for (int64_t i = w.lo; i <= w.hi; ++i) {
      ++visited;
      if (evaluate_particle(em, stream_key(em, i), stream_birth(em, i), clock, p) &&
          finite_particle(p))
        emit(p);
    }
    return;
  }
  const uint64_t pcap = em.max_particles;
  for (uint32_t j = w.j0; j < w.j1; ++j) {
    ++visited;
    if (evaluate_particle(em, 2 * (w.b * pcap + j) + 1, w.tb, clock, p) && finite_particle(p))
      emit(p);
  }
}

// An emitter's window cut into pieces, and where each piece's particles
// go when the pieces are evaluated on several threads: piece i writes its
// particles from start[i], room for all its keys, and they are closed up
// in piece order after.
struct EmitterWork {
  const Emitter* em = nullptr;
  EmitterFrame* out = nullptr;
  std::vector<Piece> pieces;
  std::vector<size_t> start, alive;
  std::vector<uint64_t> visited, dropped;
};

size_t piece_keys(const Piece& w) {
  return w.burst ? static_cast<size_t>(w.j1 - w.j0) : static_cast<size_t>(w.hi - w.lo + 1);
}

// Clears the emitter's frame, evaluates its children (a sub-emitter's
// particles, which come first) and cuts its window into pieces.
void plan_emitter(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out,
                  EmitterWork& work) {
  work.em = &em;
  work.out = &out;
  out.particles.clear();
  out.deferred.clear();
  out.stats = {};
  Particle p;
  if (em.is_sub()) evaluate_children(fx, em, clock, out, p);
  // Every particle is a pure function of its key, and the particles are
  // sorted in finish_emitter by (birth, key), a total order, so the pieces
  // may be evaluated in any order, on any thread: the same frame.
  for_each_window(
      fx, em, clock,
      [&](int64_t lo, int64_t hi) {
        out.stats.window += static_cast<uint64_t>(hi - lo + 1);
        for (int64_t a = lo; a <= hi; a += kPieceKeys) {
          Piece w;
          w.lo = a;
          w.hi = std::min(hi, a + kPieceKeys - 1);
          work.pieces.push_back(w);
        }
      },
      [&](double tb, uint64_t b, uint32_t count) {
        out.stats.window += count;
        for (uint32_t a = 0; a < count; a += static_cast<uint32_t>(kPieceKeys)) {
          Piece w;
          w.burst = true;
          w.tb = tb;
          w.b = b;
          w.j0 = a;
          w.j1 = std::min<uint32_t>(count, a + static_cast<uint32_t>(kPieceKeys));
          work.pieces.push_back(w);
        }
      });
}

// Leaves the emitter's pieces to be evaluated when drawn (Frame::defer_above).
void defer_pieces(EmitterWork& work) {
  for (const Piece& w : work.pieces) work.out->deferred.push_back({w.lo, w.hi});
  work.pieces.clear();
}

// Evaluates the emitter's pieces in order on this thread.
void evaluate_pieces(const EmitterWork& work, double clock) {
  EmitterFrame& out = *work.out;
  // Room for every key of the window at once (populated, WrittenBlocks):
  // growing by push_back copied the particles over and over and touched
  // new pages each time.
  size_t room = out.particles.size();
  for (const Piece& w : work.pieces) room += piece_keys(w);
  out.particles.reserve(room);
  for (const Piece& w : work.pieces)
    evaluate_piece(*work.em, w, clock, out.stats.visited, out.stats.dropped,
                   [&](const Particle& q) { out.particles.push_back(q); });
}

// Sizes the list for every piece's keys (left unwritten) and sets where
// each piece writes, for evaluate_piece_at.
void size_for_pieces(EmitterWork& work) {
  EmitterFrame& out = *work.out;
  const size_t n = work.pieces.size();
  work.start.assign(n + 1, out.particles.size());
  for (size_t i = 0; i < n; ++i) work.start[i + 1] = work.start[i] + piece_keys(work.pieces[i]);
  work.alive.assign(n, 0);
  work.visited.assign(n, 0);
  work.dropped.assign(n, 0);
  out.particles.resize(work.start.back());
}

// Piece i of the emitter, into its own range of the list (any thread).
void evaluate_piece_at(EmitterWork& work, size_t i, double clock) {
  Particle* at = work.out->particles.data() + work.start[i];
  size_t& alive = work.alive[i];
  evaluate_piece(*work.em, work.pieces[i], clock, work.visited[i], work.dropped[i],
                 [&](const Particle& q) { at[alive++] = q; });
}

// Closes up the pieces' ranges in piece order.
void close_up_pieces(const EmitterWork& work) {
  EmitterFrame& out = *work.out;
  size_t end = work.start[0];
  for (size_t i = 0; i < work.pieces.size(); ++i) {
    if (end != work.start[i])
      std::move(out.particles.begin() + static_cast<ptrdiff_t>(work.start[i]),
                out.particles.begin() + static_cast<ptrdiff_t>(work.start[i] + work.alive[i]),
                out.particles.begin() + static_cast<ptrdiff_t>(end));
    end += work.alive[i];
    out.stats.visited += work.visited[i];
    out.stats.dropped += work.dropped[i];
  }
  out.particles.resize(end);
}

// Sorts the emitter's particles into draw order and adds its trails.
void finish_emitter(const Effect& fx, const Emitter& em, double clock, EmitterFrame& out) {
  // Most windows come out in that order already (a stream's keys rise with
  // birth; a burst's share one birth): a check in one pass skips the sort.
  const bool newest_first = em.draw_order == DrawOrder::kNewestFirst;
  const auto before = [newest_first](const Particle& a, const Particle& b) {
    if (a.birth_s != b.birth_s) return newest_first ? a.birth_s > b.birth_s : a.birth_s < b.birth_s;
    return a.key < b.key;
  };
  if (em.draw_order == DrawOrder::kBySlot) {
    // model.md 8: by slot, a particle's index modulo the slots (a stream's
    // i, a burst's j), then oldest first.
    const uint64_t n = em.slots > 0 ? em.slots : std::max<uint64_t>(1, em.max_particles);
    const uint64_t pcap = std::max<uint64_t>(1, em.max_particles);
    const auto slot = [n, pcap](uint64_t key) {
      return (key % 2 == 0 ? key / 2 : (key - 1) / 2 % pcap) % n;
    };
    std::sort(out.particles.begin(), out.particles.end(),
              [&](const Particle& a, const Particle& b) {
                const uint64_t sa = slot(a.key), sb = slot(b.key);
                return sa != sb ? sa < sb : before(a, b);
              });
  } else if (!std::is_sorted(out.particles.begin(), out.particles.end(), before)) {
    std::sort(out.particles.begin(), out.particles.end(), before);
  }
  out.stats.alive = out.particles.size();
  if (em.trail.count > 0) add_trails(fx, em, clock, out);
}

double lerp(double a, double b, double t) {
  return a + (b - a) * t;
}

constexpr double kTwoPi = 6.28318530717958647692;

// model.md 7.6: the hue turn Godot's particle shader applies (its matrix, as
// the shader's column-major mat4 multiplies a colour), clamped to [0, 1].
Rgb turn_hue(Rgb c, double angle) {
  double co, si;
  math::sincos(angle, &si, &co);
  // Columns for r, g and b: luma + co * chroma + si * the quarter turn.
  static constexpr double kB[3][3] = {
      {0.299, 0.587, 0.114}, {0.299, 0.587, 0.114}, {0.299, 0.587, 0.114}};
  static constexpr double kC[3][3] = {
      {0.701, -0.587, -0.114}, {-0.299, 0.413, -0.114}, {-0.300, -0.588, 0.886}};
  static constexpr double kS[3][3] = {
      {0.168, 0.330, -0.497}, {-0.328, 0.035, 0.292}, {1.250, -1.050, -0.203}};
  const double in[3] = {c.r, c.g, c.b};
  double out[3] = {0, 0, 0};
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) out[i] += (kB[j][i] + kC[j][i] * co + kS[j][i] * si) * in[j];
  return {std::clamp(out[0], 0.0, 1.0), std::clamp(out[1], 0.0, 1.0), std::clamp(out[2], 0.0, 1.0)};
}

// A number curve with its envelope (model.md 7.2): the curve's one roll u,
// or with per-key rolls key i's own on key0 + i, each key's value rolled
// and the two around tau interpolated.
double curve_value(const Curve& c, uint32_t st, double tau, double u, bool per_key, Channel key0) {
  if (!per_key) return c.evaluate(tau, 2 * u - 1);
  const auto key = [&](int i) {
    const double eps =
        c.envelope[i] == 0
            ? 0.0
            : 2 * unit_raw(st, static_cast<uint32_t>(key0) + static_cast<uint32_t>(i)) - 1;
    return c.value[i] + c.envelope[i] * eps;
  };
  if (c.count == 1) return key(0);
  double f;
  const int k = c.segment(tau, &f);
  return lerp(key(k), key(k + 1), f);
}

// model.md 7.3 and 7.7: the size curve with its envelope roll, or the
// start/end form's two rolls, each clamped at 0.
double particle_size(const Emitter& em, uint32_t st, double tau) {
  const double u = unit(st, Channel::kSizeEnvelope);
  if (!em.size_ramp.enabled)
    return std::max(
        curve_value(em.size_px, st, tau, u, em.envelope_per_key, Channel::kSizeKeyEnvelope0), 0.0);
  const double a = std::max(em.size_ramp.start.at(u), 0.0);
  const double b = std::max(em.size_ramp.end.at(unit(st, Channel::kSizeEnd)), 0.0);
  return lerp(a, b, tau);
}

// Transparency in [0, 1] (model.md 7.6, 7.7).
double particle_transparency(const Emitter& em, uint32_t st, double tau) {
  const double u = unit(st, Channel::kTransparencyEnvelope);
  if (!em.transparency_ramp.enabled)
    return std::clamp(curve_value(em.transparency, st, tau, u, em.envelope_per_key,
                                  Channel::kTransparencyKeyEnvelope0),
                      0.0, 1.0);
  const double a = std::clamp(em.transparency_ramp.start.at(u), 0.0, 1.0);
  const double b =
      std::clamp(em.transparency_ramp.end.at(unit(st, Channel::kTransparencyEnd)), 0.0, 1.0);
  return lerp(a, b, tau);
}

// The sRGB colour (model.md 7.2, 7.7): the curve with its one envelope roll,
// or each channel's own start and end rolls, clamped to [0, 1].
Rgb particle_color(const Emitter& em, uint32_t st, double tau) {
  if (!em.color_ramp.enabled) {
    const double eps = em.color_has_envelope ? 2 * unit(st, Channel::kColorEnvelope) - 1 : 0.0;
    return em.color.evaluate(tau, eps);
  }
  const ColorRamp& c = em.color_ramp;
  const auto channel = [&](double s0, double s1, double e0, double e1, uint32_t k) {
    const double a = std::clamp(
        lerp(s0, s1, unit_raw(st, static_cast<uint32_t>(Channel::kColorStartR) + k)), 0.0, 1.0);
    const double b = std::clamp(
        lerp(e0, e1, unit_raw(st, static_cast<uint32_t>(Channel::kColorEndR) + k)), 0.0, 1.0);
    return lerp(a, b, tau);
  };
  return {channel(c.start_min.r, c.start_max.r, c.end_min.r, c.end_max.r, 0),
          channel(c.start_min.g, c.start_max.g, c.end_min.g, c.end_max.g, 1),
          channel(c.start_min.b, c.start_max.b, c.end_min.b, c.end_max.b, 2)};
}

}  // namespace

bool evaluate_particle(const Emitter& em, uint64_t key, double birth_s, double clock, Particle& out,
                       const ParentState* parent) {
  if (!em.program) return detail::builtin_particle(em, key, birth_s, clock, out, parent);
  return detail::program_base(em, key, birth_s, clock, out, parent) &&
         detail::run_program(em, &out, 1, clock, parent, nullptr) == 1;
}

bool detail::builtin_particle(const Emitter& em, uint64_t key, double birth_s, double clock,
                              Particle& out, const ParentState* parent, bool heading, bool at_death,
                              double given_life) {
  const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(key));
  // Lifetime first: most dead keys are rejected after one hash.
  const double life = given_life >= 0 ? given_life : em.lifetime_s.at(unit(st, Channel::kLifetime));
  const double age = at_death ? life : clock - birth_s;
  if (!(age >= 0 && (age < life || at_death))) return false;
  const double tau = at_death ? 1.0 : age / life;

  const detail::ParticleMotion pm = particle_motion(em, st, birth_s, clock, parent, at_death);
  if (!pm.alive) return false;  // killed by a collider, or born inside one
  const MotionState& m = pm.m;

  // Size and squash: (w, h) = (s / l, s l) for q >= 0, (s l, s / l) for q < 0,
  // l = 1 + |q|, so w h = s^2.
  const double size = particle_size(em, st, tau);
  const double q = curve_value(em.squash, st, tau, unit(st, Channel::kSquashEnvelope),
                               em.envelope_per_key, Channel::kSquashKeyEnvelope0);
  const double l = 1 + std::abs(q);
  const double w = q >= 0 ? size / l : size * l;
  const double h = q >= 0 ? size * l : size / l;

  const double rot0 = em.rotation_deg.at(unit(st, Channel::kRotation));
  double rot = em.rotation_speed_deg_per_s.at(unit(st, Channel::kRotationSpeed)) * age;
  rot += em.has_rotation_end
             ? lerp(rot0, em.rotation_end_deg.at(unit(st, Channel::kRotationEnd)), tau)
             : rot0;
  if (heading) rot = add_heading(em, rot, pm.heading);

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
  out.color_srgb = particle_color(em, st, tau);
  if (em.hue_variation.min != 0 || em.hue_variation.max != 0)
    out.color_srgb =
        turn_hue(out.color_srgb, em.hue_variation.at(unit(st, Channel::kHueVariation)) * kTwoPi);
  out.alpha = 1 - particle_transparency(em, st, tau);
  out.cell = em.flipbook.enabled ? flipbook_cell(em.flipbook, st, age, tau) : 0;
  out.trail = 0;
  out.impacts = static_cast<uint16_t>(pm.impacts);
  return true;
}

void evaluate(const Effect& fx, double clock, Frame& out) {
  evaluate(fx, clock, out, nullptr);
}

void evaluate(const Effect& fx, double clock, Frame& out, const ParallelFor* parallel) {
  if (out.particle_limit != std::numeric_limits<uint64_t>::max()) {
    const uint64_t need = held_window_size(fx, clock, out.defer_above);
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
  const size_t emitters = fx.draw_order.size();
  out.emitters.resize(emitters);
  std::vector<EmitterWork> work(emitters);
  size_t pieces = 0;
  for (size_t k = 0; k < emitters; ++k) {
    EmitterFrame& ef = out.emitters[k];
    ef.emitter = fx.draw_order[k];
    const Emitter& em = fx.emitters[ef.emitter];
    plan_emitter(fx, em, clock, ef, work[k]);
    if (ef.stats.window > out.defer_above && deferrable(em, clock)) defer_pieces(work[k]);
    pieces += work[k].pieces.size();
  }
  if (!parallel || pieces < 2) {
    for (size_t k = 0; k < emitters; ++k) evaluate_pieces(work[k], clock);
  } else {
    // Every emitter's pieces in one run on the threads: a frame of several
    // emitters with a few pieces each keeps every thread busy, where one
    // run per emitter waited for its slowest piece each time.
    std::vector<std::pair<uint32_t, uint32_t>> tasks;  // (emitter, piece)
    tasks.reserve(pieces);
    for (size_t k = 0; k < emitters; ++k) {
      size_for_pieces(work[k]);
      for (size_t i = 0; i < work[k].pieces.size(); ++i)
        tasks.emplace_back(static_cast<uint32_t>(k), static_cast<uint32_t>(i));
    }
    (*parallel)(static_cast<int>(tasks.size()), [&](int t) {
      const auto [k, i] = tasks[static_cast<size_t>(t)];
      evaluate_piece_at(work[k], i, clock);
    });
    for (size_t k = 0; k < emitters; ++k) close_up_pieces(work[k]);
  }
  for (const EmitterWork& w : work) finish_emitter(fx, *w.em, clock, *w.out);
}

bool deferrable(const Emitter& em, double clock) {
  if (em.is_sub() || em.trail.count > 0 || em.draw_order != DrawOrder::kOldestFirst ||
      !em.rate_curve.empty() || !em.bursts.empty())
    return false;
  // Births i / r never fall as i rises (a correctly rounded quotient is
  // monotonic) and keys 2 i rise, so (birth, key) rises. A looped effect's
  // keys wrap: then the births must rise strictly, which they do while
  // (i + 1) / r and i / r are more than an ulp apart, i below 2^51.
  return em.loop_keys == 0 || clock * em.stream_rate_per_s < 0x1p50;
}

size_t evaluate_run(const Effect& fx, const EmitterFrame& ef, const KeyRun& run, double clock,
                    Particle* out, EmitterStats& stats) {
  Piece w;
  w.lo = run.lo;
  w.hi = run.hi;
  // Counted here and added once: runs on other threads add to stats beside
  // these, and a counter bumped per key would bounce their cache line.
  uint64_t visited = 0, dropped = 0;
  size_t n = 0;
  evaluate_piece(fx.emitters[ef.emitter], w, clock, visited, dropped,
                 [&](const Particle& q) { out[n++] = q; });
  stats.visited += visited;
  stats.dropped += dropped;
  stats.alive += n;
  return n;
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
      const double c = std::abs(math::cos(t)), s = std::abs(math::sin(t));
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
