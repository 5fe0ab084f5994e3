// Drawing a frame of millions of particles without holding them
// (Rasterizer::render_batches, docs/rendering.md "Frames too large to hold").
//
// A pixel's value is the background followed by every sprite that touches
// it, blended in draw order, one sprite at a time: nothing but the pixel's
// floats carries from one sprite to the next. So the sprites may be drawn
// in any number of passes over the image, as long as each pass takes the
// next sprites in draw order and each pixel's passes come in order: the
// operations on every pixel, and its bytes, are those of one pass. Here a
// pass is a batch of about kBatchSlots particles: evaluated (a deferred
// emitter's key runs, Frame::defer_above) and set up on the threads in
// units of one run each, binned by strip per unit, and drawn strip by
// strip with each strip walking the units in order, as render() draws a
// whole frame. What a frame holds is then the float image and one batch's
// sprites, whatever the number of particles.
#include <algorithm>
#include <new>

#include "spritz/raster/raster.h"
#include "spritz/system/memory.h"

namespace spritz {

uint64_t Rasterizer::setup_span(const Emitter& em, const Particle* ps, size_t n, size_t slot,
                                std::vector<std::vector<uint32_t>>& bins) {
  uint64_t valid = 0;
  const Texture& tex = *textures_[em.index];
  SpriteMemo memo;
  for (size_t i = 0; i < n; ++i) {
    Sprite& s = *::new (&sprites_[slot + i].sprite) Sprite;
    if (!make_sprite(ps[i], em, tex, ambient_linear_, width_, height_, view_, s, pass_, &memo))
      continue;
    ++valid;
    bin_sprite(s, slot + i, bins);
  }
  return valid;
}

void Rasterizer::plan_units(const Frame& frame) {
  units_.clear();
  for (size_t e = 0; e < frame.emitters.size(); ++e) {
    const EmitterFrame& ef = frame.emitters[e];
    BatchUnit u;
    u.frame_emitter = static_cast<uint32_t>(e);
    // A held emitter's particles in units; a deferred emitter holds none,
    // and has its runs.
    const size_t n = ef.particles.size();
    for (size_t a = 0; a < n; a += kUnitParticles) {
      u.begin = a;
      u.end = std::min(n, a + kUnitParticles);
      u.slots = u.end - u.begin;
      units_.push_back(u);
    }
    u.deferred = true;
    for (size_t r = 0; r < ef.deferred.size(); ++r) {
      u.begin = r;
      u.end = r + 1;
      u.slots = ef.deferred[r].keys();
      units_.push_back(u);
    }
  }
}

void Rasterizer::draw_batch(Frame& frame, size_t first, size_t last) {
  const size_t units = last - first;
  std::vector<size_t> slot(units + 1, 0);
  for (size_t i = 0; i < units; ++i) slot[i + 1] = slot[i] + units_[first + i].slots;
  sprites_.resize(slot[units]);
  const int strips = strip_count();
  if (bins_.size() < units) bins_.resize(units);
  kept_.assign(units, 0);
  unit_stats_.assign(units, EmitterStats{});
  pool_->run(static_cast<int>(units), [&](int task) {
    const size_t i = static_cast<size_t>(task);
    const BatchUnit& u = units_[first + i];
    const EmitterFrame& ef = frame.emitters[u.frame_emitter];
    const Emitter& em = fx_.emitters[ef.emitter];
    std::vector<std::vector<uint32_t>>& bins = bins_[i];
    bins.resize(static_cast<size_t>(strips));
    for (auto& bin : bins) bin.clear();
    if (!u.deferred) {
      kept_[i] = setup_span(em, ef.particles.data() + u.begin, u.slots, slot[i], bins);
      return;
    }
    thread_local ParticleList run;  // one run's particles, reused
    run.resize(u.slots);
    const size_t n =
        evaluate_run(fx_, ef, ef.deferred[u.begin], frame.clock, run.data(), unit_stats_[i]);
    kept_[i] = setup_span(em, run.data(), n, slot[i], bins);
  });
  pool_->run(strips, [&](int k) {
    bool any = false;
    for (size_t i = 0; i < units && !any; ++i) any = !bins_[i][static_cast<size_t>(k)].empty();
    if (!any) return;
    touched_[static_cast<size_t>(k)] = 1;
    blended_[static_cast<size_t>(k)] += blend_strip(k, static_cast<int>(units), whole_);
  });
  for (size_t i = 0; i < units; ++i) {
    stats_.sprites += kept_[i];
    EmitterStats& to = frame.emitters[units_[first + i].frame_emitter].stats;
    to.visited += unit_stats_[i].visited;
    to.alive += unit_stats_[i].alive;
    to.dropped += unit_stats_[i].dropped;
  }
}

void Rasterizer::render_batches(Frame& frame, const StripSink& sink,
                                const BackgroundStrip& background) {
  plan_units(frame);
  const int strips = strip_count();
  whole_.resize_for_overwrite(width_, height_);
  pool_->run(strips, [&](int k) { clear_strip(k, whole_); });
  blended_.assign(static_cast<size_t>(strips), 0);
  touched_.assign(static_cast<size_t>(strips), 0);
  stats_ = {};
  // Batches of whole units, each at least one unit, at most about
  // kBatchSlots sprites.
  for (size_t first = 0; first < units_.size();) {
    size_t last = first, slots = 0;
    while (last < units_.size() && (last == first || slots + units_[last].slots <= kBatchSlots))
      slots += units_[last++].slots;
    draw_batch(frame, first, last);
    first = last;
  }
  for (int k = 0; k < strips; ++k) stats_.covered_pixels += blended_[static_cast<size_t>(k)];
  // The strips in order, each copied into a buffer of its thread's: the
  // sink may change the rows it is given.
  pool_->run_in_order(strips, [&](int k) {
    if (background && !touched_[static_cast<size_t>(k)] && background(k)) return;
    thread_local Image strip;
    const int y = k * kStripRows;
    {
      ScratchScope scratch;  // with the sink's buffers, as render_strips
      copy_rows(whole_, y, std::min(height_ - y, kStripRows), strip);
    }
    sink(k, strip);
  });
}

}  // namespace spritz
