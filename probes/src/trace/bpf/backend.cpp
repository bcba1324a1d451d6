// SPDX-License-Identifier: MIT
// The eBPF backend's user side: load the programs, follow the command, wait, read the maps.
//
// Loading. The skeleton embeds the object compiled at build time (syscount.bpf.c); libbpf
// relocates its field accesses against the kernel's types (kernel_btf.hpp: the extract built in,
// on the kernel it was cut from), sizes the maps from the aggregator's limits and has the kernel
// verify and attach the programs. Anything that fails there (no BTF, no privilege, a kernel too
// old for task storage or bpf_loop) is the reason `auto` falls back to ptrace. libbpf's own
// messages are kept from stderr.
//
// Launching. The command is started held on a pipe (launch.hpp's Hold::blocked: if syscount
// dies first, it runs on uncounted), put in the followed set as process 0, marked as held (of
// its calls before its exec, which are syscount's own, the programs count only the exec), and
// let go: its first call is counted, and nothing stops it again. syscount makes
// itself a child subreaper, so that descendants orphaned on the way are reparented to it and
// the wait ends only when the whole tree has exited, as the ptrace backend's does.
//
// Attaching (-p) stops nothing: the process is put in the followed set, a pidfd tells when it
// has exited (its status is kept by the exit program, since it is not our child), and a signal
// to syscount (SignalGuard's wake_fd) ends the watch, the process running on untouched.
#include "backend.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <filesystem>

#include <bpf/libbpf.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "counts.h"
#include "huge_heap.hpp"
#include "kernel_btf.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"
#include "syscount.skel.h"
#include "trace/launch.hpp"

namespace opskit::trace {

namespace {

constexpr std::size_t k_max_long_paths = 1024;
constexpr __u32 k_max_folded = 16384;

int quiet(enum libbpf_print_level /*level*/, const char* /*format*/, va_list /*args*/) {
  return 0;
}

// Fills the class's table: which calls of which ABI are counted, and where their path is.
void fill_class(syscount_bpf& skel, SyscallClass cls) {
  auto* counted = skel.bss->counted;
  auto set = [&](Abi abi, int nr, int path_arg) {
    auto at = static_cast<std::size_t>(abi) * SC_MAX_NR + static_cast<std::size_t>(nr);
    counted[at] = static_cast<__u8>(path_arg >= 0 ? SC_PATH_ARG0 + path_arg : SC_NO_PATH);
  };
  if (cls != SyscallClass::all) {
    for (const auto& call : class_syscalls(cls))
      set(call.abi, call.nr, call.path_arg);
    return;
  }
  for (Abi abi : traced_abis())
    for (int nr = 0; nr < SC_MAX_NR; ++nr)
      set(abi, nr, path_argument(abi, nr));
}

// Loads the programs into the kernel. Where libbpf reads a whole kernel's BTF, its heap is on
// huge pages: it holds the BTF twice (as read, as copied) and indexes it.
int load_programs(syscount_bpf& skel, const KernelBtf& btf) {
  if (btf.whole_size() == 0)
    return syscount_bpf__load(&skel);
  HugePageHeap heap(2 * btf.whole_size() + (1u << 20));
  return syscount_bpf__load(&skel);
}

// The process's name as the kernel keeps it (TASK_COMM_LEN bytes at most), "?" when gone.
std::string process_comm(pid_t pid) {
  auto comm = read_file(fmt::format("/proc/{}/comm", pid));
  return comm ? std::string(trim(*comm)) : "?";
}

// This process's name, which a child keeps until its exec.
std::string own_comm() {
  char name[SC_COMM + 1] = {};
  ::prctl(PR_GET_NAME, name);
  return name;
}

// Makes this process a child subreaper for its lifetime (see "Launching" above).
class Subreaper {
public:
  Subreaper() {
    ::prctl(PR_GET_CHILD_SUBREAPER, &was_);
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  }
  ~Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, was_); }
  Subreaper(const Subreaper&) = delete;
  Subreaper& operator=(const Subreaper&) = delete;

private:
  int was_ = 0;
};

// The command's end: its wait status, and when it was reaped.
struct Ended {
  int status = 0;
  std::uint64_t at_ns = 0;
};

