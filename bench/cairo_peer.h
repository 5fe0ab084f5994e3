// The Cairo peer: draws a scene's sprite list with Cairo 1.16 into an image
// surface (rotated, bilinear, OVER for alpha-blended and ADD for additive
// sprites), so spritz's rasterizer is compared on the same machine, in the
// same run, on the same particles.
#pragma once

#include "scenes.h"

namespace spritz::bench {

bool cairo_available();
// Draws the scene once; returns the seconds it took.
double cairo_draw(const Scene& scene);

}  // namespace spritz::bench
