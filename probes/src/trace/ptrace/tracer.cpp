// SPDX-License-Identifier: MIT
//
// The ptrace backend: traces a command started stopped (launch.hpp's Hold::stopped), or a
// running process, and turns its system calls into SyscallEvents for the aggregator.
//
// Where the time goes. Every ptrace stop costs two context switches and a wait in the tracer;
// on a VM that is some tens of microseconds per stop, and a traced call has two stops (entry
// and exit). strace -f stops at every call; most of a program's calls are not the ones we
// count. So, like strace --seccomp-bpf, the child installs a seccomp filter before exec that
// returns SECCOMP_RET_TRACE for the calls of the chosen class and SECCOMP_RET_ALLOW for the
// rest: uncounted calls never stop, and a counted one stops once at entry (PTRACE_EVENT_SECCOMP),
// where we resume with PTRACE_SYSCALL to get its exit stop and result, then resume with
// PTRACE_CONT. Seccomp filters are inherited over fork, clone and exec, so the whole process
// tree is covered. The `all` class gains nothing from a filter and uses plain PTRACE_SYSCALL.
// Per counted call the tracer makes two waitpids, four ptrace calls (GET_SYSCALL_INFO and a
// resume at each stop) and, for a path, one process_vm_readv: nothing is formatted and nothing
// allocated. (Leaving the seccomp stop unread and taking number, arguments and result from one
// PTRACE_GETREGS at the exit saves one ptrace call; measured, it gained about 3%, within the
// noise of the stops themselves, so the portable form stays.)
//
// The tracer spins before it sleeps. Measured here (2-vCPU VM, find over /usr/share, 13,564
// traced newfstatat): the scheduler puts a resumed tracee on the other, idle CPU, so each stop
// wakes a halted CPU twice, the tracer's and, on resume, the tracee's. Polling waitpid with
// WNOHANG for up to k_spin_ns keeps the tracer's CPU awake and takes one of the two wake-ups out:
// 1.34 s -> 0.53 s for find (strace --seccomp-bpf: 1.34 s), 129 -> 87 ms for the Perl load. A
// stop that comes later costs at most k_spin_ns of CPU, about what a sleeping wait costs
// anyway. With a single allowed CPU the tracee can only run where the tracer spins, so there
// the tracer always sleeps at once.
//
// Idle CPUs poll while the trace runs. Spinning keeps the tracer's CPU awake, but the tracee's
// CPU still halts while the tracee waits at a stop, and waking a halted virtual CPU costs tens
// of microseconds. So, unless the request says otherwise, the tracer holds a CPU wake-up latency
// request of 0 µs (PM QoS, /dev/cpu_dma_latency, as cyclictest does) for as long as it traces:
// the cpuidle governor then keeps idle CPUs in their polling state, and a wake-up is a flag the
// polling CPU sees at once, with no interrupt. The kernel drops the request when the descriptor
// is closed, also when syscount is killed. It costs power on idle CPUs (the polling shows as
// idle time, not as anyone's CPU time) and needs root; without root nothing is requested.
// Measured with the spin (Perl load x10: untraced 0.50 s; find /usr/share: untraced 0.099 s):
// Perl 0.87 -> 0.66 s, find 0.52 -> 0.28 s.
//
// Attach mode (-p) cannot install a filter in a running process: it PTRACE_SEIZEs (without
// EXITKILL) every thread listed in /proc/PID/task, listing again until no new one appears, since
// a thread not yet seized can start others, then PTRACE_INTERRUPTs each to start it on
// PTRACE_SYSCALL, and keeps the class's calls in user space. An exit stop whose entry was not
// seen (the call was in progress at attach) is ignored.
//
// Start-up. SECCOMP_RET_TRACE with no tracer attached fails the call with ENOSYS, so the child
// must be traced before its first counted call, yet the filter must be installed before exec:
// the child loads it before it stops (HeldCommand's preparation), and the parent
// PTRACE_SEIZEs it there, with EXITKILL (if syscount dies, its tracees die with it rather than
// run on with a filter that now fails their stat calls; before the seize, the child's
// parent-death signal does the same), before letting it go on to exec.
// Seizing an already stopped task makes it re-trap as a group-stop, which the generic stop
// handling below resolves.
//
// Stops under PTRACE_SEIZE, as waitpid(__WALL) reports them:
//   - SIGTRAP|0x80: syscall entry or exit (TRACESYSGOOD), told apart by PTRACE_GET_SYSCALL_INFO.
//   - PTRACE_EVENT_SECCOMP: a filtered call at entry; GET_SYSCALL_INFO gives nr and args.
//   - PTRACE_EVENT_{FORK,VFORK,CLONE}: a new task, already attached with our options. Its first
//     stop may arrive before the parent's event, so any unknown pid is registered on sight, its
//     thread group and name read from /proc/<pid>/status (the only file read per new task).
//   - PTRACE_EVENT_EXEC: a new program; when a non-leader thread execs it takes over the leader's
//     pid (GETEVENTMSG gives its old tid), so its state moves with it.
//   - PTRACE_EVENT_STOP: with SIGSTOP/SIGTSTP/SIGTTIN/SIGTTOU it is a group-stop, answered with
//     PTRACE_LISTEN so the job stays stopped until SIGCONT as it would untraced; with SIGTRAP it
//     is the initial or PTRACE_INTERRUPT stop.
//   - anything else is a signal-delivery-stop; the signal is injected back on resume.
//
// Paths are read at entry (at exit an execve has replaced the memory, and a buffer can have
// been reused by another thread) with process_vm_readv: a first read of 256 bytes, which holds
// nearly every path, and only for a longer string a second one up to PATH_MAX. Each remote range
// is split at the page boundary: process_vm_readv never transfers part of one iovec, so a short
// path at the end of the last mapped page would otherwise be unreadable. A string with no NUL in
// PATH_MAX bytes (the kernel fails such a call with ENAMETOOLONG) is kept cut, marked "...".
// Each task has its own path buffer, allocated once, since tasks stop interleaved.
//
// Attach mode ends on SIGINT, SIGTERM, SIGHUP or SIGQUIT (launch.hpp's SignalGuard, which
// also interrupts the attached process so that a blocking waitpid returns even when the signal
// lands just before it): every task is PTRACE_INTERRUPTed and detached at its next stop, with
// its pending signal if it was at a signal-delivery-stop.
//
// Without seccomp (an old kernel, a sandbox that forbids it) the child goes on unfiltered and
// says so through its pipe before it stops; the parent then traces every call and keeps the
// class's in user space, as in attach mode, and warns that this is slower.
//
// ABIs. A 32-bit program on x86_64 calls the kernel through the i386 table, where the numbers
// mean other calls (4 is write there, stat here), and an x32 program through x32's. The
// filter has a branch for each (filter.cpp), and each stop is decoded by the architecture
// GET_SYSCALL_INFO reports (abi.cpp) before it is looked up in that ABI's class table; its
// pointers are 32 bits wide. A call is counted in the ABI of its entry: the execve that starts a
// 32-bit program enters as x86_64 and returns as i386, and strace counts it as x86_64 too.
//
// Limits, as for strace: the filter sets no_new_privs, so setuid programs run without their
// privileges; a task created with CLONE_UNTRACED escapes tracing and its counted calls fail with
// ENOSYS.
#include "tracer.hpp"
#include "opskit/probes/trace/engine.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <unordered_map>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "counters/reader.hpp"
#include "filter.hpp"
#include "opskit/file.hpp"
#include "opskit/handle.hpp"
#include "opskit/text.hpp"
#include "trace/launch.hpp"

