#include <cstdio>

#include "commands.h"
#include "events.h"
#include "io/textures.h"
#include "json.h"
#include "spritz/raster/texture.h"

namespace spritz {

int run_validate(const ValidateArgs& args) {
  int bad = 0;
  for (const std::string& path : args.effects) {
    std::vector<Diagnostic> problems, warnings;
    try {
      const Effect fx = load_effect_path(path, args.sets, args.from);
      effect_textures(fx, 1.0);  // decodes every texture: a corrupt PNG is a problem too
      warnings = fx.warnings;
    } catch (const Error& e) {
      problems = e.diagnostics();
      for (Diagnostic& d : problems)
        if (d.loc.file.empty()) d.loc.file = path;
    }
    bad += !problems.empty();
    if (args.json) {
      const std::string line = events::validate(path, problems, warnings);
      std::fwrite(line.data(), 1, line.size(), stdout);
    } else if (problems.empty()) {
      if (!args.quiet) std::printf("%s: ok\n", path.c_str());
    }
    for (const Diagnostic& d : problems) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    if (!args.json) print_warnings(warnings);
  }
  return bad ? kExitError : kExitOk;
}

}  // namespace spritz
