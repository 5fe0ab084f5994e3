// `spritz inspect`: the particles of an effect at one time, as a table or
// JSON (docs/cli.md, "spritz inspect").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

struct InspectArgs {
  EffectArgs effect;
  double time = 0;
  bool json = false;
  bool stats = false;
};

Command add_inspect_command(CLI::App& app, RunOptions& run);
int run_inspect(const InspectArgs& args, const RunSettings& settings);

}  // namespace spritz
