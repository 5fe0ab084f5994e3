// Textures: decoded once, converted from sRGB to linear light and
// premultiplied, cut into flipbook cells, each cell with its own mip chain so
// sampling never bleeds into a neighbouring cell. Shared read-only by every
// frame and thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "spritz/effect.h"
#include "spritz/system/memory.h"

namespace spritz {

// One block that holds every padded level of a texture (texture.cpp sizes it
// from the cells' dimensions). Writing fresh memory costs a fault per 4 KiB
// page, and on a virtual machine more: one block on 2 MiB pages takes a
// big flipbook's mip levels many times faster than small pages would (the
// figures: docs/performance.md, "Start-up and fresh memory"). Levels take their room
// from it from any thread, each part populated by the thread that takes it
// (so one cell's faults overlap another's shading); a level that does not
// fit, or a copy of a texture, uses the heap.
class TexelArena {
 public:
  explicit TexelArena(size_t bytes);
  ~TexelArena();
  TexelArena(const TexelArena&) = delete;
  TexelArena& operator=(const TexelArena&) = delete;
  // `bytes` of the block, 64-byte aligned; nullptr when it is full.
  void* take(size_t bytes) noexcept;
  bool owns(const void* p) const noexcept {
    return static_cast<const char*>(p) >= base_ && static_cast<const char*>(p) < base_ + size_;
  }

 private:
  char* raw_ = nullptr;   // as allocated
  char* base_ = nullptr;  // raw_ rounded up to 64 bytes
  size_t size_ = 0;
  std::atomic<size_t> used_{0};
};

// A vector allocator that takes from a TexelArena when it has one (and
// room), from the heap otherwise; freeing arena memory is left to the arena.
template <typename T>
struct TexelAllocator {
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  TexelArena* arena = nullptr;
  TexelAllocator() = default;
  explicit TexelAllocator(TexelArena* a) noexcept : arena(a) {}
  template <typename U>
  TexelAllocator(const TexelAllocator<U>& other) noexcept : arena(other.arena) {}
  T* allocate(size_t n) {
    if (arena)
      if (void* p = arena->take(n * sizeof(T))) return static_cast<T*>(p);
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, size_t) noexcept {
    if (!(arena && arena->owns(p))) ::operator delete(p);
  }
  // resize() leaves the elements it adds unwritten: MipLevel::pad writes
  // every one, and zeroing them first cost a tenth of building smoke's
  // flipbook. assign() and copies still write what they are given.
  template <typename U>
  void construct(U*) noexcept {}
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  // A copy lives on the heap: it must not depend on the original's block.
  TexelAllocator select_on_container_copy_construction() const { return {}; }
  friend bool operator==(const TexelAllocator& a, const TexelAllocator& b) {
    return a.arena == b.arena;
  }
  friend bool operator!=(const TexelAllocator& a, const TexelAllocator& b) { return !(a == b); }
};
using TexelVector = std::vector<float, TexelAllocator<float>>;

struct MipLevel {
  int width = 0, height = 0;
  // Linear, premultiplied, width x height: used while the mip chain is
  // built, then released (the padded copy below holds the same texels).
  // resize() leaves it unwritten: whoever sizes it writes every texel
  // (the decoder, a cell's fill, downsample).
  std::vector<float, UnwrittenAllocator<float>> rgba;
  // The same texels with a one-texel border that repeats the edge, so a
  // bilinear tap needs no clamping: (width + 2) x (height + 2), row stride
  // padded_stride floats. Filled by pad(), which then releases rgba.
  TexelVector padded;
  // padded_down[i] = padded[i + padded_stride] - padded[i]: the step to the
  // texel below, computed once in float. The AVX2, AVX-512 and portable kernels load
  // it instead of the lower row and save a subtraction per tap pair; the
  // difference is the same float the reference computes, so the bytes do
  // not change. The last padded row has no row below and holds zeros.
  TexelVector padded_down;
  int padded_stride = 0;
  // Texel (x, y) for x in [-1, width], y in [-1, height] (edge-clamped).
  const float* padded_at(int x, int y) const {
    return padded.data() + static_cast<ptrdiff_t>(y + 1) * padded_stride + (x + 1) * 4;
  }
  // Texel (x, y), x in [0, width), y in [0, height): four floats.
  const float* texel(int x, int y) const { return padded_at(x, y); }
  const float* padded_down_at(int x, int y) const {
    return padded_down.data() + static_cast<ptrdiff_t>(y + 1) * padded_stride + (x + 1) * 4;
  }
  // Fills padded and padded_down from rgba (taking their room from `arena`
  // when given), then releases rgba.
  void pad(TexelArena* arena = nullptr);
};

struct TextureCell {
  std::vector<MipLevel> levels;  // levels[0] is full size, the last is 1x1
  float mean[4] = {0, 0, 0, 0};  // average texel (the 1x1 level)
};

struct Texture {
  // Where the cells' padded levels live; declared first, so it goes last.
  std::shared_ptr<TexelArena> arena;
  int cols = 1, rows = 1;
  int cell_width = 0, cell_height = 0;
  std::vector<TextureCell> cells;  // cols * rows, left to right, top to bottom

