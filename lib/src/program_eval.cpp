// Programs on particles (model.md 11): the built-in particle at birth, then
// start(), process() stepped from birth to the age asked for, then pose() at
// the clock itself, over batches of up to 64 particles. Every lane is one
// particle and nothing passes between lanes, so a particle's bits do not
// depend on the batch it ran in, nor on the thread.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "eval_detail.h"
#include "program/compiled.h"
#include "program/machine.h"
#include "spritz/hash.h"

namespace spritz::detail {
namespace {

namespace pg = spritz::program;

constexpr uint32_t kBatch = 64;

// The program's noise field (model.md 11): M(s_e ^ ((37 + 1) * 0x85EBCA77)),
// the hash unit() divides by 2^32, on channel 37.
uint32_t noise_field(const Emitter& em) {
  return mix32(em.seed ^ ((static_cast<uint32_t>(Channel::kProgramNoise) + 1u) * 0x85EBCA77u));
}

// What each of the program's samplers reads, as the effect binds it.
std::unique_ptr<std::vector<pg::Sampler>> samplers_of(const EmitterProgram& ep) {
  auto out = std::make_unique<std::vector<pg::Sampler>>();
  const std::vector<SamplerInfo>& declared = ep.program->samplers();
  for (size_t i = 0; i < declared.size(); ++i) {
    pg::Sampler s;
    s.info = declared[i];
    const SamplerBinding* b = i < ep.samplers.size() ? &ep.samplers[i] : nullptr;
    if (b && b->kind == SamplerBinding::Kind::kCurve && b->index < ep.curves.size())
      s.curve = &ep.curves[b->index];
    else if (b && b->kind == SamplerBinding::Kind::kGradient && b->index < ep.gradients.size())
      s.gradient = &ep.gradients[b->index];
    else if (b && b->kind == SamplerBinding::Kind::kImage && b->image && b->image->width > 0 &&
             b->image->height > 0 &&
             b->image->rgba.size() == static_cast<size_t>(b->image->width) * b->image->height * 4)
      s.image = b->image.get();
    out->push_back(s);
  }
  return out;
}

// A machine for the emitter's program on this thread: set up once (its
// constants, prologue and uniforms) and kept for the next batches.
pg::Machine& machine_for(const Emitter& em) {
  struct Entry {
    std::shared_ptr<const EmitterProgram> program;
    uint32_t field;
    std::unique_ptr<std::vector<pg::Sampler>> samplers;  // the machine points at it
    std::unique_ptr<pg::Machine> machine;
  };
  thread_local std::vector<Entry> cache;
  const uint32_t field = noise_field(em);
  for (Entry& e : cache)
    if (e.program == em.program && e.field == field) return *e.machine;
  if (cache.size() >= 8) cache.erase(cache.begin());
  auto samplers = samplers_of(*em.program);
  auto machine = std::make_unique<pg::Machine>(em.program->program->compiled(), kBatch,
                                               em.program->uniforms, field, &em.program->curves,
                                               &em.program->gradients, samplers.get());
  cache.push_back(Entry{em.program, field, std::move(samplers), std::move(machine)});
  return *cache.back().machine;
}

// INDEX: a particle's place in its emitter's stream, its burst, or among
// its parent's children.
uint32_t index_of(const Emitter& em, uint64_t key) {
  if (em.is_sub() && em.sub.spacing > 0) return static_cast<uint32_t>(key % em.sub.spacing);
  if (key % 2 == 0) return static_cast<uint32_t>(key / 2);
  return static_cast<uint32_t>((key - 1) / 2 % em.max_particles);
}

// The registers of the properties a program may own, from a particle.
void load_pose(pg::Machine& m, uint32_t l, const Particle& p, const Emitter& em, bool all,
               const Program& prog, bool stepped) {
  const auto own = [&](ProgramVar v) { return !all && prog.writes(v); };
  const bool moves = stepped && !all;
  if (!own(ProgramVar::kPosition) && !moves) {
    m.f(pg::kFPosition)[l] = p.x;
    m.f(pg::kFPosition + 1)[l] = p.y;
  }
  if (!own(ProgramVar::kVelocity) && !moves) {
    m.f(pg::kFVelocity)[l] = p.vx;
    m.f(pg::kFVelocity + 1)[l] = p.vy;
  }
  if (!own(ProgramVar::kColor)) {
    m.f(pg::kFColor)[l] = p.color_srgb.r;
    m.f(pg::kFColor + 1)[l] = p.color_srgb.g;
    m.f(pg::kFColor + 2)[l] = p.color_srgb.b;
    m.f(pg::kFColor + 3)[l] = p.alpha;
  }
  if (!own(ProgramVar::kSize)) {
    m.f(pg::kFSize)[l] = p.w;
    m.f(pg::kFSize + 1)[l] = p.h;
  }
  if (!own(ProgramVar::kRotation)) m.f(pg::kFRotation)[l] = p.rotation_deg;
  if (!own(ProgramVar::kEmission)) m.f(pg::kFEmission)[l] = em.light_emission;
}

// The steps process() takes for a particle, each its start (age) and
// length: from birth, n = floor(age / h) steps of h, then one of the
// remainder when it is above 0 (model.md 6.1's rounding); for a Godot
// shader, on the clock's frame grid as Godot's frames fall (model.md
// 11.7): a first step from birth to the next multiple of h (0 long when
// the birth is on one), then steps of h, then the remainder.
struct Steps {
  uint64_t total = 0, full = 0;  // how many, and how many of h
  uint64_t whole = 0;            // the grid's steps that end by the clock (all but a rest)
  double first = 0;              // the grid's first step, when `grid`
  double grid0 = 0;              // the multiple of h it ends on
  double rest = 0;
  bool grid = false;
  double age(uint64_t k, double h, double birth) const {
    if (!grid) return static_cast<double>(k) * h;
    return k == 0 ? 0 : (grid0 + static_cast<double>(k - 1)) * h - birth;
  }
  double delta(uint64_t k, double h) const {
    if (!grid) return k < full ? h : rest;
    return k == 0 ? first : k <= full ? h : rest;
  }
  // Where the grid's step k (< whole) ends: on the grid, whatever the clock.
  double end(uint64_t k, double h) const { return (grid0 + static_cast<double>(k)) * h; }
};

Steps steps_of(const Particle& p, double h, bool grid) {
  Steps s;
  s.grid = grid;
  if (!grid) {
    const double n = std::floor(p.age_s / h);
    s.full = static_cast<uint64_t>(n);
    s.rest = p.age_s - n * h;
    s.total = s.full + (s.rest > 0 ? 1 : 0);
    return s;
  }
  const double clock = p.birth_s + p.age_s;
  // The grid's points are the products k h: the first at or after the
  // birth, the last at or before the clock (the quotient b / h may round
  // across one; a child emitted on the grid is born on one, model.md 11.8).
  s.grid0 = std::ceil(p.birth_s / h);
  if ((s.grid0 - 1) * h >= p.birth_s) s.grid0 -= 1;
  if (s.grid0 * h < p.birth_s) s.grid0 += 1;
  const double first_end = s.grid0 * h;
  if (clock < first_end) {
    s.first = p.age_s;
    s.total = 1;
    return s;  // no step is whole
  }
  s.first = first_end - p.birth_s;
  double last = std::floor(clock / h);
  if ((last + 1) * h <= clock) last += 1;
  if (last * h > clock) last -= 1;
  s.full = static_cast<uint64_t>(std::max(0.0, last - s.grid0));
  s.rest = clock - last * h;
  s.whole = 1 + s.full;
  s.total = s.whole + (s.rest > 0 ? 1 : 0);
  return s;
}

// emit_subparticle()'s children (model.md 11.8), as the machine hands them
// over: each emission of a whole step ending at or after `from`, with the
// state its child starts from.
class EmissionSink final : public pg::EmitSink {
 public:
  EmissionSink(pg::Machine& m, const Emitter& parent, const uint64_t* keys, double from,
               std::vector<Emission>& out)
      : m_(m), parent_(parent), keys_(keys), from_(from), out_(out) {}
  double step_end[kBatch] = {};  // each lane's step's end, set before each step

