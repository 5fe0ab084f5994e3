// spritz: the command line. Each command adds itself to the parser
// (cli/commands/<name>.h); main parses the arguments, reads the run's
// settings once (run_settings.h) and runs the command that was named,
// turning its errors into messages and exit codes (docs/cli.md).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "command.h"
#include "commands/atlas.h"
#include "commands/check.h"
#include "commands/diff.h"
#include "commands/import.h"
#include "commands/inspect.h"
#include "commands/preview.h"
#include "commands/render.h"
#include "commands/validate.h"
#include "io/io.h"
#include "spritz/load.h"
#include "spritz/raster/raster.h"
#include "spritz/version.h"

namespace {

using namespace spritz;

// Prints an error's diagnostics to stderr: "file:line:col: message" (the
// location bold on a terminal, unless NO_COLOR is set: no-color.org), or
// "spritz: message" where it has no place in a file.
void print_error(const Error& e) {
  const bool colour = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
  for (const Diagnostic& diag : e.diagnostics()) {
    if (diag.loc.file.empty()) {
      std::fprintf(stderr, "%sspritz:%s %s\n", colour ? "\033[1;31m" : "", colour ? "\033[0m" : "",
                   diag.message.c_str());
    } else {
      Diagnostic where = diag;
      where.message.clear();
      std::string loc = where.to_string();  // "file:line:col: "
      std::fprintf(stderr, "%s%s%s%s\n", colour ? "\033[1m" : "", loc.c_str(),
                   colour ? "\033[0m" : "", diag.message.c_str());
    }
  }
}

// The version flag's text, with the sprite kernel this CPU runs (every
// kernel writes the same bytes; the name is for bug reports and farm logs).
std::string version_text() {
  std::string kernel;
  try {
    kernel = draw_path_name(kernel_from_environment());
  } catch (const Error& e) {
    kernel = e.what();
  }
  return std::string("spritz " SPRITZ_VERSION " (sprite kernel: ") + kernel + ")";
}

// An unknown command named, with the closest one (CLI11 would say "A
// subcommand is required"); false when argv[1] is a command or an option.
bool refused_unknown_command(const CLI::App& app, const char* first) {
  if (first[0] == '-') return false;
  std::vector<std::string_view> names;
  std::string list;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names.push_back(sub->get_name());
    list += (list.empty() ? "" : ", ") + sub->get_name();
  }
  if (std::find(names.begin(), names.end(), first) != names.end()) return false;
  const std::string guess = closest_match(first, names);
  const std::string hint = guess.empty() ? "" : " (did you mean '" + guess + "'?)";
  std::fprintf(stderr, "spritz: unknown command '%s'%s; the commands are %s\n", first, hint.c_str(),
               list.c_str());
  return true;
}

// An option the command does not have, named with the closest one it has
// (`--thread` -> `--threads`), which CLI11 2.1 does not do; false when no
// argument is such an option.
bool refused_unknown_option(const CLI::App& app, int argc, char** argv) {
  const CLI::App* sub = nullptr;
  for (const CLI::App* candidate : app.get_subcommands({}))
    if (argc > 1 && candidate->get_name() == argv[1]) sub = candidate;
  if (!sub) return false;
  std::vector<std::string> longs;
  for (const CLI::Option* opt : sub->get_options())
    for (const std::string& l : opt->get_lnames()) longs.push_back("--" + l);
  const std::vector<std::string_view> candidates(longs.begin(), longs.end());
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.size() < 3 || arg.substr(0, 2) != "--") continue;
    const std::string_view name = arg.substr(0, arg.find('='));
    if (std::find(candidates.begin(), candidates.end(), name) != candidates.end()) continue;
    const std::string guess = closest_match(name, candidates);
    std::fprintf(stderr, "spritz %s: unknown option '%.*s'%s; see spritz %s --help\n",
                 sub->get_name().c_str(), static_cast<int>(name.size()), name.data(),
                 guess.empty() ? "" : (" (did you mean '" + guess + "'?)").c_str(),
                 sub->get_name().c_str());
    return true;
  }
  return false;
}

// No option or argument means anything when empty, and an empty one is
// most often a script's unset variable: `spritz render "$FX"` would
// otherwise render the bundled campfire, and `-o "$OUT"` the default path.
// Names the first empty one; false when there is none.
bool refused_empty_value(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size() == 0) continue;  // a flag
      for (const std::string& value : opt->results()) {
        if (!value.empty()) continue;
        std::string name = opt->get_name(false, true);
        if (!opt->nonpositional())
          for (char& ch : name)
            ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        std::fprintf(stderr, "spritz %s: %s %s is empty\n", sub->get_name().c_str(),
                     opt->nonpositional() ? "option" : "argument", name.c_str());
        return true;
      }
    }
  }
  return false;
}

// Runs the command that was parsed with the run's settings; its errors
// become messages and exit code 2.
int run_parsed(const std::vector<Command>& commands, const RunOptions& run) {
  try {
    for (const Command& command : commands) {
      if (!command.app->parsed()) continue;
      const RunSettings settings =
          read_run_settings(command.use, run.png == "small" ? PngMode::kSmall : PngMode::kFast,
                            run.texture_dirs, run.texture_map);
      return command.run(settings);
    }
  } catch (const Error& e) {
    print_error(e);
    return kExitError;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "spritz: out of memory\n");
    return kExitError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spritz: %s\n", e.what());
    return kExitError;
  }
  return kExitError;
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  CLI::App app{"spritz " SPRITZ_VERSION
               ": closed-form 2D particle effects rendered to PNG frames and flipbooks"};
  app.set_version_flag("--version", version_text);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  spritz render                          # the bundled campfire, into out/\n"
      "  spritz render configs/sparks.toml -f 0-59 -o frames/sparks_####.png\n"
      "  spritz inspect configs/smoke.toml --time 1.5 --json\n"
      "  spritz validate configs/*.toml\n"
      "  spritz check configs/*.toml --golden golden\n"
      "Exit codes: 0 ok, 1 difference found, 2 usage/config/I-O error, 3 size mismatch.");

  RunOptions run;
  const std::vector<Command> commands = {
      add_render_command(app, run),  add_atlas_command(app, run),    add_preview_command(app, run),
      add_inspect_command(app, run), add_validate_command(app, run), add_diff_command(app, run),
      add_check_command(app, run),   add_import_command(app, run),
  };

  if (argc > 1 && refused_unknown_command(app, argv[1])) return kExitError;
  if (argc == 1) {  // no command: what there is to run, rather than "A subcommand is required"
    app.name("spritz");
    std::fputs(app.help().c_str(), stderr);
    return kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    if (dynamic_cast<const CLI::ExtrasError*>(&e) && refused_unknown_option(app, argc, argv))
      return kExitError;
    app.exit(e);
    return kExitError;
  }
  if (refused_empty_value(app)) return kExitError;
  return finish_stdout(run_parsed(commands, run));
}
