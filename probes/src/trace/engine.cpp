// SPDX-License-Identifier: MIT
// The seam between syscount and its backends: the program is found here, once, and the request
// goes to the backend it names. What the backends share beyond that (the command started
// stopped, the signals, the exit status) is in launch.cpp; each backend fills the same
// Aggregator, so the report cannot tell them apart but by name.
#include "opskit/probes/trace/engine.hpp"

#include <cstdlib>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "bpf/backend.hpp"
#include "launch.hpp"
#include "ptrace/tracer.hpp"

namespace opskit::trace {

void TraceOutcome::set_ending(int wait_status) noexcept {
  signal = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  exit_status = signal != 0 ? 128 + signal : WEXITSTATUS(wait_status);
}

std::string_view to_string(Backend backend) noexcept {
  switch (backend) {
  case Backend::automatic:
    return "auto";
  case Backend::ebpf:
    return "ebpf";
  case Backend::ptrace:
    return "ptrace";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view word) noexcept {
  for (auto backend : {Backend::automatic, Backend::ebpf, Backend::ptrace})
    if (word == to_string(backend))
      return backend;
  return std::nullopt;
}

Result<std::string> find_program(const std::string& name) {
  if (name.empty())
    return fail(fmt::format("'': command not found"), ENOENT);
  if (name.find('/') != std::string::npos) {
    if (::access(name.c_str(), X_OK) == 0)
      return name;
    int err = errno;
    if (err == ENOENT)
      return fail(fmt::format("{}: command not found", name), ENOENT);
    return fail(Error::from_errno("run", name, err));
  }
  const char* path_env = std::getenv("PATH");
  std::string_view path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool denied = false;
  while (true) {
    auto colon = path.find(':');
    auto dir = path.substr(0, colon);
    std::string candidate = fmt::format("{}/{}", dir.empty() ? "." : dir, name);
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0)
        return candidate;
      denied = true;
    }
    if (colon == std::string_view::npos)
      break;
    path.remove_prefix(colon + 1);
  }
  if (denied)
    return fail(Error::from_errno("run", name, EACCES));
  return fail(fmt::format("{}: command not found", name), ENOENT);
}

Result<std::unique_ptr<TraceBackend>> open_backend(const TraceRequest& request,
                                                   const AggregatorLimits& limits) {
  if (request.backend == Backend::ptrace)
    return std::make_unique<PtraceBackend>();
  auto bpf = BpfTracer::load(request.cls, limits);
  if (bpf)
    return std::move(*bpf);
  if (request.backend == Backend::ebpf)
    return fail(bpf.error());
  if (request.on_fallback)
    request.on_fallback(bpf.error().message());
  return std::make_unique<PtraceBackend>();
}

pid_t process_of(pid_t pid) {
  return task_identity(pid).first;
}

Result<TraceOutcome> run_trace(const TraceRequest& request, TraceBackend& backend,
                               Aggregator& sink) {
  std::string program;
  if (request.attach_pid <= 0) {
    if (request.command.empty())
      return fail("no command to trace");
    OPSKIT_TRY_ASSIGN(program, find_program(request.command.front()));
    return backend.run(request, program, sink);
  }
  // -p of a thread is its process, as ptrace, which seizes every thread of the group /proc
  // lists, takes it; eBPF follows a process by its thread group's id.
  TraceRequest process = request;
  process.attach_pid = process_of(request.attach_pid);
  return backend.run(process, program, sink);
}

Result<TraceOutcome> run_trace(const TraceRequest& request, Aggregator& sink) {
  OPSKIT_TRY_ASSIGN(auto backend, open_backend(request, sink.limits()));
  return run_trace(request, *backend, sink);
}

} // namespace opskit::trace
