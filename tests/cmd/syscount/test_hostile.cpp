// SPDX-License-Identifier: MIT
// syscount under hostile conditions, with each backend: a thousand children at once, 64
// threads, a chain of execs, a command killed by SIGKILL with its children running on, a
// process another tracer holds, and syscount itself killed at any moment. The counts must be
// exactly what the workloads made, and afterwards no process of the test may be left stopped
// or running: each run carries a marker (its own temporary directory) in its command line,
// and the processes that still carry it are looked for in /proc.
//
// The 1,000 children take about 4 s for both backends in the sanitized build on a loaded
// 2-CPU machine, so there is no shorter form.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <sys/prctl.h>

#include "harness.hpp"

namespace {

using namespace opskit::test::syscount;
using opskit::test::have_program;
using opskit::test::run;
using opskit::test::tool;

// A process and its state letter from /proc/PID/stat ('T' stopped, 't' at a trace stop).
struct Marked {
  pid_t pid;
  char state;
};

std::ostream& operator<<(std::ostream& out, const std::vector<Marked>& marked) {
  for (const auto& m : marked)
    out << m.pid << " (state " << m.state << ") ";
  return out;
}

char process_state(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  auto paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() ? '?' : stat[paren + 2];
}

// The processes other than this one with `marker` in a word of their command line.
std::vector<Marked> marked_processes(const std::string& marker) {
  std::vector<Marked> found;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    pid_t pid = static_cast<pid_t>(std::atoi(entry.path().filename().c_str()));
    if (pid <= 0 || pid == ::getpid())
      continue;
    if (slurp(entry.path().string() + "/cmdline").find(marker) != std::string::npos)
      found.push_back({pid, process_state(pid)});
  }
  return found;
}

// For its lifetime this process is a child subreaper: what syscount leaves behind when it is
// killed is reparented here, where it can be seen and reaped, instead of to init.
class Subreaper {
public:
  Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~Subreaper() {
    reap();
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
  Subreaper(const Subreaper&) = delete;
  Subreaper& operator=(const Subreaper&) = delete;

  // Reaps what has exited; the wait status of `pid` if it was among them, else -1.
  int reap(pid_t pid = 0) {
    int found = -1;
    for (int status = 0;;) {
      pid_t done = ::waitpid(-1, &status, WNOHANG);
      if (done <= 0)
        return found;
      if (done == pid)
        found = status;
    }
  }
  // Waits until `pid`, reparented here, has ended; its wait status, or -1 after 5 s.
  int wait_for(pid_t pid) {
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid)
        return status;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }
};

// Within 10 s, every process carrying `marker` has ended; none is ever seen stopped. What is
// left is killed, so that a failure does not leave it behind either.
void check_nothing_left(const std::string& marker, Subreaper* reaper = nullptr) {
  std::vector<Marked> left;
  for (int i = 0; i < 500; ++i) {
    if (reaper)
      reaper->reap();
    left = marked_processes(marker);
    std::erase_if(left, [](const Marked& m) { return m.state == 'Z' || m.state == 'X'; });
    bool stopped = std::any_of(left.begin(), left.end(),
                               [](const Marked& m) { return m.state == 'T' || m.state == 't'; });
    if (left.empty() || stopped)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  INFO("left behind: " << left);
  CHECK(left.empty());
  for (const auto& m : left)
    ::kill(m.pid, SIGKILL);
}

// The first child of `pid` as soon as it has one (polled without a pause, to catch syscount
// between its fork and its tracing), 0 when none comes within 10 s.
pid_t first_child(pid_t pid) {
  std::string children =
      "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children";
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < until;)
    if (pid_t child = static_cast<pid_t>(std::atoi(slurp(children).c_str())); child > 0)
      return child;
  return 0;
}

// The calls and errors counted on `path`, {0, 0} when it is not in the report.
Count path_count(const json& report, const std::string& path) {
  const json* p = find_path(report, path);
  if (p == nullptr)
    return {};
  return {p->at("calls").get<std::uint64_t>(), p->at("errors").get<std::uint64_t>()};
}

} // namespace

TEST_CASE("syscount: children forked at once are each counted, and none is left behind",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  const std::uint64_t children = 1000, stats = 3;
  TempDir tmp;
  std::string missing = tmp.file("missing");
  auto traced = syscount(
      backend, "stats",
      {workload("fork_stats"), std::to_string(children), std::to_string(stats), missing}, tmp);
  CHECK(traced.outcome.exit_status == 0);
  CHECK(traced.outcome.err.empty()); // no warning of calls or processes the kernel lost
  CHECK(path_count(traced.report, missing) == Count{children * stats, children * stats});
  CHECK(traced.report.at("processes").size() == children + 1);
  check_nothing_left(tmp.path.string());
}