// Reaps every child until none is left, or, once `main` (one of them) has ended, until a
// signal comes (the rest then runs on, uncounted); after `main`, waiting on the signals' wake
// descriptor beside, so that one that comes just before a wait does not go unseen.
Result<Ended> wait_all(pid_t main, SignalGuard& signals) {
  Ended ended;
  for (;;) {
    if (ended.at_ns != 0 && signals.stop_signal() != 0)
      return ended;
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, ended.at_ns != 0 ? WNOHANG : 0);
    if (pid == 0) { // children left, none ended yet
      pollfd wake{signals.wake_fd(), POLLIN, 0};
      ::poll(&wake, 1, 200);
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      if (errno != ECHILD)
        return fail(Error::from_errno("wait for", "the command"));
      if (ended.at_ns == 0)
        ended.at_ns = now_ns();
      return ended;
    }
    if (pid == main) {
      ended = {status, now_ns()};
      signals.command_ended();
    }
  }
}

std::size_t thread_count(pid_t pid) {
  std::error_code ec;
  std::filesystem::directory_iterator it(fmt::format("/proc/{}/task", pid), ec);
  return ec ? 1 : static_cast<std::size_t>(std::distance(it, {}));
}

// The programs know processes by their pids in the initial PID namespace; fails where syscount
// runs in another (a container), since it could not tell the kernel which to follow. The
// initial namespace has a fixed inode number, PROC_PID_INIT_INO.
Result<void> check_pid_namespace() {
  constexpr ino_t k_init_pid_namespace = 0xEFFFFFFCu;
  struct stat ns {};
  if (::stat("/proc/self/ns/pid", &ns) != 0)
    return fail(Error::from_errno("read", "/proc/self/ns/pid"));
  if (ns.st_ino != k_init_pid_namespace)
    return fail("eBPF programs: syscount runs in a PID namespace of its own", ENOTSUP);
  return {};
}

} // namespace

void BpfTracer::Destroy::operator()(syscount_bpf* skel) const noexcept {
  syscount_bpf__destroy(skel);
}

BpfTracer::~BpfTracer() = default;

Result<std::unique_ptr<BpfTracer>> BpfTracer::load(SyscallClass cls,
                                                   const AggregatorLimits& limits) {
  if (::access(k_kernel_btf, R_OK) != 0)
    return fail(Error::from_errno("read kernel BTF", k_kernel_btf));
  OPSKIT_TRY(check_pid_namespace());
  OPSKIT_TRY_ASSIGN(auto btf, KernelBtf::choose());
  libbpf_set_print(quiet);
  LIBBPF_OPTS(bpf_object_open_opts, options, .btf_custom_path = btf.custom_path());
  std::unique_ptr<BpfTracer> tracer(new BpfTracer(syscount_bpf__open_opts(&options)));
  if (!tracer->skel_)
    return fail(Error::from_errno("open", "eBPF programs"));
  auto& skel = *tracer->skel_;
  auto max_processes = static_cast<__u32>(std::min<std::size_t>(limits.max_processes, 1u << 20));
  auto max_paths = static_cast<__u32>(std::clamp<std::size_t>(limits.max_paths, 1, 1u << 24));
  skel.rodata->max_processes = max_processes;
  bpf_map__set_max_entries(skel.maps.processes, max_processes + 1);
  // Names shorter than 256 bytes share --max-paths between two maps, tiny names spilling into
  // the short map when theirs is full; the kernel keeps the first of them up to the limit. A
  // hash map's buckets are made and initialised when it is, one per entry rounded up to a power
  // of two, 25 ns each here: for 100,000 paths a tiny map of 65,536 and a short map of 34,464
  // make 131,072 buckets, where one map of 100,000 and one of 25,000 made 163,840.
  auto tiny = std::bit_ceil(max_paths / 2 + max_paths % 2);
  bpf_map__set_max_entries(skel.maps.tiny_paths, tiny);
  bpf_map__set_max_entries(skel.maps.short_paths, std::max<__u32>(max_paths - tiny, 1));
  bpf_map__set_max_entries(skel.maps.long_paths,
                           static_cast<__u32>(std::min<std::size_t>(max_paths, k_max_long_paths)));
  // Directories of lookups beyond full path maps: far fewer than paths, and a hash map's
  // buckets are made and initialised when it is (a map of 100,000 cost a millisecond of start).
  bpf_map__set_max_entries(skel.maps.folded, std::clamp<__u32>(max_paths, 1024, k_max_folded));
  if (int rc = load_programs(skel, btf); rc != 0)
    return fail(Error::from_errno("load", "eBPF programs", -rc));
  fill_class(skel, cls);
  if (int rc = syscount_bpf__attach(&skel); rc != 0)
    return fail(Error::from_errno("attach", "eBPF programs", -rc));
  return tracer;
}

