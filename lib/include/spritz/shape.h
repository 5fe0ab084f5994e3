// Emission shapes (model.md section 5): where a particle starts and the
// direction it leaves in, from two uniform rolls (u, v) and an in/out coin.
#pragma once

#include <vector>

#include "spritz/vec2.h"

namespace spritz {

enum class ShapeKind { kPoint, kBox, kEllipse, kPoints };
enum class ShapeStyle { kVolume, kSurface };
enum class InOut { kOutward, kInward, kBoth };

struct Shape {
  ShapeKind kind = ShapeKind::kPoint;
  ShapeStyle style = ShapeStyle::kVolume;
  InOut in_out = InOut::kOutward;
  double a = 0, b = 0;  // semi-axes, design px (half of the configured size)
  double inner = 0;     // ellipse annulus: inner radius as a fraction of the outer, [0, 1)
  // kPoints: the places particles start from (one picked per particle), and
  // optionally a normal per point that the emitter direction is measured from.
  std::vector<Vec2> points, normals;
  // An ellipse emits along its outward normal, unless this is set: then
  // along the emitter direction, as a box does (Godot's spheres and rings).
  bool along_direction = false;
  // The shape turned about the emitter, degrees counter-clockwise (y up):
  // its places and the normals it gives, not the emitter direction.
  double rotation_deg = 0;
};

struct ShapeSample {
  Vec2 offset;  // from the emitter position
  Vec2 normal;  // unit base direction, before spread (in_out applied)
};

// `emitter_dir` is the unit emitter direction; u, v and coin are unit rolls on
// channels 8, 9 and 10.
ShapeSample sample_shape(const Shape& shape, Vec2 emitter_dir, double u, double v, double coin);

}  // namespace spritz
