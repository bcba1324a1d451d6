// SPDX-License-Identifier: MIT
// Test workload: runs a command where installing a seccomp filter fails with EPERM, as in a
// sandbox that forbids it. Usage: no_seccomp COMMAND [ARGS...]
#include <cerrno>
#include <cstdio>

#include <seccomp.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2)
    return 2;
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(seccomp), 0) < 0 ||
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 1,
                       SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP)) < 0 ||
      seccomp_load(ctx) < 0) {
    std::perror("no_seccomp: seccomp");
    return 1;
  }
  seccomp_release(ctx);
  execvp(argv[1], argv + 1);
  std::perror("no_seccomp: exec");
  return 127;
}
