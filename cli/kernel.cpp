#include <cstdlib>

#include "commands.h"
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

}  // namespace spritz
