// The run's settings from the environment: the sprite kernel (SPRITZ_SIMD)
// and the particles' memory budget (SPRITZ_MEMORY_MB), read once and checked,
// so the libraries never read the environment themselves.
#include <cstdlib>
#include <string>

#include "commands.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/raster.h"

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

uint64_t memory_budget() {
  static const uint64_t bytes = [] {
    const char* env = std::getenv("SPRITZ_MEMORY_MB");
    if (!env) return default_memory_budget();
    const std::string v = env;
    const bool digits =
        !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
    const uint64_t mb = digits ? std::stoull(v) : 0;
    if (mb == 0)
      throw Error(
          "SPRITZ_MEMORY_MB must be a whole number of megabytes from 1 to 999999999, got '" +
          printable(v) + "'");
    return mb << 20;
  }();
  return bytes;
}

}  // namespace spritz
