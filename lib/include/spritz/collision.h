// Collisions in closed form (docs/model.md 9.7). Between impacts a particle
// follows model.md 6's closed form; the time of its next impact is the first
// root of a known function of its age, found to double precision with a
// bounded amount of work, so its state after any number of bounces is still a
// pure function of seed, key and clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "spritz/motion.h"
#include "spritz/vec2.h"

namespace spritz {

enum class ColliderKind { kLine, kCircle, kBox };

// A collider in canvas space (design px, y up). A line keeps particles on the
// side its normal points to; a circle or a box keeps them outside or inside.
struct Collider {
  ColliderKind kind = ColliderKind::kLine;
  Vec2 point;                 // line: a point on it; circle and box: the centre
  Vec2 normal{0, 1};          // line: unit normal (normalized when loaded)
  Vec2 normal_written{0, 1};  // line: as the file wrote it, written back exactly
  double radius = 0;          // circle, > 0
  Vec2 half;                  // box: half its size, both > 0
  bool inside = false;        // circle and box: particles stay inside, else outside
};

enum class CollisionResponse { kBounce, kStop, kKill };

inline constexpr size_t kMaxColliders = 16;
inline constexpr int kMaxBounces = 1000;
// A particle within this distance of a collider's surface touches it: a
// particle born closer is on the surface, not inside (design px).
inline constexpr double kContactTolerancePx = 1e-7;
// Function evaluations one circle may spend on one flight (model.md 9.7).
inline constexpr int kCircleSearchBudget = 4096;

struct Collision {
  CollisionResponse response = CollisionResponse::kBounce;
  double restitution = 0.5;        // outgoing normal speed / incoming, in [0, 1]
  double friction = 0;             // tangential speed lost per impact, in [0, 1]
  int max_bounces = 8;             // impacts after which a bouncing particle rests
  double rest_speed_px_per_s = 1;  // outgoing normal speed below which it rests
  std::vector<Collider> colliders;
  bool enabled() const { return !colliders.empty(); }
  // The most impacts one particle can have: max_bounces, or 1 for stop and kill.
  uint32_t max_impacts() const {
    return response == CollisionResponse::kBounce ? static_cast<uint32_t>(max_bounces) : 1;
  }
};

struct Impact {
  double age_s = 0;   // the particle's age at the impact
  Vec2 position;      // the contact point, on the allowed side
  Vec2 velocity_in;   // arriving
  Vec2 velocity_out;  // the bounce law's outgoing velocity (for stop and kill too)
  Vec2 normal;        // the collider's unit normal there, toward the allowed side
  uint32_t collider = 0;
};

// One particle's motion with collisions from its start at age 0: a sequence
// of flights, each closed form, joined at impacts. The impacts it finds are
// a function of the start alone (each flight is searched to the particle's
// death), never of the age it is asked about.
class Flight {
 public:
  Flight(const Collision& c, Vec2 p0, Vec2 v0, Vec2 accel, double drag_per_s, double life_s);

  // Started on the wrong side of a collider (farther than the contact
  // tolerance): such a particle is never alive (model.md 9.7).
  bool born_inside() const { return born_inside_; }
  // The current flight's impact before the particle's death, or nullptr when
  // there is none (it flies or rests to its death, or was killed). With a
  // horizon, nullptr may also mean only that there is none by that age: an
  // impact after it may be left unsolved (it costs most of the work), and
  // one that is returned has the same bits whatever the horizon.
  const Impact* next_impact(double horizon_age = std::numeric_limits<double>::infinity());
  // Applies the next impact's response; the particle flies on from it,
  // rests there, or dies there.
  void take();
  // Position and velocity at `age_s`, at or after the current flight's start.
  MotionState at(double age_s) const;
  // The direction orientation follows: the velocity, or for a resting
  // particle the one it skidded in.
  Vec2 heading(const MotionState& m) const { return resting_ ? rest_heading_ : m.velocity; }
  uint32_t impacts() const { return impacts_; }
  bool killed() const { return killed_; }
  bool resting() const { return resting_; }

 private:
  void search(double horizon_age);
  const Collision& c_;
  Vec2 accel_;
  double drag_, life_;
  double t0_ = 0;  // the current flight's start age
  Vec2 p_, v_;     // and its state there
  bool born_inside_ = false, resting_ = false, killed_ = false;
  bool has_next_ = false;
  double searched_to_ = -std::numeric_limits<double>::infinity();  // the horizon searched
  Vec2 rest_heading_;
  uint32_t impacts_ = 0;
  Impact next_;
};

// The state at `age_s` of a particle starting at (p0, v0): the collided
// motion, whether it is alive (not killed, not born inside), its impacts so
// far and the heading orientation uses.
struct CollidedMotion {
  MotionState m;
  Vec2 heading;
  uint32_t impacts = 0;
  bool alive = true;
  bool resting = false;
};
CollidedMotion collide(const Collision& c, Vec2 p0, Vec2 v0, Vec2 accel, double drag_per_s,
                       double life_s, double age_s);

// The signed distance of `p` from collider `c`, positive on the allowed side
// (for a box, the largest face distance inside it and the true distance
// outside). Tests and checks use it; the search does not.
double collider_distance(const Collider& c, Vec2 p);

}  // namespace spritz
