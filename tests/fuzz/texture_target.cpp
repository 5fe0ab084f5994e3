// Texture bytes -> the texture path: the header checks, stb's decoder, a
// 2x2 flipbook's cells and their mip chains, then one small frame that
// samples the texture trilinearly (every mip level) and one nearest.
// Every texel and pixel must be finite.
#include <cmath>
#include <memory>
#include <vector>

#include "fuzz.h"
#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/texture.h"

namespace {

using namespace spritz;

// A flipbook of 2x2 cells drawn large and small, so sampling reaches the
// top and the bottom of the mip chain.
constexpr const char* kEffect = R"(
[effect]
duration = 1
[[emitter]]
texture = "builtin:soft"
flipbook = { layout = [2, 2], mode = "loop", fps = 4 }
rate = 40
lifetime = 1
speed = 30
size = [[0, 2], [1, 90]]
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<unsigned char> bytes(data, data + size);
  std::shared_ptr<const Texture> tex;
  try {
    // A small memory limit keeps an execution quick (a 16 KB input can
    // declare gigabytes) and puts the limit's own path under the fuzzer.
    TextureLimits limits;
    limits.memory_bytes = uint64_t{16} << 20;
    tex = std::make_shared<const Texture>(texture_from_encoded(bytes, "fuzz.png", 2, 2, limits));
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return 0;
  }
  for (const TextureCell& cell : tex->cells)
    for (float v : cell.mean) FUZZ_REQUIRE(std::isfinite(v) && v >= 0);
  for (const char* filter : {"trilinear", "nearest"}) {
    // Loaded with a built-in texture (the loader wants texture files to
    // exist), then pointed at the input's bytes.
    Effect fx =
        load_effect(std::string(kEffect) + "filter = \"" + filter + "\"\n", "fuzz.toml", ".");
    fx.emitters[0].texture = TextureRef::parse("fuzz.png");
    FrameRenderer r(fx, 32, 32, 1, TextureSet{tex});
    r.render(clock_at_time(fx, 0.9));
    for (float v : r.image().rgba) FUZZ_REQUIRE(std::isfinite(v));
  }
  return 0;
}
