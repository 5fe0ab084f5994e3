// The translation unit that compiles stb_image, PNG only, to keep the decoder
// surface small. (stb_image_write lives in stb_write_impl.cpp: STBI_ONLY_PNG
// would otherwise switch off its HDR writer.)
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_NO_STDIO
#define STBI_MAX_DIMENSIONS 16384
#include <stb_image.h>
