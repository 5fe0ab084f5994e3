#include "spritz/raster/sheet.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/raster.h"

using namespace spritz;

namespace {
std::vector<uint8_t> solid_cell(int w, int h, uint8_t v) {
  std::vector<uint8_t> c(static_cast<size_t>(w * h) * 4);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = &c[static_cast<size_t>(y * w + x) * 4];
      p[0] = v, p[1] = static_cast<uint8_t>(x), p[2] = static_cast<uint8_t>(y), p[3] = 255;
    }
  return c;
}
const uint8_t* px(const std::vector<uint8_t>& s, int sw, int x, int y) {
  return &s[static_cast<size_t>(y * sw + x) * 4];
}
}  // namespace

TEST_CASE("cells are placed left to right and top to bottom with extruded padding", "[atlas]") {
  SheetLayout L;
  L.cols = 3;
  L.rows = 2;
  L.cell_w = 4;
  L.cell_h = 3;
  L.padding = 2;
  CHECK(L.sheet_width() == 3 * 4 + 4 * 2);
  CHECK(L.sheet_height() == 2 * 3 + 3 * 2);
  CHECK(L.cell_x(4) == 2 + 1 * 6);
  CHECK(L.cell_y(4) == 2 + 1 * 5);
  SheetBuilder b(L);
  for (int i = 0; i < 6; ++i) b.place(i, solid_cell(4, 3, static_cast<uint8_t>(10 * (i + 1))));
  const auto s = b.finish();
  const int sw = L.sheet_width();
  // Inside cell 4 (column 1, row 1).
  CHECK(px(s, sw, L.cell_x(4) + 2, L.cell_y(4) + 1)[0] == 50);
  CHECK(px(s, sw, L.cell_x(4) + 2, L.cell_y(4) + 1)[1] == 2);
  // The gap between cells 0 and 1: left half extrudes cell 0's right edge,
  // right half cell 1's left edge.
  const int gap = L.cell_x(0) + 4;
  CHECK(px(s, sw, gap, 3)[0] == 10);
  CHECK(px(s, sw, gap, 3)[1] == 3);
  CHECK(px(s, sw, gap + 1, 3)[0] == 20);
  CHECK(px(s, sw, gap + 1, 3)[1] == 0);
  // The sheet's corner extrudes cell 0's corner, alpha included.
  CHECK(px(s, sw, 0, 0)[0] == 10);
  CHECK(px(s, sw, 0, 0)[3] == 255);
  L.power_of_two = true;
  CHECK(L.sheet_width() == 32);
  CHECK(L.sheet_height() == 16);
}

TEST_CASE("fit frames every particle of the bundled effects", "[atlas]") {
  namespace fs = std::filesystem;
  for (const auto& entry : fs::directory_iterator(fs::path(SPRITZ_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".toml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const Effect fx = load_effect(text, entry.path().string(), entry.path().parent_path().string());
    Bounds b;
    Frame f;
    for (int i = 0; i < 16; ++i) {
      evaluate(fx, clock_at_time(fx, fx.duration_s * i / 16), f);
      extend_bounds(f, b);
    }
    const View v = fit_view(b, fx.canvas, 128, 96, 1.0);
    const Bounds vis = visible_bounds(v, 128, 96);
    INFO(entry.path());
    REQUIRE_FALSE(b.empty);
    CHECK(vis.x0 <= b.x0);
    CHECK(vis.y0 <= b.y0);
    CHECK(vis.x1 >= b.x1);
    CHECK(vis.y1 >= b.y1);
    // And it is tight along one axis (within the 1 px margin).
    const double slack =
        std::min((vis.x1 - vis.x0) - (b.x1 - b.x0), (vis.y1 - vis.y0) - (b.y1 - b.y0));
    CHECK(slack * v.scale <= 2.0 + 1e-6);
  }
}

TEST_CASE("with padding 2 or more, a cell sampled bilinearly at any scale sees only itself",
          "[atlas]") {
  // Each cell one flat value; an engine draws cell i at scale s with
  // bilinear filtering, sampling the sheet at texel centres mapped back
  // (u = x0 + (j + 0.5) / s - 0.5), which reads one texel past the cell's
  // last one. That texel must be the cell's own extruded edge.
  for (int padding : {2, 3, 4}) {
    SheetLayout L;
    L.cols = 4;
    L.rows = 4;
    L.cell_w = 6;
    L.cell_h = 5;
    L.padding = padding;
    SheetBuilder b(L);
    for (int i = 0; i < 16; ++i) {
      std::vector<uint8_t> c(static_cast<size_t>(6 * 5) * 4, static_cast<uint8_t>(10 + 15 * i));
      b.place(i, c);
    }
    const std::vector<uint8_t> sheet = b.finish();
    const int sw = L.sheet_width(), sh = L.sheet_height();
    for (int i = 0; i < 16; ++i) {
      const double want = 10 + 15 * i;
      for (double s : {0.75, 1.0, 1.5, 2.0, 3.0}) {
        const int dw = static_cast<int>(std::ceil(6 * s)), dh = static_cast<int>(std::ceil(5 * s));
        for (int jy = 0; jy < dh; ++jy)
          for (int jx = 0; jx < dw; ++jx) {
            const double u = L.cell_x(i) + (jx + 0.5) / s - 0.5;
            const double v = L.cell_y(i) + (jy + 0.5) / s - 0.5;
            const int x0 = static_cast<int>(std::floor(u)), y0 = static_cast<int>(std::floor(v));
            const double fx = u - x0, fy = v - y0;
            double got = 0;
            for (int dy = 0; dy < 2; ++dy)
              for (int dx = 0; dx < 2; ++dx) {
                const int x = std::clamp(x0 + dx, 0, sw - 1), y = std::clamp(y0 + dy, 0, sh - 1);
                const double w = (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy);
                got += w * px(sheet, sw, x, y)[0];
              }
            INFO("padding " << padding << " cell " << i << " scale " << s);
            REQUIRE(got == Approx(want).margin(1e-9));
          }
      }
    }
  }
}
