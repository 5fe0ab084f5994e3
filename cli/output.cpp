#include "output.h"

#include "json.h"

namespace spritz {

std::vector<PngText> frame_png_texts(const Effect& fx, int64_t frame, double time, double clock,
                                     int width, int height) {
  const std::string meta =
      "{\"version\":\"" SPRITZ_VERSION "\",\"effect\":" + json_string(fx.name, /*ascii=*/true) +
      ",\"effect_hash\":\"" + hex64(fx.content_hash) + "\",\"seed\":" + std::to_string(fx.seed) +
      ",\"frame\":" + std::to_string(frame) + ",\"time\":" + json_number(time) +
      ",\"clock\":" + json_number(clock) + ",\"width\":" + std::to_string(width) +
      ",\"height\":" + std::to_string(height) + "}";
  return {{"Software", "spritz " SPRITZ_VERSION}, {"spritz", meta}};
}

}  // namespace spritz