Result<void> BpfTracer::follow(pid_t pid, bool held) {
  __u32 tgid = static_cast<__u32>(pid), index = 0;
  sc_process first{};
  first.tgid = tgid;
  auto comm = held ? own_comm() : process_comm(pid);
  std::memcpy(first.comm, comm.data(), std::min(comm.size(), sizeof first.comm - 1));
  skel_->bss->next_process = 1;
  __u32 followed_as = held ? index | SC_HELD : index;
  if (bpf_map__update_elem(skel_->maps.processes, &index, sizeof index, &first, sizeof first,
                           BPF_ANY) != 0 ||
      bpf_map__update_elem(skel_->maps.followed, &tgid, sizeof tgid, &followed_as,
                           sizeof followed_as, BPF_ANY) != 0)
    return fail(Error::from_errno("follow process", std::to_string(pid)));
  return {};
}

Result<TraceOutcome> BpfTracer::launch(const std::string& program,
                                       const std::vector<std::string>& argv) {
  SignalGuard signals;
  Subreaper subreaper;
  OPSKIT_TRY_ASSIGN(auto command, HeldCommand::start(program, argv, Hold::blocked));
  TraceOutcome outcome;
  outcome.backend = Backend::ebpf;
  if (!command.held()) {
    outcome.set_ending(command.stop_status());
    return outcome;
  }
  if (auto followed = follow(command.pid(), true); !followed) {
    command.kill();
    return fail(followed.error());
  }
  signals.forward_to(command.pid());
  std::uint64_t start_ns = now_ns();
  command.cont();
  OPSKIT_TRY_ASSIGN(auto ended, wait_all(command.pid(), signals));
  outcome.wall_s = static_cast<double>(ended.at_ns - start_ns) / 1e9;
  OPSKIT_TRY(command.exec_result(program));
  outcome.set_ending(ended.status);
  return outcome;
}

Result<TraceOutcome> BpfTracer::attach(pid_t pid, const TraceRequest& request) {
  SignalGuard signals;
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd)
    return fail(Error::from_errno("attach to", std::to_string(pid)));
  skel_->bss->target_tgid = static_cast<__u32>(pid);
  OPSKIT_TRY(follow(pid, false));
  std::uint64_t start_ns = now_ns();
  if (request.on_attached)
    request.on_attached(thread_count(pid));
  pollfd fds[2] = {{pidfd.get(), POLLIN, 0}, {signals.wake_fd(), POLLIN, 0}};
  while (::poll(fds, 2, -1) < 0)
    if (errno != EINTR)
      return fail(Error::from_errno("wait for process", std::to_string(pid)));
  TraceOutcome outcome;
  outcome.backend = Backend::ebpf;
  outcome.wall_s = static_cast<double>(now_ns() - start_ns) / 1e9;
  outcome.detached = (fds[0].revents & POLLIN) == 0;
  if (!outcome.detached && skel_->bss->target_exited != 0)
    outcome.set_ending(skel_->bss->target_exit_code);
  return outcome;
}

std::string BpfTracer::losses() const {
  auto calls = skel_->bss->lost_calls, processes = skel_->bss->lost_processes;
  if (calls == 0 && processes == 0)
    return {};
  return fmt::format("the kernel could not follow {} call{} and {} process{}: the counts are short",
                     calls, calls == 1 ? "" : "s", processes, processes == 1 ? "" : "es");
}

Result<TraceOutcome> BpfTracer::run(const TraceRequest& request, const std::string& program,
                                    Aggregator& sink) {
  auto outcome = request.attach_pid > 0 ? attach(request.attach_pid, request)
                                        : launch(program, request.command);
  if (!outcome)
    return outcome;
  OPSKIT_TRY(read_counts(*skel_, sink));
  outcome->warning = losses();
  return outcome;
}

} // namespace opskit::trace
