// An emitter's colliders and its response to them (docs/config.md
// "Collisions", model.md 9.7).
#include <cmath>
#include <string>

#include "format.h"
#include "toml/keys.h"
#include "toml/spellings.h"
#include "toml/text.h"
#include "toml/translator.h"

namespace spritz::toml_load {
namespace {

constexpr double kMaxCoordinate = 1e9;  // design px: far beyond any canvas, still exact math

}  // namespace

void Translator::read_collision(const toml::node& n, Collision& c) {
  const toml::table* t = inline_table(
      n, kCollisionKeys, "collision",
      "collision must be a table { response = \"bounce\", restitution = 0.5, friction = 0 }");
  if (!t) return;
  if (auto v = t->get("response"))
    if (auto i = choice(*v, "collision.response", words_of<CollisionResponse>()))
      c.response = static_cast<CollisionResponse>(*i);
  if (auto v = t->get("restitution"))
    if (auto x = bounded(*v, "collision.restitution", 0, 1)) c.restitution = *x;
  if (auto v = t->get("friction"))
    if (auto x = bounded(*v, "collision.friction", 0, 1)) c.friction = *x;
  if (auto v = t->get("max_bounces"))
    if (auto x = integer(*v, "collision.max_bounces", 1, kMaxBounces))
      c.max_bounces = static_cast<int>(*x);
  if (auto v = t->get("rest_speed"))
    if (auto x = bounded(*v, "collision.rest_speed", 0, 1e9, "design px/s"))
      c.rest_speed_px_per_s = *x;
  // restitution and friction still shape the outgoing velocity that
  // sub.on = "collision" children inherit; these two only bouncing uses.
  for (std::string_view key : {"max_bounces", "rest_speed"})
    if (const toml::node* k = t->get(key); k && c.response != CollisionResponse::kBounce)
      error(*k, "collision." + std::string(key) +
                    " is for response = \"bounce\"; a particle that stops or dies at its "
                    "first impact never bounces");
}

// One collider table: its kind's keys and no other.
void Translator::read_collider(const toml::node& n, Collider& c, size_t index) {
  const std::string where = "colliders[" + std::to_string(index) + "]";
  const toml::table* t = inline_table(
      n, kColliderKeys, where,
      where + " must be a table { kind = \"line\", point = [0, -100], normal = [0, 1] }");
  if (!t) return;
  const toml::node* kind = t->get("kind");
  if (!kind) {
    error(n, where + " needs a kind: \"line\", \"circle\" or \"box\"");
    return;
  }
  const auto k = choice(*kind, where + ".kind", words_of<ColliderKind>());
  if (!k) return;
  c.kind = static_cast<ColliderKind>(*k);
  read_collider_geometry(*t, std::string(kind->value_or(std::string_view())), where, c);
}

// A collider's place and size, by kind; keys of another kind are errors.
void Translator::read_collider_geometry(const toml::table& tab, const std::string& kind_name,
                                        const std::string& where, Collider& c) {
  const toml::table* t = &tab;
  const toml::node& n = tab;
  const auto coordinate = [&](std::string_view key, Vec2& out) {
    const toml::node* v = t->get(key);
    if (!v) {
      error(n, where + " (" + kind_name + ") needs " + std::string(key));
      return false;
    }
    const auto p = vec2(*v, where + "." + std::string(key));
    if (!p) return false;
    if (std::abs(p->x) > kMaxCoordinate || std::abs(p->y) > kMaxCoordinate) {
      error(*v, where + "." + std::string(key) + " must be within [-1e9, 1e9] design px");
      return false;
    }
    out = *p;
    return true;
  };
  const auto only = [&](std::initializer_list<std::string_view> keys) {
    for (const auto& [key, value] : *t) {
      bool ok = key.str() == "kind";
      for (std::string_view allowed : keys) ok = ok || key.str() == allowed;
      if (!ok)
        error(value, where + "." + std::string(key.str()) + " does not apply to a " + kind_name +
                         " collider" +
                         (key.str() == "side" ? "; a line keeps particles on the side its normal "
                                                "points to (flip the normal to change it)"
                                              : ""));
    }
  };
  switch (c.kind) {
    case ColliderKind::kLine:
      only({"point", "normal"});
      coordinate("point", c.point);
      if (Vec2 nv; coordinate("normal", nv)) {
        const double l = length(nv);
        if (!(l > 0) || !std::isfinite(l))
          error(*t->get("normal"), where +
                                       ".normal must not be [0, 0]: it says which side "
                                       "particles stay on");
        else
          c.normal = nv * (1 / l), c.normal_written = nv;
      }
      return;
    case ColliderKind::kCircle:
      only({"center", "radius", "side"});
      coordinate("center", c.point);
      if (const toml::node* r = t->get("radius")) {
        if (auto v =
                bounded_as(*r, where + ".radius", 0, kMaxCoordinate, "within (0, 1e9] design px")) {
          if (*v > 0)
            c.radius = *v;
          else
            error(*r, where + ".radius must be more than 0 design px, got 0");
        }
      } else {
        error(n, where + " (circle) needs radius");
      }
      break;
    case ColliderKind::kBox:
      only({"center", "size", "side"});
      coordinate("center", c.point);
      if (Vec2 s; coordinate("size", s)) {
        if (!(s.x > 0) || !(s.y > 0))
          error(*t->get("size"), where + ".size must be more than 0 on both axes, got [" +
                                     fmt_number(s.x) + ", " + fmt_number(s.y) + "]");
        else
          c.half = s * 0.5;
      }
      break;
  }
  if (const toml::node* s = t->get("side"))
    if (auto i = choice(*s, where + ".side", {"outside", "inside"})) c.inside = *i == 1;
}

void Translator::read_colliders(const toml::node& n, Collision& c) {
  const toml::array* a = n.as_array();
  if (!a) {
    error(n,
          "colliders must be an array of tables [{ kind = \"line\", point = [0, -100], "
          "normal = [0, 1] }, ...], got " +
              type_name(n));
    return;
  }
  if (a->size() > kMaxColliders) {
    error(n, "an emitter has at most " + std::to_string(kMaxColliders) + " colliders, got " +
                 std::to_string(a->size()) +
                 " (each one is searched for every flight of every particle)");
    return;
  }
  for (size_t i = 0; i < a->size(); ++i) {
    Collider col;
    const size_t before = diagnostics.size();
    read_collider((*a)[i], col, i);
    if (diagnostics.size() == before) c.colliders.push_back(col);
  }
}

// collision and colliders together: the response needs something to hit,
// and a collider in canvas space cannot be exact for particles riding a path.
void Translator::read_collisions(const toml::table& t, Emitter& em) {
  const toml::node* response = t.get("collision");
  const toml::node* colliders = t.get("colliders");
  if (response) {
    em.collision_loc = loc(*response);
    read_collision(*response, em.collision);
  }
  if (colliders) {
    if (!response) em.collision_loc = loc(*colliders);
    read_colliders(*colliders, em.collision);
    if (const toml::array* a = colliders->as_array(); a && a->empty())
      warnings.push_back({loc(*colliders), "emitter '" + em.name +
                                               "' colliders is empty: its particles hit nothing"});
  } else if (response) {
    warnings.push_back({loc(*response), "emitter '" + em.name +
                                            "' has a collision response but no colliders: its "
                                            "particles hit nothing (add colliders = [...])"});
  }
  if (colliders && em.space == Space::kLocal && t.get("path"))
    error(*colliders,
          "colliders need space = \"world\": a local-space particle rides its emitter's path, "
          "and against colliders fixed in the canvas its motion is no longer closed form");
}

}  // namespace spritz::toml_load
