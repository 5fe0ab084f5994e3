// `spritz validate`: effect files loaded and checked, every problem and
// warning printed (docs/cli.md, "spritz validate").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

struct ValidateArgs {
  std::vector<std::string> effects;
  std::vector<std::string> sets;
  std::string from;
  bool json = false;
  bool quiet = false;
};

Command add_validate_command(CLI::App& app, RunOptions& run);
int run_validate(const ValidateArgs& args, const RunSettings& settings);

}  // namespace spritz
