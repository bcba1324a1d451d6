// SPDX-License-Identifier: MIT
// syscount end to end: the built binary traces real programs, and its per-syscall calls and
// errors must equal strace's for the same command. Needs ptrace of our own children and
// seccomp (any Linux >= 5.3); the strace comparisons are skipped, with a warning, without strace.
#include <catch2/catch.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness.hpp"
#include "process.hpp"
#include "skip.hpp"

namespace {

using namespace opskit::test::syscount;
using opskit::test::have_program;
using opskit::test::Outcome;
using opskit::test::run;
using opskit::test::tool;

constexpr const char* k_strace_files_filter =
    "trace=%%stat,access,faccessat,faccessat2,readlink,readlinkat,open,openat,openat2,creat,"
    "execve,execveat,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,chdir";
constexpr const char* k_strace_filter =
    "trace=%%stat,access,faccessat,faccessat2,readlink,readlinkat";

// strace -f -c's tables: "% time seconds usecs/call calls [errors] syscall", then a total line;
// one for the machine's own ABI, then one for each other ABI seen, headed "System call usage
// summary for 32 bit mode:" (i386) or "... for x32 mode:". `filter` empty: every call.
Counts strace_counts(const std::vector<std::string>& command, const TempDir& tmp,
                     const std::string& filter = k_strace_filter) {
  std::string out = tmp.file("strace.txt");
  std::vector<std::string> argv{"strace", "-f", "-c", "-o", out};
  if (!filter.empty())
    argv.insert(argv.end(), {"-e", filter});
  argv.insert(argv.end(), command.begin(), command.end());
  Outcome done = run(argv);
  INFO(done.err);
  Counts counts;
  std::string abi = native_abi();
  std::istringstream lines(slurp(out));
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("System call usage summary for ")) {
      abi = line.find("32 bit") != std::string::npos ? "i386"
            : line.find("x32") != std::string::npos  ? "x32"
                                                     : native_abi();
      continue;
    }
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    if (w.size() < 5 || w[0] == "%" || w.back() == "total" ||
        !std::isdigit(static_cast<unsigned char>(w[0][0])))
      continue;
    counts[count_key(w.back(), abi)] = {std::stoull(w[3]), w.size() == 6 ? std::stoull(w[4]) : 0};
  }
  return counts;
}

// The same command under syscount and under strace give the same calls and errors: `stats`
// against strace's stat family, access and readlink; `all` against everything.
json check_against_strace(const std::string& backend, const std::vector<std::string>& command,
                          const std::string& cls = "stats") {
  TempDir tmp;
  auto traced = syscount(backend, cls, command, tmp);
  CHECK(traced.outcome.exit_status == 0);
  Counts ours = json_counts(traced.report);
  CHECK_FALSE(ours.empty());
  if (!have_program("strace")) {
    WARN("strace is not installed: comparison skipped");
    return traced.report;
  }
  Counts theirs = strace_counts(command, tmp,
                                cls == "all"     ? ""
                                : cls == "files" ? k_strace_files_filter
                                                 : k_strace_filter);
  INFO("syscount:\n" << ours << "strace:\n" << theirs);
  CHECK(ours == theirs);
  return traced.report;
}

// A static 32-bit build of workloads/stat32.c, or why there is none.
struct Program32 {
  std::string path; // empty when it cannot be built or run here
  std::string why_not;
};

// The errno with which the kernel refuses to execute `program` with no arguments (ENOEXEC when
// it cannot run 32-bit programs), or 0 when it ran.
int exec_error(const std::string& program) {
  std::vector<char*> argv{const_cast<char*>(program.c_str()), nullptr};
  pid_t pid = 0;
  if (int rc = ::posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ))
    return rc;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return 0;
}

// Builds stat32 in `tmp` with gcc -m32 -static (gcc-multilib), and makes sure it runs.
Program32 build_stat32(const TempDir& tmp) {
  if (!have_program("gcc"))
    return {{}, "gcc is not installed"};
  std::string exe = tmp.file("stat32");
  Outcome built = run({"gcc", "-m32", "-static", "-O1", "-o", exe,
                       std::string(SYSCOUNT_WORKLOAD_SOURCES) + "/stat32.c"});
  if (built.exit_status != 0)
    return {{},
            "gcc -m32 -static cannot build a 32-bit program here (is gcc-multilib "
            "installed?): " +
                built.err.substr(0, built.err.find('\n'))};
  if (int err = exec_error(exe); err != 0)
    return {{}, std::string("this kernel cannot run 32-bit programs: exec: ") + std::strerror(err)};
  return {exe, {}};
}

// The header line of the text report's Calls table.
std::string calls_header(const std::string& report) {
  auto at = report.find("\nCalls\n");
  if (at == std::string::npos)
    return {};
  at += 7;
  return report.substr(at, report.find('\n', at) - at);
}

} // namespace

TEST_CASE("syscount: a 25-module Perl load counts as strace counts it", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(
      backend, {"perl", std::string(OPSKIT_TEST_DATA) + "/syscount/modules.pl"});
  // Each @INC directory before the one holding the modules is probed in vain, .pmc and .pm.
  std::map<std::string, std::uint64_t> suffixes;
  for (const auto& s : report.at("failed_suffixes"))
    suffixes[s.at("suffix")] = s.at("failed");
  CHECK(suffixes[".pmc"] > 300);
  CHECK(suffixes[".pm"] > 250);
  REQUIRE_FALSE(report.at("failed_dirs").empty());
  CHECK(report.at("failed_dirs")[0].at("failed").get<int>() >= 25);
  CHECK(report.at("command")[0] == "perl");
  CHECK(report.at("class") == "stats");
}

