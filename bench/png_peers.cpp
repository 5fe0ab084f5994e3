#include "png_peers.h"

// stb_image_write with its built-in zlib, kept private to this file.
#define STB_IMAGE_WRITE_STATIC
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>

#ifdef SPRITZ_HAVE_LIBPNG
#include <libpng16/png.h>  // not raster/png.h
#endif

namespace spritz::bench {

std::vector<uint8_t> stb_default_png(const uint8_t* rgba, int width, int height) {
  int len = 0;
  unsigned char* png = stbi_write_png_to_mem(rgba, width * 4, width, height, 4, &len);
  std::vector<uint8_t> out(png, png + len);
  STBIW_FREE(png);
  return out;
}

#ifdef SPRITZ_HAVE_LIBPNG
bool libpng_available() {
  return true;
}

std::vector<uint8_t> libpng_png(const uint8_t* rgba, int width, int height, int level) {
  std::vector<uint8_t> out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return {};
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep data, png_size_t n) {
        auto* v = static_cast<std::vector<uint8_t>*>(png_get_io_ptr(p));
        v->insert(v->end(), data, data + n);
      },
      nullptr);
  png_set_compression_level(png, level);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
               PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(
        png, const_cast<png_bytep>(rgba + static_cast<size_t>(y) * static_cast<size_t>(width) * 4));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}
#else
bool libpng_available() {
  return false;
}
std::vector<uint8_t> libpng_png(const uint8_t*, int, int, int) {
  return {};
}
#endif

}  // namespace spritz::bench
