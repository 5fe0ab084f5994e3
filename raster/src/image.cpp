// Frame buffers: large blocks on 2 MiB boundaries with transparent huge
// pages requested (docs/performance.md, "A frame's memory").
#include "spritz/raster/image.h"

#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace spritz {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeFrom = size_t{4} << 20;  // blocks from this size get huge pages

}  // namespace

void* allocate_frame_bytes(size_t bytes) {
  if (bytes < kHugeFrom) return ::operator new(bytes);
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  if (rounded < bytes) throw std::bad_alloc();
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
#endif
  return p;
}

void free_frame_bytes(void* p, size_t bytes) noexcept {
  if (bytes < kHugeFrom)
    ::operator delete(p);
  else
    std::free(p);
}

}  // namespace spritz
