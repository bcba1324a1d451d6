// SPDX-License-Identifier: MIT
#pragma once

// kstat serve's own cost and version, under the names a Prometheus client library gives its
// process's (process_cpu_seconds_total, process_resident_memory_bytes, ...; every exporter
// serves them, and fleet dashboards watch an exporter's overhead by them), and
// kstat_build_info, as node_exporter serves node_exporter_build_info.

#include <array>
#include <string>

#include "opskit/handle.hpp"
#include "opskit/prometheus.hpp"

namespace opskit::cmd::kstat {

class ProcessMetrics {
public:
  // Opens /proc/self/statm and /proc/self/fd, which each scrape reads again, and reads the
  // process's start time and descriptor limit once. Of the real /proc, whatever --proc-root
  // names.
  ProcessMetrics();

  // Appends the families: CPU time from getrusage(2), open descriptors from the descriptor
  // directory's size (or its listing, before Linux 6.2), memory from one pread of statm (three
  // system calls, 4 µs on this project's VM). A figure that cannot be had is left out. Not
  // thread-safe (the scraper's lock serializes scrapes).
  void append(std::string& out, TextFormat format) const;

private:
  UniqueFd statm_;
  UniqueFd fds_;
  double start_time_ = 0; // seconds since the epoch; 0: unknown
  double max_fds_ = 0;    // the soft limit at start, which kstat serve raises first; 0: unknown
  std::array<std::string, 2> build_info_; // kstat_build_info, family and sample, by format
};

} // namespace opskit::cmd::kstat
