// The frame buffer: linear light, premultiplied RGBA, 32-bit float per channel.
#pragma once

#include <cstddef>
#include <vector>

namespace spritz {

struct Image {
  int width = 0, height = 0;
  std::vector<float> rgba;  // row-major, top row first, 4 floats per pixel

  void resize(int w, int h) {
    width = w;
    height = h;
    rgba.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  }
  float* row(int y) {
    return rgba.data() + static_cast<size_t>(y) * static_cast<size_t>(width) * 4;
  }
  const float* row(int y) const {
    return rgba.data() + static_cast<size_t>(y) * static_cast<size_t>(width) * 4;
  }
};

}  // namespace spritz