TEST_CASE("syscount: find over a tree counts as strace counts it", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tree; // 20 directories, each with a subdirectory and 10 files
  for (int d = 0; d < 20; ++d) {
    fs::create_directories(tree.path / ("d" + std::to_string(d)) / "sub");
    for (int f = 0; f < 10; ++f)
      std::ofstream(tree.path / ("d" + std::to_string(d)) / ("f" + std::to_string(f)));
  }
  auto report = check_against_strace(backend, {"find", tree.path.string(), "-name", "x"});
  // find looks up each directory it descends into, by a full or a relative name.
  for (int d = 0; d < 20; ++d) {
    std::string name = "d" + std::to_string(d);
    bool seen = false;
    for (const auto& p : report.at("paths")) {
      auto path = p.at("path").get<std::string>();
      seen = seen || path == name || path.ends_with("/" + name);
    }
    CHECK(seen);
  }
}

TEST_CASE("syscount: a shell script spawning 50 processes counts as strace counts it",
          "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(
      backend, {"sh", "-c", "i=0; while [ $i -lt 50 ]; do /bin/true; i=$((i+1)); done"});
  CHECK(report.at("processes").size() == 51);
  CHECK(report.at("processes")[1].at("comm") == "true");
}

TEST_CASE("syscount: stats from 8 threads at once are all counted", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir dir;
  auto report = check_against_strace(backend, {workload("stat_threads"), dir.path.string(), "250"});
  for (int t = 0; t < 8; ++t) {
    const json* missing = find_path(report, dir.file("missing-" + std::to_string(t)));
    REQUIRE(missing != nullptr);
    CHECK(missing->at("calls") == 250);
    CHECK(missing->at("errno").at("ENOENT") == 250);
  }
  CHECK(report.at("processes").size() == 1); // threads count under their process
}

TEST_CASE("syscount: vfork and exec are followed", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(backend, {workload("vfork_exec")});
  const json* before = find_path(report, "/nonexistent/before-vfork");
  REQUIRE(before != nullptr);
  CHECK(before->at("calls") == 10);

  TempDir tmp;
  auto files = syscount(backend, "files", {workload("vfork_exec")}, tmp);
  CHECK(files.outcome.exit_status == 0);
  auto counts = json_counts(files.report);
  CHECK(counts["execve"] == Count{19, 9}); // itself, then 9 children: one failure, one success
  const json* missing = find_path(files.report, "/nonexistent/program");
  REQUIRE(missing != nullptr);
  CHECK(missing->at("errno").at("ENOENT") == 9);
}

TEST_CASE("syscount: a thread that execs takes over the process", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(backend, {workload("thread_exec")});
  const json* before = find_path(report, "/nonexistent/before-thread-exec");
  REQUIRE(before != nullptr);
  CHECK(before->at("calls") == 1);
  REQUIRE(report.at("processes").size() == 1);
  CHECK(report.at("processes")[0].at("comm") == "true");
}

TEST_CASE("syscount: execveat's path is the name it was given, and none for a descriptor's "
          "program",
          "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(backend, {workload("exec_at")}, "files");
  CHECK(json_counts(report)["execveat"] == Count{2, 0});
  const json* name = find_path(report, "true");
  REQUIRE(name != nullptr);
  CHECK(name->at("calls") == 1);
  for (const auto& p : report.at("paths"))
    CHECK_FALSE(p.at("path").get<std::string>().starts_with("/dev/fd/"));
}

TEST_CASE("syscount: a call cut short by SIGKILL is not counted, as strace does not count it",
          "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(backend, {workload("kill_blocked"), "3"}, "all");
  auto counts = json_counts(report);
  CHECK(counts["kill"] == Count{3, 0});
  CHECK(counts["read"].errors == 0); // no ERESTARTSYS of a read that never returned
}

TEST_CASE("syscount: long paths, paths at a page's end and calls on an fd", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  auto report = check_against_strace(backend, {workload("odd_paths")});
  const json* edge = find_path(report, "/nonexistent/page-edge");
  REQUIRE(edge != nullptr);
  CHECK(edge->at("errno").at("ENOENT") == 1);
  bool found_long = false;
  for (const auto& p : report.at("paths")) {
    auto path = p.at("path").get<std::string>();
    if (path.starts_with("/aaaa")) {
      found_long = true;
      CHECK(path.size() == 4096 + 3);
      CHECK(path.ends_with("..."));
      CHECK(p.at("errno").at("ENAMETOOLONG") == 1);
    }
  }
  CHECK(found_long);
}

TEST_CASE("syscount: exits with the command's status, 128+N for signal N", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  CHECK(syscount(backend, "stats", {"sh", "-c", "exit 3"}, tmp).outcome.exit_status == 3);
  auto killed = syscount(backend, "stats", {"sh", "-c", "kill -KILL $$"}, tmp);
  CHECK(killed.outcome.exit_status == 137);
  CHECK(killed.report.at("exit_status") == 137);
  CHECK(killed.report.at("signal") == "SIGKILL"); // as strace tells it, and not a status of 137
  auto text = run({tool("syscount"), "stats", "--backend", backend, "sh", "-c", "kill -TERM $$"});
  CHECK(text.exit_status == 143);
  CHECK(text.err.starts_with("syscount stats: sh -c 'kill -TERM $$', killed by SIGTERM\n"));
}

