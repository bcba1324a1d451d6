// SPDX-License-Identifier: MIT
// The aggregation's hot path allocates nothing: once a path, errno and process have been seen,
// recording another call on them must not touch the heap. Global operator new is replaced in
// this test executable to count allocations.
#include <catch2/catch.hpp>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include <sys/syscall.h>

#include "opskit/probes/trace/aggregate.hpp"

namespace {
std::atomic<std::size_t> g_allocations{0};
} // namespace

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size))
    return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

using namespace opskit::trace;

TEST_CASE("aggregate: recording calls on known paths allocates nothing", "[probes][trace]") {
  Aggregator agg;
  agg.process_started(42, "perl");
  std::vector<std::string> paths;
  for (int i = 0; i < 1000; ++i)
    paths.push_back("/usr/share/perl5/Module" + std::to_string(i) + (i % 2 ? ".pm" : ".pmc"));
  auto feed = [&] {
    for (const auto& path : paths) {
      agg.record({42, SYS_newfstatat, -ENOENT, 1500, path});
      agg.record({42, SYS_newfstatat, 0, 900, path});
    }
    agg.record({42, SYS_newfstatat, 0, 700, ""}); // fstat-style
  };
  std::size_t start = g_allocations.load();
  feed(); // first sight: the tables grow
  std::size_t before = g_allocations.load();
  REQUIRE(before > start); // the counting works
  for (int round = 0; round < 50; ++round)
    feed();
  CHECK(g_allocations.load() == before);
  auto s = agg.summary(5);
  CHECK(s.calls == 51 * 2001);
}
