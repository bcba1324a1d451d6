// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "opskit/probes/trace/abi.hpp"
#include "opskit/probes/trace/string_table.hpp"

namespace opskit::trace {

// One finished system call, as the tracing engine reports it.
struct SyscallEvent {
  pid_t pid = 0;           // the process (thread group id) that made the call
  int nr = -1;             // syscall number in the table of `abi`
  std::int64_t result = 0; // return value; -4095..-1 is a failure with that -errno
  std::uint64_t duration_ns = 0;
  std::string_view path; // the path the call looked up; empty for calls on an fd
  Abi abi = Abi::native; // the ABI the call was made through
};

// True when `result` is a failed call's -errno.
constexpr bool is_error(std::int64_t result) noexcept {
  return result < 0 && result >= -4095;
}

struct ErrnoCount {
  int err = 0;
  std::uint64_t count = 0;
};

// One call of one ABI: i386's statx and x86_64's statx are two entries.
struct SyscallSummary {
  std::string name; // in the ABI's table: "newfstatat", "stat64"
  int nr = -1;
  Abi abi = Abi::native;
  std::uint64_t calls = 0, errors = 0;
  std::vector<ErrnoCount> errnos; // most frequent first
  double time_s = 0;
};

struct PathSummary {
  std::string path; // for a folded entry: the directory followed by "/*"
  std::uint64_t calls = 0, errors = 0;
  std::vector<ErrnoCount> errnos;
  bool folded = false;
};

struct NameCount {
  std::string name;
  std::uint64_t count = 0;
};

struct ProcessSummary {
  pid_t pid = 0;
  std::string comm;
  std::uint64_t calls = 0, errors = 0;
};

// Everything counted, sorted for reading: syscalls, paths, directories and suffixes by count
// (descending, then by name, then native ABI first); processes in the order they started.
struct TraceSummary {
  std::vector<SyscallSummary> syscalls;
  std::vector<ErrnoCount> results;        // failures by errno over all calls
  std::vector<PathSummary> paths;         // exact paths, then folded directories, by calls
  std::vector<NameCount> failed_dirs;     // directory -> failed lookups under it
  std::vector<NameCount> failed_suffixes; // ".pmc" -> failed lookups of names ending so
  std::vector<ProcessSummary> processes;
  std::uint64_t calls = 0, errors = 0;
  std::uint64_t path_lookups = 0;   // calls that named a path
  std::uint64_t folded_lookups = 0; // of those, lookups folded into their directory
  double time_s = 0;
};

struct AggregatorLimits {
  std::size_t max_paths = 100'000;     // distinct paths kept exactly; directories: as many, >= 1024
  std::size_t max_processes = 100'000; // later processes are counted under pid 0, "(others)"
};

// Counts syscall events. Pure: no I/O, no clocks; fed by the engine (or by tests). Memory is
// bounded by the limits: a path seen after `max_paths` distinct ones is folded into its
// directory's entry, and the summary says how many lookups were folded. Recording a call on a
// path already seen allocates nothing.
class Aggregator {
public:
  explicit Aggregator(AggregatorLimits limits = {}) : limits_(limits) {}

  // A new process (not a thread) appeared. A pid seen before starts a new entry (pid reuse).
  void process_started(pid_t pid, std::string_view comm);
  // A process executed a new program and is now called `comm`.
  void process_renamed(pid_t pid, std::string_view comm);
  // One finished call. An event for a pid never started is counted under a new entry for it.
  void record(const SyscallEvent& event);

  // Counts made elsewhere (in the kernel), added in bulk; together they count what as many
  // record() calls would. `calls` calls of `nr` in `abi` that ended with errno `err` (0: success)
  // and took `time_ns` in all:
  void add_calls(Abi abi, int nr, int err, std::uint64_t calls, std::uint64_t time_ns);
  // `count` lookups of `path` that ended with `err`:
  void add_lookups(std::string_view path, int err, std::uint64_t count);
  // `count` lookups of paths in `dir` that were folded into it before they got here:
  void add_folded_lookups(std::string_view dir, int err, std::uint64_t count);
  // `calls` calls, `errors` of them failed, of process `pid`:
  void add_process_calls(pid_t pid, std::uint64_t calls, std::uint64_t errors);

  const AggregatorLimits& limits() const noexcept { return limits_; }

  // The counts so far, sorted as TraceSummary describes, each list of paths, directories and
  // suffixes cut to its first `max_listed` entries.
  TraceSummary summary(std::size_t max_listed = static_cast<std::size_t>(-1)) const;

private:
  struct SyscallCounts {
    std::uint64_t calls = 0, errors = 0, time_ns = 0;
    std::vector<std::pair<int, std::uint64_t>> errnos; // in order of first sight
  };
  struct PathCounts {
    std::uint64_t calls = 0, errors = 0;
    std::uint32_t index = 0;     // position in its table, for extra_errnos_
    std::uint16_t first_err = 0; // errno of the first failure; others in extra_errnos_
  };
  struct ProcessCounts {
    pid_t pid = 0;
    std::string comm;
    std::uint64_t calls = 0, errors = 0;
  };

  ProcessCounts& process(pid_t pid);
  // Fills the summary's syscalls, results and totals.
  void add_syscalls(TraceSummary& out) const;
  // How many directories the folded and failed-directory tables keep.
  std::size_t max_dirs() const noexcept { return std::max<std::size_t>(limits_.max_paths, 1024); }
  void count_path(StringTable<PathCounts>& table, std::uint32_t table_id, PathCounts& counts,
                  int err, std::uint64_t count);
  // Counts a folded lookup under `dir` (or "/" when the directories are too many).
  void count_folded(std::string_view dir, int err, std::uint64_t count);
  void count_failure(std::string_view path, std::uint64_t count);

  AggregatorLimits limits_;
  std::array<std::vector<SyscallCounts>, k_abi_count> syscalls_; // per ABI, by syscall number
  StringTable<PathCounts> paths_;
  StringTable<PathCounts> folded_; // directory -> lookups of paths beyond max_paths
  StringTable<std::uint64_t> failed_dirs_;
  StringTable<std::uint64_t> failed_suffixes_;
  // Failures of a path with an errno other than its first: (table id, index, errno) -> count.
  std::unordered_map<std::uint64_t, std::uint64_t> extra_errnos_;
  std::vector<ProcessCounts> processes_;
  std::unordered_map<pid_t, std::size_t> live_; // pid -> its current entry in processes_
  std::uint64_t path_lookups_ = 0, folded_lookups_ = 0;
};

// The directory part of `path` as the failed-directory report shows it: "/a/b/c" -> "/a/b",
// "/c" -> "/", "c" -> ".".
std::string_view directory_of(std::string_view path) noexcept;

// The suffix of the last component of `path`, dot included, when it has one of 1 to 8
// characters after a dot that does not start the name: "/x/Foo.pmc" -> ".pmc", ".bashrc" -> "".
std::string_view suffix_of(std::string_view path) noexcept;

} // namespace opskit::trace
