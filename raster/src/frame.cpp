#include "spritz/raster/frame.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "spritz/error.h"
#include "spritz/raster/encode.h"
#include "spritz/system/memory.h"

namespace spritz {

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads)
    : FrameRenderer(fx, width, height, threads, canvas_view(fx.canvas, width, height)) {}

size_t bytes_per_particle(const Effect& fx) {
  return kBytesPerParticle + (draws_ribbons(fx) ? sizeof(RibbonSegment) : 0);
}

uint64_t default_memory_budget() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(0.5 * static_cast<double>(pages) * static_cast<double>(page));
}

uint64_t particle_limit(int frames_in_flight, size_t bytes_each, uint64_t memory_bytes) {
  if (memory_bytes == std::numeric_limits<uint64_t>::max()) return memory_bytes;
  return static_cast<uint64_t>(static_cast<double>(memory_bytes) / static_cast<double>(bytes_each) /
                               std::max(1, frames_in_flight));
}

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads, const View& view)
    : fx_(fx),
      width_(width),
      height_(height),
      textures_(load_textures(fx, view.scale)),
      raster_(fx, textures_, width, height, threads, view),
      fps_(fx.fps) {
  frame_.particle_limit = particle_limit(1, bytes_per_particle(fx));
}

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads,
                             TextureSet textures)
    : FrameRenderer(fx, width, height, threads, canvas_view(fx.canvas, width, height),
                    std::move(textures)) {}

FrameRenderer::FrameRenderer(const Effect& fx, int width, int height, int threads, const View& view,
                             TextureSet textures)
    : fx_(fx),
      width_(width),
      height_(height),
      textures_(std::move(textures)),
      raster_(fx, textures_, width, height, threads, view),
      fps_(fx.fps) {
  frame_.particle_limit = particle_limit(1, bytes_per_particle(fx));
}

void check_frame_work(const Effect& fx, double clock, const std::vector<double>& clocks,
                      uint64_t limit, const std::string& hint) {
  if (limit == std::numeric_limits<uint64_t>::max()) return;
  uint64_t need = 0;
  for (double c : clocks) need += std::min(frame_work(fx, c), uint64_t{1} << 62);
  if (need <= limit) return;
  const bool colliders = std::any_of(fx.emitters.begin(), fx.emitters.end(), [](const Emitter& e) {
    return e.enabled && e.collision.enabled();
  });
  char buf[500];
  std::snprintf(buf, sizeof buf,
                "at clock %.6g s a frame would evaluate and draw %llu particle samples (the "
                "particles and trail ghosts that can be alive, over %zu motion-blur sample%s%s), "
                "more than the work limit of %llu",
                clock, static_cast<unsigned long long>(need), clocks.size(),
                clocks.size() == 1 ? "" : "s",
                colliders ? ", each weighing 1 + colliders x (max_bounces + 1): fewer colliders "
                            "or bounces lower it"
                          : "",
                static_cast<unsigned long long>(limit));
  throw Error(std::string(buf) + (hint.empty() ? "" : "; " + hint));
}

uint64_t FrameRenderer::alive() const {
  uint64_t n = 0;
  for (const EmitterFrame& ef : frame_.emitters) n += ef.stats.alive;  // not trail ghosts
  return n;
}

void FrameRenderer::begin_frame(double clock) {
  shutter_clocks(fx_, clock, fps_, clocks_);  // {clock} itself without motion blur
  if (work_limit_ != std::numeric_limits<uint64_t>::max()) {
    // Memory first: a frame too big to hold is refused as such (evaluate
    // throws before evaluating anything), then one too slow to draw.
    if (held_window_size(fx_, clock, frame_.defer_above) > frame_.particle_limit)
      evaluate(fx_, clock, frame_);
    check_frame_work(fx_, clock, clocks_, work_limit_, work_hint_);
  }
}

void FrameRenderer::evaluate_at(double clock) {
  // Evaluation on the rasterizer's threads: the same frame for any count.
  const ParallelFor parallel = [this](int tasks, const std::function<void(int)>& fn) {
    raster_.parallel_for(tasks, fn);
  };
  evaluate(fx_, clock, frame_, raster_.threads() > 1 ? &parallel : nullptr);
}

