// Exact motion vectors (docs/rendering.md, "Motion vectors"): for every
// pixel of a frame, where the particle surface seen there is one step later,
// from each particle's closed-form position, rotation and size at both
// clocks. Flipbook frame blending in an engine samples each cell at a
// displaced place; these maps give it the true displacement, not an optical
// flow estimate.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "spritz/effect.h"
#include "spritz/eval.h"
#include "spritz/raster/raster.h"
#include "spritz/raster/texture.h"

namespace spritz {

// A frame's motion: per pixel the displacement (screen px, x right, y down)
// of the surface seen there, from `now` to `next`.
struct MotionField {
  int width = 0, height = 0;
  std::vector<float> xy;  // 2 floats per pixel, row-major, top row first
  // Per pixel: 2 where particles cover it (their vectors, weighted by what
  // each adds to the pixel and composited in draw order as their light is),
  // 1 where only a particle's halo reaches it (see MotionOptions), 0 where
  // nothing moves (the vector is 0).
  std::vector<uint8_t> source;
  // Only with MotionOptions::candidates (empty otherwise), the candidates
  // fit_motion_to_blend chooses from besides `xy`: the halo layer's vector
  // wherever a halo reaches, covered or not (where particles cover a pixel,
  // `xy` holds theirs instead), and the vectors of the one particle that
  // adds the most to the pixel and of the one whose halo weighs most there
  // (0 where none).
  std::vector<float> halo_xy;
  std::vector<float> top_xy, top_halo_xy;
};

struct MotionOptions {
  // The halo: the particle's rectangle (grown by `min_halo_px`) swept
  // along its displacement over the step, `dilate` displacements backward
  // and forward. Empty pixels there carry the motion of the point that
  // sweeps over them, weighted down linearly with the distance swept, so a
  // blend that samples a cell at a displaced place finds the particle's
  // motion on the path it travels between two cells: forward of it for the
  // cell it leaves, behind it for the cell it reaches. Half a displacement
  // (the default) reaches the middle of the path from both cells.
  double dilate = 0.5;
  double min_halo_px = 1.0;
  int threads = 1;
  bool candidates = false;  // also fill MotionField's halo_xy, top_xy and top_halo_xy
};

// The motion of `now`'s particles over the step to `next`: the same effect
// evaluated at next.clock (later than now.clock). Particles are matched by
// emitter, key and trail ghost; one that has died by then moves on with its
// velocity at `now`. Drawn at width x height through `view`, the sprites'
// coverage and texture alpha as the Rasterizer has them (ribbon trails by
// their samples' rectangles). Deterministic for any thread count.
void render_motion(const Effect& fx, const TextureSet& textures, const Frame& now,
                   const Frame& next, int width, int height, const View& view,
                   const MotionOptions& options, MotionField& out);

// How engines' shaders read a motion-vector texture (docs/cli.md, "Motion
// vectors"). Each stores the displacement in cell units (px / cell size)
// divided by a scale S, in red and green:
//   kUnity   VFX Graph's flipbook motion vectors: decoded rg * 2 - 1, times
//            the output's Motion Vector Scale S; x right, y up (UV)
//   kSideFx  SideFX Labs' MotionVector shader: g inverted before the same
//            decode, the vector the shader adds to reach the source (minus
//            the motion), times its Distortion S
//   kUnreal  Unreal's flipbook motion-vector function: 128 (of 255) is
//            neutral, (v - 128) / 127 times the strength S; x right, y down
enum class MotionEncoding { kUnity, kSideFx, kUnreal };

MotionEncoding motion_encoding_from_name(std::string_view name);  // throws spritz::Error
const char* motion_encoding_name(MotionEncoding enc);

// The largest displacement component in `field`, in units of cell_w x cell_h
// px: the least scale that stores every vector unclamped.
double motion_extent(const MotionField& field, double cell_w, double cell_h);

// `field` as RGBA16 (red and green the encoded vector, blue 0, alpha opaque)
// with scale `scale`; returns how many pixels had a component clamped.
uint64_t encode_motion(const MotionField& field, double cell_w, double cell_h, double scale,
                       MotionEncoding enc, std::vector<uint16_t>& rgba16);

// The neutral (zero motion) value of red and green at 16 bits.
uint16_t motion_neutral16(MotionEncoding enc);

// The displacement (px, y down) a shader of `enc` reads from red and green
// values r, g in [0, 1].
void decode_motion(double r, double g, double cell_w, double cell_h, double scale,
                   MotionEncoding enc, double& dx, double& dy);

// An in-between of two cells as flipbook shaders blend them with motion
// vectors, at fraction f of the step from cell a to cell b:
//   s0 = a sampled at p - f m_a(p),  s1 = b sampled at p + (1 - f) m_b(p),
//   out = s0 + (s1 - s0) f
// a, b and out are straight-alpha RGBA floats (w x h, 4 per pixel), m_a and
// m_b the decoded displacements (px, y down, 2 per pixel; all 0 gives a
// plain crossfade). Bilinear, clamped to the cell's edge.
void blend_cells(const std::vector<float>& a, const std::vector<float>& b,
                 const std::vector<float>& motion_a, const std::vector<float>& motion_b, int w,
                 int h, double f, std::vector<float>& out);

// Fitting a sheet's vectors to the blend that reads them (atlas --mv-fit
// blend, docs/rendering.md "Fitted to the blend"). One vector per pixel
// cannot say everything: where a thin streak slides along itself, or a
// covered pixel has a faster particle passing through it, the exact vector
// can make the shader's blend worse than no vector at all. Here each pixel
// of each cell takes one of its candidates (its exact vector, those of the
// four pixels beside it, the halo's, the strongest particle's and the
// strongest halo's, or none), the choice that makes the blends of the
// pairs the cell takes part in (as their first cell and as their second)
// closest to the exact renders in between. A cell's choice at a pixel
// meets only its neighbours' choices at the same pixel, so the best choice
// for a chain (or loop) of cells is found exactly, pixel by pixel, by
// dynamic programming; four passes let a choice spread to the pixels
// beside it.
struct BlendFit {
  // Straight-alpha RGBA floats of every cell, as stored in the sheet.
  std::vector<const std::vector<float>*> cells;
  // next[i]: the cell blended after cell i, or -1. Every cell is next of
  // at most one other.
  std::vector<int> next;
  // fractions[k] and truth[i][k]: the exact render (as cells are stored)
  // at fraction fractions[k] of the step from cell i to next[i].
  std::vector<double> fractions;
  std::vector<std::vector<const std::vector<float>*>> truth;
  // SideFX's shader displaces both cells by the first cell's vectors.
  bool first_cells_vectors = false;
  int threads = 1;
};

// Replaces each field's `xy` with the chosen candidates (the fields in cell
// order, each cell's size, drawn with MotionOptions::candidates). Never worse than the exact
// vectors at the given fractions; returns how many pixels' vectors differ from the exact ones.
// Throws spritz::Error on inputs that do not fit together.
uint64_t fit_motion_to_blend(const BlendFit& fit, int w, int h, std::vector<MotionField>& fields);

// The sum of squared differences of two straight-alpha RGBA float images
// compared premultiplied (colour times alpha, and alpha), which ignores the
// colour under transparent pixels.
double premultiplied_sq_error(const std::vector<float>& a, const std::vector<float>& b);

// PSNR in dB of a summed squared error over `values` channel values in
// [0, 1]; 100 for identical images.
double psnr_db(double sq_error, double values);

}  // namespace spritz
