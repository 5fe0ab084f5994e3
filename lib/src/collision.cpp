// Collisions in closed form (docs/model.md 9.7): the first impact of each
// flight, found as the first root of a function of the particle's age, and
// the responses that join flights.
//
// Lines and box faces: h(t) = n.(p(t) - q) has h'(t) = n.v(t), and v(t)
// moves along a straight segment in velocity space (v_inf + (v0 - v_inf)
// e^(-k t), or v0 + a t without drag), so h' changes sign at most once and h
// has at most two monotone pieces; each piece holds at most one root, found
// by bisection to the last representable age.
//
// Circles: F(t) = s (|p(t) - c|^2 - r^2) has |F''| <= M on any interval,
// M = 2 (Vmax^2 + Dmax Amax), from bounds on the speed, the distance and the
// acceleration that hold on the whole interval (each is largest at an end:
// v(t) runs along a segment). With F and F' at both ends, the lower bounds
// F(x0) + F'(x0) t - M t^2 / 2 and F(x1) - F'(x1) t - M t^2 / 2 prove an
// interval root-free, or its first root alone (F' <= 0 throughout), or it is
// halved; the halves are taken in time order, so the root found is the first.
#include "spritz/collision.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "spritz/elementary.h"

namespace spritz {
namespace {

constexpr double kNoImpact = std::numeric_limits<double>::infinity();

// One flight: closed-form motion from (p, v) at flight age 0. Every
// collider asks for the state at the flight's start, its end and just past
// the horizon: those are computed once and shared (the same bits as
// computing them again).
struct Seg {
  Vec2 p, v, a;
  double k;
  static constexpr int kMemo = 3;
  mutable double memo_t[kMemo] = {};
  mutable MotionState memo[kMemo] = {};
  mutable int memos = 0;

