// SPDX-License-Identifier: MIT
// The command held before its exec, and the signals, as both backends use them.
//
// Start-up order. A tracer must be in place before the command's first call, yet the ptrace
// backend's seccomp filter must be installed by the child itself, before its exec. So the child
// does its own preparation, holds and execs only when the parent, having attached, lets it go.
// What fails in the child (the preparation, which it survives, or the exec, which ends it with
// 127 or 126 as a shell would) is written to a close-on-exec pipe: the parent reads the
// preparation's report once the child is held, and the exec's after the end.
//
// Holding, and syscount's death. The parent can be killed (SIGKILL) at any moment, and a child
// stopped with no one to continue it would stay stopped for good (unless its process group is
// orphaned, which a shell's job is but a script's child is not). For ptrace the child stops
// itself with SIGSTOP (a tracer seizes a stopped task and resumes it at will); before that it
// asks for SIGKILL at its parent's death (PR_SET_PDEATHSIG), and kills itself when the parent
// is gone already: untraced, its filter would fail its calls. The request outlives the exec,
// as it may, since the tracer's death kills the command anyway (PTRACE_O_EXITKILL). For eBPF
// the child blocks reading a close-on-exec pipe instead, released by a byte from the parent or
// by the end of file its death makes; it then goes on to exec and runs uncounted, as it would
// had syscount died later. Neither adds a call a trace of `all` would see. The stop is a bare
// kill(2) rather than raise(3), which blocks and restores the signal mask around it, and the
// parent waits for it (waitpid, WSTOPPED). For eBPF the parent waits for nothing: the programs
// tell the child's calls before its exec from the command's and count only the exec, so it
// does not matter how far the child has gone when they are told to follow it.
//
// Signals. Ctrl-C on a terminal reaches the whole foreground process group, so the traced
// command already has it; a signal sent to syscount alone (kill, si_code SI_USER) is forwarded to
// the command, also one that came before the command was forked. The child puts back the
// actions syscount replaced before anything else (the signals are blocked around the fork), so
// a signal that reaches it before its exec acts as it would on the command, rather than run
// syscount's handler, inherited, and be lost. Once the command has ended, a signal (from a
// terminal too, or one forwarded before, which it may have ended of) ends the wait for what it
// left running: the ptrace backend kills that, as syscount's death would, its wait interrupted
// with PTRACE_INTERRUPT on one of them, the eBPF backend leaves it to run on uncounted, polling
// wake_fd(). In attach mode a signal means "stop tracing": the ptrace backend's wait is
// interrupted with PTRACE_INTERRUPT on the attached process, the eBPF backend polls wake_fd().
#include "launch.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <ctime>
#include <string>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "counters/reader.hpp"
#include "opskit/file.hpp"

namespace opskit::trace {

namespace {

std::atomic<pid_t> g_forward_to{0};    // launch mode: the command, to forward signals to
std::atomic<int> g_unforwarded{0};     // a signal to forward that came before the command did
std::atomic<pid_t> g_interrupt_pid{0}; // ptrace attach mode: the process to interrupt
std::atomic<int> g_stop_signal{0};     // the last SIGINT/SIGTERM/SIGHUP/SIGQUIT received
std::atomic<int> g_wake_fd{-1};        // the write end of SignalGuard's pipe
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

constexpr std::array k_signals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// The actions SignalGuard replaced, put back when it ends, and in a child before its exec.
std::array<struct sigaction, k_signals.size()> g_saved_actions{};
struct sigaction g_saved_chld {};
bool g_guarded = false; // a SignalGuard holds them

void restore_actions() noexcept {
  if (!g_guarded)
    return;
  for (std::size_t i = 0; i < k_signals.size(); ++i)
    ::sigaction(k_signals[i], &g_saved_actions[i], nullptr);
  ::sigaction(SIGCHLD, &g_saved_chld, nullptr);
}

// For its lifetime, the caught signals are blocked: around a fork, so that a signal meant for
// the child cannot reach the handler it inherits before it has put the old actions back.
class BlockedSignals {
public:
  BlockedSignals() noexcept {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : k_signals)
      sigaddset(&set, sig);
    ::sigprocmask(SIG_BLOCK, &set, &was_);
  }
  ~BlockedSignals() { unblock(); }
  BlockedSignals(const BlockedSignals&) = delete;
  BlockedSignals& operator=(const BlockedSignals&) = delete;
  void unblock() const noexcept { ::sigprocmask(SIG_SETMASK, &was_, nullptr); }

private:
  sigset_t was_{};
};

extern "C" void on_signal(int sig, siginfo_t* info, void* /*context*/) {
  int saved_errno = errno;
  g_stop_signal.store(sig);
  if (info->si_code != SI_KERNEL) {
    if (pid_t child = g_forward_to.load(); child > 0)
      ::kill(child, sig);
    else
      g_unforwarded.store(sig);
  }
  if (pid_t pid = g_interrupt_pid.load(); pid > 0)
    ::syscall(SYS_ptrace, PTRACE_INTERRUPT, pid, 0, 0);
  if (int fd = g_wake_fd.load(); fd >= 0) {
    const char byte = 0;
    [[maybe_unused]] auto n = ::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

// What a child reports through its pipe.
struct ChildFailure {
  int stage = 0; // k_stage_prepare or k_stage_exec
  int err = 0;
};
constexpr int k_stage_prepare = 1, k_stage_exec = 2;

void reap(pid_t pid, int& status) noexcept {
  while (::waitpid(pid, &status, WSTOPPED) < 0 && errno == EINTR) {
  }
}

} // namespace

std::uint64_t now_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

struct SignalGuard::Saved {
  UniqueFd wake_read, wake_write;
};

SignalGuard::SignalGuard() : saved_(std::make_unique<Saved>()) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    saved_->wake_read.reset(fds[0]);
    saved_->wake_write.reset(fds[1]);
    g_wake_fd.store(fds[1]);
  }
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < k_signals.size(); ++i)
    ::sigaction(k_signals[i], &action, &g_saved_actions[i]);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &dfl, &g_saved_chld);
  g_guarded = true;
  g_stop_signal.store(0);
}

