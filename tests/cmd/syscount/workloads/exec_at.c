// SPDX-License-Identifier: MIT
// Test workload: execveat in its two forms, each in a child of its own. One runs "true" by its
// name relative to a descriptor of /usr/bin; the other runs the program a descriptor holds
// (AT_EMPTY_PATH, an empty path that looks nothing up). Exits 0 when both children did.
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(const char* dir, const char* name, int flags) {
  pid_t pid = fork();
  if (pid == 0) {
    char* argv[] = {"true", 0};
    char* envp[] = {0};
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    syscall(SYS_execveat, fd, name, argv, envp, flags);
    _exit(127);
  }
  int status = 0;
  return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
         WEXITSTATUS(status) == 0;
}

int main(void) {
  return run("/usr/bin", "true", 0) && run("/usr/bin/true", "", AT_EMPTY_PATH) ? 0 : 1;
}
