#include "scenes.h"

#include <cmath>

#include "spritz/hash.h"
#include "spritz/load.h"
#include "spritz/raster/png.h"

namespace spritz::bench {

Scene make_scene(const std::string& name, const std::string& description, int width, int height,
                 int count, double size_min, double size_max, double additive_share, uint32_t seed,
                 int texture_size, const std::string& filter) {
  Scene s;
  s.name = name;
  s.description = description;
  s.width = width;
  s.height = height;
  // A soft disc texture, as a PNG would give it.
  s.texture_size = texture_size;
  const int n = s.texture_size;
  s.texture_rgba.resize(static_cast<size_t>(n * n) * 4);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double dx = (x + 0.5) / n * 2 - 1, dy = (y + 0.5) / n * 2 - 1;
      const double r2 = dx * dx + dy * dy;
      const double a = r2 < 1 ? (1 - r2) * (1 - r2) : 0;
      uint8_t* p = &s.texture_rgba[static_cast<size_t>(y * n + x) * 4];
      p[0] = 255, p[1] = static_cast<uint8_t>(200 + 55 * a), p[2] = 180,
      p[3] = static_cast<uint8_t>(std::lround(a * 255));
    }
  const std::string text =
      "[canvas]\nsize = [" + std::to_string(width) + ", " + std::to_string(height) +
      "]\nbackground = \"#101820\"\n[[emitter]]\nname = \"over\"\nlight_emission = 0\n"
      "filter = \"" +
      filter + "\"\n[[emitter]]\nname = \"add\"\nlight_emission = 1\nfilter = \"" + filter + "\"\n";
  s.fx = load_effect(text, name, ".");
  const std::vector<uint8_t> png = encode_png(s.texture_rgba.data(), n, n);
  auto tex = std::make_shared<const Texture>(texture_from_encoded(png, "bench-texture", 1, 1));
  s.textures = {tex, tex};
  s.frame.emitters.resize(2);
  s.frame.emitters[0].emitter = 0;
  s.frame.emitters[1].emitter = 1;
  for (int i = 0; i < count; ++i) {
    const uint32_t st = particle_stream(seed, static_cast<uint32_t>(i));
    Particle p;
    p.key = static_cast<uint64_t>(i);
    p.x = (unit_raw(st, 0) - 0.5) * width;
    p.y = (unit_raw(st, 1) - 0.5) * height;
    p.w = p.h = size_min + (size_max - size_min) * unit_raw(st, 2);
    p.rotation_deg = 360 * unit_raw(st, 3);
    p.color_srgb = {1.0, 0.6 + 0.4 * unit_raw(st, 4), 0.5};
    p.alpha = 0.5 + 0.5 * unit_raw(st, 5);
    s.frame.emitters[unit_raw(st, 6) < additive_share ? 1 : 0].particles.push_back(p);
  }
  return s;
}

}  // namespace spritz::bench
