// PNG encoding (stb_image_write's format, libdeflate as its deflate) with
// tEXt metadata, Radiance .hdr encoding, and PNG decoding for comparisons.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spritz/program.h"
#include "spritz/raster/image.h"

namespace spritz {

struct PngText {
  std::string keyword;  // 1..79 Latin-1 characters
  std::string text;
};

// How encode_png, encode_png16 and PngWriter trade speed for size; each
// call is given its mode (`--png` on the command line).
//  kFast:  spritz's own encoder (png_writer.h): Paeth rows, Huffman codes and
//          zero runs, no LZ77 search (default). 16-bit: libdeflate level 1.
//  kSmall: libdeflate level 9 with stb's per-row adaptive filter choice.
//          16-bit: libdeflate level 9.
enum class PngMode { kFast, kSmall };

// Encodes RGBA8 pixels as a PNG, with `texts` as tEXt chunks after IHDR, in
// `mode` (a PngWriter fed the whole image; png_writer.cpp).
std::vector<uint8_t> encode_png(const uint8_t* rgba, int width, int height,
                                const std::vector<PngText>& texts = {},
                                PngMode mode = PngMode::kFast);

// The PNG stb_image_write makes, with libdeflate at level 9 as its deflate
// and stb's per-row adaptive filters: what the small mode writes.
std::vector<uint8_t> encode_png_adaptive(const uint8_t* rgba, int width, int height,
                                         const std::vector<PngText>& texts = {});

// Encodes the premultiplied linear colour (over black, values above 1 kept)
// as a Radiance RGBE .hdr image.
std::vector<uint8_t> encode_hdr(const Image& img);

// A 16-bit-per-channel RGBA PNG of `rgba` (width * height * 4 samples), with
// the same tEXt chunks (`--depth 16`).
std::vector<uint8_t> encode_png16(const uint16_t* rgba, int width, int height,
                                  const std::vector<PngText>& texts = {},
                                  PngMode mode = PngMode::kFast);

struct DecodedPng {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
  std::vector<PngText> texts;
};

// Why stb_image could not decode `bytes`: "not a PNG file (...)" when they do
// not start with the PNG signature (stb's own "unknown image type" would not
// say that spritz reads PNG only), else "corrupt or truncated PNG" with stb's
// reason when it gave one.
// stb's reason is printable() (it can quote a chunk's type bytes, which a
// hostile file makes terminal escapes).
std::string png_decode_failure(const std::vector<uint8_t>& bytes);

// The size a PNG's IHDR chunk declares, read without decoding anything;
// false when the bytes do not start with the signature and an IHDR chunk.
bool png_declared_size(const std::vector<uint8_t>& bytes, uint32_t* width, uint32_t* height);

// What check_png found in a PNG's chunks, read without decoding anything.
struct PngLayout {
  uint32_t width = 0, height = 0;  // as IHDR declares them, both >= 1
  bool empty_idat = false;         // a zero-length IDAT chunk (legal, but see decode_png)
};

// Checks the chunk structure of PNG bytes before a decoder sees them: the
// signature, IHDR first with its 13 bytes and a size of at least 1x1, and
// every chunk up to IEND lying inside the file (a chunk claiming more bytes
// than remain is a truncated or forged file; a decoder would allocate what
// it claims). Throws spritz::Error with the reason, which the caller
// prefixes with what the bytes are.
PngLayout check_png(const std::vector<uint8_t>& bytes);

// check_png with the messages a reader of `what` ("texture fire.png") needs:
// "cannot decode WHAT: reason", and "WHAT is WxH, larger than the limit of
// MAX_SIDE per side".
PngLayout check_png_size(const std::vector<uint8_t>& bytes, const std::string& what, int max_side);

// The same bytes without their zero-length IDAT chunks: the image data is
// unchanged, and stb_image would copy from a null pointer for each of them
// (undefined behaviour).
std::vector<uint8_t> without_empty_idat(const std::vector<uint8_t>& bytes);

// Decodes PNG bytes to RGBA8 and collects their tEXt chunks. Throws
// spritz::Error naming `name` when they do not decode or are larger than
// kMaxDecodeSide per side. check_png runs first.
inline constexpr int kMaxDecodeSide = 16384;
DecodedPng decode_png(const std::vector<uint8_t>& bytes, const std::string& name);

// Decodes a PNG for a program's sampler2D (spritz/program.h's ProgramImage,
// docs/programs.md "Textures"): the values as stored, 16 bits a channel
// where the file has them, at most kMaxProgramImageSide per side. The
// decoder spritz's CLI gives LoadOptions::decode_image.
inline constexpr int kMaxProgramImageSide = 4096;
ProgramImage decode_program_image(const std::vector<uint8_t>& bytes, const std::string& name);

}  // namespace spritz