uint64_t FrameRenderer::render(double clock) {
  frame_.defer_above = std::numeric_limits<uint64_t>::max();  // a whole image: every particle held
  begin_frame(clock);
  const auto light_only = [&] {
    if (fx_.canvas.blend != BlendSpace::kSrgb && raster_.light_pass() != LightPass::kEmissive)
      return;
    const int rows = image_.height, strip = 64;
    raster_.parallel_for((rows + strip - 1) / strip, [&](int k) {
      finish_rows(image_, k * strip, std::min(rows, (k + 1) * strip));
    });
  };
  if (fx_.canvas.blur_samples <= 1) {
    evaluate_at(clock);
    raster_.render(frame_, image_);
    covered_ = raster_.stats().covered_pixels;
    light_only();
    return alive();
  }
  // Each sample's image divided by N, summed in sample order: the same
  // operations for every pixel whatever the thread count, and no overflow
  // where one sample's values are finite.
  const float n = static_cast<float>(clocks_.size());
  uint64_t most = 0;
  covered_ = 0;
  for (size_t k = 0; k < clocks_.size(); ++k) {
    evaluate_at(clocks_[k]);
    Image& target = k == 0 ? image_ : sample_;
    raster_.render(frame_, target);
    covered_ += raster_.stats().covered_pixels;
    most = std::max(most, alive());
    float* acc = image_.rgba.data();
    const float* add = target.rgba.data();
    const size_t count = image_.rgba.size();
    if (k == 0) {
      for (size_t i = 0; i < count; ++i) acc[i] = acc[i] / n;
    } else {
      for (size_t i = 0; i < count; ++i) acc[i] += add[i] / n;
    }
  }
  light_only();
  return most;
}

void FrameRenderer::finish_rows(Image& img, int row_begin, int row_end) const {
  // A frame blended in sRGB values becomes the light its encoding shows;
  // the emissive pass is light to add, with no coverage of its own.
  if (fx_.canvas.blend == BlendSpace::kSrgb)
    srgb_blend_to_linear(img, fx_.canvas.tonemap, row_begin, row_end);
  if (raster_.light_pass() != LightPass::kEmissive) return;
  for (int y = row_begin; y < row_end; ++y) {
    float* row = img.row(y);
    for (int x = 0; x < img.width; ++x) row[4 * x + 3] = 0;
  }
}

uint64_t FrameRenderer::render_strips(double clock, const Rasterizer::StripSink& sink,
                                      const Rasterizer::BackgroundStrip& background) {
  if (!can_stream()) throw Error("render_strips: a motion-blurred frame needs a whole frame");
  // Emitters of many particles are drawn as they are evaluated, a batch at
  // a time (Rasterizer::render_batches), where a ribbon (which reads its
  // neighbours by slot) does not need every particle held.
  frame_.defer_above =
      draws_ribbons(fx_) ? std::numeric_limits<uint64_t>::max() : defer_above(width_, height_);
  begin_frame(clock);
  evaluate_at(clock);
  const auto finished = [&](int k, Image& rows) {
    finish_rows(rows, rows.y0, rows.y0 + rows.height);
    sink(k, rows);
  };
  const bool deferred = std::any_of(frame_.emitters.begin(), frame_.emitters.end(),
                                    [](const EmitterFrame& ef) { return !ef.deferred.empty(); });
  if (deferred)
    raster_.render_batches(frame_, finished, background);
  else
    raster_.render_strips(frame_, finished, background);
  covered_ = raster_.stats().covered_pixels;
  return alive();
}

static_assert(kStripRows == kPngPieceRows, "a drawn strip is one PNG piece");

namespace {

// Calls each(k, rows) for every strip of the frame at `clock` on the
// renderer's threads: as each is drawn, or, for a frame that needs a
// whole image (motion blur), after drawing it whole.
template <typename Each>
uint64_t for_each_strip(FrameRenderer& r, Rasterizer& raster, const Image& whole, double clock,
                        Each each) {
  if (r.can_stream()) return r.render_strips(clock, [&](int k, Image& rows) { each(k, rows); });
  const uint64_t alive = r.render(clock);
  raster.parallel_for(raster.strip_count(), [&](int k) {
    // A view of the whole image's rows would do, but an Image owns its
    // floats: copy the strip (a motion-blurred frame costs its samples
    // many times over).
    thread_local Image rows;
    const int first = k * kStripRows;
    copy_rows(whole, first, std::min(whole.height - first, kStripRows), rows);
    each(k, rows);
  });
  return alive;
}

}  // namespace

