// spritz: the command line. Arguments in, exit codes out (cli.md); the work
// is in commands (render.cpp, inspect.cpp, validate.cpp).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "commands.h"
#include "frames.h"
#include "io/io.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"
#include "spritz/raster/raster.h"
#include "spritz/version.h"

namespace {

using namespace spritz;

// Where imported effects' textures are looked for (every effect command).
std::vector<std::string> g_texture_dirs;
std::string g_texture_map;

void add_from_option(CLI::App* cmd, std::string& from) {
  cmd->add_option("--from", from,
                  "The effect's format: toml, cocos2d (.plist), pex, godot (.tscn/.tres) or "
                  "roblox (.rbxmx/.rbxlx/.model.json) (default: detected from the content)")
      ->check(CLI::IsMember({"toml", "cocos2d", "pex", "godot", "roblox"}));
  cmd->add_option("--texture-dir", g_texture_dirs,
                  "An imported effect's textures are also looked for here, by file name (a "
                  "Godot project's art; Roblox assets as <id>.png) (repeatable)")
      ->take_all();
  cmd->add_option("--texture-map", g_texture_map,
                  "A TOML table from Roblox asset id or URI to a PNG file, relative to the map: "
                  "123456 = \"fire.png\"");
}

void add_effect_options(CLI::App* cmd, EffectArgs& a, int64_t& seed, CLI::Option*& seed_opt) {
  seed_opt = cmd->add_option("--seed", seed, "Effect seed (overrides effect.seed), 0..4294967295");
  cmd->add_option("--set", a.sets,
                  "Override a config value, validated like the file (repeatable): "
                  "emitter.0.rate=100, emitter.flames.color=\"#ff0000\", canvas.tonemap=clamp")
      ->take_last()
      ->allow_extra_args(false);
  add_from_option(cmd, a.from);
}

// --motion-vectors and its options (docs/cli.md, "Motion vectors").
void add_motion_options(CLI::App* cmd, MotionArgs& m, bool atlas) {
  cmd->add_option("--motion-vectors", m.output,
                  atlas ? "Also bake the sheet's exact motion vectors to this PNG (cells as the "
                          "sheet's; the scale goes into the JSON)"
                        : "Also write each frame's exact motion vectors to this PNG pattern "
                          "(#### or %04d: the frame number)");
  cmd->add_option("--mv-encoding", m.encoding,
                  "How the vectors are stored: unity (VFX Graph, default), sidefx (SideFX Labs' "
                  "MotionVector shader) or unreal (flipbook motion-vector function, 128 neutral)")
      ->check(CLI::IsMember({"unity", "sidefx", "unreal"}));
  cmd->add_option_function<double>(
      "--mv-scale", [&m](double v) { m.scale = v; },
      atlas ? "Cell units at full scale (default: the least that stores every vector)"
            : "Frame units at full scale (default 0.25)");
  cmd->add_option("--mv-dilate", m.dilate,
                  "Halo swept along each particle's motion, in displacements per step back and "
                  "forward (default 0.5: the middle of the path from both cells)");
  cmd->add_option("--mv-depth", m.depth, "Bits per channel of the vectors: 16 (default) or 8")
      ->check(CLI::IsMember({8, 16}));
  if (!atlas) return;
  cmd->add_option("--mv-fit", m.fit,
                  "exact (default): each pixel the motion of the surface seen there; blend: each "
                  "pixel the exact motion seen there or beside it, a passing particle's, or none, "
                  "whichever makes the shader's blend of the cells closest to the exact render "
                  "in between")
      ->check(CLI::IsMember({"exact", "blend"}));
  cmd->add_flag("--mv-check", m.check,
                "Blend each pair of cells with the stored vectors as the encoding's shader does "
                "and report its PSNR against the exact render in between, and a crossfade's");
  cmd->add_option("--mv-check-image", m.check_image,
                  "With --mv-check: a PNG of cell, crossfade, motion-vector blend and truth");
}

}  // namespace

