// Blocks about to be written whole (spritz/prefault.h): populated, and from
// 1 MiB up on 2 MiB pages where Linux offers transparent huge pages.
#include "spritz/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
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

bool transparent_huge_pages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return !mode.empty() && mode.find("[never]") == std::string::npos;
}

}  // namespace

TEST_CASE("written blocks are populated, and from 1 MiB on 2 MiB boundaries", "[prefault]") {
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
  SPRITZ_SKIP_UNLESS(transparent_huge_pages(), "transparent huge pages are off on this machine");
  const size_t bytes = size_t{1} << 21;
  void* p = allocate_written_block(bytes);
  CHECK(huge_kb_at(p) >= 2048);
  free_written_block(p, bytes);
}

TEST_CASE("a particle list's blocks are written blocks", "[prefault]") {
  std::vector<int, UnwrittenAllocator<int, WrittenBlocks>> v;
  v.resize(1 << 19);  // 2 MiB, left unwritten
  CHECK(reinterpret_cast<uintptr_t>(v.data()) % (size_t{2} << 20) == 0);
  CHECK(resident_share(v.data(), v.size() * sizeof(int)) > 0.95);
  v.assign(v.size(), 7);
  CHECK(v.back() == 7);
}
