// SPDX-License-Identifier: MIT
// Test workload: a thread other than the main one stats a path and then execs /bin/true, which
// gives it the process's pid and ends every other thread, the main one blocked in join.
#include <thread>

#include <sys/stat.h>
#include <unistd.h>

int main() {
  std::thread worker([] {
    struct stat st;
    stat("/nonexistent/before-thread-exec", &st);
    char* const args[] = {const_cast<char*>("true"), nullptr};
    execv("/bin/true", args);
    _exit(127);
  });
  worker.join();
  return 1; // not reached: the exec replaces the whole process
}
