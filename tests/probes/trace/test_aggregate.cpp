// SPDX-License-Identifier: MIT
// The aggregation on synthetic events: what the report would show for a known stream of calls.
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include <sys/syscall.h>

#include "opskit/probes/trace/aggregate.hpp"

using namespace opskit::trace;

namespace {

SyscallEvent call(pid_t pid, int nr, std::string_view path, int err = 0, std::uint64_t ns = 1000) {
  return {pid, nr, err == 0 ? 0 : -err, ns, path};
}

const SyscallSummary* find_syscall(const TraceSummary& s, int nr) {
  for (const auto& row : s.syscalls)
    if (row.nr == nr)
      return &row;
  return nullptr;
}

const PathSummary* find_path(const TraceSummary& s, std::string_view path) {
  for (const auto& row : s.paths)
    if (row.path == path)
      return &row;
  return nullptr;
}

} // namespace

TEST_CASE("aggregate: counts calls, errors and errnos per syscall", "[probes][trace]") {
  Aggregator agg;
  agg.process_started(10, "perl");
  agg.record(call(10, SYS_newfstatat, "/a", ENOENT, 2000));
  agg.record(call(10, SYS_newfstatat, "/b", 0, 3000));
  agg.record(call(10, SYS_newfstatat, "/c/d", ENOTDIR));
  agg.record(call(10, SYS_newfstatat, "/e", ENOENT));
  agg.record(call(10, SYS_access, "/f", EACCES));
  auto s = agg.summary();
  REQUIRE(s.syscalls.size() == 2);
  CHECK(s.syscalls[0].name == "newfstatat"); // most calls first
  CHECK(s.syscalls[0].calls == 4);
  CHECK(s.syscalls[0].errors == 3);
  REQUIRE(s.syscalls[0].errnos.size() == 2);
  CHECK(s.syscalls[0].errnos[0].err == ENOENT);
  CHECK(s.syscalls[0].errnos[0].count == 2);
  CHECK(s.syscalls[0].errnos[1].err == ENOTDIR);
  CHECK(s.syscalls[0].time_s == Approx(7e-6));
  CHECK(s.calls == 5);
  CHECK(s.errors == 4);
  REQUIRE(s.results.size() == 3);
  CHECK(s.results[0].err == ENOENT);
  CHECK(s.results[0].count == 2);
}

#if defined(__x86_64__)
TEST_CASE("aggregate: the same number in two ABIs is two calls, each named by its ABI",
          "[probes][trace]") {
  constexpr int k_i386_write = 4, k_i386_stat64 = 195; // i386's table
  Aggregator agg;
  agg.record(call(1, SYS_stat, "/x", ENOENT));
  SyscallEvent in_i386 = call(1, k_i386_write, "");
  in_i386.abi = Abi::i386;
  agg.record(in_i386);
  agg.record(in_i386);
  SyscallEvent stat64 = call(1, k_i386_stat64, "/x", ENOENT);
  stat64.abi = Abi::i386;
  agg.record(stat64);
  auto s = agg.summary();
  REQUIRE(s.syscalls.size() == 3);
  CHECK(s.syscalls[0].name == "write");
  CHECK(s.syscalls[0].abi == Abi::i386);
  CHECK(s.syscalls[0].calls == 2);
  CHECK(s.syscalls[1].name == "stat");
  CHECK(s.syscalls[1].abi == Abi::native);
  CHECK(s.syscalls[2].name == "stat64");
  CHECK(s.syscalls[2].abi == Abi::i386);
  CHECK(s.calls == 4);
  REQUIRE(s.paths.size() == 1); // one path, whichever ABI looked it up
  CHECK(s.paths[0].calls == 2);
  REQUIRE(s.failed_dirs.size() == 1);
  CHECK(s.failed_dirs[0].count == 2);
}

TEST_CASE("aggregate: a call made in two ABIs is listed once per ABI, native first",
          "[probes][trace]") {
  constexpr int k_i386_statx = 383;
  Aggregator agg;
  SyscallEvent in_i386 = call(1, k_i386_statx, "/y");
  in_i386.abi = Abi::i386;
  agg.record(in_i386);
  agg.record(call(1, SYS_statx, "/y"));
  auto s = agg.summary();
  REQUIRE(s.syscalls.size() == 2);
  CHECK(s.syscalls[0].name == "statx");
  CHECK(s.syscalls[0].abi == Abi::native);
  CHECK(s.syscalls[1].name == "statx");
  CHECK(s.syscalls[1].abi == Abi::i386);
}
#endif

