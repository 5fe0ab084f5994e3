// The TOML front-end's vocabulary: the keys each table may hold (the public
// interface of the file format, docs/config.md) and the loader's limits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace spritz::toml_load {

inline constexpr int kMaxCanvasSide = 16384;
// Motion blur samples per frame: each one is a whole evaluation and raster pass.
inline constexpr int kMaxBlurSamples = 256;
// Keyframes in an emitter's path.
inline constexpr size_t kMaxPathKeys = 4096;
// max_particles: what the keys' arithmetic allows (a burst particle's key
// 2 (b P + j) + 1 stays below 2^63 while the emitter's firings times P are
// at most 2^61, which read_bursts checks). How many of them a frame can
// draw is the memory budget's and the work limit's to say, at the frame.
inline constexpr int64_t kMaxParticlesLimit = 1'000'000'000;
// Children per parent event (sub.count).
inline constexpr int64_t kMaxSubCount = 10'000'000;
inline constexpr double kMaxFps = 10000;
inline constexpr const char* kSetPrefix = "--set ";

using Keys = std::vector<std::string_view>;

inline const Keys kRootKeys = {"effect", "canvas", "emitter", "check"};
inline const Keys kEffectKeys = {"name", "seed",     "duration", "fps",
                                 "loop", "seamless", "start",    "time_scale"};
inline const Keys kCanvasKeys = {"size",  "background",  "ambient", "tonemap",
                                 "alpha", "motion_blur", "blend"};
inline const Keys kMotionBlurKeys = {"samples", "shutter"};
inline const Keys kEmitterKeys = {"name",
                                  "enabled",
                                  "position",
                                  "rate",
                                  "max_particles",
                                  "lifetime",
                                  "speed",
                                  "direction",
                                  "spread",
                                  "acceleration",
                                  "drag",
                                  "rotation",
                                  "rotation_speed",
                                  "rotation_end",
                                  "radial_acceleration",
                                  "tangential_acceleration",
                                  "linear_acceleration",
                                  "acceleration_curves",
                                  "damping",
                                  "orbit_velocity",
                                  "integration",
                                  "orbit",
                                  "orientation",
                                  "size",
                                  "transparency",
                                  "squash",
                                  "envelope_rolls",
                                  "hue_variation",
                                  "color",
                                  "brightness",
                                  "light_emission",
                                  "light_influence",
                                  "z_offset",
                                  "draw_order",
                                  "slots",
                                  "texture",
                                  "filter",
                                  "flipbook",
                                  "shape",
                                  "bursts",
                                  "trail",
                                  "turbulence",
                                  "path",
                                  "path_interpolation",
                                  "space",
                                  "inherit_velocity",
                                  "sub",
                                  "collision",
                                  "colliders",
                                  "program",
                                  "uniforms",
                                  "curves",
                                  "gradients",
                                  "godot"};
inline const Keys kGodotKeys = {"amount", "speed_scale", "to_canvas", "offset",
                                "emission_transform"};
inline const Keys kRampKeys = {"start", "end"};
inline const Keys kIntegrationKeys = {"step"};
inline const Keys kAccelerationCurveKeys = {"radial", "tangential", "linear"};
inline const Keys kOrbitKeys = {"radius", "radius_end", "angular_speed"};
// The shortest step radial and tangential forces may take, and the most
// steps a particle's life may need (each evaluation walks them all).
inline constexpr double kMinForceStepS = 1e-4;
inline constexpr double kMaxForceSteps = 1e6;
inline const Keys kSubKeys = {"parent", "on", "count"};
inline const Keys kCollisionKeys = {"response", "restitution", "friction", "max_bounces",
                                    "rest_speed"};
inline const Keys kColliderKeys = {"kind", "point", "normal", "center", "radius", "size", "side"};
inline const Keys kTrailKeys = {"count", "length", "fade", "scale", "style"};
inline const Keys kTurbulenceKeys = {"amplitude", "frequency", "speed", "phase"};
inline const Keys kFlipbookKeys = {"layout", "mode", "fps", "cycles", "random_start"};
inline const Keys kShapeKeys = {"kind",  "size",   "style",   "in_out",  "inner",
                                "along", "points", "normals", "rotation"};
// The most points a "points" shape may list.
inline constexpr size_t kMaxShapePoints = 65536;
inline const Keys kBurstKeys = {"time", "count", "repeat", "interval"};
inline const Keys kCheckKeys = {"times", "threshold", "max_diff_pixels", "max_diff_ratio",
                                "max_channel_diff"};

// The longest lists an effect may hold where nothing else bounds them: check
// times (each a rendered frame) and burst tables (each scanned every frame).
inline constexpr size_t kMaxCheckTimes = 10000;
inline constexpr size_t kMaxBurstTables = 10000;
// A lifetime, like every time, stays within 1e9 s, and a flipbook plays at
// most 1e6 cells a second: age times rate then stays far inside 64-bit
// integers where evaluation counts windows with it.
inline constexpr double kMaxLifetimeS = 1e9;
inline constexpr double kMaxFlipbookFps = 1e6;
// The most problems (and, apart, warnings) reported for one file; the rest
// are counted in one last line.
inline constexpr size_t kMaxDiagnostics = 100;

// Effect keys nest a few tables deep (emitter.shape.kind); this allows far
// more, and far less than the depth at which toml++ 3.3 overflows the stack.
inline constexpr int kMaxKeyParts = 64;

}  // namespace spritz::toml_load
