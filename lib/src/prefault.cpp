#include "spritz/prefault.h"

#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace spritz {

void prefault_for_write(void* p, size_t bytes) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14; older headers lack it
#endif
  constexpr size_t kFrom = size_t{64} << 10;
  if (bytes < kFrom) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  // An older kernel answers EINVAL: the pages fault on first touch instead.
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeFrom = size_t{1} << 20;  // blocks from this size get huge pages

}  // namespace

void* allocate_written_block(size_t bytes) {
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

void free_written_block(void* p, size_t bytes) noexcept {
  if (bytes < kHugeFrom)
    ::operator delete(p);
  else
    std::free(p);
}

}  // namespace spritz
