// spritz import (docs/import.md): a .plist or .pex effect written as TOML,
// its texture as a PNG beside it, and every approximation said.
#include "spritz/import/import.h"

#include <cstdio>
#include <filesystem>

#include "commands/import.h"
#include "frames.h"
#include "io/atomic.h"
#include "io/inputs.h"
#include "json.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"

namespace spritz {

namespace fs = std::filesystem;

namespace {

std::string diagnostics_json(const std::vector<Diagnostic>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    const Diagnostic& d = list[i];
    out += std::string(i ? "," : "") + "{\"file\":" + json_string(d.loc.file) +
           ",\"line\":" + std::to_string(d.loc.line) + ",\"col\":" + std::to_string(d.loc.col) +
           ",\"message\":" + json_string(d.message) + "}";
  }
  return out + "]";
}

ImportOptions import_options(const ImportArgs& args, const RunSettings& settings) {
  ImportOptions o = settings.import_search;
  if (!(args.px_per_stud >= 0 && args.px_per_stud <= 1e4))
    throw Error("--px-per-stud must be within [0, 1e4] (0 fits the scale to the canvas), got " +
                json_number(args.px_per_stud));
  o.px_per_stud = args.px_per_stud;
  o.view = args.view;
  if (args.emit_count < 0 || args.emit_count > 1000000)
    throw Error("--emit must be within [0, 1e6], got " + std::to_string(args.emit_count));
  o.emit_count = args.emit_count;
  o.seamless = args.seamless;
  if (!args.size.empty()) parse_size(args.size, &o.canvas_width, &o.canvas_height);
  o.position_x = args.position_x;
  o.position_y = args.position_y;
  if (args.y_down) o.y_down = true;
  if (args.y_up) o.y_down = false;
  if (!(args.step >= 1e-4 && args.step <= 1))
    throw Error("--step must be within [1e-4, 1] s, got " + json_number(args.step));
  o.step_s = args.step;
  return o;
}

}  // namespace

int run_import(const ImportArgs& args, const RunSettings& settings) {
  const ImportOptions options = import_options(args, settings);
  const bool from_stdin = args.effect == "-";
  const std::string text = from_stdin ? read_stdin() : read_text_file(args.effect);
  const std::string name = from_stdin ? std::string(kStdinSourceName) : args.effect;
  std::string base = from_stdin ? "." : fs::path(args.effect).parent_path().string();
  if (base.empty()) base = ".";
  const EffectFormat format = effect_format(args.from, text, name);
  if (format == EffectFormat::kToml)
    throw Error(SourceLoc{name, 0, 0},
                "is a spritz TOML effect already (import reads .plist, .pex, Godot and Roblox "
                "files; --from forces a format)");
  const ImportResult r = import_effect(text, name, base, format, options, read_beside);

  // Where things go: the TOML, and the textures beside it.
  const bool to_stdout = args.output == "-";
  std::string toml_path = args.output;
  if (toml_path.empty()) toml_path = r.fx.name + ".toml";
  const fs::path dir = to_stdout ? fs::path(".") : fs::path(toml_path).parent_path();
  std::vector<std::string> texture_paths;
  LoadOptions lo;  // to load the TOML back with its textures (and sampler images)
  for (const ImportResult::Texture& t : r.textures) {
    texture_paths.push_back((dir / t.name).lexically_normal().string());
    lo.provided_images[texture_paths.back()] = t.png;
  }
  // Check them all before writing any: no half an import.
  if (!to_stdout) {
    ensure_output_dir(toml_path);
    check_not_input(toml_path);
  }
  for (const std::string& p : texture_paths) {
    ensure_output_dir(p);
    check_not_input(p);
  }
  // The TOML must load as it is, with its textures: check it before writing.
  const std::string load_base = dir.empty() ? "." : dir.string();
  lo.provided_textures = texture_paths;
  lo.decode_image = decode_program_image;
  load_effect(r.toml, to_stdout ? "<stdout>" : toml_path, load_base, lo);
  for (size_t i = 0; i < r.textures.size(); ++i)
    write_file_atomic(texture_paths[i], r.textures[i].png.data(), r.textures[i].png.size());
  if (to_stdout)
    std::fwrite(r.toml.data(), 1, r.toml.size(), stdout);
  else
    write_file_atomic(toml_path, r.toml.data(), r.toml.size());
  if (args.json) {
    std::string textures = "[";
    for (size_t i = 0; i < r.textures.size(); ++i)
      textures += std::string(i ? "," : "") + "{\"path\":" + json_string(texture_paths[i]) +
                  ",\"origin\":" + json_string(r.textures[i].origin) + "}";
    textures += "]";
    const std::string line =
        "{\"event\":\"import\",\"source\":" + json_string(name) +
        ",\"format\":" + json_string(effect_format_name(format)) +
        ",\"effect\":" + json_string(to_stdout ? "-" : toml_path) +
        ",\"emitters\":" + std::to_string(r.fx.emitters.size()) +
        ",\"texture\":" + (texture_paths.empty() ? "null" : json_string(texture_paths[0])) +
        ",\"texture_origin\":" +
        json_string(r.textures.empty() ? "builtin" : r.textures[0].origin) +
        ",\"textures\":" + textures + ",\"canvas\":[" + std::to_string(r.fx.canvas.width) + "," +
        std::to_string(r.fx.canvas.height) + "],\"warnings\":" + diagnostics_json(r.warnings) +
        ",\"notes\":" + diagnostics_json(r.notes) + "}\n";
    std::fwrite(line.data(), 1, line.size(), to_stdout ? stderr : stdout);
  } else {
    for (const Diagnostic& d : r.warnings)
      std::fprintf(stderr, "%s\n", Diagnostic{d.loc, "warning: " + d.message}.to_string().c_str());
    for (const Diagnostic& d : r.notes)
      std::fprintf(stderr, "%s\n", Diagnostic{d.loc, "note: " + d.message}.to_string().c_str());
    std::string also;
    for (const std::string& p : texture_paths)
      also += (also.empty() ? " and " : ", ") + printable(p);
    std::fprintf(stderr, "spritz: imported %s (%s, %zu emitter%s) to %s%s, canvas %dx%d\n",
                 printable(name).c_str(), effect_format_name(format), r.fx.emitters.size(),
                 r.fx.emitters.size() == 1 ? "" : "s",
                 to_stdout ? "stdout" : printable(toml_path).c_str(), also.c_str(),
                 r.fx.canvas.width, r.fx.canvas.height);
  }
  return kExitOk;
}

}  // namespace spritz