TEST_CASE(
    "syscount: a standard error that cannot be written loses its messages and not the command",
    "[syscount]") {
  // Without the privilege for eBPF, auto says on stderr that it counts with ptrace before the
  // command runs.
  auto unprivileged =
      run({"setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", "sh", "-c",
           tool("syscount") + " stats -o /dev/null -- sh -c 'echo ran; exit 3' 2>/dev/full"});
  if (unprivileged.exit_status == 127 && unprivileged.err.find("setpriv") != std::string::npos)
    OPSKIT_SKIP("setpriv cannot drop capabilities here: " << unprivileged.err);
  CHECK(unprivileged.out == "ran\n");
  CHECK(unprivileged.exit_status == 3);
  auto closed = run({"sh", "-c", tool("syscount") + " stats -- sh -c 'exit 3' 2>&-"});
  CHECK(closed.exit_status == 3);
}

TEST_CASE("syscount: the report file given by -o is not open in the traced command", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  auto listed = syscount(backend, "stats", {"ls", "-l", "/proc/self/fd/"}, tmp);
  INFO(listed.outcome.out);
  CHECK(listed.outcome.exit_status == 0);
  CHECK(listed.outcome.out.find("report.json") == std::string::npos);
}

TEST_CASE("syscount: a newline in a path stays within its row of the table, told from a "
          "backslash and n",
          "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  auto done = run({tool("syscount"), "stats", "--backend", backend, "--", "stat",
                   "/nonexistent/a\nb", "/nonexistent/a\\nb"});
  CHECK(done.exit_status == 1);
  CHECK(done.err.find("/nonexistent/a\\nb ") != std::string::npos);   // the newline
  CHECK(done.err.find("/nonexistent/a\\\\nb ") != std::string::npos); // the backslash
  CHECK(done.err.find("\nb ") == std::string::npos);
}

TEST_CASE("syscount: the command's output is untouched, the report goes to stderr", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  auto done = run({tool("syscount"), "stats", "--backend", backend, "--", "sh", "-c",
                   "echo out; echo err >&2"});
  CHECK(done.exit_status == 0);
  CHECK(done.out == "out\n");
  CHECK(
      done.err.starts_with("err\nsyscount stats: sh -c 'echo out; echo err >&2', exit status 0\n"));
  CHECK(done.err.find("\nTotal: ") != std::string::npos);
  // Cut to the width, the command is what gives way, not how it ended.
  auto narrow = run({"env", "COLUMNS=60", tool("syscount"), "stats", "--backend", backend, "--",
                     "sh", "-c", "exit 3; " + std::string(100, 'x')});
  CHECK(narrow.exit_status == 3);
  CHECK(narrow.err.starts_with("syscount stats: sh -c 'exit 3; xxx"));
  CHECK(narrow.err.find("..., exit status 3\n") != std::string::npos);
}

TEST_CASE("syscount: idle CPUs poll while it traces, unless --no-idle-poll", "[syscount]") {
  // syscount holds /dev/cpu_dma_latency open with a request of 0 µs; reading the file gives
  // the latency the kernel grants, 0 while any request of 0 is held. The command, syscount's
  // child, looks at its parent's descriptors. Needs root, as the request itself does.
  const std::string latency = "od -An -tu4 -N4 /dev/cpu_dma_latency | tr -d ' '";
  if (run({"sh", "-c", latency}).exit_status != 0) {
    WARN("skipped: /dev/cpu_dma_latency is not readable here");
    return;
  }
  const std::string look = latency + "; ls -l /proc/$PPID/fd/ /proc/self/fd/";
  auto held = run({tool("syscount"), "stats", "--backend", "ptrace", "-o", "/dev/null", "--", "sh",
                   "-c", look});
  CHECK(held.exit_status == 0);
  CHECK(held.out.starts_with("0\n"));
  auto in_parent = held.out.find("/dev/cpu_dma_latency");
  CHECK(in_parent != std::string::npos);
  CHECK(held.out.find("/dev/cpu_dma_latency", in_parent + 1) == std::string::npos); // not leaked
  auto off = run({tool("syscount"), "stats", "--backend", "ptrace", "--no-idle-poll", "-o",
                  "/dev/null", "--", "sh", "-c", look});
  CHECK(off.exit_status == 0);
  CHECK(off.out.find("/dev/cpu_dma_latency") == std::string::npos);
}

TEST_CASE("syscount: a missing command is reported and exits 127", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  auto done = run({tool("syscount"), "stats", "--backend", backend, "--", "perl5-does-not-exist"});
  CHECK(done.exit_status == 127);
  CHECK(done.err == "syscount: error: perl5-does-not-exist: command not found\n");
  done = run({tool("syscount"), "stats", "--backend", backend, "--", "/nonexistent/perl5"});
  CHECK(done.exit_status == 127);
  // No report: a report file -o named is left as it was, or not made.
  TempDir tmp;
  std::ofstream(tmp.file("kept.json")) << "the last report\n";
  for (const char* name : {"kept.json", "new.json"}) {
    done = run({tool("syscount"), "stats", "--json", "--backend", backend, "-o", tmp.file(name),
                "--", "perl5-does-not-exist"});
    CHECK(done.exit_status == 127);
  }
  CHECK(slurp(tmp.file("kept.json")) == "the last report\n");
  CHECK_FALSE(std::filesystem::exists(tmp.file("new.json")));
}

