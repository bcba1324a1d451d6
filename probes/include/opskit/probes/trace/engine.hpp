// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "opskit/error.hpp"
#include "opskit/probes/trace/aggregate.hpp"
#include "opskit/probes/trace/syscalls.hpp"

namespace opskit::trace {

// How calls are counted. `ptrace` stops the traced tasks at each counted call (a seccomp filter
// spares the others) and works wherever ptrace does; `ebpf` counts in the kernel, from programs
// on the syscall tracepoints, and needs BPF (root or CAP_BPF with CAP_PERFMON) and a kernel with
// BTF; `automatic` takes ebpf where it can be loaded, else ptrace.
enum class Backend { automatic, ebpf, ptrace };

// "auto", "ebpf", "ptrace".
std::string_view to_string(Backend backend) noexcept;
// The backend `word` names; nothing for any other word.
std::optional<Backend> parse_backend(std::string_view word) noexcept;

// What to trace: a command to start, or a running process to attach to.
struct TraceRequest {
  SyscallClass cls = SyscallClass::stats;
  std::vector<std::string> command; // argv; command[0] is looked up in PATH (see find_program)
  pid_t attach_pid = 0;             // when non-zero, attach to this process instead
  // Attach mode: called once every thread is attached (with their number), before any call
  // is awaited; from then on every call the process makes is seen.
  std::function<void(std::size_t threads)> on_attached;
  // Keep idle CPUs polling while tracing (a PM QoS wake-up latency request of 0 µs; needs root),
  // so that a stop does not wait for a halted CPU to wake: faster tracing, more power used.
  bool idle_poll = true;
  Backend backend = Backend::automatic;
  // `automatic` only: called, before anything runs, with why eBPF could not be used when the
  // trace falls back to ptrace.
  std::function<void(const std::string& why)> on_fallback;
};

// How the traced command (or attached process) ended.
struct TraceOutcome {
  Backend backend = Backend::ptrace; // the backend that counted
  // The status as a shell reports it: the exit code, or 128+N when signal N killed it. For an
  // attached process that outlived the trace (detach on Ctrl-C), 0.
  int exit_status = 0;
  int signal = 0;           // the signal that killed it (exit_status is 128 + it), else 0
  double wall_s = 0;        // from the start (or attach) to the end of the trace
  bool detached = false;    // attach mode: stopped by a signal to syscount, process still runs
  bool used_filter = false; // a seccomp filter limited the stops to the class's calls
  std::string warning;      // when not empty, worth telling the user (no seccomp filter: slower)

  // exit_status and signal from the process's wait status (or the kernel's exit code, which has
  // its form).
  void set_ending(int wait_status) noexcept;
};

// The process (thread group) task `pid` belongs to: itself for a process, its group's leader
// for another thread, and `pid` when it is gone.
pid_t process_of(pid_t pid);

// The executable `name` names: itself when it contains a '/', else the first executable match
// in $PATH (execvp's search). Fails with "NAME: command not found" (ENOENT) when there is none,
// or "run NAME: Permission denied" (EACCES) when the only matches are not executable.
Result<std::string> find_program(const std::string& name);

// One way of counting, loaded and ready: the ptrace backend (ptrace/) and the eBPF backend
// (bpf/) each implement it, and both fill the same Aggregator.
class TraceBackend {
public:
  virtual ~TraceBackend() = default;
  virtual Backend kind() const noexcept = 0;
  // Runs `program` (as find_program found it) with the request's argv, or attaches to the
  // request's attach_pid; see run_trace.
  virtual Result<TraceOutcome> run(const TraceRequest& request, const std::string& program,
                                   Aggregator& sink) = 0;
};

// The backend the request names, loaded, its maps sized for `limits`: for `automatic`, eBPF
// where it loads, else ptrace, after telling request.on_fallback why. Fails when `ebpf` cannot
// be loaded ("load eBPF programs: Operation not permitted").
Result<std::unique_ptr<TraceBackend>> open_backend(const TraceRequest& request,
                                                   const AggregatorLimits& limits);

// Runs (or attaches to) the request's target with the request's backend, following every child
// and thread, and feeds what it counted of the request's class to `sink`. Returns when the target
// and all its descendants have exited or, in attach mode, when SIGINT/SIGTERM/SIGHUP asks to stop
// (then every thread is detached and carries on untouched). While it runs, SIGINT, SIGTERM,
// SIGHUP and SIGQUIT sent to this process are forwarded to a started command (a terminal's
// Ctrl-C already reaches it). Fails when the command cannot be started or the process cannot
// be attached ("attach to 1234: Operation not permitted"), with the errno of the cause.
// Must be called from a single-threaded process (it forks).
Result<TraceOutcome> run_trace(const TraceRequest& request, TraceBackend& backend,
                               Aggregator& sink);
// The same with open_backend(request, sink.limits()), whose failure it returns.
Result<TraceOutcome> run_trace(const TraceRequest& request, Aggregator& sink);

} // namespace opskit::trace
