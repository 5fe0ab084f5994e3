// `spritz atlas`: an effect baked into a flipbook sheet PNG with its JSON
// metadata, loop-seam check and motion vectors (docs/cli.md, "spritz atlas").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

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

Command add_atlas_command(CLI::App& app, RunOptions& run);
int run_atlas(const AtlasArgs& args, const RunSettings& settings);

}  // namespace spritz
