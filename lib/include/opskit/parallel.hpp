// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace opskit {

// Calls each(i) for every i in [0, count) on up to `threads` threads, the caller's among them;
// a thread takes the next index when it is done with its last, so long and short calls even
// out. Returns when every call has returned.
template <typename Each>
void parallel_for(std::size_t count, unsigned threads, Each&& each) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < count;)
      each(i);
  };
  std::vector<std::jthread> workers;
  for (std::size_t t = 1; t < std::min<std::size_t>(threads, count); ++t)
    workers.emplace_back(work);
  work();
}

} // namespace opskit