TEST_CASE("syscount: the command after -- runs word for word, brackets and commas too",
          "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  std::string missing = tmp.file("missing");
  // `[ -e FILE ]` is the whole word: a list to CLI11, a test to sh
  auto done = run({tool("syscount"), "stats", "--backend", backend, "--json", "-o",
                   tmp.file("report.json"), "--", "sh", "-c", "[ -e " + missing + " ]"});
  CHECK(done.exit_status == 1);
  auto report = json::parse(slurp(tmp.file("report.json")));
  const json* path = find_path(report, missing);
  REQUIRE(path != nullptr);
  CHECK(path->at("errno").at("ENOENT") == 1);
  done = run(
      {tool("syscount"), "stats", "--backend", backend, "--", "printf", "%s|", "[a,b]", "--json"});
  CHECK(done.exit_status == 0);
  CHECK(done.out == "[a,b]|--json|");
  // Without --, as strace takes it: the command starts at the first word that is not an option
  // or its value, and its own options are its.
  done = run({tool("syscount"), "stats", "--backend", backend, "-o", tmp.file("r.txt"), "printf",
              "%s|", "-o", "[a,b]"});
  CHECK(done.exit_status == 0);
  CHECK(done.out == "-o|[a,b]|");
  CHECK(slurp(tmp.file("r.txt")).starts_with("syscount stats: printf '%s|' -o '[a,b]', exit "));
}

TEST_CASE("syscount: a wrong command line is a usage error", "[syscount]") {
  CHECK(run({tool("syscount"), "stats"}).exit_status == 2);
  CHECK(run({tool("syscount"), "stats", "-p", "1", "--", "true"}).exit_status == 2);
  CHECK(run({tool("syscount"), "nosuch", "--", "true"}).exit_status == 2);
  // A number that is none, or out of range, is named, and the subcommand's help pointed to.
  for (auto [option, value, what] :
       {std::tuple{"--top", "-1", "a number of entries (0 or more)"},
        std::tuple{"--max-paths", "99999999999999999999", "a number of paths (1 or more)"},
        std::tuple{"-p", "abc", "a pid (1 to 2147483647)"}}) {
    auto wrong = run({tool("syscount"), "stats", option, value, "--", "true"});
    CHECK(wrong.exit_status == 2);
    CHECK(wrong.err.find("'" + std::string(value) + "' is not " + what +
                         " (see 'syscount stats --help')") != std::string::npos);
  }
}

TEST_CASE("syscount: all counts every call as strace -c does", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  // Five cats fail to open a missing file: failing openat calls of our own, whatever else the
  // environment (a locale, say) makes them open. Calls that never return (exit_group) are
  // counted by neither.
  TempDir tmp;
  std::string missing = tmp.file("missing");
  auto report = check_against_strace(
      backend,
      {"sh", "-c",
       "i=0; while [ $i -lt 5 ]; do cat " + missing + " 2>/dev/null; i=$((i+1)); done; exit 0"},
      "all");
  auto counts = json_counts(report);
  CHECK(counts["execve"].calls == 6);
  CHECK(counts["openat"].errors >= 5);
  const json* path = find_path(report, missing);
  REQUIRE(path != nullptr);
  CHECK(path->at("calls") == 5);
  CHECK(path->at("errno").at("ENOENT") == 5);
  CHECK(report.at("class") == "all");
}

TEST_CASE("syscount: files counts as strace counts the same calls", "[syscount][strace]") {
  OPSKIT_EACH_BACKEND(backend);
  // Each run works in a fresh directory, so both see the same calls succeed and fail.
  auto report = check_against_strace(
      backend,
      {"sh", "-c",
       "d=$(mktemp -d) && cd $d && mkdir a && echo x > a/f && mv a/f a/g && rm a/g &&"
       " cat /nonexistent 2>/dev/null; ls $d >/dev/null; cd / && rm -r $d"},
      "files");
  CHECK(report.at("class") == "files");
  auto counts = json_counts(report);
  CHECK(counts["execve"].calls >= 5);
  CHECK(counts["mkdir"].calls + counts["mkdirat"].calls >= 2);
  CHECK(counts["chdir"].calls == 2);
}

TEST_CASE("syscount: -p attaches to a running process and detaches on SIGINT", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  Child target({workload("wait_lines"), "40"});
  std::string ready = Child::read_line(target.out);
  REQUIRE(ready.starts_with("ready "));
  Child tracer({tool("syscount"), "stats", "--backend", backend, "-p", std::to_string(target.pid),
                "--json", "-o", tmp.file("report.json")});
  std::string attached = Child::read_line(tracer.err);
  REQUIRE(attached.starts_with("syscount: attached to process " + std::to_string(target.pid)));
  // ptrace attaches as a tracer; eBPF counts in the kernel and leaves the process alone.
  CHECK(proc_status_field(target.pid, "TracerPid") ==
        (backend == "ptrace" ? std::to_string(tracer.pid) : "0"));
  for (int i = 0; i < 3; ++i) {
    target.say("go\n");
    CHECK(Child::read_line(target.out) == "done");
  }
  ::kill(tracer.pid, SIGINT);
  CHECK(tracer.wait() == 0);
  json report = json::parse(slurp(tmp.file("report.json")));
  CHECK(report.at("detached") == true);
  CHECK(report.at("exit_status").is_null()); // it has not exited
  const json* marker = find_path(report, "/nonexistent/line-marker");
  REQUIRE(marker != nullptr);
  CHECK(marker->at("calls") == 120);
  CHECK(marker->at("errors") == 120);
  // The process carries on, untraced and not stopped.
  CHECK(proc_status_field(target.pid, "TracerPid") == "0");
  target.say("go\n");
  CHECK(Child::read_line(target.out) == "done");
  target.in.reset();
  CHECK(target.wait() == 0);
}

