#include "io/textures.h"

#include <iterator>
#include <mutex>
#include <set>
#include <string>

#include "commands.h"
#include "io/io.h"

namespace spritz {

namespace {

std::mutex g_mutex;
TextureBytes g_files;              // every texture this run has read, by path
std::set<std::string> g_provided;  // those an import supplied (never read from a file)

}  // namespace

void forget_texture_files() {
  std::lock_guard<std::mutex> lock(g_mutex);
  // An imported effect's texture is no file to read again: its import
  // supplies it anew each time the effect loads.
  for (auto it = g_files.begin(); it != g_files.end();)
    it = g_provided.count(it->first) ? std::next(it) : g_files.erase(it);
}

void provide_texture(const std::string& path, std::vector<unsigned char> bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_files[path] = std::move(bytes);
  g_provided.insert(path);
}

const TextureBytes& texture_files(const Effect& fx) {
  TextureBytes& files = g_files;
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const Emitter& em : fx.emitters) {
    if (em.texture.builtin() || files.count(em.texture.path)) continue;
    try {
      files.emplace(em.texture.path, read_texture_file(em.texture.path));
    } catch (const Error& e) {
      const Diagnostic& d = e.diagnostics().front();
      throw Error(em.texture_loc, "texture " + d.loc.file + ": " + d.message);
    }
  }
  return files;
}

TextureSet effect_textures(const Effect& fx, double px_per_design_px, int threads) {
  return load_textures(fx, px_per_design_px, texture_files(fx), texture_limits(), threads);
}

}  // namespace spritz
