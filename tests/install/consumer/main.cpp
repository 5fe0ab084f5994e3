// Loads an effect, evaluates it at a time and draws it, through the installed
// headers and libraries only. Prints "<particles> <png bytes> <version>".
// Usage: consumer EFFECT.toml TIME
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"
#include "spritz/version.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer EFFECT.toml TIME\n");
    return 2;
  }
  try {
    std::ifstream in(argv[1], std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const spritz::Effect fx = spritz::load_effect(text, argv[1], ".");
    const spritz::Frame frame = spritz::evaluate(fx, spritz::clock_at_time(fx, std::stod(argv[2])));
    size_t particles = 0;
    for (const auto& e : frame.emitters) particles += e.particles.size();

    const int w = fx.canvas.width, h = fx.canvas.height;
    const spritz::TextureSet textures = spritz::load_textures(fx, 1.0);
    spritz::Rasterizer raster(fx, textures, w, h, 1);
    spritz::Image image;
    raster.render(frame, image);
    std::vector<uint8_t> rgba;
    spritz::encode_rgba8(image, fx.canvas.tonemap, fx.canvas.alpha, rgba);
    const std::vector<uint8_t> png = spritz::encode_png(rgba.data(), w, h);
    std::printf("%zu %zu %s\n", particles, png.size(), SPRITZ_VERSION);
  } catch (const spritz::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 2;
  }
  return 0;
}
