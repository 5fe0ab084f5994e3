// The PNG encoder spritz's fast mode was before its own (up to 5391d38):
// stb_image_write with Paeth forced on every row and libdeflate level 1 as
// its zlib. Kept here, with a private stb, as the baseline the fast
// encoder's speed is measured against.
#include <libdeflate.h>

#include <cstdlib>

#include "png_peers.h"

namespace {
unsigned char* previous_zlib(unsigned char* data, int data_len, int* out_len, int) {
  thread_local libdeflate_compressor* c = libdeflate_alloc_compressor(1);
  const size_t bound = libdeflate_zlib_compress_bound(c, static_cast<size_t>(data_len));
  auto* out = static_cast<unsigned char*>(std::malloc(bound));
  *out_len = static_cast<int>(
      libdeflate_zlib_compress(c, data, static_cast<size_t>(data_len), out, bound));
  return out;
}
unsigned int previous_crc(unsigned char* buffer, int len) {
  return libdeflate_crc32(0, buffer, static_cast<size_t>(len));
}
}  // namespace

#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#define STBIW_ZLIB_COMPRESS previous_zlib
#define STBIW_CRC32 previous_crc
#include <stb_image_write.h>

namespace spritz::bench {

std::vector<uint8_t> previous_fast_png(const uint8_t* rgba, int width, int height) {
  stbi_write_force_png_filter = 4;  // Paeth
  int len = 0;
  unsigned char* png = stbi_write_png_to_mem(rgba, width * 4, width, height, 4, &len);
  std::vector<uint8_t> out(png, png + len);
  STBIW_FREE(png);
  return out;
}

}  // namespace spritz::bench
