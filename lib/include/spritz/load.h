// Translating an effect file (TOML) into the model: the only place that knows
// the file format. Every rule of config.md is checked here; problems are
// collected (not just the first) and thrown as one spritz::Error whose
// diagnostics carry file:line:col.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "spritz/effect.h"
#include "spritz/program.h"

namespace spritz {

struct LoadOptions {
  // "key.path=value" overrides (`--set`), applied to the file before validation
  // so they are checked by the same rules. Emitters are addressed by index or
  // name: "emitter.0.rate=100", "emitter.flames.shape.kind=box".
  std::vector<std::string> overrides;
  // Texture paths (as resolved against the effect's folder, lexically
  // normal) whose bytes the caller supplies itself: they need not exist as
  // files. An imported effect's texture, decoded from the file it came in.
  std::vector<std::string> provided_textures;
  // Image files (their paths as above) whose bytes the caller supplies for
  // programs' samplers: read from here instead of the disk. An imported
  // effect's sampler images.
  std::map<std::string, std::vector<unsigned char>> provided_images;
  // Decodes the images programs' samplers read (docs/programs.md,
  // "Textures"); the library decodes no image format itself. Without one, an
  // effect whose sampler names an image file is refused. spritz's CLI gives
  // spritz::raster's decode_program_image (PNG).
  ProgramImageDecoder decode_image;
};

// The source name of an effect read from stdin. Its default effect name is
// "stdin"; a file's is its stem ("fire" for fx/fire.toml).
inline constexpr std::string_view kStdinSourceName = "<stdin>";

// `text` is the file's content; `source_name` names it in messages; texture
// paths resolve relative to `base_dir`.
Effect load_effect(std::string_view text, const std::string& source_name,
                   const std::string& base_dir, const LoadOptions& options = {});

// The name of a check time's golden image, without ".png": the time with
// three decimals ("0.333", "-1.250"), so goldens are named by the
// millisecond. A time that rounds to zero is "0.000", never "-0.000". The
// loader refuses [check] times that share a label.
std::string check_time_label(double t);

// The closest of `candidates` to `word` when it is plausibly a typo, else "".
std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace spritz
