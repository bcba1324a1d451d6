// SPDX-License-Identifier: MIT
// Test workload: stats PATH STATS times, then execs itself with LEFT one less, down to 0: LEFT
// + 1 programs in one process, each making STATS stats, and LEFT successful execs.
// Usage: exec_chain LEFT STATS PATH
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 4)
    return 2;
  int left = atoi(argv[1]), stats = atoi(argv[2]);
  struct stat st;
  for (int i = 0; i < stats; ++i)
    stat(argv[3], &st);
  if (left == 0)
    return 0;
  char next[16];
  snprintf(next, sizeof next, "%d", left - 1);
  char* args[] = {argv[0], next, argv[2], argv[3], NULL};
  execv("/proc/self/exe", args);
  return 1;
}
