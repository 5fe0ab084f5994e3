// The translation unit that compiles stb_image_write, with libdeflate as its
// zlib (STBIW_ZLIB_COMPRESS) and CRC (STBIW_CRC32); see png.cpp.
unsigned char* spritz_zlib_compress(unsigned char* data, int data_len, int* out_len, int quality);
unsigned int spritz_crc32(unsigned char* buffer, int len);

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBIW_ZLIB_COMPRESS spritz_zlib_compress
#define STBIW_CRC32 spritz_crc32
#include <stb_image_write.h>
