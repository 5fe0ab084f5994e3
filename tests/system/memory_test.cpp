// Blocks about to be written whole (spritz/prefault.h): populated, and from
// 1 MiB up on 2 MiB pages where Linux offers transparent huge pages.
#include "spritz/system/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../skip.h"

using namespace spritz;

namespace {

// The share of the block's 4 KiB pages that are resident.
double resident_share(const void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  std::vector<unsigned char> in((end - begin) / page);
  REQUIRE(mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) == 0);
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return static_cast<double>(n) / static_cast<double>(in.size());
}

// AnonHugePages of the mapping that holds p, in kB (/proc/self/smaps).
long huge_kb_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const uintptr_t at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return 0;
}

// Under qemu-user (scripts/test-arm64.sh), mincore and /proc/self/smaps
// describe the emulator's own mappings, and it does not pass MAP_POPULATE on:
// what these tests read is the host kernel's view, which only a native run
// has.
#ifdef SPRITZ_EMULATED
constexpr bool kNative = false;
#else
constexpr bool kNative = true;
#endif
constexpr const char* kNeedsNative =
    "the pages' residency is the host kernel's view, which qemu-user does not show";

bool transparent_huge_pages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return !mode.empty() && mode.find("[never]") == std::string::npos;
}

}  // namespace

TEST_CASE("written blocks are populated, and from 1 MiB on 2 MiB boundaries", "[prefault]") {
  SPRITZ_SKIP_UNLESS(kNative, kNeedsNative);
  for (const size_t bytes : {size_t{200} << 10, size_t{1} << 20, size_t{2621440}}) {
    INFO(bytes << " bytes");
    void* p = allocate_written_block(bytes);
    REQUIRE(p != nullptr);
    CHECK(resident_share(p, bytes) > 0.95);  // populated before anything writes it
    if (bytes >= (size_t{1} << 20)) CHECK(reinterpret_cast<uintptr_t>(p) % (size_t{2} << 20) == 0);
    std::memset(p, 0x5a, bytes);  // the whole block is the caller's
    CHECK(static_cast<unsigned char*>(p)[bytes - 1] == 0x5a);
    free_written_block(p, bytes);
  }
}

TEST_CASE("a written block of 1 MiB and up lies on huge pages where Linux offers them",
          "[prefault]") {
  SPRITZ_SKIP_UNLESS(kNative, kNeedsNative);
  SPRITZ_SKIP_UNLESS(transparent_huge_pages(), "transparent huge pages are off on this machine");
  const size_t bytes = size_t{1} << 21;
  void* p = allocate_written_block(bytes);
  CHECK(huge_kb_at(p) >= 2048);
  free_written_block(p, bytes);
}

TEST_CASE("a particle list's blocks are written blocks", "[prefault]") {
  SPRITZ_SKIP_UNLESS(kNative, kNeedsNative);
  std::vector<int, UnwrittenAllocator<int, WrittenBlocks>> v;
  v.resize(1 << 19);  // 2 MiB, left unwritten
  CHECK(reinterpret_cast<uintptr_t>(v.data()) % (size_t{2} << 20) == 0);
  CHECK(resident_share(v.data(), v.size() * sizeof(int)) > 0.95);
  v.assign(v.size(), 7);
  CHECK(v.back() == 7);
}

namespace {

bool inside(const void* p, const void* base, size_t bytes) {
  const auto* c = static_cast<const char*>(p);
  const auto* b = static_cast<const char*>(base);
  return c >= b && c < b + bytes;
}

// Whether the page holding p is mapped at all (mincore fails with ENOMEM
// on an unmapped range).
bool mapped(const void* p) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  unsigned char in = 0;
  return mincore(reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) & ~(page - 1)), page,
                 &in) == 0;
}

constexpr size_t kRegion = size_t{2} << 20;

// Runs f on a new thread, whose scratch region is empty (this thread's may
// hold the strip buffers of a render run earlier in the process). The
// caller waits, so f's checks never run beside another thread's.
template <typename F>
void on_fresh_thread(F f) {
  std::thread(f).join();
}

}  // namespace

TEST_CASE("inside a scratch scope a thread's written blocks are carved from one 2 MiB block",
          "[prefault]") {
  SPRITZ_SKIP_UNLESS(kNative, kNeedsNative);
  on_fresh_thread([] {
    // A 1080p strip's floats, then its 8-bit copy: one after the other.
    const size_t floats = 983040, bytes = 245760;
    void *a, *b;
    {
      ScratchScope scope;
      a = allocate_written_block(floats);
      b = allocate_written_block(bytes);
    }
    CHECK(reinterpret_cast<uintptr_t>(a) % kRegion == 0);
    CHECK(b == static_cast<char*>(a) + floats);
    CHECK(resident_share(a, floats) > 0.95);
    CHECK(resident_share(b, bytes) > 0.95);
    std::memset(a, 1, floats);
    std::memset(b, 2, bytes);
    CHECK(static_cast<unsigned char*>(a)[floats - 1] == 1);
    // Outside the scope, blocks are ordinary ones again.
    void* c = allocate_written_block(bytes);
    CHECK_FALSE(inside(c, a, kRegion));
    free_written_block(c, bytes);
    free_written_block(b, bytes);
    CHECK(mapped(a));  // a block of the region is still held
    free_written_block(a, floats);
    CHECK_FALSE(mapped(a));  // the last one freed releases the region
  });
}

TEST_CASE("a block the scratch region has no room left for is an ordinary written block",
          "[prefault]") {
  on_fresh_thread([] {
    ScratchScope scope;
    const size_t big = size_t{3} << 19;  // 1.5 MiB
    void* a = allocate_written_block(big);
    void* b = allocate_written_block(size_t{1} << 20);
    CHECK(reinterpret_cast<uintptr_t>(a) % kRegion == 0);
    CHECK_FALSE(inside(b, a, kRegion));
    CHECK(reinterpret_cast<uintptr_t>(b) % kRegion == 0);  // from 1 MiB: a mapping of its own
    void* c = allocate_written_block(kRegion + 1);         // larger than any region
    CHECK_FALSE(inside(c, a, kRegion));
    std::memset(c, 3, kRegion + 1);
    free_written_block(c, kRegion + 1);
    free_written_block(b, size_t{1} << 20);
    free_written_block(a, big);
    CHECK_FALSE(mapped(a));
  });
}

TEST_CASE("each thread carves from a scratch region of its own", "[prefault]") {
  on_fresh_thread([] {
    const size_t n = size_t{256} << 10;
    ScratchScope scope;
    void* mine = allocate_written_block(n);
    void* theirs = nullptr;
    bool theirs_released = false;
    std::thread t([&] {
      ScratchScope their_scope;
      theirs = allocate_written_block(n);
      std::memset(theirs, 4, n);
      free_written_block(theirs, n);
      theirs_released = !mapped(theirs);
    });
    t.join();
    CHECK_FALSE(inside(theirs, mine, kRegion));
    CHECK(theirs_released);
    CHECK(mapped(mine));  // the other thread's frees leave this region alone
    free_written_block(mine, n);
  });
}

TEST_CASE("a thread's scratch region lies on a huge page where Linux offers them", "[prefault]") {
  SPRITZ_SKIP_UNLESS(kNative, kNeedsNative);
  SPRITZ_SKIP_UNLESS(transparent_huge_pages(), "transparent huge pages are off on this machine");
  on_fresh_thread([] {
    ScratchScope scope;
    void* p = allocate_written_block(size_t{256} << 10);
    CHECK(huge_kb_at(p) >= 2048);
    free_written_block(p, size_t{256} << 10);
  });
}
