// SPDX-License-Identifier: MIT
// Test workload: vforks 10 children; each of the first 9 tries to exec a missing program, then
// execs /bin/true; the last exits 3 without exec. The parent stats before each vfork.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

// vfork in a function of its own, so that no caller variable lives across it.
[[gnu::noinline]] pid_t start_child(bool exec) {
  pid_t pid = vfork();
  if (pid == 0) {
    char* const args[] = {const_cast<char*>("true"), nullptr};
    if (!exec)
      _exit(3);
    execv("/nonexistent/program", args);
    execv("/bin/true", args);
    _exit(127);
  }
  return pid;
}

} // namespace

int main() {
  int failures = 0;
  for (int i = 0; i < 10; ++i) {
    struct stat st;
    stat("/nonexistent/before-vfork", &st);
    pid_t pid = start_child(i < 9);
    int status = 0;
    waitpid(pid, &status, 0);
    failures += !(WIFEXITED(status) && WEXITSTATUS(status) == (i < 9 ? 0 : 3));
  }
  return failures;
}
