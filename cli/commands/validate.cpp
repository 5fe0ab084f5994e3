#include "commands/validate.h"

#include <cstdio>

#include "events.h"
#include "json.h"
#include "spritz/raster/texture.h"

namespace spritz {

int run_validate(const ValidateArgs& args, const RunSettings& settings) {
  EffectFiles files(settings);
  int bad = 0;
  for (const std::string& path : args.effects) {
    std::vector<Diagnostic> problems, warnings;
    try {
      const Effect fx = files.load_path(path, args.sets, args.from);
      files.textures(fx, 1.0);  // decodes every texture: a corrupt PNG is a problem too
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

namespace spritz {

Command add_validate_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<ValidateArgs>();
  ValidateArgs& a = *args;
  CLI::App* v = app.add_subcommand("validate",
                                   "Load and check effect files; print every problem and warning");
  v->add_option("effects", a.effects, "Effect files")->required();
  v->add_option("--set", a.sets, "Override a config value before validating (repeatable)");
  add_from_option(v, a.from, run);
  v->add_flag("--json", a.json, "NDJSON: one object per file with its problems");
  v->add_flag("-q,--quiet", a.quiet, "Print only problems");
  v->footer(
      "Examples:\n  spritz validate configs/*.toml\n  spritz validate fire.toml --set "
      "emitter.0.rate=1e6");
  const SettingsUse use{/*kernel=*/false, /*memory=*/false, /*work=*/false, /*textures=*/true};
  return {v, use, [args](const RunSettings& settings) { return run_validate(*args, settings); }};
}

}  // namespace spritz
