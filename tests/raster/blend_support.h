// What the rasterizer's blending tests share (blend_test.cpp,
// kernel_test.cpp): a two-emitter scene, a particle, and a frame of given
// particles drawn.
#pragma once

#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "kernels/kernel.h"
#include "skip.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/encode.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

namespace spritz::test {

struct Scene {
  Effect fx;
  TextureSet textures;
};

inline Scene scene(const std::string& emitter_keys, const std::string& canvas = "") {
  Scene s;
  s.fx = load_effect("[canvas]\nsize = [64, 64]\n" + canvas + "\n[[emitter]]\n" + emitter_keys +
                         "\n[[emitter]]\n" + emitter_keys + "\n",
                     "t.toml", ".");
  s.textures = load_textures(s.fx, 1.0);
  return s;
}

inline Particle particle(double x, double y, double size, Rgb color = {1, 1, 1}, double alpha = 1,
                         double rot = 0) {
  Particle p;
  p.x = x;
  p.y = y;
  p.w = p.h = size;
  p.color_srgb = color;
  p.alpha = alpha;
  p.rotation_deg = rot;
  return p;
}

// Renders particles of emitter 0 (first list) and emitter 1 (second list).
inline Image render(const Scene& s, const std::vector<Particle>& first,
                    const std::vector<Particle>& second = {}, int threads = 1, int size = 64) {
  Frame f;
  f.emitters.resize(2);
  f.emitters[0].emitter = 0;
  f.emitters[0].particles.assign(first.begin(), first.end());
  f.emitters[1].emitter = 1;
  f.emitters[1].particles.assign(second.begin(), second.end());
  Rasterizer r(s.fx, s.textures, size, size, threads);
  Image img;
  r.render(f, img);
  return img;
}

inline double total(const Image& img, int channel) {
  double sum = 0;
  for (size_t i = static_cast<size_t>(channel); i < img.rgba.size(); i += 4) sum += img.rgba[i];
  return sum;
}

}  // namespace spritz::test
