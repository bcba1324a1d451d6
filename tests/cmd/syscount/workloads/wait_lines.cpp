// SPDX-License-Identifier: MIT
// Test workload: prints "ready PID", then for each line read on stdin stats
// /nonexistent/line-marker COUNT times and prints "done". Exits 0 at end of input.
#include <cstdio>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int count = argc > 1 ? std::stoi(argv[1]) : 1;
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  char line[256];
  while (std::fgets(line, sizeof line, stdin)) {
    struct stat st;
    for (int i = 0; i < count; ++i)
      stat("/nonexistent/line-marker", &st);
    std::printf("done\n");
    std::fflush(stdout);
  }
  return 0;
}