namespace opskit::trace {

namespace {

constexpr std::size_t k_path_max = 4096;
constexpr std::size_t k_first_read = 256; // most paths fit; longer ones take a second read
constexpr std::string_view k_cut = "...";
constexpr std::uint64_t k_spin_ns = 50'000; // how long the tracer polls for a stop before it sleeps

bool more_than_one_cpu() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1;
}

// The error of a PTRACE_SEIZE of task `tid` that failed with `err`: "OP OBJECT: why", and for
// EPERM its name and, when another tracer holds the task, which one (from its TracerPid).
Error seize_error(std::string_view op, std::string_view object, pid_t tid, int err) {
  auto error = Error::from_errno(op, object, err);
  if (err != EPERM)
    return error;
  pid_t tracer = 0;
  if (auto text = read_file(fmt::format("/proc/{}/status", tid))) {
    counters::Locator field{"TracerPid", 0};
    if (auto token = counters::locate(*text, counters::Layout{}, field))
      std::from_chars(token->data(), token->data() + token->size(), tracer);
  }
  if (tracer <= 0)
    return Error(fmt::format("{} (EPERM)", error.message()), err);
  return Error(fmt::format("{} (EPERM): process {} ({}) is tracing it already", error.message(),
                           tracer, task_identity(tracer).second),
               err);
}

struct Tracee {
  pid_t tgid = 0;
  bool in_call = false; // past the entry of a counted call, waiting for its exit
  AbiCall call;
  std::uint64_t start_ns = 0;
  std::size_t path_size = 0;
  std::unique_ptr<char[]> path; // k_path_max + k_cut.size() bytes, allocated once per task
};

class Tracer {
public:
  Tracer(const TraceRequest& request, Aggregator& sink)
      : cls_(request.cls), sink_(sink), on_attached_(request.on_attached),
        page_size_(static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE))) {}

  Result<TraceOutcome> launch(const std::string& program, const std::vector<std::string>& argv);
  Result<TraceOutcome> attach(pid_t pid);

