// What a program's sampler2D reads (docs/programs.md, "Textures"): one of
// the emitter's curves or gradients, an image, or nothing (its fallback
// colour). The machine calls these for texture(), texelFetch() and
// textureSize(); every input, NaN and infinity included, gives a defined
// value.
#pragma once

#include <cstdint>

#include "spritz/curve.h"
#include "spritz/program.h"

namespace spritz::program {

struct Sampler {
  const Curve* curve = nullptr;
  const ColorCurve* gradient = nullptr;
  const ProgramImage* image = nullptr;
  SamplerInfo info;
};

// A curve or gradient read as a texture is this many texels wide (for
// texelFetch and textureSize; texture() reads the curve itself).
inline constexpr int32_t kCurveTexels = 256;

// Channel k (0 r .. 3 a) of texture(s, vec2(u, v)).
double sample(const Sampler& s, double u, double v, uint32_t k);
// Channel k of texelFetch(s, ivec2(x, y), 0).
double texel(const Sampler& s, int32_t x, int32_t y, uint32_t k);
// Axis k (0 width, 1 height) of textureSize(s, lod).
int32_t texture_size(const Sampler& s, int32_t lod, uint32_t k);

}  // namespace spritz::program
