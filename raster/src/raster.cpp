// The Rasterizer: sprite setup in parallel chunks, binning by strips of
// rows, and the strips drawn in parallel, each pixel seeing its sprites in
// draw order whatever the thread count (docs/rendering.md, "Threads and
// strips").
#include "spritz/raster/raster.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>

#include "spritz/color.h"
#include "spritz/system/memory.h"

namespace spritz {

// Two cache lines at most: the strip loop fetches every line of a sprite ahead.
static_assert(sizeof(Sprite) <= 128, "a Sprite is fetched ahead line by line; keep it small");

namespace {

constexpr size_t kSpriteChunk = 1024;  // most particles per setup task
constexpr size_t kPrefetchAhead = 4;   // sprites of a strip fetched ahead of the one drawn

}  // namespace

Rasterizer::Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height,
                       int threads)
    : Rasterizer(fx, textures, width, height, threads, canvas_view(fx.canvas, width, height)) {}

Rasterizer::Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height,
                       int threads, const View& view)
    : fx_(fx),
      textures_(textures),
      width_(width),
      height_(height),
      threads_(std::max(1, threads)),
      view_(view),
      pool_(std::make_unique<ThreadPool>(std::max(1, threads))) {
  const Rgba& bg = fx.canvas.background_srgb;
  // Blending in sRGB values (canvas.blend): every colour as it is stored.
  const bool srgb = fx.canvas.blend == BlendSpace::kSrgb;
  const auto space = [srgb](double c) { return srgb ? c : srgb_to_linear(c); };
  background_[0] = static_cast<float>(space(bg.r) * bg.a);
  background_[1] = static_cast<float>(space(bg.g) * bg.a);
  background_[2] = static_cast<float>(space(bg.b) * bg.a);
  background_[3] = static_cast<float>(bg.a);
  ambient_linear_ = srgb ? fx.canvas.ambient_srgb : srgb_to_linear(fx.canvas.ambient_srgb);
}

size_t Rasterizer::assign_slots(const Frame& frame) {
  emitter_start_.clear();
  size_t n = 0;
  for (const EmitterFrame& ef : frame.emitters) {
    emitter_start_.push_back(n);
    n += ef.particles.size();
  }
  // On two threads or more, frames take turns with two sprite lists: the
  // list a frame writes was last read two frames ago, not just now by the
  // other core's strips, whose copies of its lines would each have to be
  // invalidated across the caches first (docs/performance.md).
  if (threads_ > 1) sprites_.swap(sprites_spare_);
  sprites_.resize(n);
  const bool ribbons = draws_ribbons(fx_);
  segments_.resize(ribbons ? n : 0);
  // Ribbons look at neighbouring slots by index. Only they need the list of
  // all slots, made here on one thread.
  particles_.clear();
  if (ribbons)
    for (const EmitterFrame& ef : frame.emitters)
      for (const Particle& p : ef.particles) particles_.push_back({ef.emitter, &p});
  return n;
}

uint64_t Rasterizer::setup_chunk(const Frame& frame, size_t begin, size_t end,
                                 std::vector<std::vector<uint32_t>>& bins) {
  for (auto& bin : bins) bin.clear();
  uint64_t valid = 0;
  // The emitter that holds slot `begin` (the last one starting at or before
  // it: emitters with no particles start where the next does).
  size_t e =
      static_cast<size_t>(std::upper_bound(emitter_start_.begin(), emitter_start_.end(), begin) -
                          emitter_start_.begin() - 1);
  SpriteMemo memo;
  for (size_t i = begin; i < end; ++i) {
    while (e + 1 < emitter_start_.size() && emitter_start_[e + 1] <= i) ++e;
    const EmitterFrame& ef = frame.emitters[e];
    const Emitter& em = fx_.emitters[ef.emitter];
    // A ribbon's samples are segments to the next sample, and the ribbon
    // ends in the particle (a cap): the particle is drawn as a sprite only
    // while it has no sample behind it yet.
    const Particle& p = ef.particles[i - emitter_start_[e]];
    Sprite& slot = *::new (&sprites_[i].sprite) Sprite;
    bool drawn;
    if (!em.trail.draws_ribbon())
      drawn = make_sprite(p, em, *textures_[em.index], ambient_linear_, width_, height_, view_,
                          slot, pass_, &memo);
    else if (p.trail > 0)
      drawn = make_segment(i, slot, segments_[i]);
    else
      drawn = !(i > 0 && same_line(i - 1, i)) &&
              make_sprite(p, em, *textures_[em.index], ambient_linear_, width_, height_, view_,
                          slot, pass_, &memo);
    if (!drawn) continue;
    ++valid;
    bin_sprite(slot, i, bins);
  }
  return valid;
}

void Rasterizer::bin_sprite(const Sprite& s, size_t slot,
                            std::vector<std::vector<uint32_t>>& bins) {
  for (int k = s.y0 / kStripRows; k <= (s.y1 - 1) / kStripRows; ++k)
    bins[static_cast<size_t>(k)].push_back(static_cast<uint32_t>(slot));
}

