// `spritz diff`: two PNG images compared with pixelmatch's YIQ threshold
// (docs/cli.md, "spritz diff").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

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

Command add_diff_command(CLI::App& app, RunOptions& run);
int run_diff(const DiffArgs& args);

}  // namespace spritz
