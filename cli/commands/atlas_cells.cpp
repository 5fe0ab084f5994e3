// The cells' times of a sheet (atlas_parts.h).
#include <cmath>
#include <string>

#include "commands/atlas_parts.h"
#include "frames.h"
#include "spritz/error.h"
#include "spritz/eval.h"

namespace spritz {

CellSchedule schedule_cells(const AtlasArgs& args, const std::vector<Effect>& effects,
                            const SheetLayout& layout) {
  const Effect& fx = effects.front();
  const int cols = layout.cols, rows = layout.rows;
  const size_t capacity = static_cast<size_t>(cols) * static_cast<size_t>(rows);
  const double fps = args.fps ? *args.fps : fx.fps;
  if (!(fps > 0) || fps > 10000) throw Error("--fps must be within (0, 10000]");
  CellSchedule s;
  std::vector<Cell>& cells = s.cells;
  Cell& after = s.after;  // the frame one step after the last cell, for the seam figure
  double& frame_s = s.frame_s;
  if (effects.size() > 1 || !args.seeds.empty()) {
    if (effects.size() > capacity)
      throw Error(std::to_string(effects.size()) + " seeds do not fit a " + std::to_string(cols) +
                  "x" + std::to_string(rows) + " grid of " + std::to_string(capacity) + " cells");
    const double t = args.time ? *args.time : fx.duration_s / 2;
    if (!std::isfinite(t) || std::abs(t) > kMaxTimeS)
      throw Error("--time must be finite, within ±1e9 s");
    for (size_t e = 0; e < effects.size(); ++e)
      cells.push_back({effects[e].seed, t, clock_at_time(effects[e], t), e});
    after = cells.front();
    frame_s = 1 / fps;
  } else if (!args.frames.empty()) {
    const FrameList list = parse_frames(args.frames);
    if (list.size() > capacity)
      throw Error(std::to_string(list.size()) + " frames do not fit a " + std::to_string(cols) +
                  "x" + std::to_string(rows) + " grid of " + std::to_string(capacity) + " cells");
    check_frame_times(list, fps);
    for (uint64_t i = 0; i < list.size(); ++i) {
      const int64_t f = list.at(i);
      cells.push_back({f, static_cast<double>(f) / fps, clock_at_frame(fx, f, fps)});
    }
    const int64_t step = list.size() >= 2 ? list.at(list.size() - 1) - list.at(list.size() - 2) : 1;
    const int64_t next = list.at(list.size() - 1) + step;
    after = {next, static_cast<double>(next) / fps, clock_at_frame(fx, next, fps)};
    frame_s = 1 / fps;
  } else {
    const double span = fx.duration_s > 0 ? fx.duration_s : 1.0;
    frame_s = span / static_cast<double>(capacity);
    for (size_t i = 0; i <= capacity; ++i) {
      const double t = span * static_cast<double>(i) / static_cast<double>(capacity);
      const Cell c{static_cast<int64_t>(i), t, clock_at_time(fx, t)};
      if (i < capacity)
        cells.push_back(c);
      else
        after = c;
    }
  }
  return s;
}

}  // namespace spritz
