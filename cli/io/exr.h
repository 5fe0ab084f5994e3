// OpenEXR frames (`-o frame_####.exr`): linear light for compositing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spritz/raster/image.h"

namespace spritz {

// The float frame as a scanline OpenEXR file in memory: half-float R, G, B,
// A, linear light with premultiplied (associated) alpha as EXR defines it:
// R, G, B are the light C and A the coverage of docs/rendering.md, before
// any tone map, values above 1 kept (half's largest finite value, 65504, at
// most), ZIP compressed.
// `module_dir` (SPRITZ_MODULE_DIR) is searched first for spritz-exr.so.
std::vector<uint8_t> encode_exr(const Image& img, const std::string& module_dir);

// Whether `path` is an OpenEXR file that OpenEXR reads as complete (every
// scanline block present), for --skip-existing.
bool exr_file_complete(const std::string& path, const std::string& module_dir);

}  // namespace spritz