  void take(uint32_t l, uint32_t number, const double* record, uint32_t flags) override {
    if (step_end[l] < from_) return;  // its children are all gone by the clock
    const GodotDialect& g = *parent_.program->godot;
    Emission e;
    e.parent_key = keys_[l];
    e.number = number;
    e.birth_s = step_end[l];
    Emitted& em = e.state.emitted;
    em.flags = flags | pg::kUGodotEmittedChild;
    em.origin = {m_.f(pg::kFGodotAnchor)[l] + g.offset[0],
                 m_.f(pg::kFGodotAnchor + 1)[l] + g.offset[1]};
    std::copy_n(record, pg::kGodotEmittedSize, em.record);
    // A built-in child starts at the place given (else at its own emitter:
    // Godot places it by the sub-emitter's emission shape) and inherits the
    // velocity given (else none).
    const auto canvas = [&](const double* p) {
      const auto& t = g.to_canvas;
      return Vec2{t[0] * p[0] + t[1] * p[1] + t[2] * p[2], t[3] * p[0] + t[4] * p[1] + t[5] * p[2]};
    };
    if (flags & 1u) e.state.position = em.origin + canvas(record + 12);
    if (flags & 4u) e.state.velocity = canvas(record + 16) * g.speed_scale;
    out_.push_back(e);
  }

