#include "spritz/raster/png.h"

#include <libdeflate.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string_view>

#include "png_chunks.h"
#include "spritz/error.h"

// Defined by stb_image_write (stb_impl.cpp) but not declared in its header.
extern "C" unsigned char* stbi_write_png_to_mem(const unsigned char* pixels, int stride_bytes,
                                                int x, int y, int n, int* out_len);

namespace {
constexpr int kFastLevel = 1;  // encode_png16's level in the fast mode
constexpr int kSmallLevel = 9;

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

int mode_level(spritz::PngMode mode) {
  return mode == spritz::PngMode::kFast ? kFastLevel : kSmallLevel;
}

// A libdeflate compressor at `level`, one per thread and level.
libdeflate_compressor* compressor_at(int level) {
  thread_local std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressors[13];
  auto& c = compressors[level];
  if (!c) c.reset(libdeflate_alloc_compressor(level));
  return c.get();
}

// A zlib stream of `data` at `level`, in a buffer from malloc.
unsigned char* zlib_compress_at(int level, const unsigned char* data, size_t data_len,
                                size_t* out_len) {
  libdeflate_compressor* compressor = compressor_at(level);
  if (!compressor) return nullptr;
  const size_t bound = libdeflate_zlib_compress_bound(compressor, data_len);
  auto* out = static_cast<unsigned char*>(std::malloc(bound));
  if (!out) return nullptr;
  const size_t n = libdeflate_zlib_compress(compressor, data, data_len, out, bound);
  if (n == 0) {
    std::free(out);
    return nullptr;
  }
  *out_len = n;
  return out;
}
}  // namespace

// stb_image_write's zlib hook, used by encode_png_adaptive only: libdeflate
// at level 9 is several times faster than stb's own deflate and compresses
// better. The buffer is released with STBIW_FREE (free), so it is
// allocated with malloc.
unsigned char* spritz_zlib_compress(unsigned char* data, int data_len, int* out_len, int) {
  size_t n = 0;
  unsigned char* out = zlib_compress_at(kSmallLevel, data, static_cast<size_t>(data_len), &n);
  *out_len = static_cast<int>(n);  // under stb's int-sized input
  return out;
}

unsigned int spritz_crc32(unsigned char* buffer, int len) {
  return libdeflate_crc32(0, buffer, static_cast<size_t>(len));
}

namespace spritz {

using png_chunks::get_be32;
using png_chunks::put_be32;

std::vector<uint8_t> encode_png_adaptive(const uint8_t* rgba, int width, int height,
                                         const std::vector<PngText>& texts) {
  int len = 0;
  unsigned char* png = nullptr;
  png = stbi_write_png_to_mem(rgba, width * 4, width, height, 4, &len);
  if (!png) throw Error("PNG encoding failed (out of memory?)");
  std::vector<uint8_t> out(png, png + len);
  std::free(png);
  // Signature (8) + IHDR (4 + 4 + 13 + 4): tEXt chunks go right after.
  constexpr size_t kAfterIhdr = 33;
  std::vector<uint8_t> chunks;
  for (const PngText& t : texts) png_chunks::put_text_chunk(chunks, t);
  out.insert(out.begin() + kAfterIhdr, chunks.begin(), chunks.end());
  return out;
}

// A 16-bit RGBA PNG (colour type 6, bit depth 16): rows filtered with Paeth
// on bytes 8 apart (one pixel), compressed with libdeflate at the mode's
// level; samples big-endian, as PNG stores them.
std::vector<uint8_t> encode_png16(const uint16_t* rgba, int width, int height,
                                  const std::vector<PngText>& texts, PngMode mode) {
  const size_t w = static_cast<size_t>(width), row = w * 8;
  std::vector<uint8_t> raw((row + 1) * static_cast<size_t>(height));
  std::vector<uint8_t> prev(row, 0), cur(row);
  for (int y = 0; y < height; ++y) {
    const uint16_t* src = rgba + static_cast<size_t>(y) * w * 4;
    for (size_t i = 0; i < w * 4; ++i) {
      cur[2 * i] = static_cast<uint8_t>(src[i] >> 8);
      cur[2 * i + 1] = static_cast<uint8_t>(src[i] & 0xff);
    }
    uint8_t* out = &raw[static_cast<size_t>(y) * (row + 1)];
    out[0] = 4;  // Paeth
    for (size_t i = 0; i < row; ++i) {
      const int a = i >= 8 ? cur[i - 8] : 0, b = prev[i], c = i >= 8 ? prev[i - 8] : 0;
      const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      const int pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      out[1 + i] = static_cast<uint8_t>(cur[i] - pred);
    }
    prev.swap(cur);
  }
  size_t zlen = 0;
  unsigned char* z = zlib_compress_at(mode_level(mode), raw.data(), raw.size(), &zlen);
  if (!z) throw Error("PNG encoding failed (out of memory?)");
  std::vector<uint8_t> png = png_chunks::head(width, height, 16, texts);
  // IDAT chunks of at most 1 GiB (a chunk's length is under 2^31).
  constexpr size_t kMaxIdat = size_t{1} << 30;
  for (size_t at = 0; at < zlen; at += kMaxIdat)
    png_chunks::put_chunk(png, "IDAT", z + at, std::min(kMaxIdat, zlen - at));
  std::free(z);
  png_chunks::put_chunk(png, "IEND", nullptr, 0);
  return png;
}

std::vector<uint8_t> encode_hdr(const Image& img) {
  std::vector<float> rgb(static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 3);
  for (size_t i = 0, j = 0; j < rgb.size(); i += 4, j += 3)
    for (size_t c = 0; c < 3; ++c) rgb[j + c] = std::max(0.0f, img.rgba[i + c]);
  std::vector<uint8_t> out;
  auto append = [](void* ctx, void* data, int size) {
    auto* v = static_cast<std::vector<uint8_t>*>(ctx);
    v->insert(v->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
  };
  if (!stbi_write_hdr_to_func(append, &out, img.width, img.height, 3, rgb.data()))
    throw Error("HDR encoding failed");
  return out;
}

std::string png_decode_failure(const std::vector<uint8_t>& bytes) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() < 8 || !std::equal(kSignature, kSignature + 8, bytes.begin()))
    return "not a PNG file (spritz reads PNG images only)";
  // stb's reasons are terse ("outofdata"), and some truncations set none.
  const char* reason = stbi_failure_reason();
  return reason && *reason ? "corrupt or truncated PNG (stb_image: " + printable(reason) + ")"
                           : "corrupt or truncated PNG";
}