private:
  // Seizes the stopped command and lets it go on to exec; fails when it cannot be traced.
  Result<void> seize(const HeldCommand& command, const std::string& program);
  // Seizes every thread of `pid`; fails when one cannot be traced.
  Result<void> seize_threads(pid_t pid);
  TraceOutcome outcome() const;

private:
  Result<void> loop();
  void handle(pid_t pid, int status);
  void on_syscall(pid_t pid, Tracee& t);
  void on_exec(pid_t pid);
  Tracee& tracee(pid_t pid);
  void resume(pid_t pid, const Tracee& t, int sig = 0);
  // Reads [addr, addr + size) of `pid` (size <= one page) into `to`, split at the page
  // boundary; returns the bytes read, which stop at the first unreadable page.
  std::size_t read_remote(pid_t pid, std::uint64_t addr, char* to, std::size_t size) const;
  void read_path(pid_t pid, std::uint64_t addr, Tracee& t);
  // waitpid(-1, __WALL), spinning first when spin_ (see "The tracer spins" above).
  pid_t wait_any(int& status) const;
  void begin_detach();
  void detach(pid_t pid, int sig);
  // After the command has ended: kills what it left running, which the loop then reaps.
  void kill_rest();

  SignalGuard signals_;
  SyscallClass cls_;
  Aggregator& sink_;
  std::function<void(std::size_t)> on_attached_;
  std::uint64_t page_size_;
  bool filtered_ = false; // a seccomp filter stops only counted calls
  bool attached_ = false; // attach mode
  bool detaching_ = false;
  bool killing_ = false;
  bool spin_ = more_than_one_cpu();
  pid_t main_pid_ = 0;
  std::optional<int> main_status_;
  std::uint64_t start_ns_ = 0, end_ns_ = 0;
  std::unordered_map<pid_t, Tracee> tracees_;
};

Tracee& Tracer::tracee(pid_t pid) {
  auto it = tracees_.find(pid);
  if (it != tracees_.end())
    return it->second;
  auto [tgid, comm] = task_identity(pid);
  if (tgid == pid)
    sink_.process_started(pid, comm);
  Tracee& t = tracees_[pid];
  t.tgid = tgid;
  t.path = std::make_unique_for_overwrite<char[]>(k_path_max + k_cut.size());
  if (killing_)
    ::kill(pid, SIGKILL); // forked as the rest was killed
  return t;
}

