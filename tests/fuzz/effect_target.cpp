// Effect text -> load -> evaluate at several clocks, huge ones included ->
// rasterize a small frame on 1 and on 3 threads. Every pixel must be finite
// and both thread counts must give the same bytes. Textures resolve against
// the bundled effects' folder (configs/), as for the seeds.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "effect_files.h"
#include "fuzz.h"
#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/load.h"
#include "spritz/raster/frame.h"
#include "spritz/raster/raster.h"

namespace {

using namespace spritz;

constexpr int kSide = 24;
// The target's own work budget per clock (particles times motion-blur
// samples), so one input takes milliseconds, not seconds; the product's
// guards are tested elsewhere.
constexpr double kMaxWork = 20000;

std::vector<uint8_t> render(const Effect& fx, const TextureSet& tex, double clock, int threads) {
  FrameRenderer r(fx, kSide, kSide, threads, tex);
  r.render(clock);
  for (float v : r.image().rgba) FUZZ_REQUIRE(std::isfinite(v));
  std::vector<uint8_t> rgba;
  r.encode(rgba);
  return rgba;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Effect fx;
  try {
    fx = load_effect(fuzz::as_text(data, size), "fuzz.toml", SPRITZ_SOURCE_DIR "/configs");
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return 0;
  }
  TextureSet tex;
  try {
    const RunSettings settings;
    EffectFiles files(settings);
    tex = files.textures(fx, canvas_view(fx.canvas, kSide, kSide).scale);
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return 0;
  }
  const double samples = fx.canvas.blur_samples;
  // A process() program replays each particle's steps from its birth
  // (model.md 11.1): its particles weigh their steps too.
  double steps = 1;
  for (const Emitter& em : fx.emitters)
    if (em.program && em.program->program && em.program->program->has(Stage::kProcess))
      steps = std::max(steps, 1 + em.lifetime_s.max / em.forces.step_s);
  for (double t : {0.0, 0.37, 2.5, 1e6, 1e15}) {
    double clock = 0;
    try {
      clock = clock_at_time(fx, t);
    } catch (const Error&) {
      continue;
    }
    FUZZ_REQUIRE(std::isfinite(clock));
    if (static_cast<double>(window_size(fx, clock)) * samples * steps > kMaxWork) continue;
    try {
      const std::vector<uint8_t> one = render(fx, tex, clock, 1);
      const std::vector<uint8_t> three = render(fx, tex, clock, 3);
      FUZZ_REQUIRE(one == three);
    } catch (const Error& e) {
      FUZZ_REQUIRE(*e.what() != '\0');
    }
  }
  return 0;
}
