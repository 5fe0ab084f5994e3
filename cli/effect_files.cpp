// Loading a run's effects and their texture files (effect_files.h).
#include "effect_files.h"

#include <cstdio>
#include <filesystem>
#include <iterator>

#include "io/io.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"

namespace spritz {

EffectFormat effect_format(const std::string& from, std::string_view text,
                           const std::string& name) {
  if (from.empty()) return detect_effect_format(text, name);
  const auto f = parse_effect_format(from);
  if (!f)
    throw Error("--from must be toml, cocos2d, pex, godot or roblox, got \"" + printable(from) +
                "\"");
  return *f;
}

std::shared_ptr<const ImportResult> EffectFiles::imported(const std::string& text,
                                                          const std::string& name,
                                                          const std::string& base,
                                                          EffectFormat format) {
  std::lock_guard<std::mutex> lock(import_mutex_);
  CachedImport& c = imports_[{name, format}];
  if (!c.result || c.text != text) {
    c.result = std::make_shared<const ImportResult>(
        import_effect(text, name, base, format, settings_.import_search, read_beside));
    c.text = text;
  }
  return c.result;
}

// An imported effect, loaded as the TOML `spritz import` would write for it:
// the same text (so the same bytes out), the texture from memory.
Effect EffectFiles::load_imported(const std::string& text, const std::string& name,
                                  const std::string& base, EffectFormat format,
                                  LoadOptions options) {
  const ImportResult& r = *imported(text, name, base, format);
  for (const ImportResult::Texture& t : r.textures) {
    const std::string path = (std::filesystem::path(base) / t.name).lexically_normal().string();
    provide_texture(path, t.png);
    options.provided_textures.push_back(path);
    options.provided_images[path] = t.png;  // a sampler may read it too
  }
  Effect fx = load_effect(r.toml, name, base, options);
  // The TOML's own warnings are at its lines, not the source's: say so.
  for (Diagnostic& w : fx.warnings) {
    if (w.loc.line > 0)
      w.message = "in the TOML `spritz import` writes, line " + std::to_string(w.loc.line) + ": " +
                  w.message;
    w.loc = SourceLoc{name, 0, 0};
  }
  // The import's own warnings (a missing texture, a blend spritz cannot
  // do) go with the effect's, which every command prints.
  fx.warnings.insert(fx.warnings.begin(), r.warnings.begin(), r.warnings.end());
  for (const ImportResult::Texture& t : r.textures)
    if (t.from_file) fx.source_files.push_back(t.origin);
  for (const std::string& f : r.source_files) fx.source_files.push_back(f);
  return fx;
}

Effect EffectFiles::load_source(const std::string& path, const LoadOptions& given,
                                const std::string& from) {
  LoadOptions options = given;
  if (!options.decode_image) options.decode_image = decode_program_image;  // PNG for samplers
  if (path.empty()) return load_effect(default_effect_text(), kDefaultEffectName, ".", options);
  std::string name = path, base = ".";
  const std::string* text = nullptr;
  std::string file_text;
  if (path == "-") {
    {
      // Read once: --seeds loads the effect again for every seed.
      std::lock_guard<std::mutex> lock(import_mutex_);
      if (!stdin_) stdin_ = read_stdin();
    }
    text = &*stdin_;
    name = std::string(kStdinSourceName);
  } else {
    file_text = read_text_file(path);
    text = &file_text;
    base = std::filesystem::path(path).parent_path().string();
    if (base.empty()) base = ".";
  }
  const EffectFormat format = effect_format(from, *text, name);
  if (format != EffectFormat::kToml) return load_imported(*text, name, base, format, options);
  return load_effect(*text, name, base, options);
}

std::optional<std::vector<uint8_t>> read_beside(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  return read_texture_file(path);
}

void EffectFiles::forget_imports() {
  std::lock_guard<std::mutex> lock(import_mutex_);
  imports_.clear();
}

void EffectFiles::forget_texture_files() {
  std::lock_guard<std::mutex> lock(texture_mutex_);
  // An imported effect's texture is no file to read again: its import
  // supplies it anew each time the effect loads.
  for (auto it = files_.begin(); it != files_.end();)
    it = provided_.count(it->first) ? std::next(it) : files_.erase(it);
}

void EffectFiles::provide_texture(const std::string& path, std::vector<unsigned char> bytes) {
  std::lock_guard<std::mutex> lock(texture_mutex_);
  files_[path] = std::move(bytes);
  provided_.insert(path);
}

const TextureBytes& EffectFiles::texture_files(const Effect& fx) {
  std::lock_guard<std::mutex> lock(texture_mutex_);
  for (const Emitter& em : fx.emitters) {
    if (em.texture.builtin() || files_.count(em.texture.path)) continue;
    try {
      files_.emplace(em.texture.path, read_texture_file(em.texture.path));
    } catch (const Error& e) {
      const Diagnostic& d = e.diagnostics().front();
      throw Error(em.texture_loc, "texture " + d.loc.file + ": " + d.message);
    }
  }
  return files_;
}

TextureSet EffectFiles::textures(const Effect& fx, double px_per_design_px, int threads) {
  return load_textures(fx, px_per_design_px, texture_files(fx), settings_.texture_limits, threads);
}

Effect EffectFiles::load_path(const std::string& path, const std::vector<std::string>& overrides,
                              const std::string& from) {
  LoadOptions options;
  options.overrides = overrides;
  Effect fx = load_source(path, options, from);
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

Effect EffectFiles::load(const EffectArgs& args) {
  std::vector<std::string> overrides;
  if (args.seed) {
    if (*args.seed < 0 || *args.seed > 0xffffffffll)
      throw Error("--seed must be within [0, 4294967295], got " + std::to_string(*args.seed));
    overrides.push_back("effect.seed=" + std::to_string(*args.seed));
  }
  overrides.insert(overrides.end(), args.sets.begin(), args.sets.end());
  return load_path(args.effect, overrides, args.from);
}

}  // namespace spritz