void Tracer::resume(pid_t pid, const Tracee& t, int sig) {
  auto request = t.in_call || !filtered_ ? PTRACE_SYSCALL : PTRACE_CONT;
  // ESRCH: the task was killed meanwhile; its exit comes through waitpid.
  ::ptrace(request, pid, nullptr, sig);
}

std::size_t Tracer::read_remote(pid_t pid, std::uint64_t addr, char* to, std::size_t size) const {
  std::uint64_t first = std::min<std::uint64_t>(page_size_ - addr % page_size_, size);
  iovec local{to, size};
  iovec remote[2] = {{reinterpret_cast<void*>(addr), first},
                     {reinterpret_cast<void*>(addr + first), size - first}};
  ssize_t n = ::process_vm_readv(pid, &local, 1, remote, first < size ? 2 : 1, 0);
  return n > 0 ? static_cast<std::size_t>(n) : 0;
}

void Tracer::read_path(pid_t pid, std::uint64_t addr, Tracee& t) {
  t.path_size = 0;
  if (addr == 0)
    return;
  char* buffer = t.path.get();
  std::size_t size = read_remote(pid, addr, buffer, k_first_read);
  const void* nul = std::memchr(buffer, 0, size);
  if (nul == nullptr && size == k_first_read) {
    size += read_remote(pid, addr + size, buffer + size, k_path_max - size);
    nul = std::memchr(buffer + k_first_read, 0, size - k_first_read);
  }
  if (nul != nullptr) {
    t.path_size = static_cast<std::size_t>(static_cast<const char*>(nul) - buffer);
  } else if (size > 0) { // too long, or the rest is unreadable: keep it, marked cut
    std::memcpy(buffer + size, k_cut.data(), k_cut.size());
    t.path_size = size + k_cut.size();
  }
}

void Tracer::on_syscall(pid_t pid, Tracee& t) {
  __ptrace_syscall_info info{};
  long got = ::ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof info, &info);
  if (got <= 0) {
    resume(pid, t);
    return;
  }
  const std::uint64_t* args = nullptr;
  std::optional<AbiCall> call;
  switch (info.op) {
  case PTRACE_SYSCALL_INFO_ENTRY:
    call = decode_call(info.arch, info.entry.nr);
    args = info.entry.args;
    break;
  case PTRACE_SYSCALL_INFO_SECCOMP:
    call = decode_call(info.arch, info.seccomp.nr);
    args = info.seccomp.args;
    break;
  case PTRACE_SYSCALL_INFO_EXIT:
    // Counted in the ABI of its entry: an execve of a 32-bit program leaves in i386.
    if (t.in_call) {
      t.in_call = false;
      sink_.record(SyscallEvent{t.tgid, t.call.nr, info.exit.rval, now_ns() - t.start_ns,
                                std::string_view(t.path.get(), t.path_size), t.call.abi});
    }
    resume(pid, t);
    return;
  default:
    break;
  }
  if (call && in_class(cls_, call->abi, call->nr)) {
    t.in_call = true;
    t.call = *call;
    int arg = path_argument(call->abi, call->nr);
    if (arg >= 0)
      read_path(pid, args[arg] & pointer_mask(call->abi), t);
    else
      t.path_size = 0;
    t.start_ns = now_ns();
  }
  resume(pid, t);
}

void Tracer::on_exec(pid_t pid) {
  unsigned long former = 0;
  ::ptrace(PTRACE_GETEVENTMSG, pid, nullptr, &former);
  auto old_tid = static_cast<pid_t>(former);
  if (old_tid != pid) {
    // A non-leader thread exec'd and now has the leader's pid; the old leader is gone silently.
    if (auto it = tracees_.find(old_tid); it != tracees_.end()) {
      Tracee moved = std::move(it->second);
      tracees_.erase(it); // before inserting: that may rehash and invalidate `it`
      tracees_[pid] = std::move(moved);
    }
  }
  Tracee& t = tracee(pid);
  auto comm = read_file(fmt::format("/proc/{}/comm", pid));
  if (comm)
    sink_.process_renamed(t.tgid, trim(*comm));
  resume(pid, t);
}

