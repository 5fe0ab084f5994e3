// The frame buffer: linear light, premultiplied RGBA, 32-bit float per channel.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "spritz/system/memory.h"

namespace spritz {

// Frame buffers and sprite slots: a frame's floats are all written by the
// strips that draw it (each strip clears its own rows to the background
// first), so zero-filling the buffer on one thread first, and taking all
// its page faults there, is not done (it was a large share of a single
// frame's time: docs/performance.md). The strips touch their pages first, in
// parallel, in blocks populated for writing (on 2 MiB pages from 1 MiB up,
// WrittenBlocks). With arguments (resize(n, 0.0f)) elements are
// constructed as std::vector would.
template <typename T>
using FrameAllocator = UnwrittenAllocator<T, WrittenBlocks>;

struct Image {
  int width = 0, height = 0;
  // The frame row held first: 0 for a whole frame; a strip of a frame
  // drawn without the rest (Rasterizer::render_strips) holds rows
  // [y0, y0 + height), and row(y) takes the frame's row numbers.
  int y0 = 0;
  // Row-major, top row first, 4 floats per pixel.
  std::vector<float, FrameAllocator<float>> rgba;

  // New floats are 0 (as std::vector::resize).
  void resize(int w, int h) {
    width = w;
    height = h;
    y0 = 0;
    rgba.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4, 0.0f);
  }
  // New floats are left unspecified: for a writer that writes every one
  // (the Rasterizer clears each strip to the background itself).
  void resize_for_overwrite(int w, int h) {
    width = w;
    height = h;
    y0 = 0;
    rgba.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  }
  // Rows [first, first + h) of a frame `w` wide, left unspecified.
  void resize_rows_for_overwrite(int w, int first, int h) {
    resize_for_overwrite(w, h);
    y0 = first;
  }
  float* row(int y) {
    return rgba.data() + static_cast<size_t>(y - y0) * static_cast<size_t>(width) * 4;
  }
  const float* row(int y) const {
    return rgba.data() + static_cast<size_t>(y - y0) * static_cast<size_t>(width) * 4;
  }
};

// Rows [first, first + n) of `whole` copied into `rows`, which becomes that
// strip of it (an Image owns its floats, so a strip handed on is a copy).
inline void copy_rows(const Image& whole, int first, int n, Image& rows) {
  rows.resize_rows_for_overwrite(whole.width, first, n);
  const float* from = whole.row(first);
  std::copy(from, from + static_cast<size_t>(n) * static_cast<size_t>(whole.width) * 4,
            rows.rgba.begin());
}

}  // namespace spritz
