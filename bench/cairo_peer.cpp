#include "cairo_peer.h"

#include <chrono>

#ifdef SPRITZ_HAVE_CAIRO
#include <cairo.h>
#endif

namespace spritz::bench {

#ifdef SPRITZ_HAVE_CAIRO
bool cairo_available() { return true; }

double cairo_draw(const Scene& s) {
  // The texture as Cairo's premultiplied ARGB32.
  const int n = s.texture_size;
  cairo_surface_t* tex = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, n, n);
  unsigned char* td = cairo_image_surface_get_data(tex);
  const int ts = cairo_image_surface_get_stride(tex);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const uint8_t* p = &s.texture_rgba[static_cast<size_t>(y * n + x) * 4];
      const unsigned a = p[3];
      uint32_t* d = reinterpret_cast<uint32_t*>(td + y * ts) + x;
      *d = (a << 24) | ((p[0] * a / 255) << 16) | ((p[1] * a / 255) << 8) | (p[2] * a / 255);
    }
  cairo_surface_mark_dirty(tex);
  cairo_surface_t* target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, s.width, s.height);
  cairo_t* cr = cairo_create(target);
  const auto t0 = std::chrono::steady_clock::now();
  cairo_set_source_rgb(cr, 0.06, 0.09, 0.125);
  cairo_paint(cr);
  const double scale = 1.0;
  for (int e = 0; e < 2; ++e) {
    cairo_set_operator(cr, e == 0 ? CAIRO_OPERATOR_OVER : CAIRO_OPERATOR_ADD);
    for (const Particle& p : s.frame.emitters[static_cast<size_t>(e)].particles) {
      cairo_save(cr);
      cairo_translate(cr, s.width * 0.5 + p.x * scale, s.height * 0.5 - p.y * scale);
      cairo_rotate(cr, -p.rotation_deg * 3.14159265358979323846 / 180);
      cairo_scale(cr, p.w / n, p.h / n);
      cairo_translate(cr, -n * 0.5, -n * 0.5);
      cairo_set_source_surface(cr, tex, 0, 0);
      cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR);
      cairo_rectangle(cr, 0, 0, n, n);
      cairo_clip(cr);
      cairo_paint_with_alpha(cr, p.alpha);
      cairo_restore(cr);
    }
  }
  cairo_surface_flush(target);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cairo_destroy(cr);
  cairo_surface_destroy(target);
  cairo_surface_destroy(tex);
  return seconds;
}
#else
bool cairo_available() { return false; }
double cairo_draw(const Scene&) { return 0; }
#endif

}  // namespace spritz::bench
