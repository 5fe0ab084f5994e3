#include <cstdio>
#include <filesystem>

#include "commands.h"
#include "io/io.h"
#include "io/textures.h"
#include "spritz/load.h"

namespace spritz {

namespace {

Effect load_effect_source(const std::string& path, const LoadOptions& options) {
  if (path.empty()) return load_effect(default_effect_text(), kDefaultEffectName, ".", options);
  if (path == "-") {
    // Read once: --seeds loads the effect again for every seed.
    static const std::string text = read_stdin();
    return load_effect(text, std::string(kStdinSourceName), ".", options);
  }
  const std::string text = read_text_file(path);
  std::string base = std::filesystem::path(path).parent_path().string();
  if (base.empty()) base = ".";
  return load_effect(text, path, base, options);
}

}  // namespace

Effect load_effect_path(const std::string& path, const std::vector<std::string>& overrides) {
  LoadOptions options;
  options.overrides = overrides;
  Effect fx = load_effect_source(path, options);
  // Its texture files are read now, once (and so are inputs no output of this
  // run may replace).
  texture_files(fx);
  return fx;
}

void print_warnings(const std::vector<Diagnostic>& warnings) {
  for (const Diagnostic& w : warnings) {
    Diagnostic d = w;
    d.message = "warning: " + d.message;
    std::fprintf(stderr, "%s\n", d.to_string().c_str());
  }
}

Effect load_effect_arg(const EffectArgs& args) {
  std::vector<std::string> overrides;
  if (args.seed) {
    if (*args.seed < 0 || *args.seed > 0xffffffffll)
      throw Error("--seed must be within [0, 4294967295], got " + std::to_string(*args.seed));
    overrides.push_back("effect.seed=" + std::to_string(*args.seed));
  }
  overrides.insert(overrides.end(), args.sets.begin(), args.sets.end());
  return load_effect_path(args.effect, overrides);
}

}  // namespace spritz
