// What one run of spritz is set to: read once, in main, from the command's
// options and the environment, checked there, and handed down to the
// command as one value. Nothing below main reads the environment or a
// process-wide variable for any of these (docs/cli.md names the SPRITZ_*
// variables).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "spritz/effect.h"
#include "spritz/import/import.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

namespace spritz {

// The most particle samples one frame may take by default (SPRITZ_WORK_LIMIT).
inline constexpr uint64_t kDefaultWorkLimit = 100'000'000;
inline constexpr const char* kWorkLimitHint =
    "lower the motion-blur samples, trail counts or rates, or raise the limit with "
    "SPRITZ_WORK_LIMIT=N";

struct RunSettings {
  // The sprite kernel every renderer of the run uses (SPRITZ_SIMD: reference,
  // portable, avx2, avx512; default the fastest this CPU runs). Every kernel
  // writes the same bytes.
  DrawPath kernel = default_draw_path();
  // The memory the run's particles may take (SPRITZ_MEMORY_MB; default half
  // of the machine's physical memory). A frame whose particles could need
  // more is refused before it is drawn.
  uint64_t memory_budget = default_memory_budget();
  // The most particle samples one frame may evaluate and draw
  // (SPRITZ_WORK_LIMIT): FrameRenderer::set_work_limit.
  uint64_t work_limit = kDefaultWorkLimit;
  // What textures may take (SPRITZ_TEXTURE_MEMORY_MB, default 2048 MB), with
  // the hint that names the variable.
  TextureLimits texture_limits;
  // How PNG files are compressed (--png).
  PngMode png_mode = PngMode::kFast;
  // Where imported effects' textures are looked for (--texture-dir,
  // --texture-map, the map's text read once).
  ImportOptions import_search;
  // SPRITZ_MODULE_DIR: a folder searched first for spritz's modules (io/module.h).
  std::string module_dir;
  // GITHUB_ACTIONS=true: `check` also writes its failures as ::error annotations.
  bool github_actions = false;
  // BROWSER: what `preview --open` starts (else xdg-open).
  std::string browser;
};

// Which settings a command uses: only those are read from the environment,
// so a bad value stops only the commands it concerns (a bad SPRITZ_SIMD
// does not stop `validate`).
struct SettingsUse {
  bool kernel = false, memory = false, work = false, textures = false;
};

// The settings of this run: `use`'s from the environment (each checked;
// throws spritz::Error naming the variable), the PNG mode and texture
// search from the command's options (the map file read here).
RunSettings read_run_settings(const SettingsUse& use, PngMode png_mode,
                              const std::vector<std::string>& texture_dirs,
                              const std::string& texture_map);

// The sprite kernel SPRITZ_SIMD names, else default_draw_path(); throws
// spritz::Error for an unknown name or a kernel this CPU cannot run.
DrawPath kernel_from_environment();

// A renderer of `fx` set up as every command's renderers are: the run's
// kernel, PNG mode and work limit, and the particle limit of
// `frames_in_flight` frames drawn at once within the run's memory budget.
// The one place a command's FrameRenderer is made (render, atlas and its
// loop seam, check, preview, motion vectors).
std::unique_ptr<FrameRenderer> make_renderer(const Effect& fx, int width, int height, int threads,
                                             const View& view, TextureSet textures,
                                             const RunSettings& settings, int frames_in_flight = 1);

// A Frame's particle limit for `frames_in_flight` frames of `fx` drawn at
// once within the run's memory budget (for commands that evaluate without a
// renderer: inspect, atlas --fit).
uint64_t frame_particle_limit(const Effect& fx, const RunSettings& settings,
                              int frames_in_flight = 1);

}  // namespace spritz
