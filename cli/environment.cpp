// The run's settings from the environment: the sprite kernel (SPRITZ_SIMD)
// the particles' memory budget (SPRITZ_MEMORY_MB) and the textures'
// (SPRITZ_TEXTURE_MEMORY_MB), read once and checked,
// so the libraries never read the environment themselves.
#include <cstdlib>
#include <string>

#include "commands.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

namespace spritz {

DrawPath sprite_kernel() {
  // Read once: every renderer of a run draws with the same kernel.
  static const DrawPath path = [] {
    const char* env = std::getenv("SPRITZ_SIMD");
    if (!env) return default_draw_path();
    try {
      return draw_path_from_name(env);
    } catch (const Error& e) {
      throw Error("SPRITZ_SIMD: " + std::string(e.what()));
    }
  }();
  return path;
}

namespace {

// A variable holding megabytes, 1..999999999; 0 when it is not set.
uint64_t megabytes_from(const char* name) {
  const char* env = std::getenv(name);
  if (!env) return 0;
  const std::string v = env;
  const bool digits =
      !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
  const uint64_t mb = digits ? std::stoull(v) : 0;
  if (mb == 0)
    throw Error(std::string(name) +
                " must be a whole number of megabytes from 1 to 999999999, got '" + printable(v) +
                "'");
  return mb << 20;
}

}  // namespace

uint64_t memory_budget() {
  static const uint64_t bytes = [] {
    const uint64_t set = megabytes_from("SPRITZ_MEMORY_MB");
    return set ? set : default_memory_budget();
  }();
  return bytes;
}

uint64_t work_limit() {
  static const uint64_t limit = [] {
    const char* env = std::getenv("SPRITZ_WORK_LIMIT");
    if (!env) return kDefaultWorkLimit;
    const std::string v = env;
    const bool digits =
        !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string::npos;
    const uint64_t n = digits ? std::stoull(v) : 0;
    if (n == 0)
      throw Error(
          "SPRITZ_WORK_LIMIT must be a whole number of particle samples from 1 to "
          "999999999999999999, got '" +
          printable(v) + "'");
    return n;
  }();
  return limit;
}

const TextureLimits& texture_limits() {
  static const TextureLimits limits = [] {
    TextureLimits l;
    if (const uint64_t set = megabytes_from("SPRITZ_TEXTURE_MEMORY_MB")) l.memory_bytes = set;
    l.raise_hint = "SPRITZ_TEXTURE_MEMORY_MB=N raises it to N megabytes";
    return l;
  }();
  return limits;
}

}  // namespace spritz
