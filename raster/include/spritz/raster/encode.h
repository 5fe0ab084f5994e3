// From the linear float buffer to 8-bit sRGB pixels (model.md 7.6, docs/rendering.md).
//
// The buffer holds premultiplied light C and coverage A. Per pixel:
//  1. Tone map C: with p the largest channel, if p > 1,
//     beta = 1 - 1/p and C'' = (1 - beta) C / p + beta ("white": a hot core goes
//     toward white keeping its hue), or C'' = min(C, 1) ("clamp").
//  2. Additive light over a transparent background has colour but little
//     alpha (C > A). No straight-alpha pixel can add light, so spritz writes
//     the least opacity that carries all of it: a' = max(A, max(C'')), and the
//     colour c = C'' / a'. Composited with ordinary "over" onto black this
//     gives exactly C''; onto a brighter background the glow also covers it by
//     a' instead of adding to it. This is the documented straight-alpha rule.
//  3. straight: RGB = sRGB(c), alpha = a'.
//     premultiplied: RGB = sRGB(c) a', alpha = A. Blended with
//     (ONE, ONE_MINUS_SRC_ALPHA), as premultiplied engines do, this adds the
//     light exactly and occludes by the true coverage A.
#pragma once

#include <cstdint>
#include <vector>

#include "spritz/effect.h"
#include "spritz/raster/image.h"

namespace spritz {

// Converts rows [row_begin, row_end) of `img` to RGBA8 in `out`, which holds
// the image's rows (width * height * 4 bytes), row y at row y - img.y0.
void encode_rgba8(const Image& img, Tonemap tonemap, AlphaMode alpha, uint8_t* out, int row_begin,
                  int row_end);

// The whole image, resizing `out`.
void encode_rgba8(const Image& img, Tonemap tonemap, AlphaMode alpha, std::vector<uint8_t>& out);

// Exact 8-bit sRGB encoding of a linear value in [0, 1] (round to nearest).
uint8_t linear_to_srgb8(float linear);

// The same conversion to 16 bits per channel (`--depth 16`): the same tone
// map and alpha rule in the same float operations, then sRGB (the exact
// transfer function, in double) times 65535, rounded to nearest. Soft
// gradients keep 256 times as many levels.
// For a frame blended in sRGB values (canvas.blend = "srgb"): tone maps
// its premultiplied encoded colour E (alpha A) in place and makes it the
// linear light L = lin(E / a) a, a = max(A, max(E)), whose encoding by the
// functions here (8 or 16 bits, straight or premultiplied) gives back E's
// own values, and which .exr and .hdr store as the light it shows.
void srgb_blend_to_linear(Image& img, Tonemap tonemap, int row_begin, int row_end);

void encode_rgba16(const Image& img, Tonemap tonemap, AlphaMode alpha, std::vector<uint16_t>& out);

// Fills the colour of fully transparent pixels of an RGBA8 image with the
// colour of the nearest opaque-ish neighbours (dilation), leaving alpha
// untouched, so engines that filter or mipmap straight-alpha images get no
// dark halos.
void bleed_transparent_colour(std::vector<uint8_t>& rgba, int width, int height);
void bleed_transparent_colour(std::vector<uint16_t>& rgba, int width, int height);

}  // namespace spritz