void Tracer::detach(pid_t pid, int sig) {
  ::ptrace(PTRACE_DETACH, pid, nullptr, sig);
  tracees_.erase(pid);
}

void Tracer::begin_detach() {
  detaching_ = true;
  signals_.interrupt_on_signal(0);
  for (const auto& [pid, t] : tracees_)
    ::ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr);
}

void Tracer::kill_rest() {
  killing_ = true;
  signals_.interrupt_on_signal(0);
  for (const auto& [pid, t] : tracees_)
    ::kill(pid, SIGKILL);
}

void Tracer::handle(pid_t pid, int status) {
  if (WIFEXITED(status) || WIFSIGNALED(status)) {
    tracees_.erase(pid);
    if (pid == main_pid_ && !main_status_) {
      main_status_ = status;
      end_ns_ = now_ns();
      if (!attached_)
        signals_.command_ended();
    }
    return;
  }
  if (!WIFSTOPPED(status))
    return;
  int sig = WSTOPSIG(status);
  int event = (status >> 16) & 0xff;
  Tracee& t = tracee(pid);
  bool is_group_stop = event == PTRACE_EVENT_STOP &&
                       (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU);

  if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
    unsigned long child = 0;
    if (::ptrace(PTRACE_GETEVENTMSG, pid, nullptr, &child) == 0 && child > 0)
      tracee(static_cast<pid_t>(child)); // registered now, whichever stop comes first
  }
  if (detaching_) {
    detach(pid, event == 0 && sig != (SIGTRAP | 0x80) ? sig : 0);
    return;
  }
  if (sig == (SIGTRAP | 0x80) || event == PTRACE_EVENT_SECCOMP) {
    on_syscall(pid, t);
  } else if (event == PTRACE_EVENT_EXEC) {
    on_exec(pid);
  } else if (is_group_stop) {
    ::ptrace(PTRACE_LISTEN, pid, nullptr, nullptr);
  } else if (event != 0) {
    resume(pid, t); // fork/vfork/clone events, the initial stop, an interrupt
  } else {
    resume(pid, t, sig); // signal-delivery-stop: deliver it
  }
}

pid_t Tracer::wait_any(int& status) const {
  if (spin_) {
    std::uint64_t until = now_ns() + k_spin_ns;
    do {
      pid_t pid = ::waitpid(-1, &status, __WALL | WNOHANG);
      if (pid != 0)
        return pid;
    } while (now_ns() < until);
  }
  return ::waitpid(-1, &status, __WALL);
}

Result<void> Tracer::loop() {
  while (!tracees_.empty()) {
    if (attached_ && !detaching_ && signals_.stop_signal() != 0)
      begin_detach();
    if (!attached_ && main_status_ && !killing_) {
      // A signal from now on wakes the wait below; one before it ends the wait here.
      signals_.interrupt_on_signal(tracees_.begin()->first);
      if (signals_.stop_signal() != 0)
        kill_rest();
    }
    int status = 0;
    pid_t pid = wait_any(status);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      if (errno == ECHILD)
        break;
      return fail(Error::from_errno("wait for", "traced processes"));
    }
    handle(pid, status);
  }
  if (end_ns_ == 0)
    end_ns_ = now_ns();
  return {};
}

constexpr long k_options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK |
                           PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC;

Result<void> Tracer::seize(const HeldCommand& command, const std::string& program) {
  pid_t pid = command.pid();
  if (::ptrace(PTRACE_SEIZE, pid, nullptr, k_options | PTRACE_O_EXITKILL) != 0) {
    auto error = seize_error("trace", program, pid, errno);
    command.kill();
    return fail(error);
  }
  tracee(pid);
  signals_.forward_to(pid);
  start_ns_ = now_ns();
  command.cont();
  return {};
}

TraceOutcome Tracer::outcome() const {
  TraceOutcome out;
  out.backend = Backend::ptrace;
  out.detached = attached_ && !main_status_.has_value();
  if (main_status_)
    out.set_ending(*main_status_);
  out.wall_s = static_cast<double>(end_ns_ - start_ns_) / 1e9;
  out.used_filter = filtered_;
  return out;
}

