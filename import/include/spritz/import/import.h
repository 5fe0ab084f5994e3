// Importing effects made in other tools (docs/import.md): Particle Designer /
// cocos2d `.plist` files and their Starling sibling `.pex`, translated into
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

enum class EffectFormat { kToml, kCocos2d, kPex };

// "toml", "cocos2d", "pex"; nullopt for anything else.
std::optional<EffectFormat> parse_effect_format(std::string_view name);
const char* effect_format_name(EffectFormat format);

// The format of an effect file, from its content: XML whose root element is
// <plist> is cocos2d, <particleEmitterConfig> is pex, anything that does not
// start with '<' is TOML. Throws spritz::Error (file:line:col) for XML that
// is neither.
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
  // The texture as a PNG, when the effect has one (file or embedded);
  // fx's emitter names it by texture_name, relative to the TOML file.
  std::vector<uint8_t> texture_png;
  std::string texture_name;    // "<stem>-texture.png", or empty
  std::string texture_origin;  // where it came from, for messages
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
