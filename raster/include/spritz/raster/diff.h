// Image comparison for `spritz diff` and `spritz check`: the pixelmatch
// convention (a perceptual threshold on the YIQ difference of colours
// composited over a background, so alpha counts and invisible colour does
// not; spritz composites over white and over black and takes the larger), with
// optional anti-aliasing detection.
#pragma once

#include <cstdint>
#include <vector>

namespace spritz {

struct DiffOptions {
  double threshold = 0.1;            // 0..1; pixelmatch's default
  bool detect_antialiasing = false;  // ignore pixels that look like AA edges
  bool want_image = false;           // fill DiffResult::image
};

struct DiffResult {
  uint64_t different = 0;    // pixels over the threshold
  uint64_t antialiased = 0;  // pixels over it but classified as AA (not counted)
  uint64_t total = 0;
  int max_channel_diff = 0;        // largest |a - b| over every channel, 0..255
  double psnr_db = 0;              // over RGBA; +inf when identical
  int worst_x = -1, worst_y = -1;  // the pixel with the largest YIQ difference
  double worst_delta = 0;          // its difference, as a fraction of the maximum
  std::vector<uint8_t> image;      // RGBA8: red = different, yellow = AA, faded grey A elsewhere
  // Within the limits? An unset limit (< 0) does not constrain; both pixel
  // limits unset means no differing pixel is allowed (Playwright's
  // convention). max_channel, when set, is a further gate on the largest
  // channel difference (0..255) that holds whatever the pixel limits say:
  // 0 makes the comparison exact.
  bool within(int64_t max_pixels, double max_ratio, int max_channel = -1) const {
    if (max_channel >= 0 && max_channel_diff > max_channel) return false;
    if (max_pixels < 0 && max_ratio < 0) return different == 0;
    return (max_pixels < 0 || different <= static_cast<uint64_t>(max_pixels)) &&
           (max_ratio < 0 || ratio() <= max_ratio);
  }
  double ratio() const {
    return total ? static_cast<double>(different) / static_cast<double>(total) : 0;
  }
};

// a and b are RGBA8 of the same width x height.
DiffResult diff_images(const uint8_t* a, const uint8_t* b, int width, int height,
                       const DiffOptions& options);

}  // namespace spritz