TEST_CASE("syscount: -p reports the exit of a process that ends while traced", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  Child target({workload("wait_lines"), "1"});
  REQUIRE(Child::read_line(target.out).starts_with("ready "));
  pid_t pid = target.pid;
  Child tracer({tool("syscount"), "stats", "--backend", backend, "-p", std::to_string(pid),
                "--json", "-o", tmp.file("report.json")});
  REQUIRE(Child::read_line(tracer.err).starts_with("syscount: attached"));
  target.in.reset(); // end of input: the target exits 0
  CHECK(tracer.wait() == 0);
  target.wait();
  json report = json::parse(slurp(tmp.file("report.json")));
  CHECK(report.at("detached") == false);
}

TEST_CASE("syscount: -p of a thread traces its process, with either backend", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  Child target({"/usr/bin/python3", "-c",
                "import sys, threading\n"
                "done = threading.Event()\n"
                "t = threading.Thread(target=done.wait)\n"
                "t.start()\n"
                "print('ready', t.native_id, flush=True)\n"
                "sys.stdin.read()\n"
                "done.set()\n"
                "t.join()\n"});
  std::string ready = Child::read_line(target.out);
  REQUIRE(ready.starts_with("ready "));
  std::string thread = ready.substr(6, ready.find_first_of("\r\n") - 6);
  REQUIRE(thread != std::to_string(target.pid));
  Child tracer({tool("syscount"), "stats", "--backend", backend, "-p", thread, "--json", "-o",
                tmp.file("report.json")});
  CHECK(Child::read_line(tracer.err)
            .starts_with("syscount: attached to process " + std::to_string(target.pid) + " ("));
  target.in.reset(); // end of input: the target exits 0
  CHECK(tracer.wait() == 0);
  target.wait();
  json report = json::parse(slurp(tmp.file("report.json")));
  CHECK(report.at("detached") == false);
  CHECK(report.at("exit_status") == 0);
}

TEST_CASE("syscount: -p on a process that does not exist fails", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  auto done = run({tool("syscount"), "stats", "--backend", backend, "-p", "999999999"});
  CHECK(done.exit_status == 1);
  CHECK(done.err.starts_with("syscount: error: attach to 999999999: "));
}

TEST_CASE("syscount: the table fits the width and --per-process lists processes", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  std::string deep = "/nonexistent/" + std::string(100, 'd') + "/tail";
  auto done =
      run({"env", "COLUMNS=60", tool("syscount"), "stats", "--backend", backend, "--per-process",
           "--", "sh", "-c", "stat " + deep + " 2>/dev/null; stat / >/dev/null"});
  CHECK(done.exit_status == 0);
  INFO(done.err);
  std::istringstream lines(done.err);
  bool saw_deep = false, saw_processes = false;
  for (std::string line; std::getline(lines, line);) {
    CHECK(line.size() <= 60);
    if (line.find("/tail") != std::string::npos && !line.starts_with("syscount")) {
      saw_deep = true;
      CHECK(line.starts_with("..."));
    }
    saw_processes = saw_processes || line == "Processes";
  }
  CHECK(saw_deep);
  CHECK(saw_processes);
  CHECK(done.err.find("\nDirectories probed in vain\n") != std::string::npos);
}

TEST_CASE("syscount: --max-paths folds the paths beyond it into their directory", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  // The one path kept is the first looked up: the dynamic loader's, else perl's stat of "/".
  auto traced =
      syscount(backend, "stats", {"perl", "-e", "stat q(/); stat qq(/nonexistent/f$_) for 1 .. 20"},
               tmp, {"--max-paths", "1"});
  CHECK(traced.outcome.exit_status == 0);
  const json* folded = find_path(traced.report, "/nonexistent/*");
  REQUIRE(folded != nullptr);
  CHECK(folded->at("calls") == 20);
  CHECK(folded->at("errno").at("ENOENT") == 20);
  CHECK(traced.report.at("folded_lookups").get<int>() >= 20);
  CHECK(find_path(traced.report, "/nonexistent/f1") == nullptr);
}

TEST_CASE("syscount: --max-paths keeps the same first paths with either backend", "[syscount]") {
  // The eBPF backend keeps names shorter than 64 bytes in a map of half of --max-paths and
  // spills the rest into its map of longer names: still the first 8 looked up, as ptrace keeps.
  for (const char* backend : {"ptrace", "ebpf"})
    if (auto why = backend_unavailable(backend); !why.empty())
      OPSKIT_SKIP(backend << " backend: " << why);
  TempDir tmp;
  auto kept = [&](const std::string& backend) {
    auto traced =
        syscount(backend, "stats", {"perl", "-e", "stat qq(/nonexistent/p$_) for 1 .. 12"}, tmp,
                 {"--max-paths", "8"});
    std::set<std::string> paths;
    for (const auto& p : traced.report.at("paths"))
      if (!p.at("path").get<std::string>().ends_with("/*")) // a directory folded into
        paths.insert(p.at("path").get<std::string>());
    return std::pair(paths, traced.report.at("folded_lookups").get<int>());
  };
  auto [by_ptrace, folded_by_ptrace] = kept("ptrace");
  auto [by_ebpf, folded_by_ebpf] = kept("ebpf");
  CHECK(by_ptrace.size() == 8);
  CHECK(by_ebpf == by_ptrace);
  CHECK(folded_by_ebpf == folded_by_ptrace);
  CHECK(folded_by_ptrace >= 4);
}

