// Stateless randomness (model.md section 2). Every random property of a
// particle is a pure function of (emitter seed, particle key, channel): no
// generator state, so any particle can be evaluated at any clock in any order.
// The constants below are the compatibility contract; do not change them.
#pragma once

#include <cstdint>
#include <string_view>

namespace spritz {

// M(x): the 32-bit finaliser every random number comes from.
constexpr uint32_t mix32(uint32_t x) {
  uint32_t z = x + 0x9E3779B9u;
  z = (z ^ (z >> 16)) * 0x21F0AAADu;
  z = (z ^ (z >> 15)) * 0x735A2D97u;
  return z ^ (z >> 15);
}

// stream(s, key) = M(s ^ ((key + 1) * 0x9E3779B1)), computed once per particle.
constexpr uint32_t particle_stream(uint32_t emitter_seed, uint32_t key) {
  return mix32(emitter_seed ^ ((key + 1u) * 0x9E3779B1u));
}

// s_e = M(seed ^ ((emitter_index + 1) * 0x85EBCA77)): emitters never share numbers.
constexpr uint32_t emitter_seed(uint32_t effect_seed, uint32_t emitter_index) {
  return mix32(effect_seed ^ ((emitter_index + 1u) * 0x85EBCA77u));
}

// The channel table of model.md. One channel per random property, so changing
// one range (say speed) changes nothing else about any particle.
enum class Channel : uint32_t {
  kLifetime = 0,
  kSpeed = 1,
  kSpread = 2,
  kRotation = 3,
  kRotationSpeed = 4,
  kSizeEnvelope = 5,
  kTransparencyEnvelope = 6,
  kSquashEnvelope = 7,
  kShapeU = 8,
  kShapeV = 9,
  kInOutCoin = 10,
  kFlipbookStart = 11,
  kFlipbookRate = 12,
  // 14 + 32 w: flipbook random cell in time window w (see flipbook_window_channel).
  kColorEnvelope = 15,       // spritz extension: one roll shared by r, g and b
  kNoisePhase = 16,          // spritz extension: turbulence's per-particle phase
  kTurbulenceX = 17,         // spritz extension: the seed of the x noise field
  kTurbulenceY = 18,         // spritz extension: the seed of the y noise field
  kTurbulenceEnvelope = 19,  // spritz extension: turbulence amplitude envelope roll
  // Start/end rolls (model.md 7.7); the start rolls of size and
  // transparency are their envelope channels, 5 and 6.
  kSizeEnd = 20,
  kTransparencyEnd = 21,
  kColorStartR = 22,  // then G 23, B 24
  kColorEndR = 25,    // then G 26, B 27
  kRotationEnd = 28,
  kRadialAcceleration = 29,
  kTangentialAcceleration = 30,
  kOrbitRadius = 31,
  kOrbitRadiusEnd = 32,
  kOrbitAngularSpeed = 33,
  kDamping = 34,
  kOrbitVelocity = 35,
  kHueVariation = 36,
  kProgramNoise = 37,        // the seed of a program's noise() field (per emitter, model.md 11)
  kGodotRandomSeed = 38,     // a Godot shader's RANDOM_SEED (per emitter, model.md 11.7)
  kLinearAcceleration = 39,  // along the velocity (model.md 6.1)
  // Per-keypoint envelope rolls (model.md 7.2, envelope_rolls = "per_key"):
  // key k of size, transparency and squash rolls on base + k, k < 20.
  kSizeKeyEnvelope0 = 48,
  kTransparencyKeyEnvelope0 = 80,
  kSquashKeyEnvelope0 = 112,
};

// unit(st, ch) = M(st ^ ((ch + 1) * 0x85EBCA77)) / 2^32, in [0, 1).
constexpr double unit_raw(uint32_t stream, uint32_t channel) {
  return static_cast<double>(mix32(stream ^ ((channel + 1u) * 0x85EBCA77u))) * (1.0 / 4294967296.0);
}
constexpr double unit(uint32_t stream, Channel channel) {
  return unit_raw(stream, static_cast<uint32_t>(channel));
}

// Channel 14 + 32 w (mod 2^32) for the flipbook's random mode in window w.
constexpr uint32_t flipbook_window_channel(uint64_t window) {
  return static_cast<uint32_t>(14u + 32u * static_cast<uint32_t>(window));
}

// 64-bit FNV-1a, for content hashes of effect files (not for randomness).
constexpr uint64_t fnv1a64(std::string_view bytes, uint64_t h = 0xcbf29ce484222325ull) {
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

}  // namespace spritz