  const TextureCell& cell(int one_based) const { return cells[static_cast<size_t>(one_based - 1)]; }
};

inline constexpr int kMaxTextureSide = 16384;

// Cuts a linear premultiplied image into cols x rows cells and builds mips.
// Throws spritz::Error when the image does not divide into the layout.
Texture texture_from_linear(int width, int height, const std::vector<float>& rgba, int cols,
                            int rows);

// The same from each cell's texels written in place: fill(cell, rgba) writes
// every texel of cell `cell` (0-based, left to right, top to bottom), all
// cell_width x cell_height of them, linear premultiplied (the room is not
// cleared first), with no whole image in between.
// Cells are built on up to `threads` threads (fill must allow that); the
// texture is the same for any count.
Texture texture_from_cells(int cell_width, int cell_height, int cols, int rows,
                           const std::function<void(int cell, float* rgba)>& fill, int threads = 1);

// The memory a width x height texture cut into cols x rows cells takes at its
// peak, in bytes: every cell's mip levels (two padded float copies of each),
// the decoder's 8-bit image and a cell's unpadded levels while it is built.
// Computed from the sizes alone, so a texture can be refused before it is
// decoded.
uint64_t texture_memory(int width, int height, int cols, int rows);

// What textures may take, all of an effect's together: by default 2 GiB,
// which holds a 4096x4096 sheet (about 1.2 GB) and refuses a 16384x16384 one
// (18 GB) at once instead of after minutes of paging.
struct TextureLimits {
  uint64_t memory_bytes = uint64_t{2048} << 20;
  // Appended to the refusal: how the user raises the limit.
  std::string raise_hint;
};

// Decodes PNG bytes with sRGB colour and straight alpha. Throws spritz::Error
// naming `name` when they do not decode (check_png first, so stb never sees
// a forged chunk), are larger than kMaxTextureSide per side, or would take
// more than limits.memory_bytes (texture_memory).
// `srgb_values`: keep the texels' stored sRGB values instead of converting
// them to linear light (canvas.blend = "srgb").
// `threads`: the cells' mip chains are built on up to that many threads.
Texture texture_from_encoded(const std::vector<unsigned char>& bytes, const std::string& name,
                             int cols, int rows, const TextureLimits& limits = {},
                             bool srgb_values = false, int threads = 1);

// "builtin:disc", "builtin:soft", "builtin:spark", "builtin:ring",
// "builtin:star", "builtin:solid" and the animated flipbooks "builtin:smoke"
// and "builtin:sparkle", generated at `cell_px` per cell. An animated built-in
// fills every cell of the layout with successive frames; a still one repeats.
Texture builtin_texture(std::string_view name, int cell_px, int cols, int rows, int threads = 1);
const std::vector<std::string_view>& builtin_texture_names();

// The encoded bytes of an effect's texture files, by TextureRef::path. The
// raster library reads no files: the program reads each once (spritz's CLI,
// cli/effect_files.h, with its size cap) and hands the bytes in.
using TextureBytes = std::map<std::string, std::vector<unsigned char>>;

// One texture per emitter (index = Emitter::index), decoded or generated
// once. Built-ins are generated at a resolution fitted to the largest size
// the emitter can reach at `px_per_design_px`; a file texture is decoded from
// `files`, and one missing there is an error. Errors name the emitter's
// texture key (file:line:col) and the path. The textures together are held
// to `limits` before any is decoded or generated.
using TextureSet = std::vector<std::shared_ptr<const Texture>>;
// `threads`: each texture's cells are generated or cut and mipped on up
// to that many threads at once (the same textures for any count).
TextureSet load_textures(const Effect& fx, double px_per_design_px, const TextureBytes& files = {},
                         const TextureLimits& limits = {}, int threads = 1);

}  // namespace spritz
