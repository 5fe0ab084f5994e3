// PNG encoders to compare with spritz's: stb_image_write with its own
// deflate (what spritz would be without libdeflate), and libpng at
// compression level 6 (the usual size reference).
#pragma once

#include <cstdint>
#include <vector>

namespace spritz::bench {

// spritz's fast mode before its own encoder: stb, Paeth rows, libdeflate 1.
std::vector<uint8_t> previous_fast_png(const uint8_t* rgba, int width, int height);
std::vector<uint8_t> stb_default_png(const uint8_t* rgba, int width, int height);
bool libpng_available();
std::vector<uint8_t> libpng_png(const uint8_t* rgba, int width, int height, int level);

}  // namespace spritz::bench
