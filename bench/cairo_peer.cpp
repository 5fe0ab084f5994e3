#include "cairo_peer.h"

#include <chrono>

#ifdef SPRITZ_HAVE_CAIRO
#include <cairo.h>
#endif

namespace spritz::bench {

#ifdef SPRITZ_HAVE_CAIRO
bool cairo_available() {
  return true;
}

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
  // One pattern for every sprite, bilinear, EXTEND_NONE: outside the texture
  // the source is transparent, so Cairo bounds each paint by the sprite's
  // transformed rectangle and needs no clip. This is Cairo's fastest way to
  // draw these sprites that we found: a rectangle clip with
  // paint_with_alpha (the peer's first form) gave the same image within one
  // 8-bit step and took 1.9x as long on S2, and a fill was slower still.
  cairo_pattern_t* pattern = cairo_pattern_create_for_surface(tex);
  cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR);
  cairo_pattern_set_extend(pattern, CAIRO_EXTEND_NONE);
  for (int e = 0; e < 2; ++e) {
    cairo_set_operator(cr, e == 0 ? CAIRO_OPERATOR_OVER : CAIRO_OPERATOR_ADD);
    for (const Particle& p : s.frame.emitters[static_cast<size_t>(e)].particles) {
      // Texture space to the canvas: centre, rotation, size; the pattern
      // takes the inverse (canvas to texture).
      cairo_matrix_t m;
      cairo_matrix_init_translate(&m, s.width * 0.5 + p.x, s.height * 0.5 - p.y);
      cairo_matrix_rotate(&m, -p.rotation_deg * 3.14159265358979323846 / 180);
      cairo_matrix_scale(&m, p.w / n, p.h / n);
      cairo_matrix_translate(&m, -n * 0.5, -n * 0.5);
      if (cairo_matrix_invert(&m) != CAIRO_STATUS_SUCCESS)
        continue;  // a degenerate sprite draws nothing
      cairo_pattern_set_matrix(pattern, &m);
      cairo_set_source(cr, pattern);
      cairo_paint_with_alpha(cr, p.alpha);
    }
  }
  cairo_surface_flush(target);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  cairo_pattern_destroy(pattern);
  cairo_destroy(cr);
  cairo_surface_destroy(target);
  cairo_surface_destroy(tex);
  return seconds;
}
#else
bool cairo_available() {
  return false;
}
double cairo_draw(const Scene&) {
  return 0;
}
#endif

}  // namespace spritz::bench
