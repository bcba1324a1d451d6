// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

// What every tracing backend shares: the clock, the signals syscount forwards or stops on, and
// the command held before its exec so that a backend can attach before its first call.
namespace opskit::trace {

// CLOCK_MONOTONIC in nanoseconds.
std::uint64_t now_ns() noexcept;

// The task's thread group (its process) and command name from /proc/<pid>/status ({pid, "?"}
// when it is gone).
std::pair<pid_t, std::string> task_identity(pid_t pid);

// For its lifetime, SIGINT, SIGTERM, SIGHUP and SIGQUIT are caught (without SA_RESTART, so a
// blocking call returns EINTR): each is remembered, forwarded to the command set with
// forward_to() unless the kernel sent it (a terminal's Ctrl-C already reached the command; one
// that comes before forward_to() is forwarded when it is called), makes the process set with
// interrupt_on_signal() leave its ptrace wait, and makes wake_fd() readable. SIGCHLD is reset
// to its default (an inherited SIG_IGN would let the kernel reap our children behind waitpid's
// back). Everything is restored after. One at a time per process.
class SignalGuard {
public:
  SignalGuard();
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

  void forward_to(pid_t pid) noexcept;
  // The command has ended (reaped: its pid may be taken by another process): signals are no
  // longer forwarded. A signal received, before (forwarded, the command may have ended of it)
  // or since, ends the wait for the command's remaining processes.
  void command_ended() noexcept;
  void interrupt_on_signal(pid_t pid) noexcept; // 0: no longer
  // The last signal received, 0 when none.
  int stop_signal() const noexcept;
  // Readable once a signal has been received: poll it beside what a backend waits for.
  int wake_fd() const noexcept;

private:
  struct Saved;
  std::unique_ptr<Saved> saved_;
};

// How a command waits before its exec, and what becomes of it should syscount die meanwhile.
enum class Hold {
  // Stopped (SIGSTOP), for a tracer to seize; killed if syscount dies. The ptrace backend's:
  // untraced, its seccomp filter would fail the command's counted calls.
  stopped,
  // Blocked reading a pipe; goes on to exec, uncounted, if syscount dies. The eBPF backend's:
  // not waited for, since its programs count nothing of the child before its exec.
  blocked,
};

// A command forked and held just before its exec, so that a tracer can attach to it before it
// makes a single call of its program; cont() lets it go on to exec. Must be started from a
// single-threaded process. Never left held: if that process dies before cont(), the command
// is killed or goes on, as its Hold says.
class HeldCommand {
public:
  // Forks, runs `prepare` in the child (only async-signal-safe work; it returns 0 or the errno
  // of a failure, after which the child goes on) and holds the child; Hold::stopped waits until
  // it has stopped and reads `prepare`'s report. Fails when a pipe or the fork fails.
  static Result<HeldCommand> start(const std::string& program, const std::vector<std::string>& argv,
                                   Hold hold, const std::function<int()>& prepare = {});

  pid_t pid() const noexcept { return pid_; }
  // False when the child ended before it was held (its status is in stop_status()).
  bool held() const noexcept;
  int stop_status() const noexcept { return stop_status_; }
  // Hold::stopped: the errno `prepare` returned, 0 when it succeeded.
  int prepare_error() const noexcept { return prepare_error_; }
  // Lets the held child go on to its exec.
  void cont() const noexcept;
  // Kills and reaps a child that is not to run after all.
  void kill() const noexcept;
  // After the child has exited: fails with "exec PROGRAM: why" when its exec failed.
  Result<void> exec_result(const std::string& program) const;

private:
  HeldCommand(pid_t pid, Hold hold, UniqueFd report, UniqueFd release)
      : pid_(pid), hold_(hold), report_(std::move(report)), release_(std::move(release)) {}

  pid_t pid_ = -1;
  Hold hold_;
  int stop_status_ = 0;
  int prepare_error_ = 0;
  UniqueFd report_;  // the child's close-on-exec report of what failed
  UniqueFd release_; // Hold::blocked: the write end of the pipe the child waits on
};

} // namespace opskit::trace
