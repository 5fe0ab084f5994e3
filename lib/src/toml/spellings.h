// How the effect file spells each of the model's enums: one list per enum,
// in the enum's order. The translators read a value with choice() (its
// index is the enum) and write.cpp writes one with word(), both from these
// lists, so the reader and the writer cannot disagree (docs/config.md
// lists the same words).
#pragma once

#include <string>

#include "spritz/collision.h"
#include "spritz/effect.h"
#include "spritz/shape.h"
#include "toml/keys.h"

namespace spritz::toml_load {

template <typename E>
struct Spelling;  // Spelling<E>::words: the words of E's values, in order

#define SPRITZ_SPELLING(E, ...)               \
  template <>                                 \
  struct Spelling<E> {                        \
    static const Keys& words() {              \
      static const Keys list = {__VA_ARGS__}; \
      return list;                            \
    }                                         \
  }

SPRITZ_SPELLING(Tonemap, "white", "clamp");
SPRITZ_SPELLING(AlphaMode, "straight", "premultiplied");
SPRITZ_SPELLING(BlendSpace, "linear", "srgb");
SPRITZ_SPELLING(Space, "world", "local");
SPRITZ_SPELLING(TextureFilter, "trilinear", "bilinear", "nearest");
SPRITZ_SPELLING(Orientation, "facing", "velocity_parallel", "velocity_perpendicular");
SPRITZ_SPELLING(DrawOrder, "oldest_first", "newest_first", "by_slot");
SPRITZ_SPELLING(FlipbookMode, "oneshot", "loop", "pingpong", "random");
SPRITZ_SPELLING(ShapeKind, "point", "box", "ellipse", "points");
SPRITZ_SPELLING(ShapeStyle, "volume", "surface");
SPRITZ_SPELLING(InOut, "outward", "inward", "both");
SPRITZ_SPELLING(SubEvent, "death", "birth", "life", "collision", "program");
SPRITZ_SPELLING(CollisionResponse, "bounce", "stop", "kill");
SPRITZ_SPELLING(ColliderKind, "line", "circle", "box");

#undef SPRITZ_SPELLING

// The words of E, for TomlReader::choice.
template <typename E>
const Keys& words_of() {
  return Spelling<E>::words();
}

// The word of one value.
template <typename E>
std::string_view word_of(E value) {
  return Spelling<E>::words().at(static_cast<size_t>(value));
}

}  // namespace spritz::toml_load
