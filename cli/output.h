// What spritz writes beside the pixels: PNG metadata and shared formatting.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spritz/effect.h"
#include "spritz/raster/png.h"
#include "spritz/version.h"

namespace spritz {

// The tEXt chunks of a rendered frame: `Software` and `spritz` (a JSON object
// with version, effect, effect_hash, seed, frame, time, clock, width, height),
// enough to reproduce the frame from the file alone.
std::vector<PngText> frame_png_texts(const Effect& fx, int64_t frame, double time, double clock,
                                     int width, int height);

}  // namespace spritz