SignalGuard::~SignalGuard() {
  restore_actions();
  g_guarded = false;
  g_forward_to.store(0);
  g_unforwarded.store(0);
  g_interrupt_pid.store(0);
  g_wake_fd.store(-1);
}

void SignalGuard::forward_to(pid_t pid) noexcept {
  g_forward_to.store(pid);
  if (int sig = g_unforwarded.exchange(0); sig != 0)
    ::kill(pid, sig);
}

void SignalGuard::command_ended() noexcept {
  g_forward_to.store(0);
}

void SignalGuard::interrupt_on_signal(pid_t pid) noexcept {
  g_interrupt_pid.store(pid);
}

int SignalGuard::stop_signal() const noexcept {
  return g_stop_signal.load();
}

int SignalGuard::wake_fd() const noexcept {
  return saved_->wake_read.get();
}

namespace {

// In the child, for Hold::stopped: killed by its parent's death, also one before this.
void die_with(pid_t parent) noexcept {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent)
    ::kill(::getpid(), SIGKILL);
}

// In the child: held until released or the parent is gone, then exec; never returns.
[[noreturn]] void hold_and_exec(const std::string& program, char** args, Hold hold,
                                const UniqueFd& release, const UniqueFd& report) noexcept {
  if (hold == Hold::stopped) {
    ::kill(::getpid(), SIGSTOP);
  } else {
    char byte = 0;
    while (::read(release.get(), &byte, 1) < 0 && errno == EINTR) {
    }
  }
  ::execv(program.c_str(), args);
  ChildFailure failure{k_stage_exec, errno};
  [[maybe_unused]] auto n = ::write(report.get(), &failure, sizeof failure);
  ::_exit(failure.err == ENOENT ? 127 : 126);
}

} // namespace

Result<HeldCommand> HeldCommand::start(const std::string& program,
                                       const std::vector<std::string>& argv, Hold hold,
                                       const std::function<int()>& prepare) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return fail(Error::from_errno("create", "pipe"));
  UniqueFd report_read(fds[0]), report_write(fds[1]);
  UniqueFd release_read, release_write;
  if (hold == Hold::blocked) {
    if (::pipe2(fds, O_CLOEXEC) != 0)
      return fail(Error::from_errno("create", "pipe"));
    release_read.reset(fds[0]);
    release_write.reset(fds[1]);
  }

  pid_t parent = ::getpid();
  BlockedSignals blocked;
  pid_t pid = ::fork();
  if (pid < 0)
    return fail(Error::from_errno("fork", program));
  if (pid == 0) {
    restore_actions(); // the command's, not syscount's handler: a signal now acts on it
    blocked.unblock();
    report_read.reset();
    release_write.reset(); // so that the parent's death is an end of file
    if (hold == Hold::stopped)
      die_with(parent);
    if (int err = prepare ? prepare() : 0; err != 0) {
      ChildFailure failure{k_stage_prepare, err};
      [[maybe_unused]] auto n = ::write(report_write.get(), &failure, sizeof failure);
    }
    hold_and_exec(program, args.data(), hold, release_read, report_write);
  }
  report_write.reset();
  HeldCommand command(pid, hold, std::move(report_read), std::move(release_write));
  if (hold == Hold::blocked)
    return command;
  reap(pid, command.stop_status_);
  if (pollfd note{command.report_.get(), POLLIN, 0}; ::poll(&note, 1, 0) > 0) {
    ChildFailure failure{};
    if (::read(command.report_.get(), &failure, sizeof failure) == sizeof failure &&
        failure.stage == k_stage_prepare)
      command.prepare_error_ = failure.err;
  }
  return command;
}

bool HeldCommand::held() const noexcept {
  return hold_ == Hold::blocked || WIFSTOPPED(stop_status_);
}

void HeldCommand::cont() const noexcept {
  if (hold_ == Hold::stopped) {
    ::kill(pid_, SIGCONT);
    return;
  }
  const char byte = 0;
  [[maybe_unused]] auto n = ::write(release_.get(), &byte, 1);
}

void HeldCommand::kill() const noexcept {
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
}

Result<void> HeldCommand::exec_result(const std::string& program) const {
  ChildFailure failure{};
  if (::read(report_.get(), &failure, sizeof failure) == sizeof failure &&
      failure.stage == k_stage_exec)
    return fail(Error::from_errno("exec", program, failure.err));
  return {};
}

std::pair<pid_t, std::string> task_identity(pid_t pid) {
  std::pair<pid_t, std::string> out{pid, "?"};
  auto text = read_file(fmt::format("/proc/{}/status", pid));
  if (!text)
    return out;
  const counters::Layout status; // "Key:" and its values, a record a line
  counters::Locator name{"Name", -1}, tgid{"Tgid", 0};
  if (auto token = counters::locate(*text, status, name))
    out.second = std::string(*token);
  if (auto token = counters::locate(*text, status, tgid))
    std::from_chars(token->data(), token->data() + token->size(), out.first);
  return out;
}

} // namespace opskit::trace
