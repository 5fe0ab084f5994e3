// The TOML front-end's entry point: the bytes checked, parsed by toml++,
// `--set` overrides applied, translated into the model (toml/), then derived
// and linted like any front-end's effect.
#include "spritz/load.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "finish.h"
#include "spritz/hash.h"
#include "toml/keys.h"
#include "toml/overrides.h"
#include "toml/preflight.h"
#include "toml/text.h"
#include "toml/translator.h"

namespace spritz {
std::string check_time_label(double t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", t);
  return std::string_view(buf) == "-0.000" ? "0.000" : buf;
}

namespace {

// Keeps the first kMaxDiagnostics of `list` (in file order) and says how many
// more there were, so that a file of a million bad values prints a page, not
// a million lines.
void cap_diagnostics(std::vector<Diagnostic>& list, const std::string& source_name,
                     const char* what) {
  if (list.size() <= toml_load::kMaxDiagnostics) return;
  const size_t more = list.size() - toml_load::kMaxDiagnostics;
  list.resize(toml_load::kMaxDiagnostics);
  list.push_back({SourceLoc{source_name, 0, 0},
                  "and " + std::to_string(more) + " more " + what + " (the first " +
                      std::to_string(toml_load::kMaxDiagnostics) + " are shown)"});
}

// Every texture file the effect names is there and a regular file: a typo
// is reported with the file's other problems, at its texture key.
void check_texture_files(const std::vector<toml_load::Translator::TextureFile>& files,
                         std::vector<Diagnostic>& problems) {
  namespace fs = std::filesystem;
  for (const toml_load::Translator::TextureFile& f : files) {
    std::error_code ec;
    const fs::path p(f.path);
    const auto status = fs::status(p, ec);
    const bool missing = ec.value() == ENOENT || ec.value() == ENOTDIR;
    if (ec && !missing) {
      // A link loop, a folder that cannot be searched: say which.
      problems.push_back({f.loc, "cannot open texture " + f.path + ": " + ec.message()});
    } else if (ec || !fs::exists(status)) {
      std::string hint;
      // A path typed in --set is still relative to the effect file; say
      // so when the working directory has the file the user meant.
      if (f.from_set && fs::path(f.written).is_relative() && p != fs::path(f.written) &&
          fs::exists(fs::path(f.written), ec))
        hint = " (" + f.written +
               " is in the working directory, but a texture path is relative to the "
               "effect file, in --set too: give an absolute path)";
      problems.push_back({f.loc, "texture file not found: " + f.path + hint});
    } else if (!fs::is_regular_file(status)) {
      problems.push_back({f.loc, "texture is not a regular file: " + f.path});
    }
  }
}

// A file of at most `max` bytes, whole; false with the reason.
bool read_capped(const std::string& path, std::string& out, std::string& why, size_t max,
                 const char* max_text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    why = "no such file";
    return false;
  }
  if (!fs::is_regular_file(status)) {
    why = "not a regular file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    why = "cannot open it";
    return false;
  }
  // In pieces as the file gives them (its size may change while it is
  // read), never more than max + 1 bytes held.
  out.clear();
  char piece[1 << 16];
  while (in && out.size() <= max) {
    in.read(piece, static_cast<std::streamsize>(std::min(sizeof piece, max + 1 - out.size())));
    out.append(piece, static_cast<size_t>(in.gcount()));
  }
  if (out.size() > max) {
    why = std::string("larger than ") + max_text;
    return false;
  }
  return true;
}

// A program file an effect names (docs/programs.md): the one kind of file
// the model reads itself (with the images its samplers read), since the
// effect is not valid until its program compiles. At most 1 MiB.
bool read_program_file(const std::string& path, std::string& out, std::string& why) {
  return read_capped(path, out, why, 1u << 20, "1 MiB");
}

// An image a program's sampler2D reads (docs/programs.md, "Textures"),
// read for the same reason as a program file: at most 64 MiB.
bool read_image_file(const std::string& path, std::vector<unsigned char>& out, std::string& why) {
  std::string text;
  if (!read_capped(path, text, why, 64u << 20, "64 MiB")) return false;
  out.assign(text.begin(), text.end());
  return true;
}

}  // namespace

Effect load_effect(std::string_view text, const std::string& source_name,
                   const std::string& base_dir, const LoadOptions& options) {
  toml_load::check_file_kind(text, source_name);
  toml_load::check_key_depth(text, source_name);
  toml_load::check_toml_text(text, source_name);
  toml::table root;
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    const toml::source_region& src = e.source();
    throw Error(SourceLoc{source_name, static_cast<uint32_t>(src.begin.line),
                          static_cast<uint32_t>(src.begin.column)},
                "invalid TOML: " + std::string(e.description()));
  }
  uint64_t hash = fnv1a64(text);
  for (const std::string& o : options.overrides) {
    toml_load::apply_override(root, o);
    hash = fnv1a64(o, fnv1a64(std::string_view("\0", 1), hash));
  }

  toml_load::Translator tr(source_name, base_dir);
  tr.provided_textures = options.provided_textures;
  tr.source_text = text;
  tr.read_file = read_program_file;
  tr.read_binary = [&options](const std::string& path, std::vector<unsigned char>& out,
                              std::string& why) {
    const auto it = options.provided_images.find(path);
    if (it == options.provided_images.end()) return read_image_file(path, out, why);
    out = it->second;
    return true;
  };
  tr.decode_image = options.decode_image;
  Effect fx = tr.translate(root);
  for (const std::string& p : tr.program_texts) hash = fnv1a64(p, hash);
  fx.source_files.insert(fx.source_files.end(), tr.program_files.begin(), tr.program_files.end());
  check_texture_files(tr.texture_files, tr.diagnostics);
  if (!tr.diagnostics.empty()) {
    sort_by_location(tr.diagnostics);
    cap_diagnostics(tr.diagnostics, source_name, "problems");
    throw Error(std::move(tr.diagnostics));
  }
  fx.warnings = std::move(tr.warnings);
  finish_effect(fx, source_name, hash);
  cap_diagnostics(fx.warnings, source_name, "warnings");
  return fx;
}

}  // namespace spritz