uint64_t FrameRenderer::render_png(double clock, const std::vector<PngText>& texts,
                                   std::vector<uint8_t>& png) {
  std::vector<std::vector<uint8_t>> parts;
  const uint64_t n = render_png(clock, texts, parts);
  png = join_png_parts(std::move(parts));
  return n;
}

namespace {

// A strip's rows as RGBA8 (the canvas' tone map and alpha mode), in a
// buffer of the calling thread's.
const uint8_t* strip_rgba8(const Image& rows, const Effect& fx) {
  thread_local WrittenBytes px;
  {
    ScratchScope scratch;  // beside the strip's floats (Rasterizer::render_strips)
    px.resize(static_cast<size_t>(rows.width) * 4 * static_cast<size_t>(rows.height));
  }
  encode_rgba8(rows, fx.canvas.tonemap, fx.canvas.alpha, px.data(), rows.y0, rows.y0 + rows.height);
  return px.data();
}

}  // namespace

uint64_t FrameRenderer::encode_strips(double clock, PngWriter& writer) {
  if (!can_stream() || !writer.fast())
    return for_each_strip(*this, raster_, image_, clock,
                          [&](int k, Image& rows) { writer.add_piece(k, strip_rgba8(rows, fx_)); });
  // A strip no sprite reaches is the background alone: the first of each
  // height is drawn and encoded, and its piece added again for the others.
  std::vector<char> keep(static_cast<size_t>(raster_.strip_count()), 0);
  const auto background = [&](int k) {
    PngWriter::Encoded piece;
    {
      std::lock_guard<std::mutex> lock(background_mutex_);
      const auto it = background_pieces_.find(writer.piece_rows(k));
      if (it == background_pieces_.end()) {
        keep[static_cast<size_t>(k)] = 1;  // read by the sink, on this thread
        return false;
      }
      piece = it->second;
    }
    writer.add_encoded(k, std::move(piece));  // may write pieces: not under the lock
    return true;
  };
  return render_strips(
      clock,
      [&](int k, Image& rows) {
        PngWriter::Encoded piece = writer.encode_piece(k, strip_rgba8(rows, fx_));
        if (keep[static_cast<size_t>(k)]) {
          std::lock_guard<std::mutex> lock(background_mutex_);
          background_pieces_.emplace(writer.piece_rows(k), piece);
        }
        writer.add_encoded(k, std::move(piece));
      },
      background);
}

uint64_t FrameRenderer::render_png(double clock, const std::vector<PngText>& texts,
                                   std::vector<std::vector<uint8_t>>& parts) {
  PngWriter writer(width_, height_, texts, png_mode_);
  const uint64_t n = encode_strips(clock, writer);
  parts = writer.finish_parts();
  return n;
}

uint64_t FrameRenderer::render_png(double clock, const std::vector<PngText>& texts,
                                   const PngWriter::Sink& sink, int& write_error) {
  write_error = 0;
  if (png_mode_ == PngMode::kSmall) {
    std::vector<std::vector<uint8_t>> parts;
    const uint64_t n = render_png(clock, texts, parts);
    for (const auto& part : parts)
      if (write_error == 0) write_error = sink(part.data(), part.size());
    return n;
  }
  PngWriter writer(width_, height_, texts, png_mode_);
  writer.stream_to(sink);
  const uint64_t n = encode_strips(clock, writer);
  write_error = writer.finish_stream();
  return n;
}

uint64_t FrameRenderer::render_rgba8(double clock, std::vector<uint8_t>& rgba) {
  reserve_prefaulted(rgba, static_cast<size_t>(width_) * 4 * static_cast<size_t>(height_));
  rgba.resize(static_cast<size_t>(width_) * 4 * static_cast<size_t>(height_));
  return for_each_strip(*this, raster_, image_, clock, [&](int, Image& rows) {
    encode_rgba8(rows, fx_.canvas.tonemap, fx_.canvas.alpha,
                 rgba.data() + static_cast<size_t>(rows.y0) * width_ * 4, rows.y0,
                 rows.y0 + rows.height);
  });
}

void FrameRenderer::encode(std::vector<uint8_t>& rgba) const {
  encode_rgba8(image_, fx_.canvas.tonemap, fx_.canvas.alpha, rgba);
}

}  // namespace spritz
