// Sprite setup: an evaluated particle to the screen-space rectangle the
// kernels draw (centre, axes, extents, pixel bounds, colour, mip levels), and
// the colour shared with ribbon segments.
#pragma once

#include "spritz/angle.h"
#include "spritz/raster/raster.h"

namespace spritz::detail {

// Larger sprites are clamped (they cover the canvas anyway).
inline constexpr double kMaxHalfExtentPx = 1e7;
// Thinner sprites are drawn this thin with their colour and alpha scaled down
// to keep their light (area x colour). Float coverage resolves edges only to
// about 1e-7 px in a sprite's local coordinates, so a 1e-7 px line lost all
// its light; and a half extent of 1e-320 px made 1 / extent infinite in float
// and the mip level a wild integer, which read texels far outside the
// texture (a crash in the SIMD kernels).
inline constexpr double kMinHalfExtentPx = 1e-5;

// Linear colour, brightness (HDR above 1), then light influence toward the
// ambient colour: c' = c (1 - L + L ambient); alpha lane: opacity (1 - E).
// `thin` scales both (a sprite widened to its minimum extent).
Float4 particle_colour(const Particle& p, const Emitter& em, Rgb ambient_linear, double thin,
                       LightPass pass = LightPass::kAll);

}  // namespace spritz::detail
