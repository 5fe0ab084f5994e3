// An emitter's path (model.md 9.1): keyframes [t, x, y] over the effect clock,
// in design px added to the emitter's position (y up). The whole path is known
// up front, so a moving emitter stays closed form.
#pragma once

#include <vector>

#include "spritz/vec2.h"

namespace spritz {

struct Path {
  std::vector<double> t;  // strictly increasing effect-clock seconds
  std::vector<Vec2> p;    // design px
  // Linear: straight segments between keys. Smooth: a cubic Hermite spline
  // through the keys, each key's tangent the slope between its neighbours
  // (Catmull-Rom for uneven times), one-sided at the ends.
  bool smooth = false;
  bool empty() const { return t.empty(); }
  // A looped effect's period T: the path is read at the clock reduced into
  // [0, T), so it repeats every period (0: not looped). When the keys span
  // exactly [0, T] and end where they start, a smooth path is closed: the
  // tangent at the seam is the same from both sides.
  void set_period(double period);
  double period() const { return period_; }
  // The offset at effect clock `clock`: held at the first key before it and at
  // the last key after it.
  Vec2 at(double clock) const;
  // d at / d clock (0 where the path is held).
  Vec2 velocity(double clock) const;

 private:
  double period_ = 0;
  bool closed_ = false;
  double reduce(double clock) const;
  Vec2 tangent(size_t k) const;
};

}  // namespace spritz
