// SPDX-License-Identifier: MIT
// Test workload: forks CHILDREN processes, all alive at once; each stats PATH STATS times and
// exits 0. The parent makes no stat of PATH, waits for every child and exits 0, or 1 when a
// child failed or could not be forked.
// Usage: fork_stats CHILDREN STATS PATH
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 4)
    return 2;
  int children = atoi(argv[1]), stats = atoi(argv[2]);
  const char* path = argv[3];
  int failed = 0;
  for (int c = 0; c < children; ++c) {
    pid_t pid = fork();
    if (pid < 0) {
      failed = 1;
      break;
    }
    if (pid == 0) {
      struct stat st;
      for (int i = 0; i < stats; ++i)
        stat(path, &st);
      _exit(0);
    }
  }
  int status;
  while (wait(&status) > 0)
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  return failed;
}
