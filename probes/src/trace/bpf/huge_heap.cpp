// SPDX-License-Identifier: MIT
#include "huge_heap.hpp"

#include <cstdint>
#include <cstdlib>

#include <malloc.h>
#include <sys/mman.h>

namespace opskit::trace {

namespace {

constexpr std::uintptr_t k_huge_page = std::uintptr_t{2} << 20;
constexpr int k_glibc_threshold = 128 * 1024; // M_MMAP_THRESHOLD's and M_TRIM_THRESHOLD's default
constexpr int k_held = 1 << 30;               // no block is mmapped, no free trims the heap

} // namespace

HugePageHeap::HugePageHeap(std::size_t bytes) noexcept {
  ::mallopt(M_MMAP_THRESHOLD, k_held);
  ::mallopt(M_TRIM_THRESHOLD, k_held);
  auto* block = static_cast<char*>(std::malloc(bytes + k_huge_page));
  if (!block)
    return;
  auto at = reinterpret_cast<std::uintptr_t>(block);
  auto begin = (at + k_huge_page - 1) & ~(k_huge_page - 1);
  auto end = (at + bytes + k_huge_page) & ~(k_huge_page - 1);
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
  std::free(block); // merges into the heap's top, which the trim threshold keeps
}

HugePageHeap::~HugePageHeap() {
  ::mallopt(M_MMAP_THRESHOLD, k_glibc_threshold);
  ::mallopt(M_TRIM_THRESHOLD, k_glibc_threshold);
  ::malloc_trim(0);
}

} // namespace opskit::trace
