// Frame buffers: large blocks on 2 MiB boundaries with transparent huge
// pages requested (docs/performance.md, "A frame's memory").
#include "spritz/raster/image.h"

#include <cstdlib>
#include <new>

#include "spritz/prefault.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace spritz {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeFrom = size_t{4} << 20;  // blocks from this size get huge pages

}  // namespace

// Every block is about to be written whole (FrameAllocator's promise):
// its pages are populated in one call rather than faulted one by one.
void* allocate_frame_bytes(size_t bytes) {
  if (bytes < kHugeFrom) {
    void* p = ::operator new(bytes);
    prefault_for_write(p, bytes);
    return p;
  }
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  if (rounded < bytes) throw std::bad_alloc();
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
#endif
  prefault_for_write(p, bytes);
  return p;
}

void free_frame_bytes(void* p, size_t bytes) noexcept {
  if (bytes < kHugeFrom)
    ::operator delete(p);
  else
    std::free(p);
}

}  // namespace spritz
