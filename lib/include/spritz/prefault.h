// Taking a new block's page faults in one call. The first write to each
// 4 KiB page of fresh memory traps into the kernel; on a virtual machine
// each trap also exits to the hypervisor, about 10 us on the project's
// machine, so writing a fresh 2.6 MB PNG cost 7 ms of faults alone
// (docs/performance.md, "Start-up and fresh memory"). A block that is about to be
// written whole is populated by the kernel in one call instead
// (MADV_POPULATE_WRITE, Linux 5.14 on; elsewhere nothing happens and the
// pages fault as before). Pages already there are left as they are.
#pragma once

#include <cstddef>
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

}  // namespace spritz
