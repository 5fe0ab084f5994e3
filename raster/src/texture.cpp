#include "spritz/raster/texture.h"

#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "spritz/color.h"
#include "spritz/error.h"
#include "spritz/raster/image.h"
#include "spritz/raster/png.h"
#include "spritz/raster/pool.h"
#include "spritz/system/memory.h"

namespace spritz {
namespace {

// Calls level(w, h) for each level of a w x h cell's mip chain, the full
// size first, then halved (at least 1) down to 1x1: the chain build_cell
// makes, and what texture_memory and the texture's block are sized for.
template <typename Level>
void for_each_level(int w, int h, Level level) {
  for (;; w = std::max(1, w / 2), h = std::max(1, h / 2)) {
    level(w, h);
    if (w == 1 && h == 1) return;
  }
}

// Box-filters `src` down to (w, h); each destination texel averages the source
// texels whose block it covers, so the mean is kept.
MipLevel downsample(const MipLevel& src, int w, int h) {
  MipLevel dst;
  dst.width = w;
  dst.height = h;
  reserve_prefaulted(dst.rgba, static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
  dst.rgba.resize(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);  // each texel written below
  // Each column's source block, found once for the level rather than per
  // texel (two integer divisions a texel were a tenth of building smoke).
  std::vector<std::pair<int, int>> columns(static_cast<size_t>(w));
  for (int x = 0; x < w; ++x) {
    const int x0 = x * src.width / w;
    columns[static_cast<size_t>(x)] = {x0, std::max(x0 + 1, (x + 1) * src.width / w)};
  }
  for (int y = 0; y < h; ++y) {
    const int y0 = y * src.height / h, y1 = std::max(y0 + 1, (y + 1) * src.height / h);
    for (int x = 0; x < w; ++x) {
      const auto [x0, x1] = columns[static_cast<size_t>(x)];
      double sum[4] = {0, 0, 0, 0};
      for (int sy = y0; sy < y1; ++sy)
        for (int sx = x0; sx < x1; ++sx)
          for (int c = 0; c < 4; ++c)
            sum[c] += src.rgba[(static_cast<size_t>(sy) * static_cast<size_t>(src.width) +
                                static_cast<size_t>(sx)) *
                                   4 +
                               static_cast<size_t>(c)];
      const double inv = 1.0 / ((y1 - y0) * (x1 - x0));
      for (int c = 0; c < 4; ++c)
        dst.rgba[(static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)) * 4 +
                 static_cast<size_t>(c)] = static_cast<float>(sum[c] * inv);
    }
  }
  return dst;
}

const std::vector<unsigned char>& texture_file(const TextureBytes& files, const std::string& path) {
  const auto it = files.find(path);
  if (it == files.end())
    throw Error("texture " + path + " was not read: the program must hand its bytes in");
  return it->second;
}

// The largest side of a built-in texture, all flipbook cells together.
constexpr int kMaxBuiltinSide = 4096;

// The texture resolution (pixels per cell side) for a built-in: the largest
// on-screen size the emitter can reach, rounded up to a power of two, at
// most 256, and small enough that the whole flipbook stays within
// kMaxBuiltinSide per side (a 256x256 layout of 256 px cells would be 64 GB
// of texels; it gets 16 px cells).
int builtin_cell_px(const Emitter& em, double px_per_design_px) {
  double squash = 0;
  for (int k = 0; k < em.squash.count; ++k)
    squash = std::max(squash, std::abs(em.squash.value[k]) + std::abs(em.squash.envelope[k]));
  const double px = em.max_size_px() * (1 + squash) * px_per_design_px;
  const int cells = em.flipbook.enabled ? std::max(em.flipbook.cols, em.flipbook.rows) : 1;
  int most = 256;  // a power of two
  while (most > 1 && most * cells > kMaxBuiltinSide) most /= 2;
  int n = std::min(16, most);
  while (n < most && n < px) n *= 2;
  return n;
}

}  // namespace

TexelArena::TexelArena(size_t bytes) {
  if (bytes == 0 || bytes > std::numeric_limits<size_t>::max() - 64) return;
  // 2 MiB pages where Linux offers them, populated part by part as take()
  // hands them out; 64 bytes more, so the block can start on a cache line.
  raw_ = static_cast<char*>(allocate_block_unpopulated(bytes + 64));
  base_ = raw_ + (64 - reinterpret_cast<uintptr_t>(raw_) % 64) % 64;
  size_ = bytes;
}

TexelArena::~TexelArena() {
  if (raw_) free_written_block(raw_, size_ + 64);
}

void* TexelArena::take(size_t bytes) noexcept {
  const size_t rounded = (bytes + 63) & ~size_t{63};
  if (rounded < bytes) return nullptr;
  size_t at = used_.load(std::memory_order_relaxed);
  do {
    if (rounded > size_ - at || at > size_) return nullptr;
  } while (!used_.compare_exchange_weak(at, at + rounded, std::memory_order_relaxed));
  // Populated by the thread that will write it (a level of the cell it
  // builds), while the other threads shade theirs.
  prefault_for_write(base_ + at, rounded);
  return base_ + at;
}

void MipLevel::pad(TexelArena* arena) {
  padded = TexelVector(TexelAllocator<float>(arena));
  padded_down = TexelVector(TexelAllocator<float>(arena));
  padded_stride = (width + 2) * 4;
  const size_t stride = static_cast<size_t>(padded_stride), row = static_cast<size_t>(width) * 4;
  // The room comes from the texture's block, populated as it is taken;
  // every float of both copies is written below, once.
  padded.resize(stride * static_cast<size_t>(height + 2));
  for (int y = -1; y <= height; ++y) {
    const float* src = &rgba[static_cast<size_t>(std::clamp(y, 0, height - 1)) * row];
    float* dst = padded.data() + static_cast<size_t>(y + 1) * stride;
    std::copy_n(src, 4, dst);                      // the left edge repeated
    std::copy_n(src, row, dst + 4);                // the row
    std::copy_n(src + row - 4, 4, dst + 4 + row);  // the right edge repeated
  }
  // The padded copy holds every texel now: release the unpadded ones before
  // the steps take as much again (a 16384x16384 texture peaked 4 GB higher).
  decltype(rgba)().swap(rgba);
  padded_down.resize(padded.size());
  const size_t steps = padded.size() - stride;
  for (size_t i = 0; i < steps; ++i) padded_down[i] = padded[i + stride] - padded[i];
  std::fill(padded_down.begin() + static_cast<ptrdiff_t>(steps), padded_down.end(), 0.0f);
}

namespace {

// Checks that a width x height image divides into the layout and sets up the
// texture's cells.
Texture empty_texture(int width, int height, int cols, int rows) {
  if (width % cols != 0 || height % rows != 0) {
    throw Error("a " + std::to_string(width) + "x" + std::to_string(height) +
                " image does not divide into a " + std::to_string(cols) + "x" +
                std::to_string(rows) + " flipbook layout");
  }
  Texture tex;
  tex.cols = cols;
  tex.rows = rows;
  tex.cell_width = width / cols;
  tex.cell_height = height / rows;
  tex.cells.resize(static_cast<size_t>(cols * rows));
  return tex;
}

// Builds a cell's mip chain from its full-size level. Each level is padded,
// and its unpadded texels released, as soon as the next level has been
// averaged from them, so at most two unpadded levels live at once: a large
// texture peaks near its final size instead of well above it.
void build_cell(TextureCell& cell, MipLevel base, TexelArena* arena) {
  double sum[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < base.rgba.size(); i += 4)
    for (size_t c = 0; c < 4; ++c) sum[c] += base.rgba[i + c];
  const double n = static_cast<double>(base.width) * base.height;
  for (int c = 0; c < 4; ++c) cell.mean[c] = static_cast<float>(sum[c] / n);

  int count = 0;
  for_each_level(base.width, base.height, [&](int, int) { ++count; });
  cell.levels.clear();
  cell.levels.reserve(static_cast<size_t>(count));
  cell.levels.push_back(std::move(base));
  for (;;) {
    MipLevel& last = cell.levels.back();
    const bool more = last.width > 1 || last.height > 1;
    MipLevel next;
    if (more) next = downsample(last, std::max(1, last.width / 2), std::max(1, last.height / 2));
    // The padded copies are all that drawing reads (pad releases rgba).
    last.pad(arena);
    if (!more) break;
    cell.levels.push_back(std::move(next));
  }
}

// The bytes of one cell's padded levels (padded and padded_down of each), as
// TexelArena::take rounds them.
size_t padded_cell_bytes(int w, int h) {
  size_t bytes = 0;
  for_each_level(w, h, [&](int lw, int lh) {
    const size_t level =
        static_cast<size_t>(lw + 2) * static_cast<size_t>(lh + 2) * 4 * sizeof(float);
    bytes += 2 * ((level + 63) & ~size_t{63});
  });
  return bytes;
}

// Cuts an image into the texture's cells and builds each one's mip chain:
// `fill(base, x0, y0)` writes the cell's full-size texels (linear,
// premultiplied) from the image's pixels at (x0, y0) onward. Cells are
// built on up to `threads` threads at once (fill must allow that); each
// cell is a function of its own texels, so the texture is the same for any
// count. The first error of any cell is rethrown.
template <typename Fill>
void build_cells(Texture& tex, Fill fill, int threads) {
  const int n = tex.cols * tex.rows;
  tex.arena = std::make_shared<TexelArena>(padded_cell_bytes(tex.cell_width, tex.cell_height) *
                                           static_cast<size_t>(n));
  ThreadPool pool(std::min(threads, n));
  pool.run_in_order(n, [&](int i) {
    MipLevel base;
    base.width = tex.cell_width;
    base.height = tex.cell_height;
    reserve_prefaulted(base.rgba,
                       static_cast<size_t>(base.width) * static_cast<size_t>(base.height) * 4);
    base.rgba.resize(static_cast<size_t>(base.width) * static_cast<size_t>(base.height) * 4);
    fill(base, i % tex.cols * tex.cell_width, i / tex.cols * tex.cell_height);
    build_cell(tex.cells[static_cast<size_t>(i)], std::move(base), tex.arena.get());
  });
}

}  // namespace

Texture texture_from_linear(int width, int height, const std::vector<float>& rgba, int cols,
                            int rows) {
  Texture tex = empty_texture(width, height, cols, rows);
  build_cells(
      tex,
      [&](MipLevel& base, int x0, int y0) {
        for (int y = 0; y < base.height; ++y) {
          const float* src = &rgba[(static_cast<size_t>(y0 + y) * static_cast<size_t>(width) +
                                    static_cast<size_t>(x0)) *
                                   4];
          std::copy(src, src + base.width * 4,
                    base.rgba.begin() + static_cast<ptrdiff_t>(y) * base.width * 4);
        }
      },
      1);
  return tex;
}

Texture texture_from_cells(int cell_width, int cell_height, int cols, int rows,
                           const std::function<void(int cell, float* rgba)>& fill, int threads) {
  Texture tex = empty_texture(cell_width * cols, cell_height * rows, cols, rows);
  build_cells(
      tex,
      [&](MipLevel& base, int x0, int y0) {
        fill(y0 / cell_height * cols + x0 / cell_width, base.rgba.data());
      },
      threads);
  return tex;
}

uint64_t texture_memory(int width, int height, int cols, int rows) {
  const uint64_t cw = static_cast<uint64_t>(std::max(1, width / std::max(1, cols)));
  const uint64_t ch = static_cast<uint64_t>(std::max(1, height / std::max(1, rows)));
  constexpr uint64_t kTexel = 4 * sizeof(float);
  uint64_t cell = 0;  // padded and padded_down of every level
  for_each_level(static_cast<int>(cw), static_cast<int>(ch), [&](int w, int h) {
    cell += 2 * static_cast<uint64_t>(w + 2) * static_cast<uint64_t>(h + 2) * kTexel;
  });
  const uint64_t cells = static_cast<uint64_t>(cols) * static_cast<uint64_t>(rows);
  const uint64_t decoded = static_cast<uint64_t>(width) * static_cast<uint64_t>(height) * 4;
  const uint64_t building = cw * ch * kTexel * 5 / 4;  // a level and the next, unpadded
  return cells * cell + decoded + building;
}

namespace {

// Whole megabytes, rounded up; a tenth under 10 MB.
std::string megabytes(uint64_t bytes) {
  constexpr uint64_t kMb = uint64_t{1} << 20;
  if (bytes >= 10 * kMb) return std::to_string((bytes + kMb - 1) / kMb) + " MB";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", std::ceil(static_cast<double>(bytes) * 10 / kMb) / 10);
  return buf;
}

void check_texture_memory(uint64_t need, uint64_t already, const std::string& what, int w, int h,
                          int cols, int rows, const TextureLimits& limits) {
  if (need <= limits.memory_bytes && already <= limits.memory_bytes - need) return;
  std::string m = "texture " + what + " (" + std::to_string(w) + "x" + std::to_string(h);
  if (cols * rows > 1) m += ", " + std::to_string(cols) + "x" + std::to_string(rows) + " cells";
  m += ") would take " + megabytes(need) + " with its mip levels";
  if (already) m += ", " + megabytes(already + need) + " with the effect's other textures";
  m += ", more than the texture memory limit of " + megabytes(limits.memory_bytes);
  if (!limits.raise_hint.empty()) m += " (" + limits.raise_hint + ")";
  throw Error(m);
}

}  // namespace

Texture texture_from_encoded(const std::vector<unsigned char>& bytes, const std::string& name,
                             int cols, int rows, const TextureLimits& limits, bool srgb_values,
                             int threads) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw Error("texture " + name + " is too large");
  // The chunk structure and declared size first: stb would allocate what a
  // forged chunk claims, and refuses a huge image as "unknown image type".
  const PngLayout layout = check_png_size(bytes, "texture " + name, kMaxTextureSide);
  int w = static_cast<int>(layout.width), h = static_cast<int>(layout.height);
  if (w % cols == 0 && h % rows == 0)
    check_texture_memory(texture_memory(w, h, cols, rows), 0, name, w, h, cols, rows, limits);
  const std::vector<unsigned char> cleaned =
      layout.empty_idat ? without_empty_idat(bytes) : std::vector<unsigned char>();
  const std::vector<unsigned char>& png = layout.empty_idat ? cleaned : bytes;
  const int len = static_cast<int>(png.size());
  int comp = 0;
  if (!stbi_info_from_memory(png.data(), len, &w, &h, &comp))
    throw Error("cannot decode texture " + name + ": " + png_decode_failure(png));
  if (static_cast<uint32_t>(w) != layout.width || static_cast<uint32_t>(h) != layout.height)
    throw Error("cannot decode texture " + name + ": corrupt PNG");
  Texture tex;
  try {
    tex = empty_texture(w, h, cols, rows);
  } catch (const Error& e) {
    throw Error("texture " + name + ": " + e.what());
  }
  std::unique_ptr<unsigned char, void (*)(void*)> px(
      stbi_load_from_memory(png.data(), len, &w, &h, &comp, 4), stbi_image_free);
  if (!px) throw Error("cannot decode texture " + name + ": " + png_decode_failure(png));
  // sRGB to linear once per texel value, then premultiply, straight into
  // each cell's full-size level (no full-image float copy).
  float lut[256];
  for (int i = 0; i < 256; ++i)
    lut[i] = static_cast<float>(srgb_values ? i / 255.0 : srgb_to_linear(i / 255.0));
  build_cells(
      tex,
      [&](MipLevel& base, int x0, int y0) {
        float* out = base.rgba.data();
        for (int y = 0; y < base.height; ++y) {
          const unsigned char* in =
              px.get() +
              (static_cast<size_t>(y0 + y) * static_cast<size_t>(w) + static_cast<size_t>(x0)) * 4;
          for (int x = 0; x < base.width; ++x, in += 4, out += 4) {
            const float a = in[3] / 255.0f;
            out[0] = lut[in[0]] * a;
            out[1] = lut[in[1]] * a;
            out[2] = lut[in[2]] * a;
            out[3] = a;
          }
        }
      },
      threads);
  return tex;
}

