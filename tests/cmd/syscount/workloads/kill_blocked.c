// SPDX-License-Identifier: MIT
// Test workload: calls cut short by SIGKILL. It forks CHILDREN children, each of which says it
// is ready and blocks in a read of a pipe no one writes; then it kills each with SIGKILL, waits
// for them and exits 0. A killed child's read never returns to it.
// Usage: kill_blocked CHILDREN
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2)
    return 2;
  int children = atoi(argv[1]);
  int ready[2], never[2];
  if (pipe(ready) != 0 || pipe(never) != 0)
    return 1;
  // SIGCHLD held back: a child's death would otherwise interrupt a wait4 under a tracer, or not,
  // as the two tracers' timing goes, and strace's count and syscount's differ.
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  pid_t pids[64];
  for (int c = 0; c < children && c < 64; ++c) {
    pids[c] = fork();
    if (pids[c] < 0)
      return 1;
    if (pids[c] == 0) {
      char byte = 'r';
      if (write(ready[1], &byte, 1) != 1)
        _exit(1);
      read(never[0], &byte, 1);
      _exit(1);
    }
  }
  for (int c = 0; c < children; ++c) {
    char byte;
    if (read(ready[0], &byte, 1) != 1)
      return 1;
  }
  // Each child is in its read by now, traced or not. A wait that looked (at /proc/PID/wchan)
  // would make calls of its own, as many as it looked: strace's run and syscount's would differ.
  usleep(500 * 1000);
  for (int c = 0; c < children; ++c)
    kill(pids[c], SIGKILL);
  for (int c = 0; c < children; ++c)
    waitpid(pids[c], 0, 0);
  return 0;
}
