// Sprite setup: an evaluated particle to the screen-space rectangle the
// kernels draw (centre, axes, extents, pixel bounds, colour, mip levels), and
// the colour shared with ribbon segments.
#pragma once

#include "spritz/raster/raster.h"

namespace spritz::detail {

// Larger sprites are clamped (they cover the canvas anyway).
inline constexpr double kMaxHalfExtentPx = 1e7;

// Linear colour, brightness (HDR above 1), then light influence toward the
// ambient colour: c' = c (1 - L + L ambient); alpha lane: opacity (1 - E).
// `thin` scales both (a sprite widened to its minimum extent).
Float4 particle_colour(const Particle& p, const Emitter& em, Rgb ambient_linear, double thin,
                       LightPass pass = LightPass::kAll);

}  // namespace spritz::detail