TEST_CASE("syscount: --json follows the documented schema", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  auto traced =
      syscount(backend, "stats", {"sh", "-c", "stat /nonexistent-schema 2>/dev/null; exit 4"}, tmp);
  CHECK(traced.outcome.exit_status == 4);
  const json& r = traced.report;
  auto ordered = nlohmann::ordered_json::parse(slurp(tmp.file("report.json")));
  std::vector<std::string> keys; // in the order written
  for (auto it = ordered.begin(); it != ordered.end(); ++it)
    keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"command", "exit_status", "signal", "backend", "class",
                                         "wall_s", "syscalls", "paths", "failed_dirs", "processes",
                                         "failed_suffixes", "folded_lookups"});
  CHECK(r.at("command") ==
        json::array({"sh", "-c", "stat /nonexistent-schema 2>/dev/null; exit 4"}));
  CHECK(r.at("exit_status") == 4);
  CHECK(r.at("signal").is_null());
  CHECK(r.at("wall_s").is_number());
  for (const auto& s : r.at("syscalls")) {
    CHECK(s.size() == 6);
    CHECK(s.at("name").is_string());
    CHECK(s.at("abi") == native_abi()); // sh is a program of the machine's own ABI
    CHECK(s.at("calls").is_number_unsigned());
    CHECK(s.at("errors").is_number_unsigned());
    CHECK(s.at("errno").is_object());
    CHECK(s.at("time_s").is_number());
  }
  const json* path = find_path(r, "/nonexistent-schema");
  REQUIRE(path != nullptr);
  CHECK(*path == json{{"path", "/nonexistent-schema"},
                      {"calls", 1},
                      {"errors", 1},
                      {"errno", {{"ENOENT", 1}}}});
  bool saw_root = false;
  for (const auto& d : r.at("failed_dirs")) {
    CHECK(d.size() == 2);
    saw_root = saw_root || (d.at("dir") == "/" && d.at("failed").get<int>() >= 1);
  }
  CHECK(saw_root);
  REQUIRE(r.at("processes").size() >= 2);
  CHECK(r.at("processes")[0].at("comm") == "sh");
  CHECK(r.at("processes")[0].at("pid").is_number_integer());
}

TEST_CASE("syscount: a traced command stopped by SIGSTOP stays stopped until SIGCONT",
          "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  Child traced({tool("syscount"), "stats", "--backend", backend, "-o", tmp.file("report.txt"), "--",
                "sh", "-c", "echo $$; kill -STOP $$; stat / >/dev/null && echo resumed"});
  pid_t command = std::stoi(Child::read_line(traced.out));
  // Until SIGCONT the command stays stopped: nothing more comes out. SIGCONT is sent again
  // until it has effect, since one sent while SIGSTOP is still on its way would be lost.
  std::size_t sent = 0;
  for (;;) {
    pollfd ready{traced.out.get(), POLLIN, 0};
    if (::poll(&ready, 1, sent == 0 ? 1 : 20) > 0)
      break;
    auto state = proc_status_field(command, "State");
    REQUIRE_FALSE(state.empty());
    if (state.starts_with("T") || state.starts_with("t")) {
      ::kill(command, SIGCONT);
      ++sent;
    }
  }
  CHECK(sent > 0);
  CHECK(Child::read_line(traced.out) == "resumed");
  CHECK(traced.wait() == 0);
}

TEST_CASE("syscount: without seccomp it traces every call and counts the same", "[syscount]") {
  TempDir tmp, dir;
  std::string out = tmp.file("report.json");
  auto done = run({workload("no_seccomp"), tool("syscount"), "stats", "--backend", "ptrace",
                   "--json", "-o", out, "--", workload("stat_threads"), dir.path.string(), "20"});
  CHECK(done.exit_status == 0);
  CHECK(done.err.starts_with("syscount: warning: seccomp filter not loaded: "));
  json report = json::parse(slurp(out));
  for (int t = 0; t < 8; ++t) {
    const json* missing = find_path(report, dir.file("missing-" + std::to_string(t)));
    REQUIRE(missing != nullptr);
    CHECK(missing->at("calls") == 20);
  }
  for (const auto& s : report.at("syscalls")) // only the class's calls, filtered in user space
    CHECK((s.at("name") == "newfstatat" || s.at("name") == "access" || s.at("name") == "stat" ||
           s.at("name") == "lstat" || s.at("name") == "fstat" || s.at("name") == "readlink"));
}

