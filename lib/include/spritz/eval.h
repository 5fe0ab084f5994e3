// Closed-form evaluation (model.md sections 1, 3, 4, 7, 8): the particles
// alive at a clock value, as a pure function of the effect and the clock.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "spritz/effect.h"
#include "spritz/particle.h"
#include "spritz/particle_list.h"

namespace spritz {

// Where a sub-emitter's parent particle was, and its velocity, when it
// emitted a child: the child's starting place and inherited motion.
// What a Godot shader's emit_subparticle() gave a child (model.md 11.8).
struct Emitted {
  uint32_t flags = 0;  // FLAG_EMIT_*, with bit 31 set for an emitted child (0: none)
  Vec2 origin;         // the canvas point the parent's particle space hangs from
  // TRANSFORM (16, column-major), VELOCITY (3), COLOR (4), CUSTOM (4), in
  // the parent's particle space.
  double record[27] = {};
};

struct ParentState {
  Vec2 position;  // design px, y up
  Vec2 velocity;  // design px/s
  Emitted emitted = {};
};

struct EmitterStats {
  uint64_t window = 0;   // stream indices in the window plus burst particles considered
  uint64_t visited = 0;  // keys whose lifetime was rolled
  uint64_t alive = 0;    // particles, trail ghosts not counted
  uint64_t dropped = 0;  // particles a program left NaN or infinite (model.md 11)
};

// A run of a deferred emitter's stream indices [lo, hi] (Frame::defer_above),
// evaluated when it is drawn (evaluate_run).
struct KeyRun {
  int64_t lo = 0, hi = -1;
  size_t keys() const { return hi >= lo ? static_cast<size_t>(hi - lo + 1) : 0; }
};

struct EmitterFrame {
  uint32_t emitter = 0;  // index into Effect::emitters
  // In draw order; with a trail each particle follows its ghosts (trail > 0).
  ParticleList particles;  // resize() leaves new particles unwritten
  EmitterStats stats;
  ParticleList scratch;  // reused while trails are added
  // A deferred emitter (Frame::defer_above) holds no particles: they are the
  // live keys of these runs, in this order, which is already draw order,
  // given by evaluate_run when they are drawn. Empty otherwise.
  std::vector<KeyRun> deferred;
};

struct Frame {
  double clock = 0;
  std::vector<EmitterFrame> emitters;  // enabled emitters, in draw order
  // evaluate() throws spritz::Error, before evaluating anything, when the
  // frame could hold more particles than this (window_size): a clear message
  // instead of a process the system kills for its memory.
  uint64_t particle_limit = std::numeric_limits<uint64_t>::max();
  // An emitter with more keys than this in its window whose particles come
  // out of evaluation in draw order already (deferrable) is not evaluated
  // by evaluate(): its keys are left as runs (EmitterFrame::deferred) for
  // whoever draws the frame to evaluate a few at a time, so a frame of
  // millions of particles is drawn without holding them. Its memory does
  // not count against particle_limit. Never, by default.
  uint64_t defer_above = std::numeric_limits<uint64_t>::max();
};

// Whether `em`'s particles at `clock` come out of evaluation in draw order
// (model.md 8) with nothing to add: a stream alone at a constant rate
// (births i / r rise with the index, and so do keys, or, with a looped
// effect's wrapped keys, the births strictly), oldest first, without trail
// ghosts, and not a sub-emitter (whose children are found otherwise).
bool deferrable(const Emitter& em, double clock);

// window_size without the emitters evaluate() would defer at `clock` with
// Frame::defer_above = `defer_above`: the particles a frame holds.
uint64_t held_window_size(const Effect& fx, double clock, uint64_t defer_above);

// The particles of run `run` of deferred emitter `ef` (of a frame evaluate()
// made at `clock`) into out[0 ..], in draw order, with room for run.keys();
// returns how many. Adds to `stats` what evaluate() would have counted
// (visited, alive, dropped). Any thread; runs may be evaluated in any order.
size_t evaluate_run(const Effect& fx, const EmitterFrame& ef, const KeyRun& run, double clock,
                    Particle* out, EmitterStats& stats);

// The effect clock for requested time `t` seconds: c = start + time_scale t,
// or for a looped effect the steady-state clock T ceil(L_max / T) + t'.
double clock_at_time(const Effect& fx, double t);

// The clock of frame `frame` at `fps`. For a looped effect the frame index is
// reduced modulo the frames per period when that is whole, so frame f and
// frame f + period give the very same clock (and the same bytes).
double clock_at_frame(const Effect& fx, int64_t frame, double fps);

// The steady-state clock offset of a looped effect: T ceil(L_max / T).
double loop_warmup(const Effect& fx);

// The clocks of a frame's motion-blur samples (docs/rendering.md), into `out`:
// canvas.blur_samples of them, spread evenly over canvas.shutter frame
// intervals of 1 / fps seconds centred on the frame's clock `clock` (sample k
// of N at (2k + 1 - N) / 2N of the shutter). One sample is `clock` itself. A
// looped effect's samples stay in its steady state: a sample before it moves
// one period later, so frame f and frame f + period still match byte for byte.
void shutter_clocks(const Effect& fx, double clock, double fps, std::vector<double>& out);

// An upper bound on the particles of `fx` alive at any one clock, for sizing
// memory (evaluation needs none): a stream holds at most ceil(r L_max) + 1
// (at most max_particles + 1), a burst group its count times the firings that can
// overlap, in every period that can (looped effects); each with its trail
// ghosts, as they take a frame's memory too.
uint64_t max_alive(const Effect& fx);

// At most how many keys of `em` are born within any `span` seconds: with
// span = lifetime.max, the most that can be alive at once (ceil(r span) + 1
// stream keys, and every burst firing that fits).
double keys_born_within(const Effect& fx, const Emitter& em, double span);

// The span of a parent's births within which the events of a sub-emitter's
// live children can lie: their life, plus the spread of the parent's
// lifetimes (deaths) or its whole life (children shed along it).
double sub_parent_span(const Emitter& parent, const Emitter& child);

// The keys of every enabled emitter that can be alive at `clock`, times one
// plus the emitter's trail count: at least the particles and ghosts evaluate()
// finds there, and computed without evaluating them.
uint64_t window_size(const Effect& fx, double clock);

// The work of evaluating and drawing a frame at `clock`, in particle
// samples: window_size, with each sample of an emitter with colliders
// weighing 1 + colliders (max_impacts + 1) (every flight it may search
// searches every collider), and each colliding parent whose children read
// its impacts its flights too; a program emitter's samples weigh 1 + the
// instructions they run / 64 (process() once a step). The work limit
// (docs/cli.md) counts this.
uint64_t frame_work(const Effect& fx, double clock);

// Evaluates every enabled emitter at `clock` into `out`, reusing its buffers
// (no allocation in steady use). Particles whose state is not finite are
// dropped, so no NaN or infinity ever reaches the rasterizer.
void evaluate(const Effect& fx, double clock, Frame& out);
Frame evaluate(const Effect& fx, double clock);

// Runs fn(0) .. fn(tasks - 1), possibly at once on several threads, and
// returns when all are done. The library starts no threads of its own.
using ParallelFor = std::function<void(int tasks, const std::function<void(int)>& fn)>;

// The same frame, its emitters' windows evaluated in pieces of 4096 keys
// through `parallel` (null: on this thread). The result is the same bytes
// for any `parallel`: particles are sorted by (birth, key) after.
void evaluate(const Effect& fx, double clock, Frame& out, const ParallelFor* parallel);

// Evaluates one particle of `em` with key `key` born at `birth_s`, at `clock`.
// Returns false when it is not alive then. A sub-emitter's child passes its
// parent's state at its birth (sub_parent_state).
bool evaluate_particle(const Emitter& em, uint64_t key, double birth_s, double clock, Particle& out,
                       const ParentState* parent = nullptr);

// The state of the parent that sub-emitter `em`'s child with key `key`, born at
// `birth_s`, started from: the parent is key / spacing, the child's number
// key % spacing, and the parent's birth follows from the child's (its birth
// minus the parent's life for a death, minus j / rate along a life). Where
// the event is an impact (on = collision, or a death by a killing collider),
// the parent's flight is worked out from its key's birth instead (model.md
// 9.7). The child and its trail ghosts all start from this, so they agree
// bit for bit and no particle carries its parent's state. False when it is
// not finite.
bool sub_parent_state(const Effect& fx, const Emitter& em, uint64_t key, double birth_s,
                      ParentState& out);

// A program particle's own state (model.md 11): CUSTOM, then USERDATA1 ..
// USERDATA6, four numbers each, as its program left them at a clock.
struct ProgramState {
  double values[28] = {};
};

// The state of program emitter `em`'s particle `p` (as evaluate() gave it)
// at `clock`, worked out again from its birth, as every evaluation does.
// False when `em` runs no program or the particle is not alive then.
bool program_state(const Effect& fx, const Emitter& em, const Particle& p, double clock,
                   ProgramState& out);

// An axis-aligned box in design px (y up) holding particles' rectangles.
struct Bounds {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty = true;
  void add(double xa, double ya, double xb, double yb);
};

// Grows `b` by every visible particle of `frame` (its rotated rectangle).
void extend_bounds(const Frame& frame, Bounds& b);

// The 1-based flipbook cell (model.md 7.5) of a particle with stream `st` at
// `age` seconds, `tau` = age / life.
int flipbook_cell(const Flipbook& fb, uint32_t st, double age, double tau);

}  // namespace spritz
