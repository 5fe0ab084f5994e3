// The effect model: the validated, immutable form of an effect file. After
// loading (load.h), nothing else knows about TOML.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/collision.h"
#include "spritz/color.h"
#include "spritz/curve.h"
#include "spritz/error.h"
#include "spritz/noise.h"
#include "spritz/path.h"
#include "spritz/program.h"
#include "spritz/rate.h"
#include "spritz/shape.h"
#include "spritz/vec2.h"

namespace spritz {

// A [min, max] range; each particle picks lerp(min, max, unit(st, channel)).
struct Range {
  double min = 0, max = 0;
  double at(double u) const { return min + (max - min) * u; }
};

enum class Orientation { kFacing, kVelocityParallel, kVelocityPerpendicular };
enum class DrawOrder { kOldestFirst, kNewestFirst, kBySlot };
enum class Space { kWorld, kLocal };
// A texture as an effect names it (docs/config.md, `texture`), parsed once
// when the effect loads: a built-in by name, or a file. The model never reads
// the file; a program hands its bytes to the raster library
// (load_textures' TextureBytes), so that it reads every input once itself.
struct TextureRef {
  enum class Kind { kBuiltin, kFile };
  Kind kind = Kind::kBuiltin;
  std::string name = "soft";  // kBuiltin: the built-in's name, without "builtin:"
  std::string path;           // kFile: the file, resolved against the effect's folder

