// The importer's textures: base64, gzip or zlib, PNG or TIFF, to straight
// RGBA8, with caps on every size a hostile file could inflate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/error.h"

namespace spritz::import_detail {

struct Rgba8Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;  // straight alpha, rows top to bottom
};

// Decodes base64 (whitespace ignored); throws at `at` for any other byte or
// a bad length.
std::vector<uint8_t> decode_base64(std::string_view text, const SourceLoc& at);

// gzip or zlib data inflated (at most kMaxInflatedBytes; the message says
// the cap), or the bytes as they are when they already are a PNG or TIFF.
std::vector<uint8_t> inflate_texture(const std::vector<uint8_t>& bytes, const SourceLoc& at);

// A PNG or TIFF (by its signature) to straight RGBA8, at most
// kMaxImportTextureSide per side. `what` names it in messages.
Rgba8Image decode_image(const std::vector<uint8_t>& bytes, const std::string& what,
                        const SourceLoc& at);

}  // namespace spritz::import_detail
