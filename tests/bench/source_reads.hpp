// SPDX-License-Identifier: MIT
#pragma once

// The baseline of kstat's scrape ratios, shared by kstat_bench (in process) and
// kstat_serve_floor (in a server): one pread at offset 0 of each file a snapshot reads. A
// /proc/sys value is asked for with kstat's 256 bytes (for it the kernel allocates and zeroes as
// much as is asked), any other file with room for all of it.

#include <cstddef>
#include <cstdio>
#include <span>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "opskit/handle.hpp"
#include "opskit/probes/counters.hpp"

namespace opskit::bench {

inline constexpr std::size_t k_read_room = 65536;

struct SourceFile {
  UniqueFd fd;
  std::size_t size; // what a read asks for
};

inline std::vector<SourceFile> open_sources(const counters::Snapshot& snapshot) {
  std::vector<SourceFile> files;
  for (const auto& path : snapshot.source_paths())
    files.push_back({UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)),
                     path.starts_with("/proc/sys/") ? std::size_t{256} : k_read_room});
  return files;
}

// One pread of each file into `buffer` (k_read_room bytes at least); the bytes read, in all.
inline std::size_t read_sources(const std::vector<SourceFile>& files, std::span<char> buffer) {
  std::size_t total = 0;
  for (const auto& file : files) {
    ssize_t n = ::pread(file.fd.get(), buffer.data(), file.size, 0);
    if (n < 0)
      std::perror("pread");
    else
      total += static_cast<std::size_t>(n);
  }
  return total;
}

} // namespace opskit::bench