TEST_CASE("syscount: a 32-bit program's calls count under their i386 names, as strace counts them",
          "[syscount][strace][abi32]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  auto s32 = build_stat32(tmp);
  if (s32.path.empty())
    OPSKIT_SKIP(s32.why_not);
  constexpr std::uint64_t n = 50;
  std::string missing = tmp.file("missing.abi32");
  for (std::string cls : {"stats", "all"}) {
    INFO("syscount " << cls);
    auto report = check_against_strace(backend, {s32.path, std::to_string(n), missing}, cls);
    auto counts = json_counts(report);
    CHECK(counts["access@i386"] == Count{n, n});
    CHECK(counts["stat64@i386"] == Count{n, n});
    CHECK(counts["fstat64@i386"] == Count{n, 0});
    CHECK(counts["fstatat64@i386"].calls >= n);
    // libc's stat and lstat go to statx, fstatat64 or stat64, as the C library chooses.
    std::uint64_t stat_failures = 0;
    for (std::string name :
         {"stat", "lstat", "oldstat", "oldlstat", "stat64", "lstat64", "fstatat64", "statx"})
      stat_failures += counts[name + "@i386"].errors;
    CHECK(stat_failures == 4 * n); // stat, lstat, stat64 and fstatat64 on the missing path
    for (const auto& s : report.at("syscalls"))
      if (s.at("abi") != "i386") // only the execve that started it, made by a 64-bit process
        CHECK(s.at("name") == "execve");

    const json* path = find_path(report, missing);
    REQUIRE(path != nullptr);
    CHECK(path->at("calls") == 5 * n);
    CHECK(path->at("errno").at("ENOENT") == 5 * n);
    REQUIRE_FALSE(report.at("failed_dirs").empty());
    CHECK(report.at("failed_dirs")[0] == json{{"dir", tmp.path.string()}, {"failed", 5 * n}});
    REQUIRE_FALSE(report.at("failed_suffixes").empty());
    CHECK(report.at("failed_suffixes")[0] == json{{"suffix", ".abi32"}, {"failed", 5 * n}});
  }
}

TEST_CASE("syscount: a 64-bit shell running a 32-bit program counts both ABIs, marked apart",
          "[syscount][strace][abi32]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  auto s32 = build_stat32(tmp);
  if (s32.path.empty())
    OPSKIT_SKIP(s32.why_not);
  constexpr std::uint64_t n = 20, m = 7;
  std::string missing32 = tmp.file("missing.abi32"), missing64 = tmp.file("missing.abi64");
  std::string script = "i=0; while [ $i -lt " + std::to_string(m) + " ]; do [ -e " + missing64 +
                       " ]; i=$((i+1)); done; " + s32.path + " " + std::to_string(n) + " " +
                       missing32;
  std::vector<std::string> command{"/bin/sh", "-c", script};
  check_against_strace(backend, command, "all");
  auto report = check_against_strace(backend, command, "stats");
  std::set<std::string> abis;
  for (const auto& s : report.at("syscalls"))
    abis.insert(s.at("abi").get<std::string>());
  CHECK(abis == std::set<std::string>{native_abi(), "i386"});
  CHECK(json_counts(report)["access@i386"] == Count{n, n});
  const json* in64 = find_path(report, missing64);
  REQUIRE(in64 != nullptr);
  CHECK(in64->at("calls") == m);
  const json* in32 = find_path(report, missing32);
  REQUIRE(in32 != nullptr);
  CHECK(in32->at("calls") == 5 * n);

  auto text = run({tool("syscount"), "stats", "--backend", backend, "--", "/bin/sh", "-c", script});
  CHECK(text.exit_status == 0);
  INFO(text.err);
  std::string header = calls_header(text.err);
  CHECK(header.starts_with("syscall"));
  CHECK(header.find(" abi ") != std::string::npos);
  bool saw_i386 = false, saw_native = false;
  std::istringstream lines(text.err);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    saw_i386 = saw_i386 ||
               (w.size() >= 3 && w[0] == "access" && w[1] == "i386" && w[2] == std::to_string(n));
    saw_native = saw_native || (w.size() >= 2 && w[1] == native_abi());
  }
  CHECK(saw_i386);
  CHECK(saw_native);
}

TEST_CASE("syscount: a run in the machine's own ABI only has no abi column", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  auto done = run({tool("syscount"), "stats", "--backend", backend, "--", "sh", "-c",
                   "test -e /nonexistent-abi"});
  CHECK(done.exit_status == 1);
  INFO(done.err);
  std::string header = calls_header(done.err);
  CHECK(header.starts_with("syscall"));
  CHECK(header.find("abi") == std::string::npos);
}

TEST_CASE("syscount: a busy process elsewhere making the same calls never shows up", "[syscount]") {
  OPSKIT_EACH_BACKEND(backend);
  TempDir tmp;
  std::string theirs = tmp.file("busy-elsewhere"), ours = tmp.file("ours");
  // Not started by syscount: it stats its own path, and ours, all the while.
  Child busy(
      {"/usr/bin/perl", "-e",
       "$| = 1; print qq(ready\\n); while (1) { stat q(" + theirs + "); stat q(" + ours + ") }"});
  REQUIRE(Child::read_line(busy.out) == "ready");
  auto traced =
      syscount(backend, "stats", {"perl", "-e", "stat q(" + ours + ") for 1 .. 100"}, tmp);
  CHECK(traced.outcome.exit_status == 0);
  CHECK(find_path(traced.report, theirs) == nullptr);
  const json* mine = find_path(traced.report, ours);
  REQUIRE(mine != nullptr);
  CHECK(mine->at("calls") == 100);
  CHECK(traced.report.at("processes").size() == 1);
}