TEST_CASE("syscount: 64 threads making stats at once are all counted", "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  std::string missing = tmp.file("missing");
  auto traced = syscount(backend, "stats", {workload("thread_stats"), "64", "100", missing}, tmp);
  CHECK(traced.outcome.exit_status == 0);
  CHECK(path_count(traced.report, missing) == Count{6400, 6400});
  CHECK(traced.report.at("processes").size() == 1);
  check_nothing_left(tmp.path.string());
}

TEST_CASE("syscount: a chain of execs in one process is followed to its end",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  std::string missing = tmp.file("missing");
  auto traced = syscount(backend, "files", {workload("exec_chain"), "10", "7", missing}, tmp);
  CHECK(traced.outcome.exit_status == 0);
  CHECK(path_count(traced.report, missing) == Count{77, 77});  // 11 programs, 7 stats each
  CHECK(json_counts(traced.report)["execve"] == Count{11, 0}); // syscount's child's, and 10
  REQUIRE(traced.report.at("processes").size() == 1);
  CHECK(traced.report.at("processes")[0].at("comm") == "exe"); // named by /proc/self/exe
  check_nothing_left(tmp.path.string());
}

TEST_CASE("syscount: a command killed by SIGKILL with its children running on exits 137, "
          "every call counted",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  std::string missing = tmp.file("missing");
  auto traced = syscount(backend, "stats", {workload("kill_tree"), "20", "10", missing}, tmp);
  CHECK(traced.outcome.exit_status == 137);
  CHECK(traced.report.at("exit_status") == 137);
  // the parent's 10 stats, and each child's 10 before and 10 after the parent's end
  CHECK(path_count(traced.report, missing) == Count{410, 410});
  CHECK(traced.report.at("processes").size() == 21);
  check_nothing_left(tmp.path.string());
}

TEST_CASE("syscount: 64 threads killed by SIGKILL in the middle of their calls exit 137",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  std::string missing = tmp.file("missing");
  auto traced =
      syscount(backend, "stats", {workload("thread_stats"), "64", "50", missing, "kill"}, tmp);
  CHECK(traced.outcome.exit_status == 137);
  CHECK(traced.report.at("exit_status") == 137);
  CHECK(path_count(traced.report, missing) == Count{3200, 3200});
  check_nothing_left(tmp.path.string());
}

TEST_CASE("syscount: killed with SIGKILL as it starts the command, it never leaves it stopped",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  Subreaper reaper;
  TempDir tmp;
  // Killed the moment its child appears, before or while it holds the child for the tracer:
  // under ptrace the command dies too, under eBPF it goes on and runs to its end, uncounted.
  for (int round = 0; round < 5; ++round) {
    INFO("round " << round);
    Child traced({tool("syscount"), "stats", "--backend", backend, "-o", "/dev/null", "--", "sh",
                  "-c", "sleep 0.2; exit 5", tmp.path.string()});
    pid_t command = first_child(traced.pid);
    REQUIRE(command > 0);
    ::kill(traced.pid, SIGKILL);
    CHECK(traced.wait() == 128 + SIGKILL);
    int status = reaper.wait_for(command);
    if (status == -1) {
      CHECK(process_state(command) != 'T');
      ::kill(command, SIGKILL);
      FAIL("the command did not end");
    }
    if (backend == "ptrace")
      CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    else
      CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 5));
  }
  check_nothing_left(tmp.path.string(), &reaper);
}

TEST_CASE("syscount: a SIGTERM that comes as it starts the command still reaches the command",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    // Until its input ends, which the test holds back
    Child traced({tool("syscount"), "stats", "--backend", backend, "-o", "/dev/null", "--",
                  workload("wait_lines")});
    REQUIRE(first_child(traced.pid) > 0);
    ::kill(traced.pid, SIGTERM);
    for (int i = 0; i < 500 && process_state(traced.pid) != 'Z'; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    traced.in.reset();                     // lost, the signal: end the command, and fail below
    CHECK(traced.wait() == 128 + SIGTERM); // the command's status: it died of it
  }
}