 private:
  pg::Machine& m_;
  const Emitter& parent_;
  const uint64_t* keys_;
  double from_;
  std::vector<Emission>& out_;
};

// process() from birth, step by step (steps_of); after each, the particle
// moves by VELOCITY * DELTA unless the program turned that off.
// A Godot shader's whole steps may emit children (model.md 11.8): those
// that end within the particle's life; `sink`, when given, is told where
// each lane's step ends.
void step_lanes(pg::Machine& m, const Emitter& em, const Particle* ps, uint32_t n,
                std::vector<uint8_t>& alive, EmissionSink* sink = nullptr) {
  const Program& prog = *em.program->program;
  const double h = em.forces.step_s;
  const bool grid = em.program->godot.has_value();
  Steps steps[kBatch];
  uint64_t most = 0;
  for (uint32_t l = 0; l < n; ++l) {
    steps[l] = steps_of(ps[l], h, grid);
    if (alive[l]) most = std::max(most, steps[l].total);
  }
  const bool move = prog.moves_by_velocity();
  for (uint64_t k = 0; k < most; ++k) {
    bool any = false;
    for (uint32_t l = 0; l < n; ++l) {
      const bool on = alive[l] && k < steps[l].total;
      m.u(pg::kUMask)[l] = on ? 1u : 0u;
      any = any || on;
      const double age = steps[l].age(k, h, ps[l].birth_s);
      m.f(pg::kFAge)[l] = age;
      m.f(pg::kFTime)[l] = ps[l].birth_s + age;
      m.f(pg::kFDelta)[l] = steps[l].delta(k, h);
      if (grid) {  // only a Godot shader emits (birth_lane closed it for the rest)
        uint32_t open = 0;
        if (on && k < steps[l].whole) {
          const double end = steps[l].end(k, h);
          open = end < ps[l].birth_s + ps[l].life_s ? 1u : 0u;
          m.f(pg::kFEmitAt)[l] = end;
          if (sink) sink->step_end[l] = end;
        }
        m.u(pg::kUEmitOpen)[l] = open;
      }
    }
    if (!any) break;
    m.run(Stage::kProcess, n);
    for (uint32_t l = 0; l < n; ++l) {
      if (!m.u(pg::kUMask)[l]) continue;
      if (!m.u(pg::kUActive)[l]) {
        alive[l] = 0;  // ended from this step on
        continue;
      }
      if (!move) continue;
      const double dt = m.f(pg::kFDelta)[l];
      m.f(pg::kFPosition)[l] += m.f(pg::kFVelocity)[l] * dt;
      m.f(pg::kFPosition + 1)[l] += m.f(pg::kFVelocity + 1)[l] * dt;
    }
  }
}

// The lanes' properties back into the particles; returns false for a
// particle the program left not finite.
bool store_lane(pg::Machine& m, uint32_t l, const Emitter& em, Particle& p) {
  const auto f = [&](uint32_t slot) { return m.f(slot)[l]; };
  p.x = f(pg::kFPosition);
  p.y = f(pg::kFPosition + 1);
  p.vx = f(pg::kFVelocity);
  p.vy = f(pg::kFVelocity + 1);
  const double r = f(pg::kFColor), g = f(pg::kFColor + 1), b = f(pg::kFColor + 2);
  const double a = f(pg::kFColor + 3), w = f(pg::kFSize), hh = f(pg::kFSize + 1);
  if (!(std::isfinite(r) && std::isfinite(g) && std::isfinite(b) && std::isfinite(a) &&
        std::isfinite(w) && std::isfinite(hh)))
    return false;
  // Colours as the model's (model.md 7.6): r, g, b within [0, 1e3], opacity
  // within [0, 1], sizes not negative.
  p.color_srgb = {std::clamp(r, 0.0, 1e3), std::clamp(g, 0.0, 1e3), std::clamp(b, 0.0, 1e3)};
  p.alpha = std::clamp(a, 0.0, 1.0);
  p.w = std::max(w, 0.0);
  p.h = std::max(hh, 0.0);
  p.rotation_deg = add_heading(em, f(pg::kFRotation), {p.vx, p.vy});
  if (em.program->program->writes(ProgramVar::kEmission)) {
    const double e = f(pg::kFEmission);
    if (!std::isfinite(e)) return false;
    p.emission = std::clamp(e, 0.0, 1.0);  // as light_emission's range (model.md 7.6)
  }
  return finite_particle(p);
}

// Lane l set up as particle p at its birth (model.md 11.1, step 1): the
// built-in particle at age 0 where the program needs it, its state 0.
// False when the built-in particle is not alive at its birth.
bool birth_lane(pg::Machine& m, uint32_t l, const Emitter& em, const Particle& p,
                const ParentState* parent) {
  const Program& prog = *em.program->program;
  const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
  m.u(pg::kUKey)[l] = static_cast<uint32_t>(p.key);
  m.u(pg::kUIndex)[l] = index_of(em, p.key);
  m.u(pg::kUStream)[l] = st;
  m.u(pg::kUEmitterSeed)[l] = em.seed;
  m.u(pg::kUMask)[l] = 1;
  m.u(pg::kUActive)[l] = 1;
  m.u(pg::kUTurns)[l] = 0;
  m.u(pg::kUEmitCount)[l] = 0;
  m.u(pg::kUEmitOpen)[l] = 0;
  // What emit_subparticle() gave this child (model.md 11.8), for its start;
  // the glue reads the record only where the flags say there is one.
  const uint32_t flags = parent ? parent->emitted.flags : 0;
  m.u(pg::kUGodotEmittedFlags)[l] = flags;
  if (flags != 0) {
    for (uint32_t k = 0; k < pg::kGodotEmittedSize; ++k)
      m.f(pg::kFGodotEmitted + k)[l] = parent->emitted.record[k];
    m.f(pg::kFGodotEmittedOrigin)[l] = parent->emitted.origin.x;
    m.f(pg::kFGodotEmittedOrigin + 1)[l] = parent->emitted.origin.y;
  }
  m.f(pg::kFBirth)[l] = p.birth_s;
  // start() sees the built-in lifetime, also where it sets its own.
  m.f(pg::kFLifetime)[l] = prog.writes(ProgramVar::kLifetime)
                               ? em.lifetime_s.at(unit(st, Channel::kLifetime))
                               : p.life_s;
  m.f(pg::kFAge)[l] = 0;
  m.f(pg::kFTime)[l] = p.birth_s;
  m.f(pg::kFDelta)[l] = 0;
  for (uint32_t k = 0; k < 28; ++k) m.f(pg::kFCustom + k)[l] = 0;
  if (!em.program->needs_birth()) {
    load_pose(m, l, p, em, true, prog, false);
    return true;
  }
  Particle q;
  if (!builtin_particle(em, p.key, p.birth_s, p.birth_s, q, parent, false)) return false;
  load_pose(m, l, q, em, true, prog, false);
  return true;
}

// The lives start() gave (model.md 11.1): LIFETIME clamped to [0,
// lifetime.max]; a particle past its life is not alive, and the built-in
// part of one still alive is worked out again for that life.
void settle_lives(pg::Machine& m, const Emitter& em, Particle* ps, uint32_t n, double clock,
                  const ParentState* parent, std::vector<uint8_t>& alive, bool at_death) {
  for (uint32_t l = 0; l < n; ++l) {
    if (!alive[l]) continue;
    const double given = m.f(pg::kFLifetime)[l];
    const double life = std::clamp(given, 0.0, em.lifetime_s.max);
    Particle& p = ps[l];
    const double age = at_death ? life : p.age_s;
    if (std::isnan(given) || !(age < life || at_death)) {
      alive[l] = 0;
      continue;
    }
    m.f(pg::kFLifetime)[l] = life;
    if (em.program->owns_all()) {
      p.age_s = age;
      p.life_s = life;
      const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(p.key));
      p.cell = em.flipbook.enabled ? flipbook_cell(em.flipbook, st, age, age / life) : 0;
    } else if (!builtin_particle(em, p.key, p.birth_s, clock, p, parent, false, at_death, life)) {
      alive[l] = 0;
    }
  }
}

// Birth, start() and the lives it gives, then process()'s steps (model.md
// 11.1, steps 1 to 3) for lanes [0, n); a particle that is not alive after
// them has alive[l] 0.
void run_steps(pg::Machine& m, const Emitter& em, Particle* ps, uint32_t n, double clock,
               const ParentState* parent, std::vector<uint8_t>& alive, bool at_death,
               EmissionSink* sink) {
  const Program& prog = *em.program->program;
  for (uint32_t l = 0; l < n; ++l)
    if (!birth_lane(m, l, em, ps[l], parent)) alive[l] = 0;
  if (prog.has(Stage::kStart)) {
    m.run(Stage::kStart, n);
    for (uint32_t l = 0; l < n; ++l)
      if (!m.u(pg::kUActive)[l]) alive[l] = 0;
  }
  if (prog.writes(ProgramVar::kLifetime))
    settle_lives(m, em, ps, n, clock, parent, alive, at_death);
  if (prog.has(Stage::kProcess)) step_lanes(m, em, ps, n, alive, sink);
}

// One batch of at most kBatch particles, run and written back from `out`
// on (out <= ps: the survivors close up in order).
size_t run_batch(const Emitter& em, Particle* ps, uint32_t n, double clock,
                 const ParentState* parent, uint64_t* dropped, Particle* out, double* state,
                 bool at_death) {
  const EmitterProgram& ep = *em.program;
  const Program& prog = *ep.program;
  pg::Machine& m = machine_for(em);
  m.set_emission(em.emit_limit, em.emit_window_s, em.emit_total, nullptr);
  std::vector<uint8_t> alive(n, 1);
  run_steps(m, em, ps, n, clock, parent, alive, at_death, nullptr);
  const bool stepped = prog.has(Stage::kProcess);
  for (uint32_t l = 0; l < n; ++l) {
    m.u(pg::kUMask)[l] = 1;
    m.u(pg::kUEmitOpen)[l] = 0;  // pose() is no step: it emits nothing
    m.f(pg::kFAge)[l] = ps[l].age_s;
    m.f(pg::kFTime)[l] = clock;
    m.f(pg::kFDelta)[l] = 0;
    load_pose(m, l, ps[l], em, !ep.needs_birth(), prog, stepped);
  }
  const pg::Compiled& code = prog.compiled();
  if (code.tangent_offset > 0) {
    // The velocity is the derivative of the place pose() gives (model.md
    // 11.1): AGE and TIME move with the clock, every other input is fixed.
    const uint32_t t = code.tangent_offset;
    for (uint32_t s = 0; s < pg::kFBuiltins; ++s) std::fill_n(m.f(s + t), n, 0.0);
    std::fill_n(m.f(pg::kFAge + t), n, 1.0);
    std::fill_n(m.f(pg::kFTime + t), n, 1.0);
    m.run_pose_tangent(n);
    std::copy_n(m.f(pg::kFPosition + t), n, m.f(pg::kFVelocity));
    std::copy_n(m.f(pg::kFPosition + 1 + t), n, m.f(pg::kFVelocity + 1));
  } else if (prog.has(Stage::kPose)) {
    m.run(Stage::kPose, n);
  }
  size_t kept = 0;
  for (uint32_t l = 0; l < n; ++l) {
    if (!alive[l] || !m.u(pg::kUActive)[l]) continue;
    Particle p = ps[l];
    if (!store_lane(m, l, em, p)) {
      if (dropped) ++*dropped;
      continue;
    }
    if (state)
      for (uint32_t k = 0; k < 28; ++k) state[kept * 28 + k] = m.f(pg::kFCustom + k)[l];
    out[kept++] = p;
  }
  return kept;
}

}  // namespace

