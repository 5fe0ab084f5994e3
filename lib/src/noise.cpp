#include "spritz/noise.h"

#include <algorithm>
#include <cmath>

#include "numeric.h"
#include "spritz/hash.h"

namespace spritz {
namespace {

// Perlin's twelve gradients, the edges of a cube from its centre.
constexpr int kGradients[12][3] = {{1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {-1, -1, 0},
                                   {1, 0, 1}, {-1, 0, 1}, {1, 0, -1}, {-1, 0, -1},
                                   {0, 1, 1}, {0, -1, 1}, {0, 1, -1}, {0, -1, -1}};

// The quintic fade and its derivative.
double fade(double t) {
  return t * t * t * (t * (t * 6 - 15) + 10);
}
double fade_slope(double t) {
  return 30 * t * t * (t * (t - 2) + 1);
}

// floor(v) as a lattice coordinate mod 2^32, and the fraction v - floor(v).
uint32_t lattice(double v, double* frac) {
  const double c = std::clamp(v, -kNoiseCoordLimit, kNoiseCoordLimit);
  const double fl = std::floor(c);
  *frac = c - fl;
  return static_cast<uint32_t>(saturating_cast<int64_t>(fl));
}

}  // namespace

NoiseSample gradient_noise(uint32_t field, double x, double y, double z) {
  // A NaN would pass the clamp; the particle is dropped as non-finite
  // later, but the lattice cast must not see it.
  if (std::isnan(x) || std::isnan(y) || std::isnan(z)) return {};
  double fx, fy, fz;
  const uint32_t i = lattice(x, &fx), j = lattice(y, &fy), k = lattice(z, &fz);
  const double wx[2] = {1 - fade(fx), fade(fx)};
  const double wy[2] = {1 - fade(fy), fade(fy)};
  const double wz[2] = {1 - fade(fz), fade(fz)};
  const double sz = fade_slope(fz);
  const double dwz[2] = {-sz, sz};
  NoiseSample out;
  // Corners in the order (0,0,0), (0,0,1), (0,1,0), ... (1,1,1).
  for (uint32_t a = 0; a < 2; ++a) {
    const uint32_t ha = mix32(field ^ (i + a));
    for (uint32_t b = 0; b < 2; ++b) {
      const uint32_t hb = mix32(ha ^ (j + b));
      for (uint32_t c = 0; c < 2; ++c) {
        const uint32_t h = mix32(hb ^ (k + c));
        const int* g = kGradients[h % 12];
        const double dot = g[0] * (fx - a) + g[1] * (fy - b) + g[2] * (fz - c);
        const double wxy = wx[a] * wy[b];
        out.value += wxy * wz[c] * dot;
        out.dz += wxy * (dwz[c] * dot + wz[c] * g[2]);
      }
    }
  }
  return out;
}

TurbulenceFields turbulence_fields(uint32_t emitter_seed) {
  return {
      mix32(emitter_seed ^ ((static_cast<uint32_t>(Channel::kTurbulenceX) + 1u) * 0x85EBCA77u)),
      mix32(emitter_seed ^ ((static_cast<uint32_t>(Channel::kTurbulenceY) + 1u) * 0x85EBCA77u))};
}

NoiseVector noise2(const TurbulenceFields& fields, Vec2 p, double z) {
  const NoiseSample nx = gradient_noise(fields.x, p.x, p.y, z);
  const NoiseSample ny = gradient_noise(fields.y, p.x, p.y, z);
  return {{nx.value, ny.value}, {nx.dz, ny.dz}};
}

}  // namespace spritz