TEST_CASE("syscount: without the privilege for eBPF, auto says why and counts with ptrace",
          "[syscount]") {
  if (!have_program("setpriv"))
    OPSKIT_SKIP("setpriv is not installed");
  // As root without capabilities: bpf(2) is refused, ptrace of its own child is not.
  std::vector<std::string> unprivileged{"setpriv", "--bounding-set=-all", "--inh-caps=-all", "--"};
  TempDir tmp;
  auto argv = unprivileged;
  argv.insert(argv.end(), {tool("syscount"), "stats", "--json", "-o", tmp.file("report.json"), "--",
                           "sh", "-c", "test -e /nonexistent-fallback"});
  auto fallback = run(argv);
  if (fallback.exit_status == 127 && fallback.err.find("setpriv") != std::string::npos)
    OPSKIT_SKIP("setpriv cannot drop capabilities here: " << fallback.err);
  CHECK(fallback.exit_status == 1);
  CHECK(fallback.err == "syscount: counting with ptrace: load eBPF programs: Operation not "
                        "permitted\n");
  auto report = json::parse(slurp(tmp.file("report.json")));
  CHECK(report.at("backend") == "ptrace");
  CHECK(find_path(report, "/nonexistent-fallback") != nullptr);

  argv = unprivileged;
  argv.insert(argv.end(), {tool("syscount"), "stats", "--backend", "ebpf", "--", "true"});
  auto refused = run(argv);
  CHECK(refused.exit_status == 1);
  CHECK(refused.err == "syscount: error: load eBPF programs: Operation not permitted\n");
}

TEST_CASE("syscount: SYSCOUNT_BTF relocates the eBPF programs against a whole BTF, to the "
          "same counts",
          "[syscount]") {
  if (auto why = backend_unavailable("ebpf"); !why.empty())
    OPSKIT_SKIP("ebpf backend: " << why);
  // Without it, on the kernel it was built on, syscount relocates against the extract it
  // carries; both must find the same fields: paths, processes followed by fork and exec.
  TempDir tmp;
  std::vector<std::string> command{
      "sh", "-c", "test -e /nonexistent-btf-a; perl -e 'stat q(/nonexistent-btf-b) for 1 .. 10'"};
  auto report_with = [&](const std::string& btf) {
    std::string out = tmp.file("report.json");
    std::vector<std::string> argv{"env",
                                  "SYSCOUNT_BTF=" + btf,
                                  tool("syscount"),
                                  "stats",
                                  "--backend",
                                  "ebpf",
                                  "--json",
                                  "-o",
                                  out,
                                  "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    auto done = run(argv);
    INFO(done.err);
    REQUIRE(done.exit_status == 0);
    return json::parse(slurp(out));
  };
  for (const auto& report : {report_with("/sys/kernel/btf/vmlinux"), report_with("")}) {
    const json* a = find_path(report, "/nonexistent-btf-a");
    const json* b = find_path(report, "/nonexistent-btf-b");
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(a->at("errors") == 1);
    CHECK(b->at("errors") == 10);
    CHECK(report.at("processes").size() == 2);
  }

  auto missing = run({"env", "SYSCOUNT_BTF=/nonexistent-btf", tool("syscount"), "stats",
                      "--backend", "ebpf", "--", "true"});
  CHECK(missing.exit_status == 1);
  CHECK(missing.err ==
        "syscount: error: read SYSCOUNT_BTF /nonexistent-btf: No such file or directory\n");
}

namespace {

// The ids of the eBPF programs process `pid` holds open, from /proc/PID/fdinfo.
std::set<std::string> bpf_programs_of(pid_t pid) {
  std::set<std::string> ids;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fdinfo")) {
    std::istringstream lines(slurp(entry.path().string()));
    for (std::string line; std::getline(lines, line);)
      if (line.starts_with("prog_id:"))
        ids.insert(line.substr(line.find_first_not_of(" \t", 8)));
  }
  return ids;
}

// True when the kernel still has the eBPF program `id`.
bool bpf_program_exists(const std::string& id) {
  return run({"bpftool", "prog", "show", "id", id}).exit_status == 0;
}

} // namespace

TEST_CASE("syscount: killed with SIGKILL, the eBPF backend leaves nothing attached",
          "[syscount][ebpf]") {
  if (auto why = backend_unavailable("ebpf"); !why.empty())
    OPSKIT_SKIP("ebpf backend: " << why);
  if (!have_program("bpftool"))
    OPSKIT_SKIP("bpftool is not installed");
  Child traced({tool("syscount"), "stats", "--backend", "ebpf", "-o", "/dev/null", "--",
                workload("wait_lines")});
  REQUIRE(Child::read_line(traced.out).starts_with("ready "));
  auto programs = bpf_programs_of(traced.pid);
  CHECK(programs.size() == 5); // sys_enter, sys_exit, and fork, exec and exit of processes
  for (const auto& id : programs)
    CHECK(bpf_program_exists(id));
  ::kill(traced.pid, SIGKILL);
  CHECK(traced.wait() == 128 + SIGKILL);
  // The links and programs go with the descriptors; the kernel may free them a moment later.
  for (const auto& id : programs) {
    bool gone = false;
    for (int tries = 0; tries < 100 && !gone; ++tries) {
      gone = !bpf_program_exists(id);
      if (!gone)
        ::usleep(20'000);
    }
    CHECK(gone);
  }
}
