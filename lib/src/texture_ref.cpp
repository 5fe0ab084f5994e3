#include "spritz/effect.h"

namespace spritz {

TextureRef TextureRef::parse(std::string_view text) {
  constexpr std::string_view kBuiltin = "builtin:";
  TextureRef ref;
  if (text.substr(0, kBuiltin.size()) == kBuiltin) {
    ref.kind = Kind::kBuiltin;
    ref.name = std::string(text.substr(kBuiltin.size()));
  } else {
    ref.kind = Kind::kFile;
    ref.name.clear();
    ref.path = std::string(text);
  }
  return ref;
}

}  // namespace spritz
