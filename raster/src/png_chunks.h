// PNG's container (the PNG specification, section 5): big-endian lengths,
// chunks of a length, a type, data and a CRC-32 of type and data, and the
// tEXt chunk. Shared by both encoders (png.cpp, png_writer.cpp) and the
// readers that check a file's chunks before decoding it.
#pragma once

#include <libdeflate.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "spritz/raster/png.h"

namespace spritz::png_chunks {

inline constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

inline void put_be32(std::vector<uint8_t>& v, uint32_t x) {
  v.push_back(static_cast<uint8_t>(x >> 24));
  v.push_back(static_cast<uint8_t>(x >> 16));
  v.push_back(static_cast<uint8_t>(x >> 8));
  v.push_back(static_cast<uint8_t>(x));
}

inline uint32_t get_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Appends a chunk of `type` (four letters) with `size` bytes of data at `data`.
inline void put_chunk(std::vector<uint8_t>& png, const char* type, const uint8_t* data,
                      size_t size) {
  put_be32(png, static_cast<uint32_t>(size));
  const size_t at = png.size();
  png.insert(png.end(), type, type + 4);
  if (size) png.insert(png.end(), data, data + size);
  put_be32(png, static_cast<uint32_t>(libdeflate_crc32(0, png.data() + at, size + 4)));
}

// Appends a tEXt chunk: the keyword, a zero byte, the text.
inline void put_text_chunk(std::vector<uint8_t>& png, const PngText& t) {
  std::vector<uint8_t> data(t.keyword.begin(), t.keyword.end());
  data.push_back(0);
  data.insert(data.end(), t.text.begin(), t.text.end());
  put_chunk(png, "tEXt", data.data(), data.size());
}

// The signature and an IHDR chunk for a width x height RGBA image of `bits`
// per channel (deflate, adaptive filters, no interlace), then `texts`.
inline std::vector<uint8_t> head(int width, int height, uint8_t bits,
                                 const std::vector<PngText>& texts) {
  std::vector<uint8_t> png(kSignature, kSignature + 8);
  std::vector<uint8_t> ihdr;
  put_be32(ihdr, static_cast<uint32_t>(width));
  put_be32(ihdr, static_cast<uint32_t>(height));
  ihdr.insert(ihdr.end(), {bits, 6, 0, 0, 0});
  put_chunk(png, "IHDR", ihdr.data(), ihdr.size());
  for (const PngText& t : texts) put_text_chunk(png, t);
  return png;
}

}  // namespace spritz::png_chunks
