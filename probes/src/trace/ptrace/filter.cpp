// SPDX-License-Identifier: MIT
// The seccomp filter that stops a traced command only at the calls being counted.
//
// One filter covers every ABI the kernel runs (traced_abis): libseccomp emits a check of the
// call's architecture and one branch per ABI, and for x86_64 and x32, which share
// AUDIT_ARCH_X86_64, a test of __X32_SYSCALL_BIT. A rule is added by name, as libseccomp's
// native number for it or, for a name the native ABI lacks (stat64), its pseudo-number;
// libseccomp then resolves the name in each ABI's table and leaves the rule out of the ABIs that
// have no such call. The same names, resolved the same way, make the class tables the tracer
// decodes stops with (syscalls.cpp), so the filter and the decoding cannot disagree.
#include "filter.hpp"

#include <set>
#include <string>

namespace opskit::trace {

Result<FilterPtr> build_filter(SyscallClass cls) {
  FilterPtr ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx)
    return fail("seccomp filter: cannot allocate");
  if (int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW); rc < 0)
    return fail(Error::from_errno("seccomp filter:", "bad-arch action", -rc));
  for (Abi abi : traced_abis()) {
    if (abi == Abi::native)
      continue; // seccomp_init added it
    if (int rc = seccomp_arch_add(ctx.get(), seccomp_arch(abi)); rc < 0)
      return fail(Error::from_errno("seccomp filter: add ABI", to_string(abi), -rc));
  }
  std::set<std::string_view> names;
  for (const auto& call : class_syscalls(cls))
    names.insert(call.name);
  for (auto name : names) {
    int nr = seccomp_syscall_resolve_name(std::string(name).c_str());
    if (int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_TRACE(0), nr, 0); rc < 0)
      return fail(Error::from_errno("seccomp filter: rule for", name, -rc));
  }
  return ctx;
}

} // namespace opskit::trace
