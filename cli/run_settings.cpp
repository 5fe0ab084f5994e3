// The run's settings (run_settings.h): the environment's read once and
// checked, so neither the libraries nor the commands read it themselves.
#include "run_settings.h"

#include <cstdlib>
#include <string>

#include "io/inputs.h"
#include "spritz/error.h"

namespace spritz {

namespace {

// A variable holding megabytes, 1..999999999; 0 when it is not set.
uint64_t megabytes_from(const char* name) {
  const char* env = std::getenv(name);
  if (!env) return 0;
  const std::string v = env;
  const bool digits =
      !v.empty() && v.size() <= 9 && v.find_first_not_of("0123456789") == std::string::npos;
  const uint64_t mb = digits ? std::stoull(v) : 0;
  if (mb == 0)
    throw Error(std::string(name) +
                " must be a whole number of megabytes from 1 to 999999999, got '" + printable(v) +
                "'");
  return mb << 20;
}

uint64_t work_limit_from_environment() {
  const char* env = std::getenv("SPRITZ_WORK_LIMIT");
  if (!env) return kDefaultWorkLimit;
  const std::string v = env;
  const bool digits =
      !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string::npos;
  const uint64_t n = digits ? std::stoull(v) : 0;
  if (n == 0)
    throw Error(
        "SPRITZ_WORK_LIMIT must be a whole number of particle samples from 1 to "
        "999999999999999999, got '" +
        printable(v) + "'");
  return n;
}

}  // namespace

DrawPath kernel_from_environment() {
  const char* env = std::getenv("SPRITZ_SIMD");
  if (!env) return default_draw_path();
  try {
    return draw_path_from_name(env);
  } catch (const Error& e) {
    throw Error("SPRITZ_SIMD: " + std::string(e.what()));
  }
}

RunSettings read_run_settings(const SettingsUse& use, PngMode png_mode,
                              const std::vector<std::string>& texture_dirs,
                              const std::string& texture_map) {
  RunSettings s;
  s.png_mode = png_mode;
  s.import_search.texture_dirs = texture_dirs;
  s.import_search.texture_map_name = texture_map;
  s.import_search.texture_map_text = texture_map.empty() ? "" : read_text_file(texture_map);
  if (const char* dir = std::getenv("SPRITZ_MODULE_DIR"); dir && *dir) s.module_dir = dir;
  if (const char* gh = std::getenv("GITHUB_ACTIONS")) s.github_actions = std::string(gh) == "true";
  if (const char* browser = std::getenv("BROWSER")) s.browser = browser;
  // The kernel first: a bad SPRITZ_SIMD stops a drawing command before
  // anything else is checked.
  s.kernel = use.kernel ? kernel_from_environment() : default_draw_path();
  const uint64_t memory = use.memory ? megabytes_from("SPRITZ_MEMORY_MB") : 0;
  s.memory_budget = memory ? memory : default_memory_budget();
  if (use.work) s.work_limit = work_limit_from_environment();
  if (use.textures)
    if (const uint64_t set = megabytes_from("SPRITZ_TEXTURE_MEMORY_MB"))
      s.texture_limits.memory_bytes = set;
  s.texture_limits.raise_hint = "SPRITZ_TEXTURE_MEMORY_MB=N raises it to N megabytes";
  return s;
}

uint64_t frame_particle_limit(const Effect& fx, const RunSettings& settings, int frames_in_flight) {
  return particle_limit(frames_in_flight, bytes_per_particle(fx), settings.memory_budget);
}

std::unique_ptr<FrameRenderer> make_renderer(const Effect& fx, int width, int height, int threads,
                                             const View& view, TextureSet textures,
                                             const RunSettings& settings, int frames_in_flight) {
  auto r = std::make_unique<FrameRenderer>(fx, width, height, threads, view, std::move(textures));
  r->set_draw_path(settings.kernel);
  r->set_png_mode(settings.png_mode);
  r->set_particle_limit(frame_particle_limit(fx, settings, frames_in_flight));
  r->set_work_limit(settings.work_limit, kWorkLimitHint);
  return r;
}

}  // namespace spritz