TEST_CASE("aggregate: a call on an fd is counted but is no path lookup", "[probes][trace]") {
  Aggregator agg;
  agg.record(call(1, SYS_fstat, ""));
  agg.record(call(1, SYS_newfstatat, "")); // newfstatat(fd, "", AT_EMPTY_PATH)
  auto s = agg.summary();
  CHECK(s.calls == 2);
  CHECK(s.path_lookups == 0);
  CHECK(s.paths.empty());
  CHECK(find_syscall(s, SYS_newfstatat)->calls == 1);
}

TEST_CASE("aggregate: paths keep calls, failures and every errno seen", "[probes][trace]") {
  Aggregator agg;
  for (int i = 0; i < 3; ++i)
    agg.record(call(1, SYS_newfstatat, "/etc/x", ENOENT));
  agg.record(call(1, SYS_newfstatat, "/etc/x", EACCES));
  agg.record(call(1, SYS_newfstatat, "/etc/x"));
  agg.record(call(1, SYS_newfstatat, "/etc/y"));
  auto s = agg.summary();
  REQUIRE(s.paths.size() == 2);
  CHECK(s.paths[0].path == "/etc/x");
  CHECK(s.paths[0].calls == 5);
  CHECK(s.paths[0].errors == 4);
  REQUIRE(s.paths[0].errnos.size() == 2);
  CHECK(s.paths[0].errnos[0].err == ENOENT);
  CHECK(s.paths[0].errnos[0].count == 3);
  CHECK(s.paths[0].errnos[1].err == EACCES);
  CHECK(s.paths[0].errnos[1].count == 1);
  CHECK(s.paths[1].errnos.empty());
  CHECK(s.path_lookups == 6);
}

TEST_CASE("aggregate: the @INC story shows as failed directories and suffixes", "[probes][trace]") {
  // Five @INC directories probed for 46 module files each, .pmc then .pm, found in the last.
  const char* inc[] = {"/etc/perl", "/usr/local/share/perl/5.36.0", "/usr/share/perl5",
                       "/usr/lib/x86_64-linux-gnu/perl5/5.36", "/usr/share/perl/5.36"};
  Aggregator agg;
  for (int m = 0; m < 23; ++m) {
    for (int d = 0; d < 4; ++d) {
      std::string base = std::string(inc[d]) + "/Mod" + std::to_string(m);
      agg.record(call(1, SYS_newfstatat, base + ".pmc", ENOENT));
      agg.record(call(1, SYS_newfstatat, base + ".pm", ENOENT));
    }
    agg.record(call(1, SYS_newfstatat, std::string(inc[4]) + "/Mod" + std::to_string(m) + ".pm"));
  }
  auto s = agg.summary();
  REQUIRE(s.failed_dirs.size() == 4);
  for (const auto& dir : s.failed_dirs)
    CHECK(dir.count == 46);
  CHECK(s.failed_dirs[0].name == "/etc/perl"); // equal counts: by name
  REQUIRE(s.failed_suffixes.size() == 2);
  CHECK(s.failed_suffixes[0].name == ".pm");
  CHECK(s.failed_suffixes[0].count == 92);
  CHECK(s.failed_suffixes[1].name == ".pmc");
  CHECK(s.failed_suffixes[1].count == 92);
  CHECK(s.errors == 184);
}

TEST_CASE("aggregate: paths beyond the limit are folded into their directory", "[probes][trace]") {
  Aggregator agg({.max_paths = 3});
  agg.record(call(1, SYS_stat, "/keep/1"));
  agg.record(call(1, SYS_stat, "/keep/2"));
  agg.record(call(1, SYS_stat, "/keep/3"));
  agg.record(call(1, SYS_stat, "/keep/1")); // known: still exact
  agg.record(call(1, SYS_stat, "/more/4", ENOENT));
  agg.record(call(1, SYS_stat, "/more/5"));
  agg.record(call(1, SYS_stat, "/more/5"));
  auto s = agg.summary();
  CHECK(s.folded_lookups == 3);
  CHECK(s.path_lookups == 7);
  CHECK(find_path(s, "/keep/1")->calls == 2);
  CHECK(find_path(s, "/more/4") == nullptr);
  const auto* folded = find_path(s, "/more/*");
  REQUIRE(folded != nullptr);
  CHECK(folded->folded);
  CHECK(folded->calls == 3);
  CHECK(folded->errors == 1);
  REQUIRE(folded->errnos.size() == 1);
  CHECK(folded->errnos[0].err == ENOENT);
  // The directory of a folded failure still counts as probed in vain.
  REQUIRE(s.failed_dirs.size() == 1);
  CHECK(s.failed_dirs[0].name == "/more");
}