void Rasterizer::clear_strip(int k, Image& out) const {
  const int row_begin = k * kStripRows, row_end = std::min(height_, row_begin + kStripRows);
  // The background, from locals: read through `this` the loop would reload
  // it after every store to the image (a float store may alias it).
  // The emissive pass is light alone: it starts from nothing.
  const Float4 bg = pass_ == LightPass::kEmissive
                        ? Float4{0, 0, 0, 0}
                        : Float4{background_[0], background_[1], background_[2], background_[3]};
  const int width = width_;
  for (int y = row_begin; y < row_end; ++y) {
    float* __restrict row = out.row(y);
    for (int x = 0; x < width; ++x) std::memcpy(row + x * 4, &bg, sizeof bg);
  }
}

uint64_t Rasterizer::blend_strip(int k, int chunks, Image& out) const {
  const int row_begin = k * kStripRows, row_end = std::min(height_, row_begin + kStripRows);
  uint64_t blended = 0;
  for (int c = 0; c < chunks; ++c) {
    const std::vector<uint32_t>& bin = bins_[static_cast<size_t>(c)][static_cast<size_t>(k)];
    for (size_t j = 0; j < bin.size(); ++j) {
      // A strip's sprites lie anywhere in sprites_: fetch the one a few
      // places ahead while this one draws.
      if (j + kPrefetchAhead < bin.size()) {
        const uintptr_t next =
            reinterpret_cast<uintptr_t>(&sprites_[bin[j + kPrefetchAhead]].sprite);
        for (uintptr_t line = next & ~uintptr_t{63}; line < next + sizeof(Sprite); line += 64)
          __builtin_prefetch(reinterpret_cast<const void*>(line));
      }
      blended += draw_sprite(sprites_[bin[j]].sprite, out, row_begin, row_end, path_);
    }
  }
  return blended;
}

uint64_t Rasterizer::draw_strip(int k, int chunks, Image& out) const {
  clear_strip(k, out);
  return blend_strip(k, chunks, out);
}

int Rasterizer::prepare(const Frame& frame) {
  // Sprite setup in parallel chunks; each particle keeps its slot, so the
  // draw order is the evaluation order whatever the thread count. Chunks
  // are small enough that every thread gets several even for a thousand
  // particles, large enough to amortise the task.
  const size_t n = assign_slots(frame);
  const size_t chunk =
      std::clamp<size_t>(n / (4 * static_cast<size_t>(threads_)), 64, kSpriteChunk);
  const int chunks = static_cast<int>((n + chunk - 1) / chunk);
  const int strips = strip_count();
  if (bins_.size() < static_cast<size_t>(chunks)) bins_.resize(static_cast<size_t>(chunks));
  kept_.assign(static_cast<size_t>(chunks), 0);
  pool_->run(chunks, [&](int task) {
    const size_t begin = static_cast<size_t>(task) * chunk, end = std::min(n, begin + chunk);
    std::vector<std::vector<uint32_t>>& bins = bins_[static_cast<size_t>(task)];
    bins.resize(static_cast<size_t>(strips));
    kept_[static_cast<size_t>(task)] = setup_chunk(frame, begin, end, bins);
  });
  blended_.assign(static_cast<size_t>(strips), 0);
  return chunks;
}

void Rasterizer::sum_stats() {
  stats_.sprites = 0;
  for (uint64_t c : kept_) stats_.sprites += c;
  stats_.covered_pixels = 0;
  for (uint64_t b : blended_) stats_.covered_pixels += b;
}

void Rasterizer::render(const Frame& frame, Image& out) {
  out.resize_for_overwrite(width_, height_);  // every strip clears its rows first
  const int chunks = prepare(frame);
  // Then the strips in parallel, each walking the chunks' bins in order.
  pool_->run(strip_count(),
             [&](int k) { blended_[static_cast<size_t>(k)] = draw_strip(k, chunks, out); });
  sum_stats();
}

void Rasterizer::render_strips(const Frame& frame, const StripSink& sink,
                               const BackgroundStrip& background) {
  const int chunks = prepare(frame);
  const auto no_sprite = [&](int k) {
    for (int c = 0; c < chunks; ++c)
      if (!bins_[static_cast<size_t>(c)][static_cast<size_t>(k)].empty()) return false;
    return true;
  };
  // A strip's rows are the same floats whichever buffer holds them: each
  // thread draws into its own strip buffer, which stays in its cache
  // while the sink converts and encodes it.
  // In order: each strip's buffer is the thread's own, so no cache is lost
  // by handing strips out in turn, and a sink that consumes them in order
  // (a PNG streamed to its file) gets them nearly as they are finished.
  pool_->run_in_order(strip_count(), [&](int k) {
    if (background && no_sprite(k) && background(k)) {
      blended_[static_cast<size_t>(k)] = 0;
      return;
    }
    thread_local Image strip;  // about 1 MB at 1920 px wide
    const int first = k * kStripRows, rows = std::min(height_ - first, kStripRows);
    {
      ScratchScope scratch;  // with the sink's buffers, on one 2 MiB page
      strip.resize_rows_for_overwrite(width_, first, rows);
    }
    blended_[static_cast<size_t>(k)] = draw_strip(k, chunks, strip);
    sink(k, strip);
  });
  sum_stats();
}

}  // namespace spritz
