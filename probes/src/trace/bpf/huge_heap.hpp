// SPDX-License-Identifier: MIT
// A scope in which the heap's large blocks come from memory on transparent huge pages, faulted
// in at once: for libbpf's reading of a whole kernel's BTF, where it has to (kernel_btf.hpp).
//
// libbpf reads /sys/kernel/btf/vmlinux (5.5 MB here) into one malloc'd buffer, copies it into
// another and indexes its 126,000 types. On 4 KiB pages that is some 3,000 first touches and as
// many TLB entries; where page faults and TLB misses are dear (a virtual machine with shadow
// page tables: 15 µs a fault here) it was half of `syscount stats -- true` (96 ms -> 55 ms with
// this scope). Inside the scope, blocks of any size come from the main heap (the mmap threshold
// raised) and stay there when freed (the trim threshold raised), and the heap's top is grown by
// `bytes` advised MADV_HUGEPAGE and populated in one call. At its end glibc's default thresholds
// return and malloc_trim gives the memory back. All of it is advice: where huge pages are off or
// a call fails, the heap works as before.
#pragma once

#include <cstddef>

namespace opskit::trace {

class HugePageHeap {
public:
  explicit HugePageHeap(std::size_t bytes) noexcept;
  ~HugePageHeap();
  HugePageHeap(const HugePageHeap&) = delete;
  HugePageHeap& operator=(const HugePageHeap&) = delete;
};

} // namespace opskit::trace
