// What the importer tests share (import_test.cpp, engine_import_test.cpp):
// reading the test files, importing one as the commands do, and loading the
// effect an import describes with its textures from memory.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "spritz/import/import.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"

namespace spritz::test {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The importer's ReadFile: a file's bytes, or nullopt where there is none.
inline std::optional<std::vector<uint8_t>> read_file(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  const std::string s = read_text(path);
  return std::vector<uint8_t>(s.begin(), s.end());
}

// `text` imported as the file `name` would be, from the working folder.
inline ImportResult import_text(const std::string& text, const std::string& name,
                                const ImportOptions& o = {}) {
  return import_effect(text, name, ".", detect_effect_format(text, name), o, read_file);
}

inline ImportResult import_path(const fs::path& p, const ImportOptions& o = {}) {
  const std::string text = read_text(p);
  return import_effect(text, p.string(), p.parent_path().string(),
                       detect_effect_format(text, p.string()), o, read_file);
}

// The effect an import describes, loaded as every command loads it.
inline Effect load_imported(const ImportResult& r, const fs::path& source) {
  LoadOptions lo;
  for (const ImportResult::Texture& t : r.textures) {
    const std::string path = (source.parent_path() / t.name).lexically_normal().string();
    lo.provided_textures.push_back(path);
    lo.provided_images[path] = t.png;
  }
  lo.decode_image = decode_program_image;
  return load_effect(r.toml, source.string(), source.parent_path().string(), lo);
}

// The files of the corpus folders `dirs` under `corpus` (SOURCES.md left out).
inline std::vector<fs::path> corpus_files(const fs::path& corpus,
                                          const std::vector<std::string>& dirs) {
  std::vector<fs::path> out;
  for (const std::string& d : dirs)
    for (const auto& e : fs::directory_iterator(corpus / d))
      if (e.path().filename() != "SOURCES.md") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace spritz::test
