// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "opskit/probes/trace/aggregate.hpp"
#include "opskit/probes/trace/engine.hpp"
#include "opskit/probes/trace/syscalls.hpp"

namespace opskit::cmd::syscount {

// What the report says about the run itself, beside the counts.
struct RunInfo {
  std::vector<std::string> command; // argv of the traced command (for -p: its /proc cmdline)
  pid_t attached_pid = 0;           // -p
  bool detached = false;            // -p ended by a signal; the process still runs
  int exit_status = 0;
  int signal = 0; // the signal that killed it, else 0
  trace::SyscallClass cls = trace::SyscallClass::stats;
  trace::Backend backend = trace::Backend::ptrace; // the one that counted
  double wall_s = 0;
  std::size_t max_paths = 0;
};

// How the text report is laid out.
struct TextLayout {
  bool per_process = false; // add a table of processes
  std::size_t top = 0;      // list at most this many processes (0: all); the other lists come
                            // cut from the aggregator
  std::size_t width = 0;    // each line at most this many columns (0: no limit)
};

// The report as tables for a reader.
std::string render_text(const RunInfo& run, const trace::TraceSummary& summary,
                        const TextLayout& layout);

// The report as one JSON object with the schema documented in syscount(1), newline-terminated.
std::string render_json(const RunInfo& run, const trace::TraceSummary& summary, std::size_t top);

} // namespace opskit::cmd::syscount
