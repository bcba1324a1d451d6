// SPDX-License-Identifier: MIT
#pragma once

// What the syscount tests share: the built syscount run on a command with its JSON report
// parsed, the report's counts, each backend in turn, and a child with pipes on its standard
// streams.

#include <catch2/catch.hpp>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "opskit/handle.hpp"
#include "process.hpp"
#include "skip.hpp"

extern char** environ;

namespace opskit::test::syscount {

namespace fs = std::filesystem;
using nlohmann::json;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "syscount-test-XXXXXX").string();
    if (!::mkdtemp(templ.data()))
      throw std::runtime_error("mkdtemp failed");
    path = templ;
  }
  ~TempDir() { fs::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
};

inline std::string workload(const std::string& name) {
  return std::string(SYSCOUNT_WORKLOADS) + "/syscount_" + name;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Count {
  std::uint64_t calls = 0, errors = 0;
  bool operator==(const Count&) const = default;
};
// By syscall: "openat" for a call of the machine's own ABI, "statx@i386" for another ABI's.
using Counts = std::map<std::string, Count>;

// The machine's own ABI as syscount names it: uname -m ("x86_64").
inline std::string native_abi() {
  utsname u{};
  REQUIRE(::uname(&u) == 0);
  return u.machine;
}

inline std::string count_key(const std::string& name, const std::string& abi) {
  return abi == native_abi() ? name : name + "@" + abi;
}

inline std::ostream& operator<<(std::ostream& out, const Counts& counts) {
  for (const auto& [name, c] : counts)
    out << name << ": " << c.calls << " calls, " << c.errors << " errors\n";
  return out;
}

struct Traced {
  Outcome outcome;
  json report;
};

// Runs `syscount CLS --backend BACKEND --json -o FILE [extra...] -- command...` and parses the
// report, which must name the backend.
inline Traced syscount(const std::string& backend, const std::string& cls,
                       const std::vector<std::string>& command, const TempDir& tmp,
                       const std::vector<std::string>& extra = {}) {
  std::string out = tmp.file("report.json");
  std::vector<std::string> argv{tool("syscount"), cls, "--backend", backend, "--json",
                                "--top",          "0", "-o",        out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  Traced t{run(argv), {}};
  INFO(t.outcome.err);
  REQUIRE(fs::exists(out));
  t.report = json::parse(slurp(out));
  CHECK(t.report.at("backend") == backend);
  return t;
}

inline Counts json_counts(const json& report) {
  Counts counts;
  for (const auto& s : report.at("syscalls"))
    counts[count_key(s.at("name"), s.at("abi"))] = {s.at("calls").get<std::uint64_t>(),
                                                    s.at("errors").get<std::uint64_t>()};
  return counts;
}

inline const json* find_path(const json& report, const std::string& path) {
  for (const auto& p : report.at("paths"))
    if (p.at("path") == path)
      return &p;
  return nullptr;
}

// Why `backend` cannot count here (its one line from syscount), empty when it can: for ebpf,
// the kernel must load the programs, which takes root (CI runs as root).
inline std::string backend_unavailable(const std::string& backend) {
  static std::map<std::string, std::string> known;
  if (auto it = known.find(backend); it != known.end())
    return it->second;
  auto done =
      run({tool("syscount"), "stats", "--backend", backend, "-o", "/dev/null", "--", "true"});
  return known[backend] = done.exit_status == 0 ? "" : done.err.substr(0, done.err.find('\n'));
}

// Runs the rest of the test case once for each backend, named `var`; a backend that cannot
// count here is skipped with the reason.
#define OPSKIT_EACH_BACKEND(var)                                                                   \
  const std::string var = GENERATE(as<std::string>{}, "ptrace", "ebpf");                           \
  INFO("backend " << var);                                                                         \
  if (auto why = backend_unavailable(var); !why.empty())                                           \
  OPSKIT_SKIP(var << " backend: " << why)

// A child with pipes on its stdin, stdout and stderr.
struct Child {
  pid_t pid = -1;
  UniqueFd in, out, err;

  explicit Child(const std::vector<std::string>& argv) {
    int fds[3][2];
    for (auto& p : fds)
      REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0][0], 0);
    posix_spawn_file_actions_adddup2(&actions, fds[1][1], 1);
    posix_spawn_file_actions_adddup2(&actions, fds[2][1], 2);
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[0][0]);
    ::close(fds[1][1]);
    ::close(fds[2][1]);
    in.reset(fds[0][1]);
    out.reset(fds[1][0]);
    err.reset(fds[2][0]);
    REQUIRE(rc == 0);
  }
  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      wait();
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  static std::string read_line(const UniqueFd& fd) {
    std::string line;
    char c;
    while (::read(fd.get(), &c, 1) == 1 && c != '\n')
      line += c;
    return line;
  }
  static std::string read_all(const UniqueFd& fd) {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd.get(), buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<std::size_t>(n));
    return text;
  }
  void say(const std::string& line) const {
    REQUIRE(::write(in.get(), line.data(), line.size()) == static_cast<ssize_t>(line.size()));
  }
  int wait() {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

// "TracerPid" and "State" of a process, from /proc/PID/status.
inline std::string proc_status_field(pid_t pid, const std::string& field) {
  std::istringstream lines(slurp("/proc/" + std::to_string(pid) + "/status"));
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(field + ":")) {
      auto value = line.substr(field.size() + 1);
      return value.substr(value.find_first_not_of(" \t"));
    }
  return {};
}

} // namespace opskit::test::syscount