  bool builtin() const { return kind == Kind::kBuiltin; }
  // How messages and caches name it: "builtin:NAME", or the path.
  std::string label() const { return builtin() ? "builtin:" + name : path; }
  // The one place "builtin:" is parsed: "builtin:NAME" is a built-in, any
  // other text a file path, taken as it is (resolving it is the loader's).
  static TextureRef parse(std::string_view text);
  bool operator==(const TextureRef& o) const {
    return kind == o.kind && (builtin() ? name == o.name : path == o.path);
  }
};

// How a sprite samples its texture (docs/rendering.md): a blend of two mip
// levels (the default: no shimmer, light kept at any size), bilinear from the
// full-size texture (sharp, what most 2D libraries do), or the nearest texel
// of it (hard pixels, for pixel art).
enum class TextureFilter { kTrilinear, kBilinear, kNearest };
enum class FlipbookMode { kOneshot, kLoop, kPingpong, kRandom };
enum class Tonemap { kWhite, kClamp };
enum class AlphaMode { kStraight, kPremultiplied };
// Where light is blended (docs/rendering.md, "Blending space"): in linear
// light (real additive light), or in the stored sRGB values as game engines
// without sRGB framebuffers do (cocos2d, Starling), so a bake looks as the
// game drew it.
enum class BlendSpace { kLinear, kSrgb };

struct Flipbook {
  bool enabled = false;
  int cols = 1, rows = 1;
  FlipbookMode mode = FlipbookMode::kLoop;
  Range fps{10, 10};
  // fps counts whole plays of the N cells per life (flipbook.cycles):
  // the particle's rate is fps * N / life.
  bool per_life = false;
  bool random_start = false;
  int cells() const { return cols * rows; }
};

// A burst entry after validation: it fires `repeat` times, `interval` apart.
// Occurrence r of this group is burst index b = first_index + r (model.md 4.3).
struct BurstGroup {
  double time_s = 0;
  uint32_t count = 0;  // already clamped to max_particles
  uint64_t repeat = 1;
  double interval_s = 0;
  uint64_t first_index = 0;
};

// A sub-emitter (model.md 9.3, docs/config.md): its particles are children of
// another emitter's particles, born at each parent's death, at its birth, or
// at `rate` per second along its life, starting where the parent is then
// (the emitter's position and shape add to that place). Child j of the parent
// with key K has key K spacing + j (mod 2^64), so its random numbers derive
// from the parent's. No state: a parent's place at any age is closed form.
enum class SubEvent { kDeath, kBirth, kLife, kCollision, kProgram };
// The most children of one particle alive at once with on = "program"
// (model.md 11.8): each lane of a program's machine keeps their births.
inline constexpr uint32_t kMaxEmittedAlive = 65536;
struct SubEmitter {
  std::string parent_name;  // empty: an ordinary emitter
  SourceLoc loc;            // the `sub` table, for messages
  SubEvent on = SubEvent::kDeath;
  uint32_t count = 10;        // children of each parent at its birth or death (clamped at load)
  uint32_t count_asked = 10;  // as written
  // Derived at load.
  int32_t parent = -1;  // index into Effect::emitters
  // Children a parent can have: count, ceil(rate L_parent) for life, count
  // times the parent's most impacts for collision.
  uint64_t spacing = 1;
  double rate_per_s = 0;  // on = life: children per second of a parent's life (clamped)
};

// A trail (docs/config.md, model.md 9.4): `count` ghosts of each particle as it
// was up to `length_s` seconds of its age ago. Ghost k (1..count) sits at
// u = k / count along the trail: the particle evaluated at clock c - u length,
// its opacity times fade(u) and its size times scale(u). A particle's ghosts
// are drawn just before it, oldest first, so the particle is on top.
inline constexpr int kMaxTrailCount = 64;  // ghosts per particle, each one more evaluation

struct Trail {
  int count = 0;  // 0: no trail, at most kMaxTrailCount
  double length_s = 0.1;
  Curve fade = Curve::constant(1);   // in [0, 1]
  Curve scale = Curve::constant(1);  // in [0, 1]
  // style = "ribbon": the samples are joined into one strip (the raster's
  // ribbon segments) instead of drawn as separate ghosts.
  bool ribbon = false;
  bool draws_ribbon() const { return ribbon && count > 0; }
};

// Turbulence (model.md 9.6): A(tau) * noise(p0 * frequency, age * speed +
// phase * unit(st, 16)) added to the position, one noise field per axis.
struct Turbulence {
  bool enabled = false;
  Curve amplitude = Curve::constant(20);  // design px, read at tau; envelope roll on channel 19
  double frequency = 0.02;                // lattice cells per design px
  double speed = 1;                       // lattice cells per second of age
  double phase = 0;                       // spread of per-particle offsets along z
  // Derived at load: the two fields' seeds (channels 17 and 18) and
  // whether the amplitude varies per particle.
  TurbulenceFields fields;
  bool amplitude_has_envelope = false;
};

// Start and end values rolled apart (model.md 7.7), the form Particle
// Designer and cocos2d use: a particle rolls a = start.at(u) and b =
// end.at(u') on two channels, clamps each at birth to the property's range,
// and its value at tau is lerp(a, b, tau). When enabled it replaces the
// property's curve.
struct Ramp {
  bool enabled = false;
  Range start, end;
};

// The largest magnitude of a colour ramp's component (a value beyond [0, 1]
// only matters through the roll: each is clamped to [0, 1] at birth).
inline constexpr double kMaxColorComponent = 1e3;

// The same for colour: each of r, g and b rolls its own start and end
// between two colours (sRGB, in [0, 1]), so a particle's channels vary
// independently.
struct ColorRamp {
  bool enabled = false;
  Rgb start_min, start_max, end_min, end_max;
};

// Radial and tangential acceleration (model.md 6.1): a_r outward from the
// particle's origin (the emitter's place at its birth) and a_t a quarter
// turn counter-clockwise from it, each rolled per particle. No closed form:
// each particle's own motion is integrated from its birth with a fixed step
// (semi-implicit Euler), so it is still a pure function of its age.
inline constexpr double kDefaultForceStepS = 1.0 / 60;
//
// Damping and orbit velocity (model.md 6.3, 6.4; Godot's particle process):
// damping takes a particle's speed down by d px/s every second, keeping its
// direction, until it stops; orbit velocity turns its offset from the
// origin about the origin at w degrees/s on top of its own motion. Each is
// closed form alone (damping without acceleration or drag; orbit velocity
// with acceleration but no drag or damping) and integrated with the step
// above otherwise.
struct Forces {
  Range radial{0, 0}, tangential{0, 0};  // px/s^2
  Range linear{0, 0};                    // px/s^2 along the velocity
  Range damping{0, 0};                   // px/s^2, >= 0
  Range orbit_velocity{0, 0};            // degrees/s, counter-clockwise positive
  double step_s = kDefaultForceStepS;
  // Factors over life (tau) of the radial, tangential and linear
  // accelerations (model.md 6.1, `acceleration_curves`); unset: 1.
  enum CurveOf { kRadialCurve, kTangentialCurve, kLinearCurve, kAccelerationCurves };
  std::array<Curve, kAccelerationCurves> curves{};
  std::array<bool, kAccelerationCurves> curved{};
  bool any_curve() const { return curved[0] || curved[1] || curved[2]; }
  static bool nonzero(const Range& r) { return r.min != 0 || r.max != 0; }
  // Radial, tangential or linear acceleration: integrated whatever else is set.
  bool enabled() const { return nonzero(radial) || nonzero(tangential) || nonzero(linear); }
  bool has_damping() const { return nonzero(damping); }
  bool has_orbit_velocity() const { return nonzero(orbit_velocity); }
  bool any() const { return enabled() || has_damping() || has_orbit_velocity(); }
};

// Orbit motion (model.md 6.2, cocos2d's radius mode): the particle circles
// its origin at radius lerp(R0, R1, tau), at angle theta0 + omega age, with
// theta0 the launch direction (direction and spread). It replaces the
// ballistic motion: speed, acceleration and drag do not apply.
struct Orbit {
  bool enabled = false;
  Range radius{0, 0};
  bool has_radius_end = false;  // false: R1 = R0 (the same roll)
  Range radius_end{0, 0};
  Range angular_speed_deg_per_s{0, 0};  // counter-clockwise positive
};

// A program an emitter runs (model.md 11, docs/programs.md): compiled when
// the effect loads, with its uniforms' values.
// What the effect binds a program's sampler2D uniform to (docs/programs.md,
// "Textures"): one of the emitter's curves or gradients, an image file, or
// nothing (the sampler reads its fallback colour).
struct SamplerBinding {
  enum class Kind : uint8_t { kNone, kCurve, kGradient, kImage };
  Kind kind = Kind::kNone;
  uint32_t index = 0;   // the curve or gradient (EmitterProgram::curves, gradients)
  std::string written;  // as the effect writes it: the name or the file's path
  std::shared_ptr<const ProgramImage> image;
};

struct EmitterProgram {
  std::shared_ptr<const Program> program;
  // By the program's uniform index (Program::uniforms); empty: its default.
  std::vector<std::vector<double>> uniforms;
  // By the program's sampler index (Program::samplers).
  std::vector<SamplerBinding> samplers;
  // The emitter's `curves` and `gradients`, read by curve(NAME, x) and
  // gradient(NAME, x), by the index the program compiled them to.
  std::vector<std::string> curve_names, gradient_names;
  std::vector<Curve> curves;
  std::vector<ColorCurve> gradients;
  std::string source;  // the program's text
  std::string file;    // the file as the effect names it; empty when inline
  // Set: the program is a Godot particle shader (the emitter's `godot`
  // table; docs/programs.md, "Godot particle shaders").
  std::optional<GodotDialect> godot;
  SourceLoc loc;  // the `program` key
  // Whether the program owns `v` (some function writes it): then the
  // built-in model no longer sets it.
  bool owns(ProgramVar v) const { return program && program->writes(v); }
  // Whether the program owns every property the built-in model computes at
  // the clock asked for: then only the particle's life is needed there.
  bool owns_all() const {
    return owns(ProgramVar::kPosition) && owns(ProgramVar::kVelocity) && owns(ProgramVar::kColor) &&
           owns(ProgramVar::kSize) && owns(ProgramVar::kRotation);
  }
  // Whether the particle's state at birth is needed: start() or process()
  // runs, or a property the program owns starts from it.
  bool needs_birth() const {
    return program &&
           (program->has(Stage::kStart) || program->has(Stage::kProcess) ||
            owns(ProgramVar::kPosition) || owns(ProgramVar::kVelocity) ||
            owns(ProgramVar::kColor) || owns(ProgramVar::kSize) || owns(ProgramVar::kRotation));
  }
};

struct Emitter {
  std::string name;
  uint32_t index = 0;  // 0-based position in the file, disabled emitters included
  bool enabled = true;
  Vec2 position;  // design px from the canvas centre, y up
  // A moving emitter (model.md 9.1): the path's offset is added to position.
  // World space: a particle starts at the emitter's place at its birth and
  // then moves on its own; local space: particles ride along with the path.
  // inherit_velocity adds that factor of the path's velocity at birth to v0.
  Path path;
  SourceLoc path_loc;
  Space space = Space::kWorld;
  double inherit_velocity = 0;
  double rate_per_s = 10;  // the rate, or the animated rate's largest key
  // An animated rate (model.md 9.2): keyframes [t, r] over the effect clock;
  // empty when `rate` is a number.
  RateCurve rate_curve;
  SourceLoc rate_loc;
  uint32_t max_particles = 1000;
  Range lifetime_s{1, 1};
  Range speed_px_per_s{50, 50};
  double direction_deg = 90;
  double spread_deg = 0;
  Vec2 acceleration;  // px/s^2, y up
  double drag_per_s = 0;
  Range rotation_deg{0, 0};
  Range rotation_speed_deg_per_s{0, 0};
  // rotation_end (model.md 7.4): when set, the rotation goes from the
  // `rotation` roll to this one over the particle's life (plus the spin).
  bool has_rotation_end = false;
  Range rotation_end_deg{0, 0};
  Forces forces;
  Orbit orbit;
  Orientation orientation = Orientation::kFacing;
  Curve size_px = Curve::constant(8);
  Curve transparency = Curve::constant(0);
  Curve squash = Curve::constant(0);
  // A per-particle turn of the colour's hue (model.md 7.6; Godot's
  // hue_variation), in turns, rolled on channel 36; [0, 0] is none.
  Range hue_variation{0, 0};
  // Envelope rolls of size, transparency and squash (model.md 7.2): one per
  // curve (false), or one per keypoint (Roblox's NumberSequence envelopes).
  bool envelope_per_key = false;
  ColorCurve color = ColorCurve::constant({1, 1, 1});
  // The start/end forms of size, transparency and colour (when enabled,
  // they replace the curves above).
  Ramp size_ramp, transparency_ramp;
  ColorRamp color_ramp;
  double brightness = 1;
  double light_emission = 0;
  double light_influence = 0;
  int64_t z_offset = 0;
  DrawOrder draw_order = DrawOrder::kOldestFirst;
  uint64_t slots = 0;     // by_slot: the number of slots (model.md 8); 0: max_particles
  TextureRef texture;     // builtin:soft unless the file names one
  SourceLoc texture_loc;  // where the texture was named, for errors
  TextureFilter filter = TextureFilter::kTrilinear;
  Flipbook flipbook;
  Shape shape;
  std::vector<BurstGroup> bursts;
  Trail trail;
  Turbulence turbulence;
  SubEmitter sub;
  // Derived at load, for emit_subparticle() (model.md 11.8): the most
  // children of one particle alive at once (its on = "program"
  // sub-emitter's count; 0 when it has none, and every call returns false),
  // the child's longest life that says which are, and the most a particle
  // may emit in its life (the sub-emitter's key spacing).
  uint32_t emit_limit = 0;
  double emit_window_s = 0;
  uint64_t emit_total = 0;
  // Colliders and the response to them (model.md 9.7); none by default.
  Collision collision;
  SourceLoc collision_loc;
  // A program (model.md 11); null when the emitter runs none.
  std::shared_ptr<const EmitterProgram> program;
  bool is_sub() const { return sub.parent >= 0; }
  // The largest size a particle can have, whichever form size takes.
  double max_size_px() const {
    return size_ramp.enabled ? std::max({size_ramp.start.min, size_ramp.start.max,
                                         size_ramp.end.min, size_ramp.end.max, 0.0})
                             : size_px.max_value();
  }