bool program_base(const Emitter& em, uint64_t key, double birth_s, double clock, Particle& out,
                  const ParentState* parent, bool at_death) {
  const bool candidate = em.program->program->writes(ProgramVar::kLifetime);
  if (!em.program->owns_all() && !candidate)
    return builtin_particle(em, key, birth_s, clock, out, parent, false, at_death);
  const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(key));
  const double life =
      candidate ? em.lifetime_s.max : em.lifetime_s.at(unit(st, Channel::kLifetime));
  const double age = at_death ? life : clock - birth_s;
  if (!(age >= 0 && (age < life || at_death))) return false;
  out = Particle{};
  out.key = key;
  out.birth_s = birth_s;
  out.age_s = age;
  out.life_s = life;
  out.cell = em.flipbook.enabled ? flipbook_cell(em.flipbook, st, age, age / life) : 0;
  return true;
}

double program_lifetime(const Emitter& em, uint64_t key, double birth_s,
                        const ParentState* parent) {
  const uint32_t st = particle_stream(em.seed, static_cast<uint32_t>(key));
  if (!em.program->program->writes(ProgramVar::kLifetime))
    return em.lifetime_s.at(unit(st, Channel::kLifetime));
  // Birth and start() alone: the particle at age 0, its lifetime left as
  // start() set it.
  pg::Machine& m = machine_for(em);
  Particle p;
  if (!program_base(em, key, birth_s, birth_s, p, parent) || !birth_lane(m, 0, em, p, parent))
    return -1;
  m.run(Stage::kStart, 1);
  const double given = m.f(pg::kFLifetime)[0];
  if (!m.u(pg::kUActive)[0] || std::isnan(given)) return -1;
  return std::clamp(given, 0.0, em.lifetime_s.max);
}