TEST_CASE("syscount: killed by SIGINT, SIGTERM or SIGKILL while it counts, the command is never "
          "left stopped",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  const int sig = GENERATE(SIGINT, SIGTERM, SIGKILL);
  INFO("signal " << sig);
  Subreaper reaper;
  TempDir tmp;
  Child traced({tool("syscount"), "stats", "--backend", backend, "-o", tmp.file("report.txt"), "--",
                workload("wait_lines")});
  std::string ready = Child::read_line(traced.out);
  REQUIRE(ready.starts_with("ready "));
  pid_t command = std::stoi(ready.substr(6));
  traced.say("go\n");
  REQUIRE(Child::read_line(traced.out) == "done");
  ::kill(traced.pid, sig);
  CHECK(traced.wait() == 128 + sig);
  if (sig != SIGKILL) { // forwarded: the command ends of it, and the report follows
    CHECK(::kill(command, 0) == -1);
    CHECK(slurp(tmp.file("report.txt")).find("/nonexistent/line-marker") != std::string::npos);
    return;
  }
  CHECK(slurp(tmp.file("report.txt")).empty()); // killed before it could write one
  if (backend == "ptrace") {                    // killed with its tracer (PTRACE_O_EXITKILL)
    int status = reaper.wait_for(command);
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    return;
  }
  // eBPF: runs on, untraced, reparented here
  CHECK(process_state(command) != 'T');
  CHECK(proc_status_field(command, "TracerPid") == "0");
  traced.say("go\n");
  CHECK(Child::read_line(traced.out) == "done");
  traced.in.reset();
  int status = reaper.wait_for(command);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

TEST_CASE("syscount: a SIGTERM after the command has ended stops the wait for what it left "
          "running",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  Subreaper reaper;
  TempDir tmp;
  Child traced({tool("syscount"), "stats", "--backend", backend, "--json", "-o",
                tmp.file("report.json"), "--", "sh", "-c",
                "sleep 300 </dev/null >/dev/null 2>&1 & echo $!; exit 3"});
  pid_t command = first_child(traced.pid);
  REQUIRE(command > 0);
  pid_t left = static_cast<pid_t>(std::stoi(Child::read_line(traced.out)));
  REQUIRE(left > 0);
  for (int i = 0; i < 500 && ::kill(command, 0) == 0; ++i) // until syscount has reaped it
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(traced.pid, SIGTERM);
  CHECK(traced.wait() == 3); // the command's status, well before the sleep's end
  auto report = json::parse(slurp(tmp.file("report.json")));
  CHECK(report.at("exit_status") == 3);
  CHECK(report.at("wall_s").get<double>() < 60); // to the command's exit, not the sleep's
  if (backend == "ptrace") { // killed, as when syscount dies: untraced, its calls would fail
    int status = reaper.wait_for(left);
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    return;
  }
  CHECK(::kill(left, 0) == 0); // eBPF: runs on, uncounted
  ::kill(left, SIGKILL);
  reaper.wait_for(left);
}

TEST_CASE("syscount: -p on a process another tracer holds: ptrace fails naming EPERM and the "
          "tracer, eBPF counts it",
          "[syscount][hostile][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  if (!have_program("strace"))
    OPSKIT_SKIP("strace is not installed");
  TempDir tmp;
  Child target({workload("wait_lines"), "5"});
  REQUIRE(Child::read_line(target.out).starts_with("ready "));
  std::string pid = std::to_string(target.pid);
  Child strace({"/usr/bin/env", "strace", "-q", "-o", "/dev/null", "-p", pid}); // env: PATH
  std::string tracer;
  for (int i = 0; i < 1000 && (tracer.empty() || tracer == "0"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    tracer = proc_status_field(target.pid, "TracerPid");
  }
  REQUIRE(tracer == std::to_string(strace.pid));

  if (backend == "ptrace") {
    auto refused = run({tool("syscount"), "stats", "--backend", "ptrace", "-p", pid});
    CHECK(refused.exit_status == 1);
    CHECK(refused.err == "syscount: error: attach to " + pid +
                             ": Operation not permitted (EPERM): process " + tracer +
                             " (strace) is tracing it already\n");
  } else { // the kernel counts: no ptrace needed
    Child counting({tool("syscount"), "stats", "--backend", "ebpf", "-p", pid, "--json", "-o",
                    tmp.file("report.json")});
    REQUIRE(Child::read_line(counting.err).starts_with("syscount: attached to process " + pid));
    for (int i = 0; i < 3; ++i) {
      target.say("go\n");
      CHECK(Child::read_line(target.out) == "done");
    }
    ::kill(counting.pid, SIGINT);
    CHECK(counting.wait() == 0);
    auto report = json::parse(slurp(tmp.file("report.json")));
    CHECK(path_count(report, "/nonexistent/line-marker") == Count{15, 15});
  }
  // Still strace's, and running.
  CHECK(proc_status_field(target.pid, "TracerPid") == tracer);
  target.say("go\n");
  CHECK(Child::read_line(target.out) == "done");
}

TEST_CASE("syscount: -p killed by SIGKILL leaves the process running, untraced and not stopped",
          "[syscount][hostile]") {
  OPSKIT_EACH_BACKEND(backend);
  Child target({workload("wait_lines"), "5"});
  REQUIRE(Child::read_line(target.out).starts_with("ready "));
  Child tracer({tool("syscount"), "stats", "--backend", backend, "-p", std::to_string(target.pid),
                "-o", "/dev/null"});
  REQUIRE(Child::read_line(tracer.err).starts_with("syscount: attached"));
  target.say("go\n");
  CHECK(Child::read_line(target.out) == "done");
  ::kill(tracer.pid, SIGKILL);
  CHECK(tracer.wait() == 128 + SIGKILL);
  // The kernel detaches a dead tracer's tracees and resumes them.
  CHECK(proc_status_field(target.pid, "TracerPid") == "0");
  CHECK(process_state(target.pid) != 'T');
  target.say("go\n");
  CHECK(Child::read_line(target.out) == "done");
  target.in.reset();
  CHECK(target.wait() == 0);
}