bool png_declared_size(const std::vector<uint8_t>& bytes, uint32_t* width, uint32_t* height) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  // The signature, then IHDR: length 13, "IHDR", width, height (big-endian).
  if (bytes.size() < 8 + 8 + 8 || !std::equal(kSignature, kSignature + 8, bytes.begin()) ||
      get_be32(&bytes[8]) != 13 || std::memcmp(&bytes[12], "IHDR", 4) != 0)
    return false;
  *width = get_be32(&bytes[16]);
  *height = get_be32(&bytes[20]);
  return true;
}

namespace {

// A chunk type for a message: four letters, or their escapes.
std::string chunk_type(const uint8_t* p) {
  return printable(std::string(reinterpret_cast<const char*>(p), 4));
}

// Calls f(offset, length, type) for every chunk from IHDR to IEND, after
// checking that it lies inside the file.
template <typename F>
void for_each_chunk(const std::vector<uint8_t>& bytes, F f) {
  size_t at = 8;
  for (int index = 1;; ++index) {
    if (bytes.size() - at < 12) {
      if (at == bytes.size()) return;  // no IEND: stb decides whether the data is whole
      throw Error("corrupt PNG: " + std::to_string(bytes.size() - at) + " stray bytes at byte " +
                  std::to_string(at) + " where chunk " + std::to_string(index) +
                  " should start (truncated file?)");
    }
    const uint64_t len = get_be32(&bytes[at]);
    if (len > bytes.size() - at - 12)
      throw Error("corrupt PNG: chunk " + std::to_string(index) + " (" +
                  chunk_type(&bytes[at + 4]) + ") at byte " + std::to_string(at) + " claims " +
                  std::to_string(len) + " bytes, but only " +
                  std::to_string(bytes.size() - at - 12) + " remain (truncated file?)");
    f(at, static_cast<size_t>(len), &bytes[at + 4]);
    if (std::memcmp(&bytes[at + 4], "IEND", 4) == 0) return;
    at += 12 + static_cast<size_t>(len);
  }
}

}  // namespace

PngLayout check_png(const std::vector<uint8_t>& bytes) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() < 8 || !std::equal(kSignature, kSignature + 8, bytes.begin()))
    throw Error("not a PNG file (spritz reads PNG images only)");
  if (bytes.size() < 8 + 12 + 13 || get_be32(&bytes[8]) != 13 ||
      std::memcmp(&bytes[12], "IHDR", 4) != 0)
    throw Error("corrupt PNG: it does not start with a 13-byte IHDR chunk");
  PngLayout layout;
  layout.width = get_be32(&bytes[16]);
  layout.height = get_be32(&bytes[20]);
  if (layout.width == 0 || layout.height == 0)
    throw Error("corrupt PNG: IHDR declares a " + std::to_string(layout.width) + "x" +
                std::to_string(layout.height) + " image");
  for_each_chunk(bytes, [&](size_t, size_t len, const uint8_t* type) {
    if (len == 0 && std::memcmp(type, "IDAT", 4) == 0) layout.empty_idat = true;
  });
  return layout;
}

