// The rasterizer (docs/rendering.md): blends one frame's evaluated particles into a
// linear, premultiplied float buffer. Horizontal strips may be drawn by
// several threads; every pixel sees the same sequence of operations whatever
// the thread count, so the result is byte-identical for any --threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "spritz/effect.h"
#include "spritz/eval.h"
#include "spritz/raster/image.h"
#include "spritz/raster/pool.h"
#include "spritz/raster/texture.h"

namespace spritz {

// Four floats processed together (GCC/Clang vector extension: SSE2 on
// x86-64, NEON on ARM). Lane arithmetic is ordinary IEEE single precision, so
// it matches the scalar reference bit for bit.
typedef float Float4 __attribute__((vector_size(16)));

// A particle prepared for drawing: screen-space geometry (y down), colour,
// texture cell and mip selection.
struct RibbonSegment;

struct Sprite {
  float cx = 0, cy = 0;                  // centre, screen px
  float ax_x = 1, ax_y = 0;              // local x axis in screen space (unit)
  float ay_x = 0, ay_y = -1;             // local y axis (up) in screen space (unit)
  float half_w = 0, half_h = 0;          // screen px
  float foot_x = 0.5f, foot_y = 0.5f;    // a pixel's half-extent along the local axes
  float inv_foot_x = 1, inv_foot_y = 1;  // 1 / (2 foot)
  bool exact_edges = true;               // clip edge pixels exactly (thin sprites)
  float inv_w = 0, inv_h = 0;            // 1 / (2 half_w), 1 / (2 half_h)
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;    // pixel bounds [x0, x1) x [y0, y1), clipped
  // (r, g, b) linear colour times opacity; alpha lane: opacity times (1 - E),
  // the part of the source alpha that occludes.
  Float4 colour = {0, 0, 0, 0};
  const TextureCell* cell = nullptr;
  int level0 = 0, level1 = 0;  // trilinear mip levels
  float level_mix = 0;         // weight of level1
  bool nearest = false;        // the nearest texel of level0, not a bilinear blend
  // A ribbon segment (trail style "ribbon") instead of a rectangle: drawn
  // by draw_ribbon_segment on every path; cell and nearest still say how to
  // sample, the pixel bounds still bin it.
  const RibbonSegment* ribbon = nullptr;
};

// One segment of a ribbon: the quad between two consecutive samples a and b
// of a particle's past (screen px, y down), corners L_a, L_b, R_b, R_a with
// L = C + N hw and R = C - N hw, N the unit normal at the sample (from its
// neighbours), so two segments share their common edge exactly. The
// ribbon's two ends also get a round cap: a half disc on L R, bulging along
// the segment (a polygon of kRibbonCapPoints more corners, made when drawn).
// Colour (premultiplied, as Sprite::colour) and half width go linearly from
// a to b along the centre line; the texture's middle column is read across
// it, at the distance from the centre line (from the end point, on a cap).
inline constexpr int kRibbonCapPoints = 15;
struct RibbonSegment {
  double corner_x[4], corner_y[4];  // L_a, L_b, R_b, R_a
  double ax, ay;                    // C_a
  double dx, dy;                    // C_b - C_a
  double len2;                      // |C_b - C_a|^2
  double tx, ty;                    // unit vector from a to b (caps bulge along it)
  double hw_a, hw_b;                // half widths
  Float4 colour_a, colour_b;
  bool cap_a = false, cap_b = false;  // a is the ribbon's oldest sample, b its particle
};

// Blends a ribbon segment sprite into rows [row_begin, row_end): coverage is
// the exact area of the quad inside each pixel, so segments sharing an edge
// add up to the strip's area. The same scalar code on every draw path.
uint64_t draw_ribbon_segment(const Sprite& s, Image& img, int row_begin, int row_end);

struct RasterStats {
  uint64_t sprites = 0;         // sprites that reached the canvas
  uint64_t covered_pixels = 0;  // pixel blends performed
};

// What part of the design plane the image shows: `scale` screen px per design
// px, the design point (center_x, center_y) at the image centre.
struct View {
  double scale = 1;
  double center_x = 0, center_y = 0;
};

// Which light a frame draws (`--pass`, docs/rendering.md "Light passes"): a
// particle's light C splits into its alpha-over share C (1 - E) and its
// additive share C E, both occluded by later particles as in the whole
// image. kAlpha draws the first share over the background, kEmissive the
// second over nothing (its alpha channel 0: light to add); the two sum to
// kAll's light, and kAlpha has kAll's alpha.
enum class LightPass { kAll, kAlpha, kEmissive };

// What make_sprite worked out for the last sprite it made with this memo,
// reused when the next has the same rotation or the same texels per pixel
// (most of an emitter's sprites share one or both): the same sprite without
// its sine, cosine or logarithm. One per thread.
struct SpriteMemo {
  bool has_rotation = false, has_lod = false;
  double rotation_deg = 0, sin = 0, cos = 1;
  double texels_per_px = 0, lod = 0;
};

// The sprite of particle `p` of emitter `em` on a `width` x `height` image seen
// through `view`. Returns false when it cannot touch a pixel.
bool make_sprite(const Particle& p, const Emitter& em, const Texture& tex, Rgb ambient_linear,
                 int width, int height, const View& view, Sprite& out,
                 LightPass pass = LightPass::kAll, SpriteMemo* memo = nullptr);

// The ways to draw a sprite, all giving the same bytes (tested):
//   kReference  the plain scalar loop over the bounding box, one channel at a time
//   kPortable   four channels at once over row spans (SSE2 / NEON)
//   kAvx2       eight pixels' geometry at once, two pixels per 256-bit vector;
//               chosen at run time when the CPU has AVX2 and FMA3 (x86-64 only)
//   kAvx512     the same on sixteen pixels' geometry, four pixels per 512-bit
//               vector; needs AVX-512 F, DQ, BW, VL, and is the default on AMD
//               from Zen 5 on (elsewhere SPRITZ_SIMD=avx512 asks for it)
enum class DrawPath { kReference, kPortable, kAvx2, kAvx512 };

// The fastest path this CPU runs. The library reads no environment: a
// program that lets its user choose (spritz's SPRITZ_SIMD) passes the choice
// to Rasterizer::set_draw_path or FrameRenderer::set_draw_path.
DrawPath default_draw_path();
bool draw_path_available(DrawPath path);
// The kernel named `name` (draw_path_name's names); throws spritz::Error when
// the name is unknown or this CPU cannot run that kernel.
DrawPath draw_path_from_name(std::string_view name);
const char* draw_path_name(DrawPath path);

// Blends one sprite into rows [row_begin, row_end) of `img`. Returns the
// number of pixels blended. `path` must be available.
uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end, DrawPath path);
uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end);  // default path
uint64_t draw_sprite_reference(const Sprite& s, Image& img, int row_begin, int row_end);

