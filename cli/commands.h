// The subcommands. main.cpp parses arguments into these structs; each run_*
// returns the process exit code (cli.md) and lets spritz::Error escape for
// main to print.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "motion_vectors.h"
#include "spritz/effect.h"
#include "spritz/import/import.h"
#include "spritz/raster/frame.h"

namespace spritz {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDifferent = 1;
inline constexpr int kExitError = 2;
inline constexpr int kExitSizeMismatch = 3;

// How the effect is chosen and modified: shared by every command that loads one.
struct EffectArgs {
  std::string effect;  // path, "-" for stdin, empty for the bundled default
  std::optional<int64_t> seed;
  std::vector<std::string> sets;
  std::string
      from;  // --from: toml, cocos2d, pex, godot or roblox; empty: detected from the content
};

// Loads the effect named by `args` (overrides validated with the file).
// A .plist or .pex effect is imported first (docs/import.md): the very TOML
// `spritz import` writes, its texture supplied from memory.
Effect load_effect_arg(const EffectArgs& args);
Effect load_effect_path(const std::string& path, const std::vector<std::string>& overrides = {},
                        const std::string& from = "");
// The format of effect text: `from` (--from) when given, else told by the
// content (detect_effect_format).
EffectFormat effect_format(const std::string& from, std::string_view text, const std::string& name);
// Forgets this run's imports, so the next load imports again even where
// the source text is unchanged: for `preview`, whose reload may be for a
// changed texture file beside the source.
void forget_imports();
// The bytes of the file at `path` when it is a regular file (an imported
// effect's texture beside it), recorded as an input of this run.
std::optional<std::vector<uint8_t>> read_beside(const std::string& path);
// Prints an effect's warnings to stderr, "file:line:col: warning: message".
void print_warnings(const std::vector<Diagnostic>& warnings);

// The sprite kernel every renderer of this run uses: the one the environment
// variable SPRITZ_SIMD names (reference, portable, avx2, avx512), else the
// fastest this CPU runs. Throws spritz::Error for an unknown name or a
// kernel this CPU cannot run. Every kernel writes the same bytes.
DrawPath sprite_kernel();

// The memory this run's particles may take, in bytes: SPRITZ_MEMORY_MB
// megabytes when set (a whole number, 1 or more; anything else is an error),
// else half of this machine's physical memory. A frame whose particles could
// need more is refused before it is drawn (docs/cli.md).
uint64_t memory_budget();

// The most particle samples one frame may take (SPRITZ_WORK_LIMIT, default
// kDefaultWorkLimit): FrameRenderer::set_work_limit.
inline constexpr uint64_t kDefaultWorkLimit = 100'000'000;
inline constexpr const char* kWorkLimitHint =
    "lower the motion-blur samples, trail counts or rates, or raise the limit with "
    "SPRITZ_WORK_LIMIT=N";
uint64_t work_limit();

// What textures may take (SPRITZ_TEXTURE_MEMORY_MB, default 2048), with the
// hint that names the variable.
const TextureLimits& texture_limits();

// The bundled default effect's text and name (compiled into the binary).
const std::string& default_effect_text();
inline constexpr const char* kDefaultEffectName = "configs/campfire.toml (built in)";

// `--pass`: which light a frame draws (docs/rendering.md "Light passes").
inline LightPass light_pass_from(const std::string& name) {
  return name == "alpha"      ? LightPass::kAlpha
         : name == "emissive" ? LightPass::kEmissive
                              : LightPass::kAll;
}

struct RenderArgs {
  EffectArgs effect;
  std::string frames;
  std::optional<double> fps;
  std::vector<double> times;  // from parse_times: each finite, within ±kMaxTimeS
  std::string output;         // empty: out/<name>_####.png
  std::string size;           // "WxH"
  std::optional<double> scale;
  int threads = 0;  // 0: all cores
  std::optional<int64_t> chunk_index, chunk_count;
  std::string seeds;           // "A-B": one render per seed, {seed} in the output pattern
  bool skip_existing = false;  // leave frames whose file exists (resumable batches)
  int depth = 8;               // PNG bits per channel: 8 or 16
  std::string pass = "all";    // the light drawn: all, alpha or emissive
  MotionArgs motion;           // --motion-vectors PATTERN: one map per frame
  bool json = false;
  bool quiet = false;
};

struct InspectArgs {
  EffectArgs effect;
  double time = 0;
  bool json = false;
  bool stats = false;
};

struct ValidateArgs {
  std::vector<std::string> effects;
  std::vector<std::string> sets;
  std::string from;
  bool json = false;
  bool quiet = false;
};

struct DiffArgs {
  std::string a, b;
  std::string output;  // diff image, optional
  double threshold = 0.1;
  bool antialiasing = false;
  std::optional<int64_t> max_diff_pixels;  // unset: see cli.md (Playwright's rules)
  std::optional<double> max_diff_ratio;
  std::optional<int> max_channel_diff;  // unset: no channel gate
  bool json = false;
  bool quiet = false;
};

struct CheckArgs {
  std::vector<std::string> effects;
  std::string from;
  std::string golden;
  std::string out;  // where failures write actual and diff images; empty: a new temporary folder
  bool update = false;
  std::optional<double> threshold;
  std::optional<int64_t> max_diff_pixels;
  std::optional<double> max_diff_ratio;
  std::optional<int> max_channel_diff;
  bool antialiasing = false;
  int threads = 0;
  std::string junit;           // JUnit XML report, written atomically; empty: none
  std::string report;          // HTML report folder (index.html, img/); empty: none
  bool fail_on_stale = false;  // a golden no check time uses fails the run
  bool json = false;
  bool quiet = false;
};

struct AtlasArgs {
  EffectArgs effect;
  std::string output = "sheet.png";
  std::string meta;                  // default: the output's name with .json
  std::string meta_format = "hash";  // "hash" | "array" | "aseprite"
  int depth = 8;                     // the sheet's bits per channel: 8 or 16
  std::string pass = "all";          // the light drawn: all, alpha or emissive
  std::string grid;                  // "CxR" (default 4x4)
  std::string cell;                  // "WxH" (default: the canvas size)
  std::string sheet;                 // "WxH": a fixed sheet size the grid divides
  std::string preset;                // "roblox-2x2" | "roblox-4x4" | "roblox-8x8"
  std::string frames;                // frame list at --fps instead of an even spread
  std::optional<double> fps;
  int padding = 0;
  bool pot = false;
  bool fit = false;
  bool premultiplied = false;
  std::string direction = "forward";  // "forward" | "pingpong" (frameTags)
  std::string seeds;                  // contact sheet: one cell per seed at --time
  std::optional<double> time;         // with --seeds (default: half the duration)
  std::optional<double> max_seam;
  MotionArgs motion;  // --motion-vectors and its options
  int threads = 0;
  bool json = false;
  bool quiet = false;
};

struct PreviewArgs {
  EffectArgs effect;
  int port = 0;  // 0: a free port
  bool open = false;
  int threads = 0;
  bool quiet = false;
};

int run_render(const RenderArgs& args);
int run_preview(const PreviewArgs& args);
int run_atlas(const AtlasArgs& args);
int run_diff(const DiffArgs& args);
int run_check(const CheckArgs& args);
int run_inspect(const InspectArgs& args);
int run_validate(const ValidateArgs& args);

// spritz import (docs/import.md).
struct ImportArgs {
  std::string effect;
  std::string output;  // the TOML; empty: <stem>.toml in the working directory; "-": stdout
  std::string from;
  std::string size;  // "WxH"; empty: fitted
  std::optional<double> position_x, position_y;
  bool y_down = false, y_up = false;
  double step = 1.0 / 60;
  double px_per_stud = 0;
  std::string view = "front";
  int emit_count = 16;
  bool json = false;
};
int run_import(const ImportArgs& args);
// Where imported effects' textures are looked for (--texture-dir,
// --texture-map), for every command that loads one. Reads the map.
void set_import_search(const std::vector<std::string>& dirs, const std::string& map_path);
// The ImportOptions those give (the rest defaults).
ImportOptions import_search_options();

// The clock values `spritz check` renders: [check] times, or by default the
// middles of the duration's thirds (duration/6, duration/2, 5 duration/6).
std::vector<double> check_times(const Effect& fx);

// Threads to use: `requested`, or every core when 0.
int thread_count(int requested);

// How a run's threads are spent: `workers` frames in flight at once, each
// drawn with `raster_threads` strip threads. A sequence keeps one frame per
// thread in flight (a frame's encoding then overlaps other frames' drawing,
// and nothing waits on a strip barrier); a single frame, or frames too large
// to hold one per thread within 1 GiB (pixels, and up to `max_particles`
// particles with their sprites), is split into strips instead. The output is
// the same bytes either way.
struct FramePlan {
  int workers = 1, raster_threads = 1;
};
// With motion blur each frame in flight also holds one sample's float image.
// `bytes_each` is what one particle may take (bytes_per_particle).
FramePlan plan_frames(int threads, uint64_t frames, int width, int height, uint64_t max_particles,
                      bool motion_blur = false, size_t bytes_each = kBytesPerParticle);

// Parses "WxH" (each side 1..16384); throws spritz::Error.
void parse_size(const std::string& text, int* width, int* height);

}  // namespace spritz
