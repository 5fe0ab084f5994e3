// `spritz render`: frames of an effect to PNG, 16-bit PNG, HDR or EXR
// files, or raw RGBA on stdout (docs/cli.md, "spritz render").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "command.h"

namespace spritz {

struct RenderArgs {
  EffectArgs effect;
  std::string frames;
  std::optional<double> fps;
  std::vector<std::string> time_args;  // --time as given, split and checked into `times`
  std::vector<double> times;           // from parse_times: each finite, within ±kMaxTimeS
  std::string output;                  // empty: out/<name>_####.png
  std::string size;                    // "WxH"
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

Command add_render_command(CLI::App& app, RunOptions& run);
int run_render(const RenderArgs& args, const RunSettings& settings);

}  // namespace spritz