// The default view: the design canvas fitted inside width x height, centred.
View canvas_view(const Canvas& canvas, int width, int height);

// The view that frames `bounds` (design px) inside width x height with
// `margin_px` screen pixels to spare on each side; the canvas view when empty.
View fit_view(const Bounds& bounds, const Canvas& canvas, int width, int height, double margin_px);

// The design-space rectangle a view shows.
Bounds visible_bounds(const View& view, int width, int height);

// Rows per strip: a 1920 px strip of float RGBA is 983 KB, inside a core's
// L2 (1 MB and up on current x86); 32 rather than 16 rows cuts fewer sprites
// in two (measured in bench/, docs/performance.md).
inline constexpr int kStripRows = 32;

class Rasterizer {
 public:
  // Renders `fx` at width x height with `threads` threads (>= 1), through
  // `view` (default: canvas_view).
  Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height, int threads);
  Rasterizer(const Effect& fx, const TextureSet& textures, int width, int height, int threads,
             const View& view);

  // Clears to the background and draws every particle of `frame` into `out`
  // (resized as needed; its storage is reused across frames).
  void render(const Frame& frame, Image& out);

  // What render_strips hands on: the finished rows of strip k (image rows
  // [rows.y0, rows.y0 + rows.height)), on the thread that drew them. Calls
  // for different strips may run at once and in any order.
  using StripSink = std::function<void(int k, Image& rows)>;

  // Draws `frame` strip by strip without a whole frame: each strip of
  // kStripRows rows is cleared and drawn into a buffer of its thread's (the
  // same floats render() would give those rows) and handed to `sink`,
  // which may change it. Memory is a strip per thread, whatever the size.
  //
  // `background(k)`, when given, is asked first about each strip that no
  // sprite reaches (its rows are the background alone): when it answers
  // true it has dealt with strip k (say, from a strip like it encoded
  // before), and the strip is neither drawn nor handed to `sink`.
  using BackgroundStrip = std::function<bool(int k)>;
  void render_strips(const Frame& frame, const StripSink& sink,
                     const BackgroundStrip& background = {});
  int strip_count() const { return (height_ + kStripRows - 1) / kStripRows; }

  // render_strips for a frame with deferred emitters (Frame::defer_above,
  // evaluated with this rasterizer's effect): its particles are evaluated,
  // set up and drawn in batches of about kBatchSlots, in draw order, into
  // one whole float image (so every pixel sees the same operations, and
  // the frame has the same bytes, as render_strips of the whole frame),
  // whose strips then go to `sink`. Memory is the image and one batch,
  // whatever the number of particles. Adds the deferred emitters' visited,
  // alive and dropped counts to their stats. No emitter may draw ribbons.
  void render_batches(Frame& frame, const StripSink& sink, const BackgroundStrip& background = {});
  static constexpr size_t kBatchSlots = size_t{1} << 18;
  // A held emitter's particles per unit of a batch: a deferred run's most
  // keys (evaluate()'s pieces), so units take alike.
  static constexpr size_t kUnitParticles = 4096;

  // The sprite kernel to use (default: default_draw_path()); must be available.
  void set_draw_path(DrawPath path) { path_ = path; }
  DrawPath draw_path() const { return path_; }

  // The light to draw (default: all of it).
  void set_light_pass(LightPass pass) { pass_ = pass; }
  LightPass light_pass() const { return pass_; }

  const RasterStats& stats() const { return stats_; }
  double scale() const { return view_.scale; }
  int threads() const { return threads_; }

  // Runs fn(0..tasks-1) on this rasterizer's threads (evaluation shares
  // them: FrameRenderer evaluates a frame's particles with it).
  void parallel_for(int tasks, const std::function<void(int)>& fn) { pool_->run(tasks, fn); }

 private:
  // Whether slots a and b hold samples of one particle's ribbon (or trail).
  bool same_line(size_t a, size_t b) const;
  // The ribbon segment from particle slot i (a ribbon trail's sample) to
  // the next sample of the same particle; false when it draws nothing.
  bool make_segment(size_t i, Sprite& s, RibbonSegment& r) const;
  // Gives every particle of `frame` its slot (its place in draw order,
  // emitter by emitter) and sizes the sprite lists; returns the slot count.
  size_t assign_slots(const Frame& frame);
  // Sets up the sprites of slots [begin, end) and bins those that reach the
  // canvas into `bins` by the strips their rows touch. Returns how many.
  uint64_t setup_chunk(const Frame& frame, size_t begin, size_t end,
                       std::vector<std::vector<uint32_t>>& bins);
  // Sets up and bins the sprites of `frame` (render's first half); returns
  // the number of setup chunks.
  int prepare(const Frame& frame);
  // stats_ from the last frame's chunks and strips.
  void sum_stats();
  // Clears strip k to the background and draws its sprites, chunk by chunk
  // in draw order. Returns the pixel blends.
  uint64_t draw_strip(int k, int chunks, Image& out) const;
  // Strip k's rows of `out` set to the background.
  void clear_strip(int k, Image& out) const;
  // Adds slot `slot` to the bins of the strips sprite `s` touches.
  static void bin_sprite(const Sprite& s, size_t slot, std::vector<std::vector<uint32_t>>& bins);
  // Draws strip k's sprites, chunk by chunk in draw order, over what its
  // rows hold. Returns the pixel blends.
  uint64_t blend_strip(int k, int chunks, Image& out) const;
  // Sets up the sprites of emitter `em`'s particles ps[0 .. n) into slots
  // [slot, slot + n) and bins those that reach the canvas; returns how many.
  uint64_t setup_span(const Emitter& em, const Particle* ps, size_t n, size_t slot,
                      std::vector<std::vector<uint32_t>>& bins);

  // A piece of a batch (render_batches): a deferred emitter's key run, or
  // up to kUnitParticles of a held emitter's particles [begin, end).
  struct BatchUnit {
    uint32_t frame_emitter = 0;  // index into Frame::emitters
    bool deferred = false;       // begin is then the run's index
    size_t begin = 0, end = 0;
    size_t slots = 0;  // the most sprites it can make
  };
  // The frame's particles as units in draw order.
  void plan_units(const Frame& frame);
  // Evaluates, sets up and draws units [first, last) into whole_, and adds
  // their counts to the frame's emitter stats and to stats_.
  void draw_batch(Frame& frame, size_t first, size_t last);

  const Effect& fx_;
  const TextureSet& textures_;
  int width_, height_, threads_;
  View view_;
  float background_[4];
  Rgb ambient_linear_;
  LightPass pass_ = LightPass::kAll;
  // Room for a sprite per slot, left unconstructed when the list grows
  // (a serial value-initialisation of every slot and its page faults were
  // a fifth of a small frame's process); setup_chunk constructs each slot's
  // sprite on its own thread before making it.
  struct SpriteSlot {
    union {
      Sprite sprite;
    };
    SpriteSlot() {}
  };
  static_assert(std::is_trivially_destructible_v<Sprite>, "slots never destroy their sprites");
  std::vector<SpriteSlot, FrameAllocator<SpriteSlot>> sprites_;
  std::vector<SpriteSlot, FrameAllocator<SpriteSlot>>
      sprites_spare_;                    // the list before last, on two threads or more
  std::vector<RibbonSegment> segments_;  // by particle slot, when an emitter draws ribbons
  std::vector<size_t> emitter_start_;    // per emitter of the frame: its first slot
  // (emitter, particle) by slot, in draw order; made only when an emitter
  // draws ribbons (same_line and make_segment read it).
  std::vector<std::pair<uint32_t, const Particle*>> particles_;
  // bins_[chunk][strip]: the indices of the chunk's sprites that reach the
  // strip, in draw order. Each setup chunk bins its own sprites; a strip walks
  // the chunks in order, so it still sees every sprite in draw order.
  std::vector<std::vector<std::vector<uint32_t>>> bins_;
  std::vector<BatchUnit> units_;          // render_batches' plan
  std::vector<EmitterStats> unit_stats_;  // per unit of a batch
  std::vector<char> touched_;             // per strip: some batch drew into it
  Image whole_;                           // render_batches' frame
  std::vector<uint64_t> blended_;         // per strip
  std::vector<uint64_t> kept_;            // per setup chunk: its sprites that reach the canvas
  RasterStats stats_;
  DrawPath path_ = default_draw_path();
  std::unique_ptr<ThreadPool> pool_;
};

// Screen px per design px for a canvas rendered at width x height (uniform,
// the design canvas fitted inside and centred).
double canvas_scale(const Canvas& canvas, int width, int height);

}  // namespace spritz