bool program_parent_state(const Emitter& parent, uint64_t key, double birth_s, double clock,
                          bool at_death, ParentState& out) {
  Particle p;
  if (!program_base(parent, key, birth_s, clock, p, nullptr, at_death) ||
      run_program(parent, &p, 1, clock, nullptr, nullptr, nullptr, at_death) != 1)
    return false;
  out = {{p.x, p.y}, {p.vx, p.vy}};
  return true;  // run_program keeps only finite particles
}

void program_emissions(const Emitter& parent, const uint64_t* keys, const double* births, size_t n,
                       double clock, double from, std::vector<Emission>& out) {
  pg::Machine& m = machine_for(parent);
  for (size_t first = 0; first < n; first += kBatch) {
    const auto b = static_cast<uint32_t>(std::min<size_t>(kBatch, n - first));
    Particle ps[kBatch];
    std::vector<uint8_t> alive(b, 1);
    for (uint32_t l = 0; l < b; ++l) {
      // The parent's steps up to the clock, or to its death when that is
      // sooner (a step ending there emits nothing).
      const uint64_t key = keys[first + l];
      const double birth = births[first + l];
      const uint32_t st = particle_stream(parent.seed, static_cast<uint32_t>(key));
      const double life = parent_life(parent, key, st);
      const bool dead = life >= 0 && clock >= birth + life;
      if (life < 0 ||
          !program_base(parent, key, birth, dead ? birth + life : clock, ps[l], nullptr, dead)) {
        alive[l] = 0;
        ps[l].key = key;
        ps[l].birth_s = birth;
      }
    }
    EmissionSink sink(m, parent, keys + first, from, out);
    m.set_emission(parent.emit_limit, parent.emit_window_s, parent.emit_total, &sink);
    run_steps(m, parent, ps, b, clock, nullptr, alive, false, &sink);
    m.set_emission(parent.emit_limit, parent.emit_window_s, parent.emit_total, nullptr);
  }
}

size_t run_program(const Emitter& em, Particle* ps, size_t n, double clock,
                   const ParentState* parent, uint64_t* dropped, double* state, bool at_death) {
  size_t kept = 0;
  for (size_t first = 0; first < n; first += kBatch) {
    const auto m = static_cast<uint32_t>(std::min<size_t>(kBatch, n - first));
    kept += run_batch(em, ps + first, m, clock, parent, dropped, ps + kept,
                      state ? state + kept * 28 : nullptr, at_death);
  }
  return kept;
}

}  // namespace spritz::detail

namespace spritz {

bool program_state(const Effect& fx, const Emitter& em, const Particle& p, double clock,
                   ProgramState& out) {
  if (!em.program || !em.program->program) return false;
  ParentState parent;
  const ParentState* from = nullptr;
  if (em.is_sub()) {
    if (!sub_parent_state(fx, em, p.key, p.birth_s, parent)) return false;
    from = &parent;
  }
  Particle q;
  return detail::program_base(em, p.key, p.birth_s, clock, q, from) &&
         detail::run_program(em, &q, 1, clock, from, nullptr, out.values) == 1;
}

}  // namespace spritz