  void remember(double t) const {
    if (memos < kMemo) memo_t[memos] = t, memo[memos] = move_particle(p, v, a, k, t), ++memos;
  }
  MotionState at(double t) const {
    for (int i = 0; i < memos; ++i)
      if (memo_t[i] == t) return memo[i];
    return move_particle(p, v, a, k, t);
  }
};

// The last age in [lo, hi] with f >= 0, given f(lo) >= 0 > f(hi) and one
// crossing between: the Illinois variant of regula falsi (superlinear, and
// both ends close in), with every fourth step a bisection so the bracket at
// least halves every four steps, until it is two adjacent doubles.
template <typename F>
double bisect(F f, double lo, double hi, double flo, double fhi) {
  int side = 0;
  for (int i = 0; i < 400; ++i) {
    const double w = hi - lo;
    double x = i % 4 == 3 || !(flo - fhi > 0) ? lo + 0.5 * w : lo + w * (flo / (flo - fhi));
    if (!(x > lo && x < hi)) x = lo + 0.5 * w;
    if (!(x > lo && x < hi)) break;
    const double fx = f(x);
    if (fx >= 0) {
      lo = x, flo = fx;
      if (side == 1) fhi *= 0.5;
      side = 1;
    } else {
      hi = x, fhi = fx;
      if (side == -1) flo *= 0.5;
      side = -1;
    }
  }
  return lo;
}

// Where h'(t) = n.v(t) changes sign within (0, T), or -1.
double turning_age(const Seg& s, Vec2 n, double T) {
  const double hv = dot(n, s.v), ha = dot(n, s.a);
  double tc = -1;
  if (std::abs(s.k) < kSmallDrag) {
    if (ha != 0) tc = -hv / ha;
  } else {
    const double hvi = ha / s.k, w = hv - hvi;
    const double r = w != 0 ? -hvi / w : -1;  // e^(-k t) = r at the turn
    if (r > 0) tc = -math::log(r) / s.k;
  }
  return tc > 0 && tc < T && std::isfinite(tc) ? tc : -1;
}

// Calls on_root(t) for each age in [0, T] where h = n.(p - q) - offset falls
// through 0 (from >= 0 to < 0), in order; t is the last age with h >= 0.
// With `touching`, a piece that starts below 0 and falls counts at its start
// (a particle within the contact tolerance moving in). Stops when on_root
// returns true, or at the first root that is surely after `horizon` (then
// unsolved: its bracket, and so its bits, never depend on the horizon).
template <typename OnRoot>
void falling_roots(const Seg& s, Vec2 n, double offset, double T, bool touching, double horizon,
                   OnRoot on_root) {
  const auto h = [&](double t) { return dot(n, s.at(t).position) - offset; };
  const double tc = turning_age(s, n, T);
  const double ends[3] = {0, tc > 0 ? tc : T, T};
  const int pieces = tc > 0 ? 2 : 1;
  for (int i = 0; i < pieces; ++i) {
    const double x0 = ends[i], x1 = ends[i + 1];
    if (!(x1 > x0)) continue;
    if (x0 > horizon) return;
    // h' keeps its sign inside a piece: its sign at the end away from the
    // turn (at both ends of a single piece, where one may be 0).
    const double d0 = i == 0 ? dot(n, s.at(x0).velocity) : 0;
    const double d1 = i == pieces - 1 ? dot(n, s.at(x1).velocity) : 0;
    if (!(d0 < 0 || d1 < 0)) continue;  // rising piece
    const double h1 = h(x1);
    if (h1 >= 0) continue;
    const double h0 = h(x0);
    if (h0 < 0) {
      if (touching && on_root(x0)) return;
      continue;
    }
    // Falling: the root is after the horizon when h is still >= 0 just past it.
    if (horizon < x1 && h(std::nextafter(horizon, kNoImpact)) >= 0) return;
    if (on_root(bisect(h, x0, x1, h0, h1))) return;
  }
}

// The lines of a box's faces: axis 0 is x, 1 is y; sign +1 the face at
// centre + half, -1 the one at centre - half. The outward normal is sign
// along the axis.
struct Face {
  int axis;
  double sign;
};
constexpr Face kFaces[4] = {{0, 1}, {0, -1}, {1, 1}, {1, -1}};
double axis_of(Vec2 v, int axis) {
  return axis == 0 ? v.x : v.y;
}
Vec2 axis_vector(int axis, double sign) {
  return axis == 0 ? Vec2{sign, 0} : Vec2{0, sign};
}

struct Hit {
  double t = kNoImpact;
  Vec2 normal;  // toward the allowed side
};

// The first age at which the flight crosses a line collider (n, q), or a
// box's face seen from inside.
Hit line_hit(const Seg& s, Vec2 n, Vec2 q, double T, double horizon) {
  Hit hit;
  falling_roots(s, n, dot(n, q), T, true, horizon, [&](double t) {
    hit = {t, n};
    return true;
  });
  return hit;
}

Hit box_inside_hit(const Seg& s, const Collider& c, double T, double horizon) {
  Hit best;
  for (const Face& f : kFaces) {
    // Inside the face: h = half - sign (p - c)_axis >= 0, normal -sign axis.
    const Vec2 n = axis_vector(f.axis, -f.sign);
    const Hit h =
        line_hit(s, n, c.point + axis_vector(f.axis, f.sign * axis_of(c.half, f.axis)), T, horizon);
    if (h.t < best.t) best = h;
  }
  return best;
}

// Outside a box, a particle enters through a face it crosses within the
// face's extent (tolerance included); corners count for the first face in
// kFaces order that reaches them. At age 0, a particle on the surface moving
// in enters through the nearest face.
Hit box_outside_hit(const Seg& s, const Collider& c, double T, double horizon) {
  Hit best;
  const Vec2 q0 = s.p - c.point;
  double near = -kNoImpact;
  int nearest = 0;
  for (int i = 0; i < 4; ++i) {
    const double d = kFaces[i].sign * axis_of(q0, kFaces[i].axis) - axis_of(c.half, kFaces[i].axis);
    if (d > near) near = d, nearest = i;
  }
  if (near <= 0) {  // on the surface (born_inside rejects the rest)
    const Face& f = kFaces[nearest];
    const Vec2 n = axis_vector(f.axis, f.sign);
    if (dot(n, s.v) < 0 || (dot(n, s.v) == 0 && dot(n, s.a) < 0)) return {0, n};
  }
  for (const Face& f : kFaces) {
    const Vec2 n = axis_vector(f.axis, f.sign);
    const int other = 1 - f.axis;
    const double offset = dot(n, c.point) + axis_of(c.half, f.axis);
    falling_roots(s, n, offset, T, false, horizon, [&](double t) {
      const double across = axis_of(s.at(t).position - c.point, other);
      if (std::abs(across) > axis_of(c.half, other) + kContactTolerancePx) return false;
      if (t < best.t) best = {t, n};
      return true;
    });
  }
  return best;
}

// A sample of F(t) = sign (|p(t) - c|^2 - r^2) and what bounds it.
struct Node {
  double t, f, d;  // F and F'
  double dist, speed;
  Vec2 v;
};

class CircleSearch {
 public:
  CircleSearch(const Seg& s, const Collider& c)
      : s_(s), c_(c), sign_(c.inside ? -1.0 : 1.0), no_drag_(std::abs(s.k) < kSmallDrag) {}

