// SPDX-License-Identifier: MIT
// kstat's library paths against the plainest C that does the same job, in one process:
//   handle     resolved once, then read(): one pread at offset 0 plus a parse
//   raw        a loop of pread(fd, buf, 4096, 0) and strtoull on the same field
//   snapshot   every vm.stats name at once, against one raw pread of /proc/vmstat
//   scrape     what `kstat serve` does for one scrape of its default names (read and render
//              the families), against one raw pread of each of the files they come from, and
//              each one's CPU split between user and kernel time (getrusage)
// Each pair alternates in rounds and reports the median round, so drift hits both alike.
// `kstat_bench resolves SYS_ROOT` (tests/bench/kstat-scale) times instead the scrapes of
// `kstat serve cgroup` over the cgroups under SYS_ROOT that find names: at the resolve interval,
// which finds the names served, and after a cgroup came or went.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "opskit/probes/counters.hpp"
#include "opskit/probes/scrape.hpp"
#include "source_reads.hpp"

namespace {

using Clock = std::chrono::steady_clock;
volatile unsigned long long g_sink;

template <class F>
double ns_per_op(int n, F&& f) {
  auto start = Clock::now();
  for (int i = 0; i < n; ++i)
    f();
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count() / n;
}

template <class A, class B>
std::pair<double, double> median_pair(int rounds, int n, A&& a, B&& b) {
  std::vector<double> xs, ys;
  for (int r = 0; r < rounds; ++r) {
    xs.push_back(ns_per_op(n, a));
    ys.push_back(ns_per_op(n, b));
  }
  std::sort(xs.begin(), xs.end());
  std::sort(ys.begin(), ys.end());
  return {xs[xs.size() / 2], ys[ys.size() / 2]};
}

// The raw C baseline for one field: pread 4096 bytes at 0, find "key ", strtoull.
struct Raw {
  int fd;
  const char* key; // "" for a whole /proc/sys file
  char buf[4097];
  unsigned long long read() {
    ssize_t n = pread(fd, buf, 4096, 0);
    if (n <= 0)
      std::abort();
    buf[n] = '\0';
    if (*key == '\0')
      return std::strtoull(buf, nullptr, 10);
    const char* at = std::strstr(buf, key);
    if (at == nullptr)
      std::abort();
    return std::strtoull(at + std::strlen(key), nullptr, 10);
  }
};

// Microseconds of user and of kernel time an operation takes, over `n` of them. The kernel
// splits a thread's exact run time between the two by where its ticks fell: over a second or more
// of calls, a few percent apart.
template <class F>
std::pair<double, double> cpu_split(int n, F&& f) {
  auto microseconds = [](const timeval& t) { return t.tv_sec * 1e6 + t.tv_usec; };
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  for (int i = 0; i < n; ++i)
    f();
  ::getrusage(RUSAGE_SELF, &after);
  return {(microseconds(after.ru_utime) - microseconds(before.ru_utime)) / n,
          (microseconds(after.ru_stime) - microseconds(before.ru_stime)) / n};
}

void row(const char* what, double ours, double theirs, double goal) {
  double ratio = ours / theirs;
  std::printf("%-44s %9.0f ns %9.0f ns %7.2fx  goal <= %.2fx  %s\n", what, ours, theirs, ratio,
              goal, ratio <= goal ? "ok" : "MISSED");
}

bool scrape_row(int rounds, int n) {
  using opskit::counters::Scraper;
  Scraper::Settings settings{.sets = {opskit::counters::serve_defaults()}};
  auto scraper = Scraper::open(opskit::counters::Namespace(), settings);
  if (!scraper) {
    std::fprintf(stderr, "kstat_bench: %s\n", scraper.error().message().c_str());
    return false;
  }
  // The files behind the same names, each read once a round as the plainest C reads it.
  auto snapshot = opskit::counters::Namespace().snapshot(settings.selections());
  if (!snapshot)
    return false;
  auto files = opskit::bench::open_sources(*snapshot);
  static char buf[opskit::bench::k_read_room];
  auto [ours, theirs] = median_pair(
      rounds, n, [&] { g_sink = (*scraper)->scrape(opskit::TextFormat::prometheus)->size(); },
      [&] { g_sink = opskit::bench::read_sources(files, buf); });
  char what[64];
  std::snprintf(what, sizeof what, "scrape of serve's defaults vs pread of its %zu files",
                files.size());
  row(what, ours, theirs, 1.20);
  // The difference taken apart: kstat's own parse and render (user), and the kernel's part.
  auto scrape = [&] { g_sink = (*scraper)->scrape(opskit::TextFormat::prometheus)->size(); };
  auto reads = [&] { g_sink = opskit::bench::read_sources(files, buf); };
  auto [scrape_user, scrape_kernel] = cpu_split(rounds * n, scrape);
  auto [reads_user, reads_kernel] = cpu_split(rounds * n, reads);
  std::printf("  of which user + kernel: scrape %.1f + %.1f us, preads %.1f + %.1f us "
              "(getrusage over %d each)\n",
              scrape_user, scrape_kernel, reads_user, reads_kernel, rounds * n);
  return true;
}

// Milliseconds of the median of `n` calls of `f`.
template <class F>
double median_ms(int n, F&& f) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i)
    ms.push_back(ns_per_op(1, f) / 1e6);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int resolves(const std::string& sys_root) {
  using opskit::counters::Scraper;
  auto open = [&](Scraper::Clock::duration interval) {
    return Scraper::open(opskit::counters::Namespace("/proc", sys_root),
                         {.sets = {{.names = {"cgroup"}}}, .resolve_interval = interval});
  };
  auto every = open(Scraper::Clock::duration::zero()), changed = open(std::chrono::hours(1));
  if (!every || !changed) {
    std::fprintf(stderr, "kstat_bench: %s\n", (every ? changed : every).error().message().c_str());
    return 1;
  }
  auto scrape = [](auto& scraper) {
    g_sink = scraper->scrape(opskit::TextFormat::prometheus)->size();
  };
  // A cgroup made before one scrape and removed before the next: made whole beside the
  // hierarchy and moved in, as mkdir(2) makes a cgroup with its files.
  namespace fs = std::filesystem;
  const fs::path beside = fs::path(sys_root) / "kstat-bench.scope",
                 cgroup = fs::path(sys_root) / "fs/cgroup/kstat-bench.scope";
  auto make = [&] {
    fs::create_directory(beside);
    std::ofstream(beside / "cpu.stat") << "usage_usec 7\nuser_usec 5\nsystem_usec 2\n";
    std::ofstream(beside / "memory.current") << "4096\n";
    std::ofstream(beside / "pids.current") << "1\n";
    fs::rename(beside, cgroup);
  };
  double interval = median_ms(9, [&] { scrape(*every); });
  double change = median_ms(9, [&] {
    if (fs::exists(cgroup))
      fs::remove_all(cgroup);
    else
      make();
    scrape(*changed);
  });
  fs::remove_all(cgroup);
  std::printf("  a scrape that resolves at the interval, the names the same %9.1f ms\n"
              "  a scrape after a cgroup came or went (its names found)    %9.1f ms\n",
              interval, change);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "resolves") == 0)
    return resolves(argv[2]);
  int n = argc > 1 ? std::atoi(argv[1]) : 20000;
  int rounds = 15;
  opskit::counters::Namespace ns;
  std::printf("%-44s %12s %12s %8s\n", "kstat library vs plain C (median of 15 rounds)", "kstat",
              "plain C", "ratio");

  auto swappiness = ns.resolve("vm.swappiness");
  auto pgmajfault = ns.resolve("vm.stats.pgmajfault");
  std::vector<std::string> stats{"vm.stats"};
  auto all_stats = ns.snapshot(stats);
  if (!swappiness || !pgmajfault || !all_stats) {
    std::fprintf(stderr, "kstat_bench: cannot resolve the names\n");
    return 1;
  }
  Raw raw_sysctl{open("/proc/sys/vm/swappiness", O_RDONLY | O_CLOEXEC), "", {}};
  Raw raw_vmstat{open("/proc/vmstat", O_RDONLY | O_CLOEXEC), "\npgmajfault ", {}};

  auto [h1, r1] = median_pair(
      rounds, n, [&] { g_sink = std::get<std::uint64_t>(*swappiness->read()); },
      [&] { g_sink = raw_sysctl.read(); });
  row("handle read of vm.swappiness", h1, r1, 1.15);
  auto [h2, r2] = median_pair(
      rounds, n / 4, [&] { g_sink = std::get<std::uint64_t>(*pgmajfault->read()); },
      [&] { g_sink = raw_vmstat.read(); });
  row("handle read of vm.stats.pgmajfault", h2, r2, 1.15);
  auto [s3, r3] = median_pair(
      rounds, n / 4, [&] { g_sink = all_stats->read(); },
      [&] {
        g_sink = static_cast<unsigned long long>(pread(raw_vmstat.fd, raw_vmstat.buf, 4096, 0));
      });
  char what[64];
  std::snprintf(what, sizeof what, "snapshot of vm.stats (%zu names) vs pread", all_stats->size());
  row(what, s3, r3, 1.30);
  return scrape_row(rounds, n / 40) ? 0 : 1;
}
