#include "frame.h"

#include "encode.h"

namespace spritz {

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads)
    : FrameRenderer(fx, width, height, threads, canvas_view(fx.canvas, width, height)) {}

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads, const View& view)
    : fx_(fx),
      width_(width),
      height_(height),
      textures_(load_textures(fx, view.scale)),
      raster_(fx, textures_, width, height, threads, view) {}

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads, TextureSet textures)
    : FrameRenderer(fx, width, height, threads, canvas_view(fx.canvas, width, height), std::move(textures)) {}

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads, const View& view,
                             TextureSet textures)
    : fx_(fx),
      width_(width),
      height_(height),
      textures_(std::move(textures)),
      raster_(fx, textures_, width, height, threads, view) {}

uint64_t FrameRenderer::render(double clock) {
  evaluate(fx_, clock, frame_);
  raster_.render(frame_, image_);
  uint64_t n = 0;
  for (const EmitterFrame& ef : frame_.emitters) n += ef.particles.size();
  return n;
}

void FrameRenderer::encode(std::vector<uint8_t>& rgba) const {
  encode_rgba8(image_, fx_.canvas.tonemap, fx_.canvas.alpha, rgba);
}

}  // namespace spritz
