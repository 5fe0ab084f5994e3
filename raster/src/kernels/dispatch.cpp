// Which sprite kernel draws: the fastest this CPU runs unless the program
// chooses another by name. The library reads no environment.
#include <string>

#include "kernels/kernel.h"
#include "spritz/raster/raster.h"

namespace spritz {

namespace {

DrawPath choose_draw_path() {
  if (detail::avx512_preferred()) return DrawPath::kAvx512;
  return detail::cpu_has_avx2_fma() ? DrawPath::kAvx2 : DrawPath::kPortable;
}

}  // namespace

DrawPath default_draw_path() {
  static const DrawPath path = choose_draw_path();
  return path;
}

DrawPath draw_path_from_name(std::string_view name) {
  for (DrawPath p :
       {DrawPath::kReference, DrawPath::kPortable, DrawPath::kAvx2, DrawPath::kAvx512}) {
    if (name != draw_path_name(p)) continue;
    if (!draw_path_available(p))
      throw Error(std::string("this CPU cannot run the ") + draw_path_name(p) +
                  " sprite kernel (it lacks the instructions); its default is " +
                  draw_path_name(default_draw_path()));
    return p;
  }
  throw Error("unknown sprite kernel '" + printable(name) +
              "'; the kernels are reference, portable, avx2 and avx512");
}

bool draw_path_available(DrawPath path) {
  switch (path) {
    case DrawPath::kAvx2:
      return detail::cpu_has_avx2_fma();
    case DrawPath::kAvx512:
      return detail::cpu_has_avx512();
    default:
      return true;
  }
}

const char* draw_path_name(DrawPath path) {
  switch (path) {
    case DrawPath::kReference:
      return "reference";
    case DrawPath::kPortable:
      return "portable";
    case DrawPath::kAvx2:
      return "avx2";
    case DrawPath::kAvx512:
      return "avx512";
  }
  return "?";
}

uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end, DrawPath path) {
  if (__builtin_expect(s.ribbon != nullptr, 0))
    return draw_ribbon_segment(s, img, row_begin, row_end);
  switch (path) {
    case DrawPath::kReference:
      return draw_sprite_reference(s, img, row_begin, row_end);
    case DrawPath::kPortable:
      return detail::draw_sprite_portable(s, img, row_begin, row_end);
    case DrawPath::kAvx2:
      return detail::draw_sprite_avx2(s, img, row_begin, row_end);
    case DrawPath::kAvx512:
      return detail::draw_sprite_avx512(s, img, row_begin, row_end);
  }
  return 0;
}

uint64_t draw_sprite(const Sprite& s, Image& img, int row_begin, int row_end) {
  return draw_sprite(s, img, row_begin, row_end, default_draw_path());
}

}  // namespace spritz
