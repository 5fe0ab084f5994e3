// Internal to the rasterizer: the 8-bit encoder's tables and its AVX2 path
// (encode.cpp, encode_avx2.cpp). Both paths compute the same IEEE single
// precision operations in the same order per pixel, so the same bytes
// (tests/raster/encode_test.cpp runs each against a one-pixel reference).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "spritz/effect.h"
#include "spritz/raster/image.h"

namespace spritz::detail {

// The encoder's tables, built once (encode_tables()).
struct EncodeTables {
  // threshold[k] = the linear value halfway (in sRGB) between codes k and k+1:
  // the 8-bit code of x is the number of thresholds <= x. [255] = +inf.
  std::array<float, 256> threshold{};
  // start[i] = the code of i / kGrid. x * kGrid is exact (a power of two) and
  // no grid cell holds more than one threshold (the steepest step, near
  // black, is 2.5 cells wide; checked when built), so the code of x is
  // start[i] plus one step: the same answer as a binary search over the
  // thresholds.
  static constexpr int kGrid = 8192;
  std::array<uint8_t, kGrid + 1> start{};
  // sRGB-encoded value on a 1/kSteps grid, for premultiplied output's
  // linear interpolation.
  static constexpr int kSteps = 4096;
  std::array<float, kSteps + 1> srgb{};

  EncodeTables();
};
const EncodeTables& encode_tables();

// Whether this CPU runs the AVX2 path (x86-64 with AVX2; never elsewhere).
bool encode_avx2_available();

// Pixels [0, count) of one row, count a multiple of 8, from src (RGBA
// floats) to dst (RGBA8), eight at a time. Only where encode_avx2_available().
void encode_row_avx2(const EncodeTables& t, Tonemap tonemap, AlphaMode alpha, const float* src,
                     uint8_t* dst, size_t count);

// encode_rgba8 with the path chosen: `avx2` only where available. For tests.
void encode_rgba8_rows(const Image& img, Tonemap tonemap, AlphaMode alpha, uint8_t* out,
                       int row_begin, int row_end, bool avx2);

}  // namespace spritz::detail
