// SPDX-License-Identifier: MIT
#include "process.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opskit/handle.hpp"

extern char** environ;

namespace opskit::test {

namespace {

struct Pipe {
  UniqueFd read, write;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    read.reset(fds[0]);
    write.reset(fds[1]);
  }
};

} // namespace

Outcome run(const std::vector<std::string>& argv, const std::string& input) {
  ::signal(SIGPIPE, SIG_IGN); // a child that exits without reading its input must not kill us
  Pipe in, out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out.write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err.write.get(), 2);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw std::runtime_error("spawn " + argv[0] + ": " + std::strerror(rc));
  in.read.reset();
  out.write.reset();
  err.write.reset();

  Outcome outcome;
  std::size_t written = 0;
  if (input.empty())
    in.write.reset();
  pollfd fds[3] = {{out.read.get(), POLLIN, 0},
                   {err.read.get(), POLLIN, 0},
                   {in.write ? in.write.get() : -1, POLLOUT, 0}};
  std::string* sinks[2] = {&outcome.out, &outcome.err};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR)
        continue;
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      char buf[65536];
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0)
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      else
        fds[i].fd = -1;
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      ssize_t n = ::write(fds[2].fd, input.data() + written, input.size() - written);
      if (n > 0)
        written += static_cast<std::size_t>(n);
      if (n <= 0 || written == input.size()) {
        in.write.reset();
        fds[2].fd = -1;
      }
    }
  }
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  outcome.max_rss_kib = usage.ru_maxrss;
  outcome.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return outcome;
}

int spawn_quiet(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw std::runtime_error("spawn " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

std::string tool(const std::string& name) {
  return std::string(OPSKIT_BIN_DIR) + "/../" + name + "/" + name;
}

bool have_program(const std::string& program) {
  return run({"sh", "-c", "command -v " + program}).exit_status == 0;
}

} // namespace opskit::test
