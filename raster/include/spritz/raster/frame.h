// One effect rendered frame after frame: textures loaded once, evaluation and
// pixel buffers reused. The piece every command that makes images shares.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "spritz/eval.h"
#include "spritz/raster/image.h"
#include "spritz/raster/png_writer.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

namespace spritz {

// Bytes one particle may take while its frame is drawn: its state (twice,
// for the growth of the vectors that hold it), its sprite (in two lists
// when the frame is drawn on two threads or more) and the rasterizer's
// index entries. Measured (two million particles of 2 px on 256x256, peak
// memory): about 250 with one sprite list, 375 with two.
inline constexpr size_t kBytesPerParticle =
    2 * sizeof(Particle) + 2 * sizeof(Sprite) + 2 * sizeof(void*);
// The same for `fx`: with a ribbon, every slot also has room for a segment.
size_t bytes_per_particle(const Effect& fx);

// The memory particles may take by default: half of this machine's physical
// memory (the largest uint64 where the system does not say).
uint64_t default_memory_budget();

// The most particles one frame may hold when `frames_in_flight` frames are
// drawn at once: `memory_bytes` (default: default_memory_budget()) at
// `bytes_each` per particle. A frame that could hold more is refused
// (Frame::particle_limit).
uint64_t particle_limit(int frames_in_flight, size_t bytes_each = kBytesPerParticle,
                        uint64_t memory_bytes = default_memory_budget());

// Throws spritz::Error, ending with `hint`, when a frame of `fx` at `clock`
// whose samples are at `clocks` (shutter_clocks) would evaluate and draw
// more than `limit` particle samples: window_size summed over them.
// Nothing is evaluated.
void check_frame_work(const Effect& fx, double clock, const std::vector<double>& clocks,
                      uint64_t limit, const std::string& hint = {});

// Where a frame is streamed (render_strips and what uses it), the emitters
// with more keys in their window than defer_above(width, height) are drawn
// without holding their particles (Frame::defer_above): at least 65,536,
// and a tenth of the frame's pixels, since drawing in batches holds the
// whole float frame (16 bytes a pixel) where a held particle takes about
// 250-375 bytes. Below it a frame is drawn as it always was.
inline constexpr uint64_t kDeferAbove = uint64_t{1} << 16;
inline uint64_t defer_above(int width, int height) {
  return std::max<uint64_t>(kDeferAbove,
                            static_cast<uint64_t>(width) * static_cast<uint64_t>(height) / 10);
}

class FrameRenderer {
 public:
  // Loads (or generates) the effect's textures; throws spritz::Error.
  FrameRenderer(const Effect& fx, int width, int height, int threads);
  FrameRenderer(const Effect& fx, int width, int height, int threads, const View& view);
  // With textures already loaded for this size (load_textures(fx,
  // canvas_view(fx.canvas, width, height).scale)): renderers working on
  // different frames of one effect share them instead of each building its own.
  FrameRenderer(const Effect& fx, int width, int height, int threads, TextureSet textures);
  // The same with a view; the textures must be loaded for view.scale.
  FrameRenderer(const Effect& fx, int width, int height, int threads, const View& view,
                TextureSet textures);

  // Evaluates the effect at `clock` and rasterizes it into image(). With
  // motion blur (canvas.motion_blur) image() is the mean of the samples'
  // images at shutter_clocks(clock, frame rate). Returns the most particles
  // alive at any one sample.
  uint64_t render(double clock);

  // The same frame without a whole image: evaluates at `clock` and draws it
  // strip by strip (Rasterizer::render_strips), handing each strip's
  // finished rows (the floats image() would hold there) to `sink` on the
  // thread that drew them. image() is left as it was. Only for frames
  // without motion blur (can_stream()); throws spritz::Error otherwise.
  uint64_t render_strips(double clock, const Rasterizer::StripSink& sink,
                         const Rasterizer::BackgroundStrip& background = {});
  bool can_stream() const { return fx_.canvas.blur_samples <= 1; }

