// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <string>

#include "opskit/probes/trace/engine.hpp"

struct syscount_bpf; // the skeleton bpftool generates from syscount.bpf.c

namespace opskit::trace {

// The eBPF backend: the programs of syscount.bpf.c loaded into the kernel and attached, with maps
// sized for the aggregator's limits. Counting happens in the kernel; the counts are read into
// the aggregator once, at the end. Dropping it detaches the programs and frees the maps (they
// are owned by file descriptors: a killed syscount leaves nothing attached).
class BpfTracer final : public TraceBackend {
public:
  // Loads and attaches the programs for `cls`. Fails with why eBPF cannot be used here: no BTF,
  // no privilege ("load eBPF programs: Operation not permitted"), a kernel without a feature.
  static Result<std::unique_ptr<BpfTracer>> load(SyscallClass cls, const AggregatorLimits& limits);

  ~BpfTracer() override;
  BpfTracer(const BpfTracer&) = delete;
  BpfTracer& operator=(const BpfTracer&) = delete;

  Backend kind() const noexcept override { return Backend::ebpf; }
  // Runs `program` with the request's argv, or watches the request's attach_pid, until it (and,
  // for a command, every descendant) has exited or, attached, until a signal asks to stop; then
  // adds the counts to `sink`. Fails as run_trace does.
  Result<TraceOutcome> run(const TraceRequest& request, const std::string& program,
                           Aggregator& sink) override;

private:
  struct Destroy {
    void operator()(syscount_bpf* skel) const noexcept;
  };
  explicit BpfTracer(syscount_bpf* skel) : skel_(skel) {}

  // Puts `pid` in the followed set as the first process; `held`: a command not yet past its
  // exec, whose calls before it are not counted.
  Result<void> follow(pid_t pid, bool held);
  Result<TraceOutcome> launch(const std::string& program, const std::vector<std::string>& argv);
  Result<TraceOutcome> attach(pid_t pid, const TraceRequest& request);
  // The warning for calls or processes the kernel could not follow, empty when none.
  std::string losses() const;

  std::unique_ptr<syscount_bpf, Destroy> skel_;
};

// Adds what the skeleton's maps counted to `sink`.
Result<void> read_counts(const syscount_bpf& skel, Aggregator& sink);

} // namespace opskit::trace
