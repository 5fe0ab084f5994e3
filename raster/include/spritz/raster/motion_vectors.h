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

}  // namespace spritz
