// `spritz check`: each effect rendered at its check times and compared with
// golden images; JUnit and HTML reports (docs/cli.md, "spritz check").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

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

Command add_check_command(CLI::App& app, RunOptions& run);
int run_check(const CheckArgs& args, const RunSettings& settings);

// The clock values `spritz check` renders: [check] times, or by default the
// middles of the duration's thirds (duration/6, duration/2, 5 duration/6).
std::vector<double> check_times(const Effect& fx);

}  // namespace spritz