  // Renders the frame at `clock` as an 8-bit PNG in `png` (the canvas' tone
  // map and alpha mode), converted, filtered and compressed strip by strip
  // on the renderer's threads as each strip is drawn: without motion blur
  // no whole frame is held, only a strip per thread and the compressed
  // pieces (with it the frame is drawn whole, then encoded in parallel
  // pieces). The same bytes as encode_png of encode()'s pixels, for any
  // thread count. Returns what render() returns.
  uint64_t render_png(double clock, const std::vector<PngText>& texts, std::vector<uint8_t>& png);
  // The same PNG in the parts PngWriter::finish_parts gives (for writing
  // without joining them).
  uint64_t render_png(double clock, const std::vector<PngText>& texts,
                      std::vector<std::vector<uint8_t>>& parts);
  // The same bytes into `sink` in file order, each piece written as soon as
  // it and those before it are encoded, by the strips' threads while the
  // others still draw (PngWriter::stream_to): no whole PNG is held. In
  // PngMode::kSmall the whole PNG is encoded first, then written.
  // `write_error` receives the sink's first error (0: none).
  uint64_t render_png(double clock, const std::vector<PngText>& texts, const PngWriter::Sink& sink,
                      int& write_error);
  // The same frame as RGBA8 rows in `rgba` (encode()'s pixels), strip by strip.
  uint64_t render_rgba8(double clock, std::vector<uint8_t>& rgba);

  // The frame rate whose frame interval the motion-blur shutter spans; the
  // effect's fps unless set (render --fps, atlas cells).
  void set_frame_rate(double fps) { fps_ = fps; }

  // The sprite kernel (default: default_draw_path()); must be available.
  void set_draw_path(DrawPath path) { raster_.set_draw_path(path); }

  // The light to draw (`--pass`; default all). An emissive image's alpha is
  // 0: it is light to add.
  void set_light_pass(LightPass pass) {
    raster_.set_light_pass(pass);
    background_pieces_.clear();  // the background's pixels change with the pass
  }

  // How render_png compresses (default PngMode::kFast).
  void set_png_mode(PngMode mode) { png_mode_ = mode; }

  // Pixel blends of the last render(), over all its samples.
  uint64_t covered_pixels() const { return covered_; }

  // See particle_limit(); the constructors set particle_limit(1).
  void set_particle_limit(uint64_t n) { frame_.particle_limit = n; }

  // The most particle samples one render() may evaluate and draw: the
  // particles and trail ghosts that can be alive (window_size) summed over
  // its motion-blur samples. A frame over it is refused with a spritz::Error
  // before any sample is evaluated, ending with `hint` (how to raise it).
  // Unlimited by default.
  void set_work_limit(uint64_t n, std::string hint = {}) {
    work_limit_ = n;
    work_hint_ = std::move(hint);
  }

  const Image& image() const { return image_; }
  const Frame& frame() const { return frame_; }
  const Rasterizer& rasterizer() const { return raster_; }
  int width() const { return width_; }
  int height() const { return height_; }

  // The last image as RGBA8 with the canvas' tone map and alpha mode.
  void encode(std::vector<uint8_t>& rgba) const;

 private:
  // shutter_clocks for the frame at `clock`, and the memory and work
  // limits checked before anything is drawn (throws spritz::Error).
  void begin_frame(double clock);
  // evaluate() at `clock` on the rasterizer's threads.
  void evaluate_at(double clock);
  // The particles alive in frame_ (not trail ghosts).
  uint64_t alive() const;
  // What a frame's rows get after drawing: sRGB-blended values made light,
  // and the emissive pass's alpha cleared.
  void finish_rows(Image& img, int row_begin, int row_end) const;
  // Draws the frame at `clock` into `writer` strip by strip (or whole, then
  // in pieces, with motion blur). A streamed strip that no sprite reaches
  // is the background alone: its piece is encoded once per strip height and
  // added again wherever such a strip recurs, in this frame or later ones.
  uint64_t encode_strips(double clock, PngWriter& writer);

  const Effect& fx_;
  int width_, height_;
  TextureSet textures_;
  Rasterizer raster_;
  Frame frame_;
  Image image_;
  double fps_;
  uint64_t covered_ = 0;
  std::vector<double> clocks_;  // motion-blur samples
  Image sample_;                // one sample's image while blurring
  uint64_t work_limit_ = std::numeric_limits<uint64_t>::max();
  PngMode png_mode_ = PngMode::kFast;
  std::string work_hint_;
  // The encoded piece of a background-only strip, by its rows (the last
  // strip may be shorter): the same bytes its rows would encode to.
  std::mutex background_mutex_;
  std::map<int, PngWriter::Encoded> background_pieces_;
};

}  // namespace spritz