namespace spritz {

Command add_import_command(CLI::App& app, RunOptions& run) {
  auto args = std::make_shared<ImportArgs>();
  ImportArgs& a = *args;
  CLI::App* im = app.add_subcommand(
      "import",
      "Translate a Particle Designer / cocos2d .plist, Starling .pex, Godot .tscn/.tres or Roblox "
      ".rbxmx/.rbxlx/.model.json effect to TOML");
  im->add_option(
        "effect", a.effect,
        "Effect file (.plist, .pex, .tscn, .tres, .rbxmx, .rbxlx, .model.json); '-' reads stdin")
      ->required();
  im->add_option("-o,--output", a.output,
                 "The TOML file (default: <name>.toml in the working directory; '-': stdout). "
                 "Textures go beside it as <name>-texture.png (or <name>-<emitter>.png)");
  add_from_option(im, a.from, run);
  im->add_option("--size", a.size,
                 "Canvas WxH in design px (default: fitted to where the particles go)");
  im->add_option_function<std::vector<double>>(
        "--position",
        [&a](const std::vector<double>& xy) {
          a.position_x = xy.at(0);
          a.position_y = xy.at(1);
        },
        "The emitter's place X Y, design px from the canvas centre, y up (default: centring "
        "the particles)")
      ->expected(2);
  auto* yd = im->add_flag("--y-down", a.y_down,
                          "The file's y axis points down (Starling; the default for .pex)");
  im->add_flag("--y-up", a.y_up,
               "The file's y axis points up (cocos2d, Kivy; the default "
               "for .plist)")
      ->excludes(yd);
  im->add_option("--step", a.step,
                 "Integration step of radial and tangential acceleration, damping and orbit "
                 "velocity, s (default 1/60, cocos2d's frame)");
  im->add_option("--px-per-stud", a.px_per_stud,
                 "Roblox: design px per stud (default: fitted so the particles fill the canvas)");
  im->add_option("--view", a.view,
                 "Roblox and Godot 3D particle shaders: the view onto the 3D effect: front "
                 "(looking along -Z, Roblox's default), side (along -X) or top (down -Y); a "
                 "Godot shader is 2d by default")
      ->check(CLI::IsMember({"2d", "front", "side", "top"}));
  im->add_option("--emit", a.emit_count,
                 "Roblox: the burst of an emitter that only Emit()s and has no EmitCount "
                 "attribute (default 16, Emit()'s own)");
  im->add_flag("--seamless", a.seamless,
               "Godot: a looping scene as a seamless loop for baking (keys repeat every "
               "period, shown in its steady state) instead of as Godot runs it (starting "
               "empty, new particles every cycle)");
  im->add_flag("--json", a.json, "One JSON object on stdout: what was written and every note");
  im->footer(
      "Examples:\n  spritz import fire.plist -o fx/fire.toml\n"
      "  spritz import sun.pex --size 512x512 --json\n"
      "  spritz import explosion.tscn -o fx/explosion.toml\n"
      "  spritz import Fire.rbxmx --texture-map assets.toml --view side\n"
      "Every command also reads these files directly: spritz render fire.plist --time 1 -o "
      "f.png");
  return {im, SettingsUse{},
          [args](const RunSettings& settings) { return run_import(*args, settings); }};
}

}  // namespace spritz
