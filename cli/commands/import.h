// `spritz import`: a Particle Designer / cocos2d, Starling, Godot or Roblox
// effect translated to spritz TOML (docs/import.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

struct ImportArgs {
  std::string effect;
  std::string output;  // the TOML; empty: <stem>.toml in the working directory; "-": stdout
  std::string from;
  std::string size;  // "WxH"; empty: fitted
  std::optional<double> position_x, position_y;
  bool y_down = false, y_up = false;
  double step = 1.0 / 60;
  double px_per_stud = 0;
  std::string view;  // empty: the format's default
  int emit_count = 16;
  bool seamless = false;
  bool json = false;
};

Command add_import_command(CLI::App& app, RunOptions& run);
int run_import(const ImportArgs& args, const RunSettings& settings);

}  // namespace spritz
