// SPDX-License-Identifier: MIT
#pragma once

#include <string>

#include "opskit/probes/trace/engine.hpp"

namespace opskit::trace {

// The ptrace backend: runs `program` with the request's argv, or attaches to the request's
// attach_pid, under ptrace (with a seccomp filter for a started command), and feeds each
// finished call of the class to `sink`. Loading it takes nothing.
class PtraceBackend final : public TraceBackend {
public:
  Backend kind() const noexcept override { return Backend::ptrace; }
  Result<TraceOutcome> run(const TraceRequest& request, const std::string& program,
                           Aggregator& sink) override;
};

} // namespace opskit::trace