  // Derived at load.
  uint32_t seed = 0;                // s_e
  Vec2 direction{0, 1};             // unit vector of direction_deg
  bool color_has_envelope = false;  // whether the colour curve varies per particle
  bool blend_srgb = false;          // the canvas blends in sRGB values (Canvas::blend)
  double stream_rate_per_s = 0;     // after the Little's-law clamp (and loop rounding)
  uint64_t loop_keys = 0;           // N = r T for a seamless loop (0 otherwise)
  // A cycling loop (model.md 4.5): the burst firings of one period, and how
  // many periods take new burst indices before they come round again.
  uint64_t period_firings = 0;
  uint64_t period_index_wrap = 1;
  double loop_period_s = 0;  // the effect's duration when it cycles, else 0
};

// Whether a particle's motion is integrated step by step from its birth
// (model.md 6.1, 6.3, 6.4) rather than solved in closed form.
inline bool integrated_motion(const Emitter& em) {
  const Forces& f = em.forces;
  if (f.enabled()) return true;
  const bool accel = em.acceleration.x != 0 || em.acceleration.y != 0;
  const bool drag = em.drag_per_s != 0;
  if (f.has_damping() && (accel || drag || f.has_orbit_velocity())) return true;
  return f.has_orbit_velocity() && drag;
}

struct Canvas {
  int width = 256, height = 256;
  Rgba background_srgb{0, 0, 0, 0};  // straight sRGB
  Rgb ambient_srgb{1, 1, 1};
  Tonemap tonemap = Tonemap::kWhite;
  AlphaMode alpha = AlphaMode::kStraight;
  BlendSpace blend = BlendSpace::kLinear;
  // Motion blur (docs/rendering.md): each frame is the mean of `blur_samples`
  // evaluations spread evenly over `shutter` frame intervals centred on the
  // frame's time. 1 sample is no blur.
  int blur_samples = 1;
  double shutter = 0.5;  // frame intervals, in [0, 1]
};

// What `spritz check` compares (issue: golden images).
struct CheckSpec {
  std::vector<double> times;  // empty = the documented default; labels distinct
  double threshold = -1;      // < 0 = command-line default
  int64_t max_diff_pixels = -1;
  double max_diff_ratio = -1;
  int max_channel_diff = -1;  // < 0 = no channel gate unless the command line sets one
  SourceLoc times_loc;        // where `times` is written (line 0: not written)
};

struct Effect {
  std::string name;
  uint32_t seed = 0;
  double duration_s = 2;
  double fps = 30;
  bool loop = false;
  // With loop: whether the loop is seamless (model.md 4.4: keys repeat every
  // period, shown in its steady state) or, false, cycles as a game engine
  // runs a looping emitter (4.5: the emission repeats, its particles are new
  // each period, and the effect starts empty at clock 0).
  bool seamless = true;
  double start_s = 0;
  double time_scale = 1;
  Canvas canvas;
  std::vector<Emitter> emitters;  // file order
  CheckSpec check;

  // Loads and renders, but surely not as meant (an emitter that never emits
  // or is fully transparent); the command line prints these, file:line:col.
  std::vector<Diagnostic> warnings;
  std::string source_path;  // as given ("-" for stdin)
  // Files the effect was made from besides its own and its texture paths:
  // an imported effect's texture file (its texture path is the import's
  // PNG, supplied from memory), a program file. `preview` watches them.
  std::vector<std::string> source_files;
  SourceLoc effect_loc;       // the [effect] table (line 0: the file has none)
  uint64_t content_hash = 0;  // of the source text and every override
  // Enabled emitters in draw order: ascending z_offset, ties in file order.
  std::vector<uint32_t> draw_order;
};

// Whether an emitter of `fx` draws its trail as a ribbon (whose segments
// read neighbouring particles by slot, so its frames hold every particle).
inline bool draws_ribbons(const Effect& fx) {
  return std::any_of(fx.emitters.begin(), fx.emitters.end(),
                     [](const Emitter& em) { return em.trail.draws_ribbon(); });
}

}  // namespace spritz
