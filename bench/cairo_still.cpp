// The Cairo peer as a whole process (bench/whole-process.sh): reads an
// effect, evaluates it at a time with spritz's model (the same particles
// spritz draws), draws every particle with Cairo 1.16 as the in-process
// peer does (cairo_peer.cpp: a bilinear pattern per sprite, OVER for
// alpha-over and ADD for additive emitters, untinted, which favours Cairo)
// and writes the PNG with Cairo's own writer (libpng).
//   spritz_cairo_still EFFECT.toml TIME OUT.png
#include <cairo.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "spritz/eval.h"
#include "spritz/load.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: spritz_cairo_still EFFECT.toml TIME OUT.png\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  const spritz::Effect fx = spritz::load_effect(text.str(), argv[1], ".");
  spritz::Frame frame;
  spritz::evaluate(fx, spritz::clock_at_time(fx, std::atof(argv[2])), frame);
  // A soft disc of 64x64, (1 - r^2)^2 like builtin:soft, premultiplied white.
  const int n = 64;
  cairo_surface_t* tex = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, n, n);
  unsigned char* td = cairo_image_surface_get_data(tex);
  const int ts = cairo_image_surface_get_stride(tex);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const double u = (x + 0.5) / n * 2 - 1, v = (y + 0.5) / n * 2 - 1, r2 = u * u + v * v;
      const auto a = static_cast<uint32_t>(std::lround(255 * (r2 < 1 ? (1 - r2) * (1 - r2) : 0)));
      reinterpret_cast<uint32_t*>(td + y * ts)[x] = a << 24 | a << 16 | a << 8 | a;
    }
  cairo_surface_mark_dirty(tex);
  const int w = fx.canvas.width, h = fx.canvas.height;
  cairo_surface_t* target = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
  cairo_t* cr = cairo_create(target);
  cairo_pattern_t* pattern = cairo_pattern_create_for_surface(tex);
  cairo_pattern_set_filter(pattern, CAIRO_FILTER_BILINEAR);
  cairo_pattern_set_extend(pattern, CAIRO_EXTEND_NONE);
  for (const spritz::EmitterFrame& ef : frame.emitters) {
    const spritz::Emitter& em = fx.emitters[ef.emitter];
    cairo_set_operator(cr, em.light_emission > 0.5 ? CAIRO_OPERATOR_ADD : CAIRO_OPERATOR_OVER);
    for (const spritz::Particle& p : ef.particles) {
      cairo_matrix_t m;
      cairo_matrix_init_translate(&m, w * 0.5 + p.x, h * 0.5 - p.y);
      cairo_matrix_rotate(&m, -p.rotation_deg * 3.14159265358979323846 / 180);
      cairo_matrix_scale(&m, p.w / n, p.h / n);
      cairo_matrix_translate(&m, -n * 0.5, -n * 0.5);
      if (cairo_matrix_invert(&m) != CAIRO_STATUS_SUCCESS) continue;
      cairo_pattern_set_matrix(pattern, &m);
      cairo_set_source(cr, pattern);
      cairo_paint_with_alpha(cr, p.alpha);
    }
  }
  cairo_surface_flush(target);
  const cairo_status_t status = cairo_surface_write_to_png(target, argv[3]);
  cairo_pattern_destroy(pattern);
  cairo_destroy(cr);
  cairo_surface_destroy(target);
  cairo_surface_destroy(tex);
  if (status != CAIRO_STATUS_SUCCESS) {
    std::fprintf(stderr, "spritz_cairo_still: %s\n", cairo_status_to_string(status));
    return 1;
  }
  return 0;
}
