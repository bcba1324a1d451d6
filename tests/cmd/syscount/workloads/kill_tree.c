// SPDX-License-Identifier: MIT
// Test workload: a process killed by SIGKILL while its children run on. It forks CHILDREN
// children, each of which stats PATH STATS times, says it is ready and waits for its parent to
// die; then the parent stats PATH STATS times and kills itself with SIGKILL. Each child, seeing
// the end of its parent (end of file on a pipe only the parent holds open), stats PATH STATS
// more times and exits 0. PATH is statted STATS * (2 * CHILDREN + 1) times in all.
// Usage: kill_tree CHILDREN STATS PATH
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void stat_times(const char* path, int times) {
  struct stat st;
  for (int i = 0; i < times; ++i)
    stat(path, &st);
}

int main(int argc, char** argv) {
  if (argc != 4)
    return 2;
  int children = atoi(argv[1]), stats = atoi(argv[2]);
  const char* path = argv[3];
  int ready[2], hold[2];
  if (pipe(ready) != 0 || pipe(hold) != 0)
    return 1;
  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid < 0)
      return 1;
    if (pid == 0) {
      close(ready[0]);
      close(hold[1]);
      stat_times(path, stats);
      char byte = 0;
      if (write(ready[1], &byte, 1) != 1)
        _exit(1);
      while (read(hold[0], &byte, 1) > 0) {
      }
      stat_times(path, stats);
      _exit(0);
    }
  }
  close(ready[1]);
  close(hold[0]);
  char byte;
  for (int c = 0; c < children; ++c)
    if (read(ready[0], &byte, 1) != 1)
      return 1;
  stat_times(path, stats);
  kill(getpid(), SIGKILL);
  return 1;
}
