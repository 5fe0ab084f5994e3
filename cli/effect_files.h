// The effects and texture files one run reads. An effect is loaded from its
// file (imported first when it is not TOML: the very TOML `spritz import`
// writes, its textures handed over from memory), and each import and each
// texture file is read once however often the run loads the effect again
// (--seeds, atlas sheets, preview's reloads). A command makes one from the
// run's settings and keeps it for the run; it is safe to use from several
// threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run_settings.h"
#include "spritz/effect.h"
#include "spritz/import/import.h"
#include "spritz/load.h"
#include "spritz/raster/texture.h"

namespace spritz {

// How the effect is chosen and modified: shared by every command that loads one.
struct EffectArgs {
  std::string effect;  // path, "-" for stdin, empty for the bundled default
  std::optional<int64_t> seed;
  std::vector<std::string> sets;
  std::string
      from;  // --from: toml, cocos2d, pex, godot or roblox; empty: detected from the content
};

class EffectFiles {
 public:
  explicit EffectFiles(const RunSettings& settings) : settings_(settings) {}

  // Loads the effect `args` names (overrides validated with the file; the
  // seed as effect.seed), and reads its texture files.
  Effect load(const EffectArgs& args);
  Effect load_path(const std::string& path, const std::vector<std::string>& overrides = {},
                   const std::string& from = "");

  // The encoded bytes of every file texture `fx` names, read the first time
  // the run asks for each and recorded as inputs no output may replace.
  // Throws spritz::Error at the emitter's texture key (file:line:col) when a
  // file cannot be read or is over 64 MiB.
  const TextureBytes& texture_files(const Effect& fx);
  // load_textures() with these bytes and the run's texture limits, built on
  // up to `threads` threads (the same textures for any).
  TextureSet textures(const Effect& fx, double px_per_design_px, int threads = 1);

  // Forgets the imports and the texture files read so far, so the next load
  // reads them again: for `preview`, which reloads an effect when one of
  // its files changes. No other thread may be using texture_files()' result
  // meanwhile.
  void forget_imports();
  void forget_texture_files();

  const RunSettings& settings() const { return settings_; }

 private:
  struct CachedImport {
    std::string text;
    std::shared_ptr<const ImportResult> result;
  };
  Effect load_source(const std::string& path, const LoadOptions& options, const std::string& from);
  Effect load_imported(const std::string& text, const std::string& name, const std::string& base,
                       EffectFormat format, LoadOptions options);
  std::shared_ptr<const ImportResult> imported(const std::string& text, const std::string& name,
                                               const std::string& base, EffectFormat format);
  void provide_texture(const std::string& path, std::vector<unsigned char> bytes);

  const RunSettings& settings_;
  std::mutex import_mutex_;
  std::map<std::pair<std::string, EffectFormat>, CachedImport> imports_;
  std::mutex texture_mutex_;
  TextureBytes files_;                // every texture the run has read, by path
  std::set<std::string> provided_;    // those an import supplied (never read from a file)
  std::optional<std::string> stdin_;  // `-`: read once
};

// The format of effect text: `from` (--from) when given, else told by the
// content (detect_effect_format).
EffectFormat effect_format(const std::string& from, std::string_view text, const std::string& name);
// The bytes of the file at `path` when it is a regular file (an imported
// effect's texture beside it), recorded as an input of this run.
std::optional<std::vector<uint8_t>> read_beside(const std::string& path);
// Prints an effect's warnings to stderr, "file:line:col: warning: message".
void print_warnings(const std::vector<Diagnostic>& warnings);

// The bundled default effect's text and name (compiled into the binary).
const std::string& default_effect_text();
inline constexpr const char* kDefaultEffectName = "configs/campfire.toml (built in)";

}  // namespace spritz
