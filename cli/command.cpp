// The options several commands share (command.h).
#include "command.h"

namespace spritz {

void add_from_option(CLI::App* cmd, std::string& from, RunOptions& run) {
  cmd->add_option("--from", from,
                  "The effect's format: toml, cocos2d (.plist), pex, godot (.tscn/.tres) or "
                  "roblox (.rbxmx/.rbxlx/.model.json) (default: detected from the content)")
      ->check(CLI::IsMember({"toml", "cocos2d", "pex", "godot", "roblox"}));
  cmd->add_option("--texture-dir", run.texture_dirs,
                  "An imported effect's textures are also looked for here, by file name (a "
                  "Godot project's art; Roblox assets as <id>.png) (repeatable)")
      ->take_all();
  cmd->add_option("--texture-map", run.texture_map,
                  "A TOML table from Roblox asset id or URI to a PNG file, relative to the map: "
                  "123456 = \"fire.png\"");
}

void add_effect_options(CLI::App* cmd, EffectArgs& a, RunOptions& run) {
  cmd->add_option_function<int64_t>(
      "--seed", [&a](int64_t seed) { a.seed = seed; },
      "Effect seed (overrides effect.seed), 0..4294967295");
  cmd->add_option("--set", a.sets,
                  "Override a config value, validated like the file (repeatable): "
                  "emitter.0.rate=100, emitter.flames.color=\"#ff0000\", canvas.tonemap=clamp")
      ->take_last()
      ->allow_extra_args(false);
  add_from_option(cmd, a.from, run);
}

void add_png_option(CLI::App* cmd, RunOptions& run, const char* help) {
  cmd->add_option("--png", run.png, help)->check(CLI::IsMember({"fast", "small"}));
}

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

}  // namespace spritz
