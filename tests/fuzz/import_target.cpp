// .plist / .pex / Godot / Roblox text -> detect -> import (no file beside it) -> the TOML it
// writes loads -> evaluate at a few clocks. Any input ends in an effect or
// in spritz::Error with a message; the TOML an import writes always loads.
#include <string>

#include "fuzz.h"
#include "spritz/error.h"
#include "spritz/eval.h"
#include "spritz/import/import.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spritz;
  const std::string text(fuzz::as_text(data, size));
  ImportResult r;
  try {
    const EffectFormat f = detect_effect_format(text, "fuzz.plist");
    if (f == EffectFormat::kToml) return 0;
    r = import_effect(text, "fuzz.plist", ".", f, {},
                      [](const std::string&) { return std::nullopt; });
  } catch (const Error& e) {
    FUZZ_REQUIRE(*e.what() != '\0');
    return 0;
  }
  LoadOptions lo;
  for (const auto& t : r.textures) {
    lo.provided_textures.push_back(t.name);
    lo.provided_images[t.name] = t.png;
  }
  lo.decode_image = decode_program_image;
  const Effect fx = load_effect(r.toml, "fuzz.plist", ".", lo);  // must not throw
  Frame frame;
  for (double t : {0.0, 0.5, 3.0}) {
    const double clock = clock_at_time(fx, t);
    if (frame_work(fx, clock) > 200000) continue;
    evaluate(fx, clock, frame);
  }
  return 0;
}
