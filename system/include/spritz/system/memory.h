// spritz's memory below both libraries (the model and the raster): blocks
// about to be written whole, with their page faults taken in one call. The
// first write to each page of fresh memory traps into the kernel, and on a
// virtual machine into the hypervisor too, which made page faults a large
// share of writing a fresh frame (the figures: docs/performance.md,
// "Start-up and fresh memory"). A block that is about to be written whole
// is populated by the kernel in one call instead (MADV_POPULATE_WRITE,
// Linux 5.14 on; elsewhere nothing happens and the pages fault as before).
// Pages already there are left as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace spritz {

// Populates the whole pages inside [p, p + bytes) for writing, when the
// block is large enough for that to pay (64 KiB). Never fails: the pages
// then fault on first touch as usual.
void prefault_for_write(void* p, size_t bytes);

// v.reserve(n), the new room populated for writing.
template <typename T, typename A>
void reserve_prefaulted(std::vector<T, A>& v, size_t n) {
  if (v.capacity() >= n) return;
  v.reserve(n);
  prefault_for_write(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(T));
}

// Blocks from operator new (UnwrittenAllocator's default).
struct HeapBlocks {
  static void* allocate(size_t bytes) { return ::operator new(bytes); }
  static void deallocate(void* p, size_t) noexcept { ::operator delete(p); }
};

// A block about to be written whole, populated for writing. From 1 MiB up
// it is a mapping of its own, aligned to 2 MiB, rounded up to whole 2 MiB
// pages and marked for transparent huge pages (Linux's default `madvise`
// mode): a host that backs pages one at a time backs a 2 MiB page about ten
// times faster than its 512 small ones, even populated (docs/performance.md);
// a 1080p frame takes 16 page faults instead of 8,100. Smaller blocks come
// from operator new. Never returns null (throws std::bad_alloc); free with
// free_written_block and the same size. Frame buffers, sprite slots,
// texture levels and particle lists take their blocks here.
void* allocate_written_block(size_t bytes);
void free_written_block(void* p, size_t bytes) noexcept;

// The same block, not populated (and never a ScratchScope's): for a block
// handed out in parts that several threads write, each part populated by
// the thread that takes it (prefault_for_write), so one thread's faults
// overlap another's work instead of coming first on one thread (a
// texture's levels are). Free with free_written_block and the same size.
void* allocate_block_unpopulated(size_t bytes);

struct WrittenBlocks {
  static void* allocate(size_t bytes) { return allocate_written_block(bytes); }
  static void deallocate(void* p, size_t bytes) noexcept { free_written_block(p, bytes); }
};

// While one is open on a thread, the written blocks allocated on it are
// carved in turn from the thread's scratch region, one 2 MiB block on a
// huge page, as long as they fit in what is left (the others are ordinary
// written blocks). For the buffers a thread keeps for the strips it
// draws: the strip's floats, their 8-bit copy, the PNG filter's rows and
// the compressed piece (1.6 MB at 1920 px wide), which on small pages made
// each thread's first strip much slower than the others
// (docs/performance.md). Such a block
// must be freed on the thread that allocated it (a thread_local buffer
// is); the region is released when none of its blocks is held. Scopes
// nest.
class ScratchScope {
 public:
  ScratchScope();
  ~ScratchScope();
  ScratchScope(const ScratchScope&) = delete;
  ScratchScope& operator=(const ScratchScope&) = delete;
};

// An allocator for elements that are always written whole before they are
// read: resize() leaves the elements it adds unwritten. Writing them there
// (value-initialising, or a default constructor's member initialisers)
// would touch every new page on the thread that resizes, and on fresh
// memory that first touch is the slow part (docs/performance.md, "Start-up
// and fresh memory"); left unwritten, the threads that fill the block touch
// their own parts in parallel. For implicit-lifetime types only (plain
// numbers, aggregates of them): their storage holds an element once it is
// written. `Blocks` supplies the memory (static allocate(bytes),
// deallocate(p, bytes)).
template <typename T, typename Blocks = HeapBlocks>
struct UnwrittenAllocator {
  using value_type = T;
  UnwrittenAllocator() = default;
  template <typename U>
  UnwrittenAllocator(const UnwrittenAllocator<U, Blocks>&) noexcept {}
  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(Blocks::allocate(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) noexcept { Blocks::deallocate(p, n * sizeof(T)); }
  template <typename U>
  void construct(U*) noexcept {}  // value-initialisation left out
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  friend bool operator==(const UnwrittenAllocator&, const UnwrittenAllocator&) { return true; }
  friend bool operator!=(const UnwrittenAllocator&, const UnwrittenAllocator&) { return false; }
};

// Bytes about to be written whole, in written blocks (a thread's scratch
// buffers, sized inside a ScratchScope).
using WrittenBytes = std::vector<uint8_t, UnwrittenAllocator<uint8_t, WrittenBlocks>>;

}  // namespace spritz
