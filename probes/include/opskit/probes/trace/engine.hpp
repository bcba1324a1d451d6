// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "opskit/error.hpp"
#include "opskit/probes/trace/aggregate.hpp"
#include "opskit/probes/trace/syscalls.hpp"

namespace opskit::trace {

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
};

// How the traced command (or attached process) ended.
struct TraceOutcome {
  // The status as a shell reports it: the exit code, or 128+N when signal N killed it. For an
  // attached process that outlived the trace (detach on Ctrl-C), 0.
  int exit_status = 0;
  double wall_s = 0;        // from the start (or attach) to the end of the trace
  bool detached = false;    // attach mode: stopped by a signal to syscount, process still runs
  bool used_filter = false; // a seccomp filter limited the stops to the class's calls
  std::string warning;      // when not empty, worth telling the user (no seccomp filter: slower)
};

// The executable `name` names: itself when it contains a '/', else the first executable match
// in $PATH (execvp's search). Fails with "NAME: command not found" (ENOENT) when there is none,
// or "run NAME: Permission denied" (EACCES) when the only matches are not executable.
Result<std::string> find_program(const std::string& name);

// Runs (or attaches to) the request's target under ptrace, following every child and thread,
// and feeds each finished call of the request's class to `sink`. Returns when the target and
// all its descendants have exited or, in attach mode, when SIGINT/SIGTERM/SIGHUP asks to stop
// (then every thread is detached and carries on untouched). While it runs, SIGINT, SIGTERM,
// SIGHUP and SIGQUIT sent to this process are forwarded to a started command (a terminal's
// Ctrl-C already reaches it). Fails when the command cannot be started or the process cannot
// be attached ("attach to 1234: Operation not permitted"), with the errno of the cause.
// Must be called from a single-threaded process (it forks).
Result<TraceOutcome> run_trace(const TraceRequest& request, Aggregator& sink);

} // namespace opskit::trace
