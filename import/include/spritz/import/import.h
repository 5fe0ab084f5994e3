// Importing effects made in other tools (docs/import.md): Particle Designer /
// cocos2d `.plist` files and their Starling sibling `.pex`, Godot scenes and
// resources (`.tscn`, `.tres`) and Roblox ParticleEmitters (`.rbxmx`,
// `.rbxlx`, Rojo `.model.json`), translated into
// the model's own terms and written as spritz TOML (write.h), with the
// texture they use decoded (PNG or TIFF, embedded or beside the file) and
// re-encoded as a PNG. The library reads no file itself: the caller hands
// it the effect's text and a function that reads the files it looks up.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/effect.h"
#include "spritz/error.h"

namespace spritz {

enum class EffectFormat { kToml, kCocos2d, kPex, kGodot, kRoblox };

// "toml", "cocos2d", "pex", "godot", "roblox"; nullopt for anything else.
std::optional<EffectFormat> parse_effect_format(std::string_view name);
const char* effect_format_name(EffectFormat format);

// The format of an effect file, from its content: XML whose root element is
// <plist> is cocos2d, <particleEmitterConfig> is pex, <roblox> is Roblox; a
// [gd_scene or [gd_resource header is Godot; a JSON object (a first `{`) is a
// Rojo model; anything else is TOML. Throws spritz::Error (file:line:col) for
// XML that is none of these, and for a binary Roblox file.
EffectFormat detect_effect_format(std::string_view text, const std::string& source_name);

struct ImportOptions {
  // The canvas, design px; 0 x 0 fits it to where the particles go (as
  // `atlas --fit` frames a sheet), at most kMaxFittedSide per side.
  int canvas_width = 0, canvas_height = 0;
  // The emitter's place, design px from the canvas centre, y up; unset: the
  // place that centres the particles on a fitted canvas, else the centre.
  std::optional<double> position_x, position_y;
  // Whether the file's y axis points down (Starling); unset: yes for .pex,
  // no for .plist.
  std::optional<bool> y_down;
  // The step radial and tangential acceleration are integrated with.
  double step_s = kDefaultForceStepS;
  // Folders a texture the file names is looked for in (by its file name)
  // when it is not where the file says: a Godot project's textures, a
  // folder of Roblox assets (`<id>.png` or the name).
  std::vector<std::string> texture_dirs;
  // Roblox: an id-to-file map's text and name (`--texture-map map.toml`:
  // `"rbxassetid://123" = "fire.png"` or `123 = "fire.png"`, paths relative
  // to the map), the pixels per stud (0: fitted to the canvas), and the view
  // ("front" looks along -Z, "side" along -X, "top" down -Y).
  std::string texture_map_text, texture_map_name;
  double px_per_stud = 0;
  // A Godot particle shader: "2d" (the default) or a view onto 3D. Empty:
  // the format's default (front for Roblox, 2d for a Godot shader).
  std::string view;
  // Roblox: the burst an emitter that only Emit()s (Rate 0 or disabled,
  // without an EmitCount attribute) gets at time 0.
  int emit_count = 16;
  // Godot: a looping scene as a seamless loop (model.md 4.4: keys repeat
  // every period, shown in its steady state, for baking) instead of as
  // Godot runs it (4.5: starting empty, new particles every cycle).
  bool seamless = false;
};

inline constexpr int kMaxFittedSide = 2048;
// Caps on an embedded texture: its inflated bytes, and its pixels.
inline constexpr size_t kMaxInflatedBytes = 64u << 20;
inline constexpr int kMaxImportTextureSide = 4096;

// Reads a file the importer looks up (a texture beside the effect): its
// bytes, or nullopt when there is no such file. It may throw spritz::Error
// for a file that exists but cannot be read.
using ReadFile = std::function<std::optional<std::vector<uint8_t>>(const std::string& path)>;

struct ImportResult {
  EffectFormat format = EffectFormat::kCocos2d;
  // The translation: an effect as the TOML front-end would read it (not
  // finished: write_effect it, then load_effect the text).
  Effect fx;
  // The textures as PNGs (files, embedded, or rasterised gradients); fx's
  // emitters name them by `name`, relative to the TOML file
  // ("<stem>-texture.png", "<stem>-<emitter>.png").
  struct Texture {
    std::string name;
    std::vector<uint8_t> png;
    std::string origin;      // where it came from (a path, or what was embedded)
    bool from_file = false;  // origin is a file the effect depends on
  };
  std::vector<Texture> textures;
  // Other files the import read (a Godot scene's .tres resources): preview
  // watches them.
  std::vector<std::string> source_files;
  // What could not be carried over exactly, each at its place in the file.
  // Warnings change what is drawn noticeably (a missing texture, a blend
  // spritz cannot do); notes are the documented approximations.
  std::vector<Diagnostic> warnings, notes;
  // The TOML text, header comment included (the same for any output place).
  std::string toml;
};

// Imports `text` (the file's content) named `source_name`, whose folder is
// `base_dir`. Throws spritz::Error with file:line:col for malformed input.
ImportResult import_effect(std::string_view text, const std::string& source_name,
                           const std::string& base_dir, EffectFormat format,
                           const ImportOptions& options, const ReadFile& read_file);

}  // namespace spritz
