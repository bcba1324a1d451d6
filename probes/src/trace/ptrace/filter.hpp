// SPDX-License-Identifier: MIT
#pragma once

#include <seccomp.h>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"
#include "opskit/probes/trace/syscalls.hpp"

namespace opskit::trace {

using FilterPtr = CPtr<void, seccomp_release>;

// A seccomp filter, not yet loaded, that returns SECCOMP_RET_TRACE for the calls of `cls` in
// every traced ABI and allows everything else, calls of other architectures included. Fails
// when libseccomp cannot allocate it or refuses a rule ("seccomp filter: rule for statx: ...").
Result<FilterPtr> build_filter(SyscallClass cls);

} // namespace opskit::trace