int main(int argc, char** argv) {
  install_signal_handlers();
  CLI::App app{"spritz " SPRITZ_VERSION
               ": closed-form 2D particle effects rendered to PNG frames and flipbooks"};
  // The sprite kernel this CPU runs (every kernel writes the same bytes; the
  // name is for bug reports and farm logs).
  app.set_version_flag("--version", [] {
    std::string kernel;
    try {
      kernel = spritz::draw_path_name(spritz::sprite_kernel());
    } catch (const spritz::Error& e) {
      kernel = e.what();
    }
    return std::string("spritz " SPRITZ_VERSION " (sprite kernel: ") + kernel + ")";
  });
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  spritz render                          # the bundled campfire, into out/\n"
      "  spritz render configs/sparks.toml -f 0-59 -o frames/sparks_####.png\n"
      "  spritz inspect configs/smoke.toml --time 1.5 --json\n"
      "  spritz validate configs/*.toml\n"
      "  spritz check configs/*.toml --golden golden\n"
      "Exit codes: 0 ok, 1 difference found, 2 usage/config/I-O error, 3 size mismatch.");

  // render
  RenderArgs render;
  int64_t render_seed = 0, chunk_index = 0, chunk_count = 0;
  double render_fps = 0, render_scale = 0;
  CLI::Option* render_seed_opt = nullptr;
  CLI::App* r = app.add_subcommand("render", "Render frames to PNG files (or raw RGBA to stdout)");
  r->add_option("effect", render.effect.effect,
                "Effect file (TOML); '-' reads stdin; none renders the bundled default");
  r->add_option("-f,--frames", render.frames,
                "Frames: N, A-B, A-BxS, comma-separated; negative = absolute");
  auto* fps_opt =
      r->add_option("--fps", render_fps, "Frames per second (default: the effect's fps)");
  // Split and parsed by parse_times (CLI11's delimiter drops empty items).
  std::vector<std::string> render_times;
  r->add_option("--time", render_times,
                "Explicit times in seconds instead of frames (comma-separated, or repeat --time)")
      ->type_name("T[,T...]")
      ->allow_extra_args(false);
  r->add_option("-o,--output", render.output,
                "Output pattern with #### or %04d for the frame number; '-' writes raw RGBA8 to "
                "stdout; '.hdr' writes Radiance HDR, '.exr' OpenEXR (half float, linear light, "
                "alpha) (default: out/<name>_####.png)");
  r->add_option("--size", render.size, "Render at WIDTHxHEIGHT (the effect scales with it)");
  auto* scale_opt = r->add_option("--scale", render_scale, "Render at K times the canvas size");
  r->add_option("--threads", render.threads,
                "Threads (default: all cores); output is identical for any count")
      ->check(CLI::Range(1, 1024));
  auto* ci_opt = r->add_option("--chunk-index", chunk_index,
                               "Render slice I (0-based) of --chunk-count slices");
  auto* cc_opt =
      r->add_option("--chunk-count", chunk_count, "Number of contiguous slices of the frame list");
  r->add_option("--seeds", render.seeds,
                "Render one variant per seed (N, A-B, A-BxS); put {seed} in -o");
  r->add_flag("--skip-existing", render.skip_existing,
              "Do not re-render frames whose file exists (resume a batch)");
  std::string png_mode = "fast";
  r->add_option("--png", png_mode,
                "PNG encoding: fast (default, libdeflate 1) or small (libdeflate 9, adaptive "
                "filters: ~10% smaller, ~5x slower)")
      ->check(CLI::IsMember({"fast", "small"}));
  r->add_option("--depth", render.depth,
                "PNG bits per channel: 8 (default) or 16 (same tone map, no banding)")
      ->check(CLI::IsMember({8, 16}));
  r->add_option("--pass", render.pass,
                "Light to draw: all (default), alpha (alpha-over share, with the background) or "
                "emissive (additive share alone); alpha + emissive = all")
      ->check(CLI::IsMember({"all", "alpha", "emissive"}));
  add_motion_options(r, render.motion, false);
  r->add_flag("--json", render.json, "NDJSON events on stdout: one per frame, then a summary");
  r->add_flag("-q,--quiet", render.quiet, "Print nothing but errors");
  add_effect_options(r, render.effect, render_seed, render_seed_opt);
  r->footer(
      "Examples:\n"
      "  spritz render\n"
      "  spritz render configs/sparks.toml -f 0-59 -o out/sparks_####.png --threads 2\n"
      "  spritz render configs/sparks.toml --seeds 1-8 -f 0-29 -o out/s{seed}/f_####.png\n"
      "  spritz render fire.toml --chunk-index 2 --chunk-count 8 --skip-existing --json\n"
      "  spritz render fire.toml --time 0.5,1,1.5 -o still_%02d.png --scale 2\n"
      "  spritz render fire.toml -o - | ffmpeg -f rawvideo -pix_fmt rgba -s 256x256 -framerate 30 "
      "-i - fire.mp4");

  // atlas
  AtlasArgs atlas;
  int64_t atlas_seed = 0;
  double atlas_fps = 0, atlas_seam = 0;
  CLI::Option* atlas_seed_opt = nullptr;
  CLI::App* at = app.add_subcommand("atlas", "Bake a flipbook sheet PNG and its JSON metadata");
  at->add_option("effect", atlas.effect.effect, "Effect file (TOML); '-' reads stdin")->required();
  at->add_option("-o,--output", atlas.output, "Sheet PNG (default sheet.png)");
  at->add_option("--meta", atlas.meta, "Metadata JSON (default: the sheet's name with .json)");
  at->add_option("--meta-format", atlas.meta_format,
                 "JSON form: TexturePacker hash (default) or array, or aseprite");
  at->add_option("--grid", atlas.grid,
                 "Columns x rows, cells left to right, top to bottom (default 4x4)");
  at->add_option("--cell", atlas.cell, "Cell size WxH (default: the canvas size)");
  at->add_option("--sheet", atlas.sheet, "Fixed sheet size WxH that the grid divides into cells");
  at->add_option("--preset", atlas.preset,
                 "roblox-2x2, roblox-4x4 or roblox-8x8: a 1024x1024 sheet");
  at->add_option("-f,--frames", atlas.frames,
                 "Frames at --fps instead of an even spread over the duration");
  auto* atlas_fps_opt =
      at->add_option("--fps", atlas_fps, "Frames per second for --frames (default: the effect's)");
  at->add_option("--padding", atlas.padding,
                 "Pixels between cells, filled by extruding each cell's edge");
  at->add_flag("--pot", atlas.pot, "Round the sheet up to powers of two");
  at->add_flag("--fit", atlas.fit,
               "Frame every particle of every chosen frame, centred in the cells");
  at->add_flag("--premultiplied", atlas.premultiplied,
               "Premultiplied alpha (default: canvas.alpha)");
  at->add_option("--direction", atlas.direction, "Animation tag direction: forward or pingpong");
  at->add_option("--seeds", atlas.seeds,
                 "Contact sheet: one cell per seed (N, A-B, A-BxS) at --time");
  double atlas_time = 0;
  auto* atlas_time_opt = at->add_option(
      "--time", atlas_time, "With --seeds: the time of every cell (default: half the duration)");
  auto* atlas_seam_opt =
      at->add_option("--max-seam", atlas_seam, "Fail (exit 1) when the loop seam is larger");
  at->add_option("--threads", atlas.threads, "Threads (output is identical for any count)")
      ->check(CLI::Range(1, 1024));
  at->add_option("--png", png_mode, "PNG encoding: fast (default) or small")
      ->check(CLI::IsMember({"fast", "small"}));
  at->add_option("--depth", atlas.depth, "The sheet's bits per channel: 8 (default) or 16")
      ->check(CLI::IsMember({8, 16}));
  at->add_option("--pass", atlas.pass, "Light to draw: all (default), alpha or emissive")
      ->check(CLI::IsMember({"all", "alpha", "emissive"}));
  add_motion_options(at, atlas.motion, true);
  at->add_flag("--json", atlas.json, "One JSON object on stdout");
  at->add_flag("-q,--quiet", atlas.quiet, "Print only errors");
  add_effect_options(at, atlas.effect, atlas_seed, atlas_seed_opt);
  at->footer(
      "Examples:\n  spritz atlas configs/fire_loop.toml -o fire.png --grid 4x4 --max-seam 0\n"
      "  spritz atlas configs/explosion.toml --preset roblox-8x8 --fit -o explosion.png\n"
      "  spritz atlas configs/sparks.toml --cell 128x128 --padding 2 --pot --meta-format array\n"
      "  spritz atlas configs/confetti.toml --seeds 1-16 --time 0.8 --cell 128x128 -o "
      "variants.png\n"
      "  spritz atlas configs/comets.toml --cell 128x128 -o comets.png --motion-vectors "
      "comets_mv.png --mv-check\n"
      "  spritz atlas configs/torch.toml -o torch.png --motion-vectors torch_mv.png --mv-fit "
      "blend");

  // preview
  PreviewArgs preview;
  int64_t preview_seed = 0;
  CLI::Option* preview_seed_opt = nullptr;
  CLI::App* pv = app.add_subcommand(
      "preview", "Play an effect in the browser, scrub to any time, reload on every save");
  pv->add_option("effect", preview.effect.effect, "Effect file (TOML), watched for changes")
      ->required();
  pv->add_option("--port", preview.port, "Port on 127.0.0.1 (default 0: a free one)")
      ->check(CLI::Range(0, 65535));
  pv->add_flag("--open", preview.open, "Open the page in the desktop's browser (xdg-open)");
  pv->add_option("--threads", preview.threads, "Threads per frame (output is identical)")
      ->check(CLI::Range(1, 1024));
  pv->add_flag("-q,--quiet", preview.quiet, "Print only the address and errors");
  add_effect_options(pv, preview.effect, preview_seed, preview_seed_opt);
  pv->footer(
      "Examples:\n  spritz preview configs/torch.toml --open\n"
      "  spritz preview fx.toml --port 8731 --set emitter.0.rate=200\n"
      "Serves 127.0.0.1 only; prints the address on stdout. Ctrl-C stops it.");

  // inspect
  InspectArgs inspect;
  int64_t inspect_seed = 0;
  CLI::Option* inspect_seed_opt = nullptr;
  CLI::App* in =
      app.add_subcommand("inspect", "Print the particle states at a time (table or JSON)");
  in->add_option("effect", inspect.effect.effect, "Effect file (TOML); '-' reads stdin")
      ->required();
  in->add_option("--time", inspect.time, "Time in seconds")->required();
  in->add_flag("--json", inspect.json, "JSON output (the shape is documented in docs/cli.md)");
  in->add_flag("--stats", inspect.stats, "Add per-emitter counts: window, keys visited, alive");
  add_effect_options(in, inspect.effect, inspect_seed, inspect_seed_opt);
  in->footer(
      "Examples:\n  spritz inspect configs/campfire.toml --time 1.2\n"
      "  spritz inspect configs/campfire.toml --time 1.2 --json --stats | jq '.emitters[0].stats'");

  // validate
  ValidateArgs validate;
  CLI::App* v = app.add_subcommand("validate",
                                   "Load and check effect files; print every problem and warning");
  v->add_option("effects", validate.effects, "Effect files")->required();
  v->add_option("--set", validate.sets, "Override a config value before validating (repeatable)");
  add_from_option(v, validate.from);
  v->add_flag("--json", validate.json, "NDJSON: one object per file with its problems");
  v->add_flag("-q,--quiet", validate.quiet, "Print only problems");
  v->footer(
      "Examples:\n  spritz validate configs/*.toml\n  spritz validate fire.toml --set "
      "emitter.0.rate=1e6");

  // diff
  DiffArgs diff;
  CLI::App* d = app.add_subcommand("diff", "Compare two PNG images (pixelmatch's YIQ threshold)");
  d->add_option("a", diff.a, "First image (the reference)")->required();
  d->add_option("b", diff.b, "Second image")->required();
  d->add_option(
      "-o,--output", diff.output,
      "Write a diff image: red = different, yellow = anti-aliasing, faded grey A elsewhere");
  d->add_option("--threshold", diff.threshold,
                "Perceptual threshold in YIQ space, 0..1 (default 0.1)");
  d->add_flag("--aa", diff.antialiasing, "Detect anti-aliased pixels and do not count them");
  int64_t diff_pixels = 0;
  double diff_ratio = 0;
  auto* dp_opt =
      d->add_option("--max-diff-pixels", diff_pixels,
                    "Differing pixels allowed (default: none unless --max-diff-ratio is given)");
  auto* dr_opt =
      d->add_option("--max-diff-ratio", diff_ratio,
                    "Ratio of differing pixels allowed, 0..1 (with both limits, both must hold)");
  int diff_channel = 0;
  auto* dc_opt = d->add_option(
      "--max-channel-diff", diff_channel,
      "Largest channel difference allowed, 0..255, whatever the pixel limits (0: exact)");
  d->add_flag("--json", diff.json, "One JSON object on stdout");
  d->add_flag("-q,--quiet", diff.quiet, "Print nothing; the exit code tells");
  d->footer(
      "Examples:\n  spritz diff golden.png actual.png -o diff.png\n"
      "  spritz diff a.png b.png --threshold 0.05 --max-diff-pixels 10 --json\n"
      "Exit codes: 0 same within tolerance, 1 different, 2 usage or I/O error, 3 size mismatch.");

  // check
  CheckArgs check;
  double check_threshold = 0, check_ratio = 0;
  int64_t check_pixels = 0;
  CLI::App* c = app.add_subcommand(
      "check", "Render each effect's check times and compare with golden images");
  c->add_option("effects", check.effects, "Effect files")->required();
  c->add_option("--golden", check.golden, "Golden image folder (DIR/<effect>/<time>.png)")
      ->required();
  c->add_flag("--update", check.update, "(Re)write the goldens instead of comparing");
  add_from_option(c, check.from);
  c->add_option("--out", check.out,
                "Where failures write <name>.actual.png and <name>.diff.png (default: a new "
                "temporary folder)");
  auto* ct_opt = c->add_option("--threshold", check_threshold,
                               "YIQ threshold, 0..1 (default: the effect's [check] or 0.1)");
  auto* cp_opt = c->add_option("--max-diff-pixels", check_pixels,
                               "Differing pixels allowed (default: [check] or 0)");
  auto* cr_opt =
      c->add_option("--max-diff-ratio", check_ratio, "Ratio allowed (default: [check] or 0)");
  int check_channel = 0;
  auto* cch_opt = c->add_option(
      "--max-channel-diff", check_channel,
      "Largest channel difference allowed, 0..255 (default: [check] or no gate; 0: exact)");
  c->add_flag("--aa", check.antialiasing, "Ignore anti-aliased pixels");
  c->add_option("--threads", check.threads, "Threads (output is identical for any count)")
      ->check(CLI::Range(1, 1024));
  c->add_option("--junit", check.junit,
                "Write a JUnit XML report: one test case per effect and time (CI test reporters)");
  c->add_option("--report", check.report,
                "Write a static HTML report into DIR (index.html, img/): failures with expected, "
                "actual and diff images, missing and stale goldens");
  c->add_flag("--fail-on-stale", check.fail_on_stale,
              "A golden that no check time uses fails the run (else a warning)");
  c->add_flag("--json", check.json, "NDJSON: one object per check, then a summary");
  c->add_flag("-q,--quiet", check.quiet, "Print only failures");
  c->footer(
      "Examples:\n  spritz check configs/*.toml --golden golden\n"
      "  spritz check configs/fire.toml --golden golden --update\n"
      "  spritz check configs/*.toml --golden golden --junit report.xml --fail-on-stale\n"
      "On GitHub Actions (GITHUB_ACTIONS=true) each failure is also an ::error annotation on the "
      "effect file.\n"
      "Exit codes: 0 all match, 1 a difference or a missing golden, 2 usage, config or I/O error.");

  // import
  ImportArgs import;
  CLI::App* im = app.add_subcommand(
      "import",
      "Translate a Particle Designer / cocos2d .plist, Starling .pex, Godot .tscn/.tres or Roblox "
      ".rbxmx/.rbxlx/.model.json effect to TOML");
  im->add_option(
        "effect", import.effect,
        "Effect file (.plist, .pex, .tscn, .tres, .rbxmx, .rbxlx, .model.json); '-' reads stdin")
      ->required();
  im->add_option("-o,--output", import.output,
                 "The TOML file (default: <name>.toml in the working directory; '-': stdout). "
                 "Textures go beside it as <name>-texture.png (or <name>-<emitter>.png)");
  add_from_option(im, import.from);
  im->add_option("--size", import.size,
                 "Canvas WxH in design px (default: fitted to where the particles go)");
  im->add_option_function<std::vector<double>>(
        "--position",
        [&import](const std::vector<double>& xy) {
          import.position_x = xy.at(0);
          import.position_y = xy.at(1);
        },
        "The emitter's place X Y, design px from the canvas centre, y up (default: centring "
        "the particles)")
      ->expected(2);
  auto* yd = im->add_flag("--y-down", import.y_down,
                          "The file's y axis points down (Starling; the default for .pex)");
  im->add_flag("--y-up", import.y_up,
               "The file's y axis points up (cocos2d, Kivy; the default "
               "for .plist)")
      ->excludes(yd);
  im->add_option("--step", import.step,
                 "Integration step of radial and tangential acceleration, damping and orbit "
                 "velocity, s (default 1/60, cocos2d's frame)");
  im->add_option("--px-per-stud", import.px_per_stud,
                 "Roblox: design px per stud (default: fitted so the particles fill the canvas)");
  im->add_option("--view", import.view,
                 "Roblox: the view onto the 3D effect: front (looking along -Z, the default), "
                 "side (along -X) or top (down -Y)")
      ->check(CLI::IsMember({"front", "side", "top"}));
  im->add_option("--emit", import.emit_count,
                 "Roblox: the burst of an emitter that only Emit()s and has no EmitCount "
                 "attribute (default 16, Emit()'s own)");
  im->add_flag("--json", import.json, "One JSON object on stdout: what was written and every note");
  im->footer(
      "Examples:\n  spritz import fire.plist -o fx/fire.toml\n"
      "  spritz import sun.pex --size 512x512 --json\n"
      "  spritz import explosion.tscn -o fx/explosion.toml\n"
      "  spritz import Fire.rbxmx --texture-map assets.toml --view side\n"
      "Every command also reads these files directly: spritz render fire.plist --time 1 -o "
      "f.png");

  // An unknown command: CLI11 would say "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string_view> names;
    std::string list;
    for (const CLI::App* sub : app.get_subcommands({})) {
      names.push_back(sub->get_name());
      list += (list.empty() ? "" : ", ") + sub->get_name();
    }
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string guess = closest_match(argv[1], names);
      const std::string hint = guess.empty() ? "" : " (did you mean '" + guess + "'?)";
      std::fprintf(stderr, "spritz: unknown command '%s'%s; the commands are %s\n", argv[1],
                   hint.c_str(), list.c_str());
      return kExitError;
    }
  }
  if (argc == 1) {  // no command: what there is to run, rather than "A subcommand is required"
    app.name("spritz");
    std::fputs(app.help().c_str(), stderr);
    return kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    // An option the command does not have: name the closest one it has
    // (`--thread` -> `--threads`), which CLI11 2.1 does not.
    const CLI::App* sub = nullptr;
    for (const CLI::App* candidate : app.get_subcommands({}))
      if (argc > 1 && candidate->get_name() == argv[1]) sub = candidate;
    if (sub && dynamic_cast<const CLI::ExtrasError*>(&e)) {
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
        return kExitError;
      }
    }
    app.exit(e);
    return kExitError;
  }
  // No option or argument means anything when empty, and an empty one is
  // most often a script's unset variable: `spritz render "$FX"` would
  // otherwise render the bundled campfire, and `-o "$OUT"` the default path.
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
        return kExitError;
      }
    }
  }

  if (png_mode == "small") set_png_mode(PngMode::kSmall);
  const int code = [&]() -> int {
    try {
      set_import_search(g_texture_dirs, g_texture_map);
      // A bad SPRITZ_SIMD stops every drawing command before it reads anything.
      if (r->parsed() || at->parsed() || c->parsed()) sprite_kernel();
      if (r->parsed() || at->parsed() || c->parsed() || in->parsed()) memory_budget();
      if (r->parsed() || at->parsed() || c->parsed()) work_limit();
      if (r->parsed() || at->parsed() || c->parsed() || in->parsed() || v->parsed())
        texture_limits();
      if (r->parsed()) {
        if (render_seed_opt->count()) render.effect.seed = render_seed;
        if (fps_opt->count()) render.fps = render_fps;
        if (scale_opt->count()) render.scale = render_scale;
        if (ci_opt->count()) render.chunk_index = chunk_index;
        if (cc_opt->count()) render.chunk_count = chunk_count;
        render.times = parse_times(render_times);
        return run_render(render);
      }
      if (at->parsed()) {
        if (atlas_seed_opt->count()) atlas.effect.seed = atlas_seed;
        if (atlas_fps_opt->count()) atlas.fps = atlas_fps;
        if (atlas_seam_opt->count()) atlas.max_seam = atlas_seam;
        if (atlas_time_opt->count()) atlas.time = atlas_time;
        return run_atlas(atlas);
      }
      if (pv->parsed()) {
        if (preview_seed_opt->count()) preview.effect.seed = preview_seed;
        return run_preview(preview);
      }
      if (in->parsed()) {
        if (inspect_seed_opt->count()) inspect.effect.seed = inspect_seed;
        return run_inspect(inspect);
      }
      if (v->parsed()) return run_validate(validate);
      if (im->parsed()) {
        return run_import(import);
      }
      if (d->parsed()) {
        if (dp_opt->count()) diff.max_diff_pixels = diff_pixels;
        if (dr_opt->count()) diff.max_diff_ratio = diff_ratio;
        if (dc_opt->count()) diff.max_channel_diff = diff_channel;
        return run_diff(diff);
      }
      if (c->parsed()) {
        if (ct_opt->count()) check.threshold = check_threshold;
        if (cp_opt->count()) check.max_diff_pixels = check_pixels;
        if (cr_opt->count()) check.max_diff_ratio = check_ratio;
        if (cch_opt->count()) check.max_channel_diff = check_channel;
        return run_check(check);
      }
    } catch (const Error& e) {
      // Bold locations on a terminal, unless NO_COLOR is set (no-color.org).
      const bool colour = isatty(STDERR_FILENO) && !std::getenv("NO_COLOR");
      for (const Diagnostic& diag : e.diagnostics()) {
        if (diag.loc.file.empty()) {
          std::fprintf(stderr, "%sspritz:%s %s\n", colour ? "\033[1;31m" : "",
                       colour ? "\033[0m" : "", diag.message.c_str());
        } else {
          Diagnostic where = diag;
          where.message.clear();
          std::string loc = where.to_string();  // "file:line:col: "
          std::fprintf(stderr, "%s%s%s%s\n", colour ? "\033[1m" : "", loc.c_str(),
                       colour ? "\033[0m" : "", diag.message.c_str());
        }
      }
      return kExitError;
    } catch (const std::bad_alloc&) {
      std::fprintf(stderr, "spritz: out of memory\n");
      return kExitError;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "spritz: %s\n", e.what());
      return kExitError;
    }
    return kExitError;
  }();
  return finish_stdout(code);
}
