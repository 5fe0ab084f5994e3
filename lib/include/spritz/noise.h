// Turbulence (model.md 9.6): a displacement A * noise(p0 * f, age * speed)
// added to a particle's closed-form position. The noise is a field sampled
// at a point, not a force integrated, so it stays closed form: any particle
// at any clock, with no history.
#pragma once

#include <cstdint>

#include "spritz/vec2.h"

namespace spritz {

// Coordinates are clamped to +-kNoiseCoordLimit before the lattice is found,
// so a huge input stays finite and in range (the field means nothing there).
inline constexpr double kNoiseCoordLimit = 1099511627776.0;  // 2^40

// A value of 3D gradient noise, and its derivative along z.
struct NoiseSample {
  double value = 0;  // within [-1.5, 1.5] (in practice about [-1, 1])
  double dz = 0;     // d value / d z
};

// Gradient noise (Perlin's, with the quintic fade 6t^5 - 15t^4 + 10t^3) at
// (x, y, z), whose lattice gradients come from the model's hash:
// corner (i, j, k) (the integer lattice coordinates, taken mod 2^32) has
// h = M(M(M(field ^ i) ^ j) ^ k), and gradient number h mod 12 of the
// twelve cube-edge directions (+-1, +-1, 0), (+-1, 0, +-1), (0, +-1, +-1),
// in the order of Perlin's improved noise. Zero at every lattice point.
NoiseSample gradient_noise(uint32_t field, double x, double y, double z);

// The two fields of an emitter's turbulence: x from channel 17, y from
// channel 18, each field = M(s_e ^ ((ch + 1) * 0x85EBCA77)), the hash that
// unit() divides by 2^32.
struct TurbulenceFields {
  uint32_t x = 0, y = 0;
};
TurbulenceFields turbulence_fields(uint32_t emitter_seed);

// noise(p, z) as a 2D vector (one field per axis), and its z derivative.
struct NoiseVector {
  Vec2 value;
  Vec2 dz;
};
NoiseVector noise2(const TurbulenceFields& fields, Vec2 p, double z);

}  // namespace spritz
