#include <cstdio>

#include "commands.h"
#include "texture.h"

namespace spritz {

int run_validate(const ValidateArgs& args) {
  int bad = 0;
  for (const std::string& path : args.effects) {
    try {
      const Effect fx = load_effect_path(path, args.sets);
      load_textures(fx, 1.0);  // decodes every texture: a corrupt PNG is a problem too
      if (!args.quiet) std::printf("%s: ok\n", path.c_str());
    } catch (const Error& e) {
      ++bad;
      for (const Diagnostic& d : e.diagnostics()) {
        Diagnostic shown = d;
        if (shown.loc.file.empty()) shown.loc.file = path;
        std::fprintf(stderr, "%s\n", shown.to_string().c_str());
      }
    }
  }
  return bad ? kExitError : kExitOk;
}

}  // namespace spritz