  Node node(double t) const {
    const MotionState m = s_.at(t);
    const Vec2 q = m.position - c_.point;
    return {t,
            sign_ * (dot(q, q) - c_.radius * c_.radius),
            sign_ * 2 * dot(q, m.velocity),
            length(q),
            length(m.velocity),
            m.velocity};
  }

  // |F''| <= M on [a, b].
  double bound(const Node& a, const Node& b) const {
    const double vmax = std::max(a.speed, b.speed);
    const double dmax = std::max(a.dist, b.dist) + 0.5 * vmax * (b.t - a.t);
    const double amax =
        no_drag_ ? length(s_.a) : std::max(length(s_.a - a.v * s_.k), length(s_.a - b.v * s_.k));
    return 2 * (vmax * vmax + dmax * amax);
  }

  Hit first(double T, double horizon) const;

 private:
  const Seg& s_;
  const Collider& c_;
  double sign_;
  bool no_drag_;
};

// F stays > 0 inside (a, b): the two lower bounds from the ends cover it.
bool root_free(const Node& a, const Node& b, double M) {
  if (b.f < 0) return false;
  if (!(M > 0)) return true;  // F is linear: both ends >= 0
  const double f0 = std::max(a.f, 0.0);
  const double left = (a.d + std::sqrt(a.d * a.d + 2 * M * f0)) / M;
  const double right = (-b.d + std::sqrt(b.d * b.d + 2 * M * b.f)) / M;
  return left + right >= b.t - a.t;
}

Hit CircleSearch::first(double T, double horizon) const {
  Node cur = node(0);
  const auto normal_at = [&](double t) {
    const Vec2 q = s_.at(t).position - c_.point;
    const double l = length(q);
    return l > 0 ? q * (sign_ / l) : Vec2{0, 1};
  };
  if (cur.f < 0 && cur.d < 0) return {0, normal_at(0)};  // touching, moving in
  const auto F = [&](double t) { return node(t).f; };
  Node stack[128];
  int top = 0;
  stack[top++] = node(T);
  int budget = kCircleSearchBudget;
  // A root in [cur, next] where F falls is after the horizon when F is
  // still >= 0 just past it.
  const auto beyond = [&](const Node& next) {
    return horizon < next.t && F(std::nextafter(horizon, kNoImpact)) >= 0;
  };
  while (top > 0) {
    if (cur.t > horizon) return {};  // no root before cur.t
    const Node& next = stack[top - 1];
    const double h = next.t - cur.t;
    const double M = bound(cur, next);
    if (next.f < 0 && cur.d + next.d + M * h <= 0) {  // F' <= 0 throughout: one root
      if (cur.f >= 0 && beyond(next)) return {};
      const double t = cur.f < 0 ? cur.t : bisect(F, cur.t, next.t, cur.f, next.f);
      return {t, normal_at(t)};
    }
    if (root_free(cur, next, M)) {
      cur = next;
      --top;
      continue;
    }
    const double mid = cur.t + 0.5 * h;
    if (!(mid > cur.t && mid < next.t) || top == 128 || --budget < 0) {
      // Unresolvable: an interval one age wide, or the work bound reached.
      // Its ends decide (a dip below 0 between them is at most M h^2 / 8).
      if (next.f < 0) {
        if (cur.f >= 0 && beyond(next)) return {};
        const double t = cur.f < 0 ? cur.t : bisect(F, cur.t, next.t, cur.f, next.f);
        return {t, normal_at(t)};
      }
      cur = next;
      --top;
      continue;
    }
    stack[top++] = node(mid);
  }
  return {};
}

// The box that holds a whole flight: each coordinate has its extremes at
// the ends or where its velocity is 0 (once at most, as for a line), grown
// by a margin far above the rounding of those few evaluations.
struct Bounds2 {
  Vec2 lo, hi;
};
Bounds2 flight_bounds(const Seg& s, double T) {
  Bounds2 b{s.at(0).position, s.at(0).position};
  const auto grow = [&](Vec2 p) {
    b.lo = {std::min(b.lo.x, p.x), std::min(b.lo.y, p.y)};
    b.hi = {std::max(b.hi.x, p.x), std::max(b.hi.y, p.y)};
  };
  grow(s.at(T).position);
  for (Vec2 axis : {Vec2{1, 0}, Vec2{0, 1}})
    if (const double tc = turning_age(s, axis, T); tc > 0) grow(s.at(tc).position);
  const double scale =
      std::max({std::abs(b.lo.x), std::abs(b.lo.y), std::abs(b.hi.x), std::abs(b.hi.y), 1.0});
  const double margin = 1e-6 * scale + kContactTolerancePx;
  b.lo = b.lo - Vec2{margin, margin};
  b.hi = b.hi + Vec2{margin, margin};
  return b;
}

// A flight held in `b` surely never reaches collider `c`'s wrong side: the
// search would find no impact, so it need not run.
bool surely_clear(const Collider& c, const Bounds2& b) {
  const Vec2 corners[4] = {b.lo, {b.hi.x, b.lo.y}, {b.lo.x, b.hi.y}, b.hi};
  switch (c.kind) {
    case ColliderKind::kLine:
      return std::all_of(corners, corners + 4,
                         [&](Vec2 q) { return dot(c.normal, q - c.point) > 0; });
    case ColliderKind::kCircle: {
      if (c.inside)
        return std::all_of(corners, corners + 4,
                           [&](Vec2 q) { return length(q - c.point) < c.radius; });
      const double dx = std::max({b.lo.x - c.point.x, 0.0, c.point.x - b.hi.x});
      const double dy = std::max({b.lo.y - c.point.y, 0.0, c.point.y - b.hi.y});
      return length({dx, dy}) > c.radius;
    }
    case ColliderKind::kBox: {
      const Vec2 lo = c.point - c.half, hi = c.point + c.half;
      if (c.inside) return b.lo.x > lo.x && b.lo.y > lo.y && b.hi.x < hi.x && b.hi.y < hi.y;
      return b.hi.x < lo.x || b.lo.x > hi.x || b.hi.y < lo.y || b.lo.y > hi.y;
    }
  }
  return false;
}

double box_distance(const Collider& c, Vec2 p) {
  const Vec2 q = p - c.point;
  const double dx = std::abs(q.x) - c.half.x, dy = std::abs(q.y) - c.half.y;
  const double out = length({std::max(dx, 0.0), std::max(dy, 0.0)});
  return out + std::min(std::max(dx, dy), 0.0);  // > 0 outside the box
}

}  // namespace

double collider_distance(const Collider& c, Vec2 p) {
  switch (c.kind) {
    case ColliderKind::kLine:
      return dot(c.normal, p - c.point);
    case ColliderKind::kCircle: {
      const double d = length(p - c.point) - c.radius;
      return c.inside ? -d : d;
    }
    case ColliderKind::kBox:
      return c.inside ? -box_distance(c, p) : box_distance(c, p);
  }
  return 0;
}

Flight::Flight(const Collision& c, Vec2 p0, Vec2 v0, Vec2 accel, double drag_per_s, double life_s)
    : c_(c), accel_(accel), drag_(drag_per_s), life_(life_s), p_(p0), v_(v0) {
  for (const Collider& col : c.colliders)
    if (collider_distance(col, p0) < -kContactTolerancePx) born_inside_ = true;
}

// The first impact of the current flight on any collider before the death;
// ties go to the first collider in the file. Each collider is searched over
// the whole flight, whatever the horizon: the horizon only skips solving
// for roots surely after it, so an impact's bits never depend on it.
void Flight::search(double horizon_age) {
  searched_to_ = horizon_age;
  has_next_ = false;
  if (resting_ || killed_ || born_inside_) return;
  const double T = life_ - t0_;
  if (!(T > 0)) return;
  const double horizon = horizon_age - t0_;
  const Seg s{p_, v_, accel_, drag_};
  s.remember(0);
  s.remember(T);
  if (horizon < T) s.remember(std::nextafter(horizon, kNoImpact));
  const Bounds2 bounds = flight_bounds(s, T);
  Hit best;
  uint32_t which = 0;
  for (size_t i = 0; i < c_.colliders.size(); ++i) {
    const Collider& col = c_.colliders[i];
    if (surely_clear(col, bounds)) continue;
    Hit h;
    switch (col.kind) {
      case ColliderKind::kLine:
        h = line_hit(s, col.normal, col.point, T, horizon);
        break;
      case ColliderKind::kCircle:
        h = CircleSearch(s, col).first(T, horizon);
        break;
      case ColliderKind::kBox:
        h = col.inside ? box_inside_hit(s, col, T, horizon) : box_outside_hit(s, col, T, horizon);
        break;
    }
    if (h.t < best.t) best = h, which = static_cast<uint32_t>(i);
  }
  if (!(best.t <= T)) return;
  const MotionState m = s.at(best.t);
  Impact& im = next_;
  im.age_s = t0_ + best.t;
  im.position = m.position;
  // Within the contact tolerance below the surface (a touching start): put
  // the contact point on it.
  const double below = collider_distance(c_.colliders[which], m.position);
  if (below < 0 && c_.colliders[which].kind != ColliderKind::kCircle)
    im.position = m.position + best.normal * (-below);
  im.velocity_in = m.velocity;
  im.normal = best.normal;
  im.collider = which;
  // The bounce law: normal speed times -restitution, tangential times
  // 1 - friction. A particle not moving in keeps its normal speed.
  const double vn = dot(m.velocity, best.normal);
  const Vec2 tangential = m.velocity - best.normal * vn;
  im.velocity_out =
      best.normal * (vn < 0 ? -c_.restitution * vn : vn) + tangential * (1 - c_.friction);
  has_next_ = true;
}

const Impact* Flight::next_impact(double horizon_age) {
  if (!has_next_ && searched_to_ < horizon_age) search(horizon_age);
  return has_next_ ? &next_ : nullptr;
}

void Flight::take() {
  if (!next_impact()) return;
  const Impact im = next_;
  ++impacts_;
  has_next_ = false;
  searched_to_ = -kNoImpact;
  t0_ = im.age_s;
  p_ = im.position;
  switch (c_.response) {
    case CollisionResponse::kKill:
      killed_ = true;
      return;
    case CollisionResponse::kStop:
      break;
    case CollisionResponse::kBounce:
      if (static_cast<int>(impacts_) < c_.max_bounces &&
          dot(im.velocity_out, im.normal) >= c_.rest_speed_px_per_s) {
        v_ = im.velocity_out;
        return;
      }
      break;
  }
  // Rest where it touched, heading the way it skidded (or arrived).
  resting_ = true;
  v_ = {};
  const Vec2 skid = im.velocity_in - im.normal * dot(im.velocity_in, im.normal);
  rest_heading_ = skid.x != 0 || skid.y != 0 ? skid : im.velocity_in;
}

MotionState Flight::at(double age_s) const {
  if (resting_ || killed_) return {p_, {0, 0}};
  return move_particle(p_, v_, accel_, drag_, age_s - t0_);
}

CollidedMotion collide(const Collision& c, Vec2 p0, Vec2 v0, Vec2 accel, double drag_per_s,
                       double life_s, double age_s) {
  Flight f(c, p0, v0, accel, drag_per_s, life_s);
  CollidedMotion out;
  if (f.born_inside()) {
    out.alive = false;
    return out;
  }
  while (const Impact* im = f.next_impact(age_s)) {
    if (im->age_s > age_s) break;
    f.take();
    if (f.killed()) {
      out.alive = false;
      out.impacts = f.impacts();
      return out;
    }
  }
  out.m = f.at(age_s);
  out.heading = f.heading(out.m);
  out.impacts = f.impacts();
  out.resting = f.resting();
  return out;
}

}  // namespace spritz
