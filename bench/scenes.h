// Fixed benchmark scenes: an effect (for emitters, textures and blend
// modes) plus a sprite list drawn straight by the rasterizer, so spritz and
// the Cairo peer draw the very same particles.
#pragma once

#include <string>
#include <vector>

#include "spritz/effect.h"
#include "spritz/eval.h"
#include "spritz/raster/texture.h"

namespace spritz::bench {

struct Scene {
  std::string name, description;
  int width = 0, height = 0;
  Effect fx;    // emitter 0: alpha-over (E = 0), emitter 1: additive (E = 1)
  Frame frame;  // the sprites, split between the two emitters
  TextureSet textures;
  std::vector<uint8_t> texture_rgba;  // the sprite texture as straight sRGB RGBA8
  int texture_size = 0;               // its side (32 unless spritz_bench --texture)
};

// count sprites of size_min..size_max px, rotated at random, on width x height;
// `additive_share` of them additive; a soft disc texture of texture_size^2
// sampled with the emitter key `filter` ("trilinear", spritz's default, or
// "bilinear", the Cairo peer's filter).
Scene make_scene(const std::string& name, const std::string& description, int width, int height,
                 int count, double size_min, double size_max, double additive_share, uint32_t seed,
                 int texture_size, const std::string& filter = "trilinear");

}  // namespace spritz::bench
