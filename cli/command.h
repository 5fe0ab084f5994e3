// What every command shares: the options several commands take,
// and the shape of a command as main() dispatches it. A command lives in
// cli/commands/<name>.h and .cpp: its arguments, a function that adds it
// to the parser, and the function that runs it (README, "Layout").
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "effect_files.h"
#include "exit_codes.h"
#include "motion_vectors.h"
#include "run_settings.h"
#include "spritz/raster/raster.h"

namespace spritz {

// The options that make the run's settings rather than one command's
// arguments (run_settings.h): main reads them after parsing.
struct RunOptions {
  std::string png = "fast";               // --png
  std::vector<std::string> texture_dirs;  // --texture-dir
  std::string texture_map;                // --texture-map
};

// A command added to the parser: its CLI11 subcommand, the settings it
// uses, and what runs it once the arguments are parsed (which may throw
// spritz::Error; main prints it and exits 2).
struct Command {
  CLI::App* app = nullptr;
  SettingsUse use;
  std::function<int(const RunSettings&)> run;
};

// --from, --texture-dir and --texture-map.
void add_from_option(CLI::App* cmd, std::string& from, RunOptions& run);
// --seed, --set and add_from_option's: what load_effect takes.
void add_effect_options(CLI::App* cmd, EffectArgs& effect, RunOptions& run);
// --png.
void add_png_option(CLI::App* cmd, RunOptions& run, const char* help);
// --motion-vectors and its options (docs/cli.md, "Motion vectors"); the
// sheet's (`atlas`) add --mv-fit and --mv-check.
void add_motion_options(CLI::App* cmd, MotionArgs& m, bool atlas);

// `--pass`: which light a frame draws (docs/rendering.md "Light passes").
inline LightPass light_pass_from(const std::string& name) {
  return name == "alpha"      ? LightPass::kAlpha
         : name == "emissive" ? LightPass::kEmissive
                              : LightPass::kAll;
}

}  // namespace spritz
