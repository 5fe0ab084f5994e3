// The sheet's layout from atlas's options (atlas_parts.h).
#include <cstdint>
#include <string>

#include "commands/atlas_parts.h"
#include "frames.h"
#include "spritz/error.h"

namespace spritz {

SheetLayout atlas_layout(const AtlasArgs& args, const Effect& fx) {
  int cols = 4, rows = 4;
  std::string grid = args.grid, sheet = args.sheet;
  if (!args.preset.empty()) {
    if (args.preset != "roblox-2x2" && args.preset != "roblox-4x4" && args.preset != "roblox-8x8")
      throw Error("--preset must be roblox-2x2, roblox-4x4 or roblox-8x8, got '" + args.preset +
                  "'");
    if (!grid.empty() || !sheet.empty() || !args.cell.empty())
      throw Error("--preset sets the grid and the sheet size; drop --grid, --sheet and --cell");
    grid = args.preset.substr(7);
    sheet = "1024x1024";
  }
  if (!grid.empty()) parse_pair(grid, "--grid", 256, &cols, &rows);
  if (args.padding < 0 || args.padding > 1024) throw Error("--padding must be within [0, 1024]");
  int cell_w = fx.canvas.width, cell_h = fx.canvas.height;
  if (!sheet.empty()) {
    if (!args.cell.empty()) throw Error("use either --sheet or --cell, not both");
    int sw, sh;
    parse_pair(sheet, "--sheet", kMaxSheetSide, &sw, &sh);
    const int free_w = sw - (cols + 1) * args.padding, free_h = sh - (rows + 1) * args.padding;
    if (free_w < cols || free_h < rows || free_w % cols || free_h % rows)
      throw Error("a " + std::to_string(cols) + "x" + std::to_string(rows) + " grid with padding " +
                  std::to_string(args.padding) + " does not divide a " + sheet +
                  " sheet into whole cells");
    cell_w = free_w / cols;
    cell_h = free_h / rows;
  } else if (!args.cell.empty()) {
    parse_pair(args.cell, "--cell", kMaxSheetSide, &cell_w, &cell_h);
  }
  SheetLayout layout;
  layout.cols = cols;
  layout.rows = rows;
  layout.cell_w = cell_w;
  layout.cell_h = cell_h;
  layout.padding = args.padding;
  layout.power_of_two = args.pot;
  layout.bytes_per_pixel = args.depth == 16 ? 8 : 4;
  if (static_cast<int64_t>(layout.grid_width()) > kMaxSheetSide ||
      static_cast<int64_t>(layout.grid_height()) > kMaxSheetSide ||
      layout.sheet_width() > kMaxSheetSide || layout.sheet_height() > kMaxSheetSide) {
    throw Error("the sheet would be " + std::to_string(layout.sheet_width()) + "x" +
                std::to_string(layout.sheet_height()) + ", over the limit of " +
                std::to_string(kMaxSheetSide) + " per side; use a smaller --cell or --grid");
  }
  return layout;
}

}  // namespace spritz
