// Flipbook sheets: cells laid out left to right, top to bottom, with padding
// whose pixels extrude each cell's edge so bilinear sampling in an engine
// never mixes neighbouring cells.
#pragma once

#include <cstdint>
#include <vector>

namespace spritz {

struct SheetLayout {
  int cols = 1, rows = 1;
  int cell_w = 0, cell_h = 0;
  int padding = 0;  // pixels between cells and around the sheet's edge
  bool power_of_two = false;
  int bytes_per_pixel = 4;  // 4 for RGBA8, 8 for RGBA16 (cells and sheet alike)

  // Size of the cell grid with padding, before power-of-two rounding.
  int grid_width() const { return cols * cell_w + (cols + 1) * padding; }
  int grid_height() const { return rows * cell_h + (rows + 1) * padding; }
  int sheet_width() const;
  int sheet_height() const;
  // Top-left pixel of cell `index` (0-based).
  int cell_x(int index) const { return padding + (index % cols) * (cell_w + padding); }
  int cell_y(int index) const { return padding + (index / cols) * (cell_h + padding); }
};

class SheetBuilder {
 public:
  explicit SheetBuilder(const SheetLayout& layout);

  // Places an RGBA8 cell image (cell_w x cell_h) at `index`.
  void place(int index, const std::vector<uint8_t>& rgba);

  // The sheet: cells, padding extruded from the nearest cell of the grid
  // (cells never placed stay transparent), power-of-two margin transparent.
  std::vector<uint8_t> finish() const;

  const SheetLayout& layout() const { return layout_; }

 private:
  SheetLayout layout_;
  std::vector<std::vector<uint8_t>> cells_;
};

inline int next_power_of_two(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

}  // namespace spritz
