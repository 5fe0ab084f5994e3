#include "finish.h"

#include <filesystem>

#include "derive.h"
#include "lint.h"
#include "spritz/load.h"
#include "toml/text.h"

namespace spritz {

namespace fs = std::filesystem;
using toml_load::effect_name_problem;
using toml_load::kMaxNameBytes;
using toml_load::kNameForbidden;

// The file's stem, made a valid effect name: "fire" for fx/fire.toml,
// "stdin" for an effect read from stdin, and '_' for each character an
// effect name may not hold ("fire#2.toml" is "fire_2").
std::string default_effect_name(const std::string& source_name) {
  if (source_name == "-" || source_name == kStdinSourceName) return "stdin";
  std::string stem = fs::path(source_name).stem().string();
  for (char& c : stem) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || kNameForbidden.find(c) != std::string_view::npos) c = '_';
  }
  // A long file name is cut, back to the start of a UTF-8 character.
  if (stem.size() > kMaxNameBytes) {
    size_t n = kMaxNameBytes;
    while (n > 0 && (static_cast<unsigned char>(stem[n]) & 0xC0) == 0x80) --n;
    stem.resize(n);
  }
  return effect_name_problem(stem) ? "effect" : stem;
}

void finish_effect(Effect& fx, const std::string& source_name, uint64_t content_hash) {
  if (fx.name.empty()) fx.name = default_effect_name(source_name);
  sort_by_location(fx.warnings);  // in file order, like the errors
  fx.source_path = source_name;
  fx.content_hash = content_hash;
  derive(fx);
  lint(fx);
}

}  // namespace spritz
