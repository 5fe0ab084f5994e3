// The pieces of `spritz atlas` apart from drawing: the sheet's layout from
// the options (atlas_layout.cpp), the cells' times (atlas_cells.cpp) and
// the metadata engines read (atlas_meta.cpp). Each is checked before
// anything is drawn and throws spritz::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "commands/atlas.h"
#include "spritz/effect.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/sheet.h"

namespace spritz {

inline constexpr int kMaxSheetSide = 16384;

// The grid and cell size: a --preset, a fixed --sheet the grid divides, or
// a --cell size (default: the canvas of `fx`), with --padding and --pot.
SheetLayout atlas_layout(const AtlasArgs& args, const Effect& fx);

struct Cell {
  int64_t number;  // frame number, index in the spread, or seed
  double time, clock;
  size_t effect = 0;  // index into the effects list (one per seed)
};

// The cells in sheet order, the frame one step after the last (for the
// loop seam and the last cell's motion), and the time between cells.
struct CellSchedule {
  std::vector<Cell> cells;
  Cell after{0, 0, 0};
  double frame_s = 0;
};

// A cell per seed at --time (`effects` holds one effect per seed), or a
// --frames list at --fps, or one time per cell of `layout` spread evenly
// over the duration (one period of a looped effect, so the last cell flows
// into the first).
CellSchedule schedule_cells(const AtlasArgs& args, const std::vector<Effect>& effects,
                            const SheetLayout& layout);

// What the metadata says of a baked sheet.
struct AtlasMeta {
  const Effect* fx = nullptr;
  const SheetLayout* layout = nullptr;
  const CellSchedule* schedule = nullptr;
  std::string meta_path;  // where the JSON goes (the sheet is named relative to it)
  AlphaMode alpha = AlphaMode::kStraight;
  bool sweep = false;       // a contact sheet of --seeds
  int seam = 0;             // the loop seam (not for a sweep)
  std::string motion_json;  // meta.motionVectors, or empty
};

// The sheet's JSON: TexturePacker's hash or array form (which Phaser and
// PixiJS load directly) or Aseprite's own, with PixiJS's animations, a grid
// block for engines that only know grids, and spritz's own block.
std::string atlas_metadata(const AtlasArgs& args, const AtlasMeta& meta);

// A path as the metadata names it: relative to the JSON's folder, as
// TexturePacker's loaders resolve meta.image ("fire.png" beside it,
// "../sheets/fire.png" for --meta meta/fire.json -o sheets/fire.png).
std::string sheet_relative_to_meta(const std::string& sheet, const std::string& meta);

// Whole-millisecond durations for `n` cells of `frame_s` seconds, whose sum is
// the whole run (n frame_s) rounded to the millisecond: cell i lasts
// round((i + 1) P / n) - round(i P / n) ms of P (62 and 63 alternating for
// 16 cells of a second), so engines that take integers keep the period.
std::vector<int64_t> whole_ms_durations(double frame_s, size_t n);

}  // namespace spritz
