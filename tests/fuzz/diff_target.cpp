// Two PNGs -> `spritz diff`'s path: decode both, compare them with the
// pixelmatch rules (anti-aliasing detection on and off), encode the diff
// image. The input is the two files one after the other; the second starts
// at the second PNG signature (the whole input split in half if there is
// none), so `cat a.png b.png` is a seed.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "fuzz.h"
#include "spritz/error.h"
#include "spritz/raster/diff.h"
#include "spritz/raster/png.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spritz;
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  size_t split = size / 2;
  if (size > 16) {
    const uint8_t* at = std::search(data + 8, data + size, kSignature, kSignature + 8);
    if (at != data + size) split = static_cast<size_t>(at - data);
  }
  DecodedPng a, b;
  try {
    // Images over 512x512 pixels are skipped, so an execution stays quick
    // (a few kilobytes can declare a 16384x16384 image).
    for (const auto& [from, to] : {std::pair<size_t, size_t>{0, split}, {split, size}}) {
      const PngLayout layout = check_png(std::vector<uint8_t>(data + from, data + to));
      if (uint64_t{layout.width} * layout.height > 512 * 512) return 0;
    }
    a = decode_png(std::vector<uint8_t>(data, data + split), "a.png");
    b = decode_png(std::vector<uint8_t>(data + split, data + size), "b.png");
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return 0;
  }
  FUZZ_REQUIRE(a.rgba.size() == static_cast<size_t>(a.width) * static_cast<size_t>(a.height) * 4);
  FUZZ_REQUIRE(b.rgba.size() == static_cast<size_t>(b.width) * static_cast<size_t>(b.height) * 4);
  if (a.width != b.width || a.height != b.height) return 0;
  for (bool aa : {false, true}) {
    DiffOptions options;
    options.threshold = 0.1;
    options.detect_antialiasing = aa;
    options.want_image = true;
    const DiffResult r = diff_images(a.rgba.data(), b.rgba.data(), a.width, a.height, options);
    FUZZ_REQUIRE(r.different + r.antialiased <= r.total);
    FUZZ_REQUIRE(!std::isnan(r.psnr_db));
    FUZZ_REQUIRE(r.max_channel_diff >= 0 && r.max_channel_diff <= 255);
    FUZZ_REQUIRE(r.worst_x < a.width && r.worst_y < a.height);
    FUZZ_REQUIRE(r.image.size() == a.rgba.size());
    const std::vector<uint8_t> png = encode_png(r.image.data(), a.width, a.height);
    const DecodedPng back = decode_png(png, "diff.png");
    FUZZ_REQUIRE(back.rgba == r.image);
  }
  return 0;
}
