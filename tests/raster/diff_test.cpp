#include "spritz/raster/diff.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace spritz;

namespace {
std::vector<uint8_t> flat(int w, int h, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
  std::vector<uint8_t> v;
  for (int i = 0; i < w * h; ++i) v.insert(v.end(), {r, g, b, a});
  return v;
}
}  // namespace

TEST_CASE("identical images have no difference", "[diff]") {
  const auto a = flat(8, 8, 10, 200, 30, 255);
  const DiffResult r = diff_images(a.data(), a.data(), 8, 8, {});
  CHECK(r.different == 0);
  CHECK(r.max_channel_diff == 0);
  CHECK(std::isinf(r.psnr_db));
}

TEST_CASE("one changed pixel is found and located", "[diff]") {
  const auto a = flat(16, 9, 0, 0, 0, 255);
  auto b = a;
  uint8_t* p = &b[(5 * 16 + 11) * 4];
  p[0] = 255;
  DiffOptions o;
  o.want_image = true;
  const DiffResult r = diff_images(a.data(), b.data(), 16, 9, o);
  CHECK(r.different == 1);
  CHECK(r.worst_x == 11);
  CHECK(r.worst_y == 5);
  CHECK(r.max_channel_diff == 255);
  CHECK(r.ratio() == Approx(1.0 / 144));
  CHECK(r.image[(5 * 16 + 11) * 4 + 0] == 255);
  CHECK(r.image[(5 * 16 + 11) * 4 + 1] == 0);
  CHECK(r.image[0] == r.image[1]);  // grey elsewhere
}

TEST_CASE("the threshold behaves at its edge", "[diff]") {
  // A grey step of d levels: its YIQ delta is 0.5053 d^2 (Y only), so the
  // pixel differs exactly when d^2 * 0.5053 > 35215 t^2.
  const auto a = flat(1, 1, 100, 100, 100, 255);
  for (int d : {1, 5, 20, 26, 27, 40}) {
    const auto b = flat(1, 1, static_cast<uint8_t>(100 + d), static_cast<uint8_t>(100 + d),
                        static_cast<uint8_t>(100 + d), 255);
    DiffOptions o;
    o.threshold = 0.1;
    const double delta = 0.5053 * d * d * std::pow(0.29889531 + 0.58662247 + 0.11448223, 2);
    const bool expect = delta > 35215 * 0.01;
    INFO("step " << d);
    CHECK((diff_images(a.data(), b.data(), 1, 1, o).different == 1) == expect);
  }
  const auto b = flat(1, 1, 101, 100, 100, 255);
  DiffOptions zero;
  zero.threshold = 0;
  CHECK(diff_images(a.data(), b.data(), 1, 1, zero).different == 1);
}

TEST_CASE("invisible colour does not count, visible alpha does", "[diff]") {
  const auto a = flat(1, 1, 255, 0, 0, 0);
  const auto b = flat(1, 1, 0, 0, 255, 0);
  CHECK(diff_images(a.data(), b.data(), 1, 1, {}).different == 0);
  const auto c = flat(1, 1, 0, 0, 0, 255);
  const auto d = flat(1, 1, 0, 0, 0, 0);
  CHECK(diff_images(c.data(), d.data(), 1, 1, {}).different == 1);
}

TEST_CASE("anti-aliasing detection ignores a shifted edge", "[diff]") {
  // A vertical black/white edge whose middle column is grey in one image.
  const int w = 9, h = 9;
  std::vector<uint8_t> a, b;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t va = x < 4 ? 0 : 255;
      const uint8_t vb = x < 4 ? 0 : x == 4 ? 128 : 255;
      a.insert(a.end(), {va, va, va, 255});
      b.insert(b.end(), {vb, vb, vb, 255});
    }
  DiffOptions o;
  CHECK(diff_images(a.data(), b.data(), w, h, o).different == 9);
  o.detect_antialiasing = true;
  const DiffResult r = diff_images(a.data(), b.data(), w, h, o);
  CHECK(r.different == 0);
  CHECK(r.antialiased == 9);
}