std::vector<uint8_t> without_empty_idat(const std::vector<uint8_t>& bytes) {
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + 8);
  out.reserve(bytes.size());
  size_t end = 8;
  for_each_chunk(bytes, [&](size_t at, size_t len, const uint8_t* type) {
    end = at + 12 + len;
    if (len == 0 && std::memcmp(type, "IDAT", 4) == 0) return;
    out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(at),
               bytes.begin() + static_cast<ptrdiff_t>(end));
  });
  out.insert(out.end(), bytes.begin() + static_cast<ptrdiff_t>(end), bytes.end());
  return out;
}

PngLayout check_png_size(const std::vector<uint8_t>& bytes, const std::string& what, int max_side) {
  PngLayout layout;
  try {
    layout = check_png(bytes);
  } catch (const Error& e) {
    throw Error("cannot decode " + what + ": " + e.what());
  }
  if (layout.width > static_cast<uint32_t>(max_side) ||
      layout.height > static_cast<uint32_t>(max_side))
    throw Error(what + " is " + std::to_string(layout.width) + "x" + std::to_string(layout.height) +
                ", larger than the limit of " + std::to_string(max_side) + " per side");
  return layout;
}

DecodedPng decode_png(const std::vector<uint8_t>& bytes, const std::string& name) {
  DecodedPng d;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error(name + ": file too large");
  const PngLayout layout = check_png_size(bytes, name, kMaxDecodeSide);
  const std::vector<uint8_t> cleaned =
      layout.empty_idat ? without_empty_idat(bytes) : std::vector<uint8_t>();
  const std::vector<uint8_t>& in = layout.empty_idat ? cleaned : bytes;
  int comp = 0;
  unsigned char* px =
      stbi_load_from_memory(in.data(), static_cast<int>(in.size()), &d.width, &d.height, &comp, 4);
  if (!px) throw Error("cannot decode " + name + ": " + png_decode_failure(bytes));
  d.rgba.assign(px, px + static_cast<size_t>(d.width) * static_cast<size_t>(d.height) * 4);
  stbi_image_free(px);
  // Walk the chunks for tEXt.
  for (size_t at = 8; at + 12 <= bytes.size();) {
    const uint32_t len = get_be32(&bytes[at]);
    if (at + 12 + len > bytes.size()) break;
    if (std::memcmp(&bytes[at + 4], "tEXt", 4) == 0) {
      const char* data = reinterpret_cast<const char*>(&bytes[at + 8]);
      const size_t nul = std::string_view(data, len).find('\0');
      if (nul != std::string_view::npos)
        d.texts.push_back({std::string(data, nul), std::string(data + nul + 1, len - nul - 1)});
    }
    at += 12 + len;
  }
  return d;
}

ProgramImage decode_program_image(const std::vector<uint8_t>& bytes, const std::string& name) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error(name + ": file too large");
  const PngLayout layout = check_png_size(bytes, name, kMaxProgramImageSide);
  const std::vector<uint8_t> cleaned =
      layout.empty_idat ? without_empty_idat(bytes) : std::vector<uint8_t>();
  const std::vector<uint8_t>& in = layout.empty_idat ? cleaned : bytes;
  const bool sixteen = bytes.size() > 24 && bytes[24] == 16;  // IHDR's bit depth
  ProgramImage img;
  int comp = 0;
  const int size = static_cast<int>(in.size());
  if (sixteen) {
    stbi_us* px = stbi_load_16_from_memory(in.data(), size, &img.width, &img.height, &comp, 4);
    if (!px) throw Error("cannot decode " + name + ": " + png_decode_failure(bytes));
    img.rgba.assign(px, px + static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 4);
    stbi_image_free(px);
  } else {
    unsigned char* px = stbi_load_from_memory(in.data(), size, &img.width, &img.height, &comp, 4);
    if (!px) throw Error("cannot decode " + name + ": " + png_decode_failure(bytes));
    const size_t n = static_cast<size_t>(img.width) * static_cast<size_t>(img.height) * 4;
    img.rgba.resize(n);
    for (size_t i = 0; i < n; ++i) img.rgba[i] = static_cast<uint16_t>(px[i] * 257u);
    stbi_image_free(px);
  }
  return img;
}

}  // namespace spritz