TEST_CASE("aggregate: memory stays bounded for a million distinct paths", "[probes][trace]") {
  Aggregator agg({.max_paths = 2000});
  std::string path;
  for (int i = 0; i < 1'000'000; ++i) {
    path = "/d" + std::to_string(i % 5000) + "/f" + std::to_string(i);
    agg.record(call(1, SYS_newfstatat, path, ENOENT));
  }
  auto s = agg.summary();
  CHECK(s.folded_lookups == 998'000);
  CHECK(s.path_lookups == 1'000'000);
  // Exact paths and folded directories are each capped at the limit (plus "/*", where the
  // directories beyond it go), and so are failed directories.
  CHECK(s.paths.size() == 4001);
  CHECK(find_path(s, "/*") != nullptr);
  CHECK(s.failed_dirs.size() == 2000);
}

TEST_CASE("aggregate: summary lists are cut to max_listed, most calls first", "[probes][trace]") {
  Aggregator agg;
  for (int i = 0; i < 10; ++i)
    for (int n = 0; n <= i; ++n)
      agg.record(call(1, SYS_stat, "/p" + std::to_string(i), ENOENT));
  auto s = agg.summary(3);
  REQUIRE(s.paths.size() == 3);
  CHECK(s.paths[0].path == "/p9");
  CHECK(s.paths[0].calls == 10);
  CHECK(s.paths[2].path == "/p7");
  CHECK(s.failed_dirs.size() == 1);
  CHECK(s.calls == 55); // totals are never cut
}

TEST_CASE("aggregate: processes by pid with their latest command name", "[probes][trace]") {
  Aggregator agg;
  agg.process_started(100, "sh");
  agg.process_started(101, "sh");
  agg.process_renamed(101, "ls");
  agg.record(call(100, SYS_stat, "/x"));
  agg.record(call(101, SYS_stat, "/y", ENOENT));
  agg.record(call(101, SYS_stat, "/z"));
  agg.record(call(102, SYS_stat, "/w")); // never announced: still counted
  auto s = agg.summary();
  REQUIRE(s.processes.size() == 3);
  CHECK(s.processes[0].pid == 100);
  CHECK(s.processes[0].comm == "sh");
  CHECK(s.processes[0].calls == 1);
  CHECK(s.processes[1].comm == "ls");
  CHECK(s.processes[1].calls == 2);
  CHECK(s.processes[1].errors == 1);
  CHECK(s.processes[2].pid == 102);
}

TEST_CASE("aggregate: a reused pid starts a new process entry", "[probes][trace]") {
  Aggregator agg;
  agg.process_started(7, "first");
  agg.record(call(7, SYS_stat, "/a"));
  agg.process_started(7, "second");
  agg.record(call(7, SYS_stat, "/a"));
  auto s = agg.summary();
  REQUIRE(s.processes.size() == 2);
  CHECK(s.processes[0].comm == "first");
  CHECK(s.processes[1].comm == "second");
  CHECK(s.processes[1].calls == 1);
}

TEST_CASE("aggregate: processes beyond the limit share one entry", "[probes][trace]") {
  Aggregator agg({.max_paths = 10, .max_processes = 2});
  for (pid_t pid = 1; pid <= 5; ++pid) {
    agg.process_started(pid, "p");
    agg.record(call(pid, SYS_stat, "/a"));
  }
  auto s = agg.summary();
  REQUIRE(s.processes.size() == 3);
  CHECK(s.processes[2].pid == 0);
  CHECK(s.processes[2].comm == "(others)");
  CHECK(s.processes[2].calls == 3);
}

TEST_CASE("aggregate: directory and suffix of a path", "[probes][trace]") {
  CHECK(directory_of("/usr/share/perl5/POSIX.pm") == "/usr/share/perl5");
  CHECK(directory_of("/POSIX.pm") == "/");
  CHECK(directory_of("POSIX.pm") == ".");
  CHECK(directory_of("lib/POSIX.pm") == "lib");
  CHECK(directory_of("/usr/lib/") == "/usr");
  CHECK(suffix_of("/x/Foo.pmc") == ".pmc");
  CHECK(suffix_of("/x/libc.so.6") == ".6");
  CHECK(suffix_of("/x/.bashrc").empty());
  CHECK(suffix_of("/x.d/README").empty());
  CHECK(suffix_of("/x/name.").empty());
  CHECK(suffix_of("/x/a.verylongsuffix").empty());
}

TEST_CASE("aggregate: events with impossible syscall numbers are ignored", "[probes][trace]") {
  Aggregator agg;
  agg.record(call(1, -1, "/a"));
  agg.record(call(1, 1 << 30, "/a"));
  CHECK(agg.summary().calls == 0);
}
