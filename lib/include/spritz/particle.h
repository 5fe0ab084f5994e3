// One particle as evaluation gives it (model.md 7): its key, birth and
// age, where it is and how fast it goes, its size, rotation, colour and
// opacity, its flipbook cell, and whether it is a trail ghost.
#pragma once

#include <cstdint>

#include "spritz/color.h"

namespace spritz {

struct Particle {
  uint64_t key = 0;    // 2 i for stream particles, 2 (b P + j) + 1 for bursts,
                       // K spacing + j for child j of the parent with key K
  double birth_s = 0;  // clock of birth
  double age_s = 0, life_s = 0;
  double x = 0, y = 0;  // design px from the canvas centre, y up
  double vx = 0, vy = 0;
  double w = 0, h = 0;      // design px
  double rotation_deg = 0;  // counter-clockwise
  Rgb color_srgb;           // curve colour, envelope applied, before brightness
  double alpha = 1;         // opacity after the transparency curve
  int cell = 0;             // 1-based flipbook cell, 0 without a flipbook
  int16_t trail = 0;        // 0 for the particle itself, k for its k-th trail ghost
  uint16_t impacts = 0;     // collider impacts so far (model.md 9.7; at most kMaxBounces)
  double emission = -1;  // light_emission a program gave it (model.md 11.1); below 0: the emitter's
};

}  // namespace spritz