Result<TraceOutcome> Tracer::launch(const std::string& program,
                                    const std::vector<std::string>& argv) {
  FilterPtr filter;
  if (cls_ != SyscallClass::all) {
    OPSKIT_TRY_ASSIGN(filter, build_filter(cls_));
    filtered_ = true;
  }
  // In the child: seccomp_load is safe there because the parent has a single thread.
  auto load_filter = [&filter]() -> int {
    return filter && seccomp_load(filter.get()) < 0 ? errno : 0;
  };
  OPSKIT_TRY_ASSIGN(auto command, HeldCommand::start(program, argv, Hold::stopped, load_filter));
  main_pid_ = command.pid();
  std::string warning;
  if (int err = command.prepare_error(); err != 0) {
    // Trace every call and keep the class's in user space, as for -p.
    filtered_ = false;
    warning = fmt::format("seccomp filter not loaded: {}; every call stops, which is slower",
                          std::strerror(err));
  }
  if (command.held()) {
    OPSKIT_TRY(seize(command, program));
    OPSKIT_TRY(loop());
  } else {
    main_status_ = command.stop_status();
  }
  OPSKIT_TRY(command.exec_result(program));
  TraceOutcome out = outcome();
  out.warning = std::move(warning);
  return out;
}

Result<void> Tracer::seize_threads(pid_t pid) {
  std::string task_dir = fmt::format("/proc/{}/task", pid);
  // Seize every thread; threads started meanwhile by a thread not yet seized show up on the
  // next pass, while those started by a seized one are attached by TRACECLONE.
  for (bool found_new = true; found_new;) {
    found_new = false;
    CPtr<DIR, ::closedir> dir(::opendir(task_dir.c_str()));
    if (!dir) {
      if (tracees_.empty())
        return fail(
            Error::from_errno("attach to", std::to_string(pid), errno == ENOENT ? ESRCH : errno));
      break;
    }
    while (const dirent* entry = ::readdir(dir.get())) {
      pid_t tid = static_cast<pid_t>(std::atoi(entry->d_name));
      if (tid <= 0 || tracees_.contains(tid))
        continue;
      if (::ptrace(PTRACE_SEIZE, tid, nullptr, k_options) != 0) {
        if (errno == ESRCH)
          continue; // the thread exited
        auto error = seize_error("attach to", std::to_string(pid), tid, errno);
        if (!tracees_.empty()) { // let go of the threads already seized
          begin_detach();
          OPSKIT_TRY(loop());
        }
        return fail(error);
      }
      ::ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr);
      tracee(tid);
      found_new = true;
    }
  }
  return {};
}

Result<TraceOutcome> Tracer::attach(pid_t pid) {
  attached_ = true;
  main_pid_ = pid;
  OPSKIT_TRY(seize_threads(pid));
  signals_.interrupt_on_signal(pid);
  start_ns_ = now_ns();
  if (on_attached_)
    on_attached_(tracees_.size());
  OPSKIT_TRY(loop());
  return outcome();
}

// A PM QoS request for a CPU wake-up latency of 0 µs, held until the descriptor is closed (see
// "Idle CPUs poll" above); an empty descriptor where the kernel or the user's rights deny it.
UniqueFd request_idle_poll() noexcept {
  UniqueFd fd(::open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC));
  const std::int32_t latency_us = 0;
  if (fd && ::write(fd.get(), &latency_us, sizeof latency_us) != sizeof latency_us)
    fd.reset();
  return fd;
}

} // namespace

Result<TraceOutcome> PtraceBackend::run(const TraceRequest& request, const std::string& program,
                                        Aggregator& sink) {
  UniqueFd idle_poll = request.idle_poll ? request_idle_poll() : UniqueFd{};
  Tracer tracer(request, sink);
  if (request.attach_pid > 0)
    return tracer.attach(request.attach_pid);
  return tracer.launch(program, request.command);
}

} // namespace opskit::trace
