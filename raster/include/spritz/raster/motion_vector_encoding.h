// How engines' shaders read a motion-vector texture, and the vectors of a
// MotionField stored and read back that way (docs/cli.md, "Motion vectors").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "spritz/raster/motion_vectors.h"

namespace spritz {

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

}  // namespace spritz
