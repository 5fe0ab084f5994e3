#include "spritz/raster/sheet.h"

#include <algorithm>
#include <cstring>

namespace spritz {

int SheetLayout::sheet_width() const {
  return power_of_two ? next_power_of_two(grid_width()) : grid_width();
}
int SheetLayout::sheet_height() const {
  return power_of_two ? next_power_of_two(grid_height()) : grid_height();
}

SheetBuilder::SheetBuilder(const SheetLayout& layout)
    : layout_(layout), cells_(static_cast<size_t>(layout.cols * layout.rows)) {}

void SheetBuilder::place(int index, const std::vector<uint8_t>& rgba) {
  cells_[static_cast<size_t>(index)] = rgba;
}

std::vector<uint8_t> SheetBuilder::finish() const {
  const SheetLayout& L = layout_;
  const int sw = L.sheet_width(), sh = L.sheet_height();
  const size_t bpp = static_cast<size_t>(L.bytes_per_pixel);
  std::vector<uint8_t> sheet(static_cast<size_t>(sw) * static_cast<size_t>(sh) * bpp, 0);
  const int stride_x = L.cell_w + L.padding, stride_y = L.cell_h + L.padding;
  // Each pixel of the padded grid belongs to the nearest cell: cell c spans
  // [cell_x(c), cell_x(c) + w) and owns half of the gap on each side.
  auto owner = [](int p, int pad, int stride, int n) {
    const int o = (p - pad / 2) / stride;  // p - pad/2 >= 0 is not guaranteed for pad odd at 0
    return std::clamp(p - pad / 2 < 0 ? 0 : o, 0, n - 1);
  };
  for (int y = 0; y < L.grid_height(); ++y) {
    const int row = owner(y, L.padding, stride_y, L.rows);
    const int cy = std::clamp(y - (L.padding + row * stride_y), 0, L.cell_h - 1);
    for (int x = 0; x < L.grid_width(); ++x) {
      const int col = owner(x, L.padding, stride_x, L.cols);
      const std::vector<uint8_t>& cell = cells_[static_cast<size_t>(row * L.cols + col)];
      if (cell.empty()) continue;
      const int cx = std::clamp(x - (L.padding + col * stride_x), 0, L.cell_w - 1);
      std::memcpy(
          &sheet[(static_cast<size_t>(y) * static_cast<size_t>(sw) + static_cast<size_t>(x)) * bpp],
          &cell[(static_cast<size_t>(cy) * static_cast<size_t>(L.cell_w) +
                 static_cast<size_t>(cx)) *
                bpp],
          bpp);
    }
  }
  return sheet;
}

}  // namespace spritz
