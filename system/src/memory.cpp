#include "spritz/system/memory.h"

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

size_t huge_rounded(size_t bytes) {
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  if (rounded < bytes || rounded > static_cast<size_t>(-1) - kHugePage) throw std::bad_alloc();
  return rounded;
}

// A thread's scratch region (ScratchScope): one 2 MiB block, carved in
// turn. Trivially destructible, so a thread_local buffer freed at the
// thread's exit, in whatever order, still finds it.
struct ScratchRegion {
  char* base = nullptr;
  size_t used = 0;  // bytes carved, freed or not
  size_t live = 0;  // blocks carved and not freed
  int open = 0;     // ScratchScopes open on the thread
};
thread_local ScratchRegion t_scratch;
constexpr size_t kScratchBytes = kHugePage;
constexpr size_t kScratchAlign = 64;  // a cache line

void* new_huge_mapping(size_t rounded);
void free_huge_mapping(void* p, size_t rounded) noexcept;

// A block of the thread's region, or null when it does not fit in what is
// left (or the region cannot be mapped: the caller's usual path then says
// so).
void* carve_scratch(size_t bytes) noexcept {
  ScratchRegion& r = t_scratch;
  if (bytes > kScratchBytes) return nullptr;
  const size_t need = (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
  if (r.used + need > kScratchBytes) return nullptr;
  if (!r.base) {
    try {
      r.base = static_cast<char*>(new_huge_mapping(kScratchBytes));
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
  }
  char* p = r.base + r.used;
  r.used += need;
  ++r.live;
  prefault_for_write(p, bytes);
  return p;
}

// True, and the block given back, when p lies in the thread's region; the
// region is released once none of its blocks is held.
bool free_scratch(void* p) noexcept {
  ScratchRegion& r = t_scratch;
  char* c = static_cast<char*>(p);
  if (!r.base || c < r.base || c >= r.base + kScratchBytes) return false;
  if (--r.live == 0) {
    free_huge_mapping(r.base, kScratchBytes);
    r.base = nullptr;
    r.used = 0;
  }
  return true;
}

}  // namespace

ScratchScope::ScratchScope() {
  ++t_scratch.open;
}

ScratchScope::~ScratchScope() {
  --t_scratch.open;
}

namespace {

// `rounded` bytes (a multiple of 2 MiB) on 2 MiB boundaries, marked for
// transparent huge pages, not populated.
void* new_huge_mapping(size_t rounded) {
#if defined(__linux__)
  // A mapping of its own, not the allocator's: memory the allocator reuses,
  // or writes a header or fill pattern into before the hint below, is
  // already on 4 KiB pages, and a 2 MiB range holding one such page is not
  // made huge (AddressSanitizer's allocator fills each block's first 4 KiB).
  // Mapped with one huge page to spare, then cut to a 2 MiB boundary.
  char* map = static_cast<char*>(mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (map == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t at = reinterpret_cast<uintptr_t>(map);
  char* p = map + ((kHugePage - at % kHugePage) % kHugePage);
  if (p != map) munmap(map, static_cast<size_t>(p - map));
  if (p + rounded != map + rounded + kHugePage)
    munmap(p + rounded, static_cast<size_t>(map + rounded + kHugePage - (p + rounded)));
#if defined(MADV_HUGEPAGE)
  madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without it, ordinary pages
#endif
#else
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (!p) throw std::bad_alloc();
#endif
  return p;
}

void free_huge_mapping(void* p, size_t rounded) noexcept {
#if defined(__linux__)
  munmap(p, rounded);
#else
  (void)rounded;
  std::free(p);
#endif
}

}  // namespace

void* allocate_block_unpopulated(size_t bytes) {
  return bytes < kHugeFrom ? ::operator new(bytes) : new_huge_mapping(huge_rounded(bytes));
}

void* allocate_written_block(size_t bytes) {
  if (t_scratch.open > 0)
    if (void* p = carve_scratch(bytes)) return p;
  void* p = allocate_block_unpopulated(bytes);
  prefault_for_write(p, bytes);
  return p;
}

void free_written_block(void* p, size_t bytes) noexcept {
  if (free_scratch(p)) return;
  if (bytes < kHugeFrom) {
    ::operator delete(p);
    return;
  }
  free_huge_mapping(p, (bytes + kHugePage - 1) / kHugePage * kHugePage);  // as allocated
}

}  // namespace spritz