TextureSet load_textures(const Effect& fx, double px_per_design_px, const TextureBytes& files,
                         const TextureLimits& limits, int threads) {
  TextureSet set(fx.emitters.size());
  using Key = std::tuple<std::string, int, int, int>;
  // Each enabled emitter's texture: its label, layout and built-in resolution.
  std::vector<Key> keys(fx.emitters.size());
  for (const Emitter& em : fx.emitters) {
    if (!em.enabled) continue;
    const int cols = em.flipbook.enabled ? em.flipbook.cols : 1;
    const int rows = em.flipbook.enabled ? em.flipbook.rows : 1;
    const int res = em.texture.builtin() ? builtin_cell_px(em, px_per_design_px) : 0;
    keys[em.index] = Key(em.texture.label(), cols, rows, res);
  }
  // Every distinct texture's memory, from its declared size, before any is
  // built: the effect is refused at once, not after the first ones.
  uint64_t total = 0;
  std::set<Key> counted;
  for (const Emitter& em : fx.emitters) {
    if (!em.enabled || !counted.insert(keys[em.index]).second) continue;
    const auto& [label, cols, rows, res] = keys[em.index];
    uint32_t w = static_cast<uint32_t>(res * cols), h = static_cast<uint32_t>(res * rows);
    if (!em.texture.builtin()) {
      const auto file = files.find(em.texture.path);
      if (file == files.end() || !png_declared_size(file->second, &w, &h)) continue;
      if (w == 0 || h == 0 || w > static_cast<uint32_t>(kMaxTextureSide) ||
          h > static_cast<uint32_t>(kMaxTextureSide) || w % static_cast<uint32_t>(cols) != 0 ||
          h % static_cast<uint32_t>(rows) != 0)
        continue;  // texture_from_encoded says what is wrong
    }
    const uint64_t need = texture_memory(static_cast<int>(w), static_cast<int>(h), cols, rows);
    try {
      check_texture_memory(need, total, label, static_cast<int>(w), static_cast<int>(h), cols, rows,
                           limits);
    } catch (const Error& e) {
      throw Error(em.texture_loc, e.what());
    }
    total += need;
  }
  std::map<Key, std::shared_ptr<const Texture>> cache;
  for (const Emitter& em : fx.emitters) {
    if (!em.enabled) continue;
    const Key& key = keys[em.index];
    const auto& [label, cols, rows, res] = key;
    const bool builtin = em.texture.builtin();
    auto it = cache.find(key);
    if (it == cache.end()) {
      try {
        auto tex = std::make_shared<const Texture>(
            builtin ? builtin_texture(em.texture.name, res, cols, rows, threads)
                    : texture_from_encoded(texture_file(files, em.texture.path), em.texture.path,
                                           cols, rows, limits, em.blend_srgb, threads));
        it = cache.emplace(key, std::move(tex)).first;
      } catch (const Error& e) {
        throw Error(em.texture_loc, e.what());
      } catch (const std::bad_alloc&) {
        throw Error(em.texture_loc, "not enough memory to load texture " + em.texture.label());
      }
    }
    set[em.index] = it->second;
  }
  return set;
}

}  // namespace spritz
