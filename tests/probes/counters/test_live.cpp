// SPDX-License-Identifier: MIT
// The live readers against this machine's /proc.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "mount_namespace.hpp"
#include "opskit/file.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/scrape.hpp"
#include "opskit/probes/watch.hpp"
#include "opskit/text.hpp"
#include "skip.hpp"
#include "sources.hpp"
#include "temp_dir.hpp"

#include <ctime>

#include <sys/mount.h>
#include <sys/timex.h>
#include <unistd.h>

using namespace opskit::counters;

TEST_CASE("live: a resolved sysctl reads what the file holds", "[counters][live]") {
  Namespace ns;
  auto handle = ns.resolve("vm.swappiness");
  REQUIRE(handle);
  auto file = opskit::read_file("/proc/sys/vm/swappiness");
  REQUIRE(file);
  for (int i = 0; i < 3; ++i)
    CHECK(opskit::counters::format_value(*handle->read()) == opskit::trim(*file));
}

TEST_CASE("live: vm.stats has one name per /proc/vmstat line", "[counters][live]") {
  Namespace ns;
  auto stats = ns.list("vm.stats");
  REQUIRE(stats);
  std::ifstream vmstat("/proc/vmstat");
  std::set<std::string> keys;
  for (std::string key, value; vmstat >> key >> value;)
    keys.insert("vm.stats." + key);
  std::set<std::string> names;
  for (const auto& info : *stats)
    names.insert(info.name);
  CHECK(names == keys);
}

TEST_CASE("live: page faults grow while memory is touched", "[counters][live]") {
  Namespace ns;
  auto handle = ns.resolve("vm.stats.pgfault");
  REQUIRE(handle);
  auto before = handle->read();
  REQUIRE(before);
  std::vector<char> touch(64 << 20);
  for (std::size_t i = 0; i < touch.size(); i += 4096)
    touch[i] = 1;
  auto after = handle->read();
  REQUIRE(after);
  CHECK(std::get<std::uint64_t>(*after) >= std::get<std::uint64_t>(*before) + 1000);
}

TEST_CASE("live: the whole namespace reads, without write-only entries", "[counters][live]") {
  Namespace ns;
  auto all = ns.snapshot(std::vector<std::string>{""});
  REQUIRE(all);
  all->read();
  std::set<std::string> names;
  for (std::size_t i = 0; i < all->size(); ++i)
    names.insert(all->info(i).name);
  for (const char* never :
       {"vm.drop_caches", "vm.compact_memory", "net.ipv4.route.flush", "vm.stat_refresh"})
    CHECK(names.count(never) == 0);
  for (const char* expected :
       {"kernel.ostype", "vm.stats.pgfault", "vm.meminfo.MemTotal", "cpu.all.user", "cpu.0.idle",
        "kern.loadavg.1", "net.snmp.Tcp.ActiveOpens", "proc.self.io.rchar", "kern.openfiles",
        "kern.softirqs.TIMER.all", "net.dev.lo.rx_bytes", "fs.mount./.avail"})
    CHECK(names.count(expected) == 1);
}

TEST_CASE("live: proc.self is this process", "[counters][live]") {
  Namespace ns;
  auto name = ns.resolve("proc.self.status.Name");
  REQUIRE(name);
  CHECK(*name->read() == Value(std::string("test_counters")));
  auto threads = ns.resolve("proc.self.stat.num_threads");
  REQUIRE(threads);
  CHECK(*threads->read() == Value(std::uint64_t{1}));
}

TEST_CASE("live: a watch gives rates for counters and levels for gauges", "[counters][live]") {
  Namespace ns;
  auto snap = ns.snapshot(std::vector<std::string>{"kern.forks", "vm.meminfo.MemTotal"});
  REQUIRE(snap);
  Watch watch(std::move(*snap));
  const auto& first = watch.sample(0);
  CHECK_FALSE(first[0].rate);
  const auto& second = watch.sample(1.0);
  REQUIRE(second[0].is_rate);
  REQUIRE(second[0].rate);
  CHECK(*second[0].rate >= 0);
  REQUIRE_FALSE(second[1].is_rate);
  REQUIRE(second[1].value != nullptr);
  CHECK(std::get<std::uint64_t>(*second[1].value) > 0);
}

TEST_CASE("live: net.dev agrees with the interfaces' statistics files", "[counters][live]") {
  Namespace ns;
  auto sysfs = [](const char* file) {
    auto text = opskit::read_file(std::string("/sys/class/net/lo/statistics/") + file);
    REQUIRE(text);
    return std::stoull(*text);
  };
  std::uint64_t before = sysfs("rx_bytes");
  auto bytes = ns.resolve("net.dev.lo.rx_bytes");
  REQUIRE(bytes);
  auto ours = bytes->read();
  REQUIRE(ours);
  std::uint64_t after = sysfs("rx_bytes");
  CHECK(before <= std::get<std::uint64_t>(*ours));
  CHECK(std::get<std::uint64_t>(*ours) <= after);
  auto crc = ns.resolve("net.dev.lo.rx_crc_errors"); // from the statistics file itself
  REQUIRE(crc);
  CHECK(*crc->read() == Value(sysfs("rx_crc_errors")));
}

TEST_CASE("live: a softirq's total is the sum of its CPUs in one read", "[counters][live]") {
  Namespace ns;
  auto timer = ns.snapshot(std::vector<std::string>{"kern.softirqs.TIMER"});
  REQUIRE(timer);
  CHECK(timer->source_count() == 1);
  REQUIRE(timer->read() == 0);
  std::uint64_t all = 0, cpus = 0;
  for (std::size_t i = 0; i < timer->size(); ++i)
    (timer->info(i).name.ends_with(".all") ? all : cpus) +=
        std::get<std::uint64_t>(timer->value(i));
  CHECK(all == cpus);
  CHECK(all > 0);
}

TEST_CASE("live: fs.mount./ is statvfs of /, and no new name is a /proc/sys entry",
          "[counters][live]") {
  Namespace ns;
  auto mounts = ns.list("fs.mount");
  REQUIRE(mounts);
  std::set<std::string> names;
  for (const auto& info : *mounts)
    names.insert(info.name);
  CHECK(names.count("fs.mount./.size") == 1);
  CHECK(std::none_of(names.begin(), names.end(), [](const auto& n) {
    return n.starts_with("fs.mount./proc") || n.starts_with("fs.mount./sys");
  }));
  // fs.* and net.* are /proc/sys's too: the new subtrees must not shadow an entry there.
  auto net = ns.list("net.dev");
  REQUIRE(net);
  for (const auto& prefix : {"fs.mount", "net.dev", "net.softnet", "net.link", "net.conntrack",
                             "net.arp", "net.udp", "net.udp6"}) {
    auto path = opskit::counters::sysctl_path("/proc", prefix);
    REQUIRE(path);
    CHECK_FALSE(std::ifstream(*path).good());
  }
}

TEST_CASE("live: the root cgroup's CPU time grows while this test burns CPU", "[counters][live]") {
  Namespace ns;
  auto usage = ns.resolve("cgroup.cpu/stat.usage_usec");
  if (!usage)
    OPSKIT_SKIP("no cgroup2 hierarchy with cpu.stat under /sys/fs/cgroup");
  auto before = usage->read();
  REQUIRE(before);
  timespec start{}, now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
  volatile std::uint64_t spin = 0;
  do {
    for (int i = 0; i < 100000; ++i)
      spin = spin + 1;
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000 + (now.tv_nsec - start.tv_nsec) / 1000 < 50000);
  auto after = usage->read();
  REQUIRE(after);
  CHECK(std::get<std::uint64_t>(*after) >= std::get<std::uint64_t>(*before) + 40000);
}

TEST_CASE("live: kern.timex is adjtimex(2) of the running kernel", "[counters][live]") {
  Namespace ns;
  auto snapshot = ns.snapshot(std::vector<std::string>{"kern.timex"});
  REQUIRE(snapshot);
  CHECK(snapshot->source_paths() == std::vector<std::string>{std::string(k_timex_source)});
  REQUIRE(snapshot->read() == 0);
  timex tx{};
  int state = ::adjtimex(&tx);
  REQUIRE(state >= 0);
  std::map<std::string, Value> values;
  for (std::size_t i = 0; i < snapshot->size(); ++i)
    values[snapshot->info(i).name] = snapshot->value(i);
  CHECK(values.size() == 17);
  // What no NTP daemon changes between two calls a moment apart.
  CHECK(values["kern.timex.sync"] == Value(std::uint64_t{state == TIME_ERROR ? 0u : 1u}));
  CHECK(values["kern.timex.status"] == Value(std::uint64_t(tx.status)));
  CHECK(values["kern.timex.tick"] == Value(static_cast<double>(tx.tick) / 1e6));
  CHECK(values["kern.timex.constant"] == Value(std::uint64_t(tx.constant)));
  CHECK(values["kern.timex.tai"] == Value(std::uint64_t(tx.tai)));
  auto maxerror = as_number(values["kern.timex.maxerror"]);
  REQUIRE(maxerror);
  CHECK(std::abs(*maxerror - static_cast<double>(tx.maxerror) / 1e6) < 0.01);
  auto listed = ns.list("kern.timex.offset");
  REQUIRE(listed);
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().kind == Kind::gauge);
  CHECK(listed->front().unit == "seconds");
}

TEST_CASE("live: net.softnet has each online CPU's line of /proc/net/softnet_stat",
          "[counters][live]") {
  std::ifstream file("/proc/net/softnet_stat");
  std::vector<std::uint64_t> processed; // by line, read before kstat reads
  for (std::string line; std::getline(file, line);)
    processed.push_back(std::stoull(line.substr(0, line.find(' ')), nullptr, 16));
  REQUIRE(processed.size() == static_cast<std::size_t>(::sysconf(_SC_NPROCESSORS_ONLN)));
  Namespace ns;
  auto snapshot = ns.snapshot(std::vector<std::string>{"net.softnet.*.processed"});
  REQUIRE(snapshot);
  REQUIRE(snapshot->read() == 0);
  REQUIRE(snapshot->size() == processed.size());
  for (std::size_t i = 0; i < snapshot->size(); ++i) {
    INFO(snapshot->info(i).name);
    auto now = as_number(snapshot->value(i));
    REQUIRE(now);
    CHECK(*now >= static_cast<double>(processed[i]));
    CHECK(*now - static_cast<double>(processed[i]) < 1e6);
  }
}

namespace {

// The series of a family in a scrape's body, sorted.
std::multiset<std::string> series_of(const std::string& body, std::string_view family) {
  std::multiset<std::string> out;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(family))
      out.insert(line);
  return out;
}

} // namespace

TEST_CASE("live: a scraper follows file systems mounted, unmounted and mounted again, and the "
          "others are kept as they were",
          "[counters][live][root]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root to mount");
  // In a mount namespace of the test's own: nothing else sees the mounts.
  opskit::test::enter_own_mount_namespace();
  opskit::test::TempDir dir;
  for (const char* point : {"a", "b", "c"})
    std::filesystem::create_directory(dir / point);
  auto mount = [&](const char* source, const char* point, const char* size) {
    REQUIRE(::mount(source, (dir / point).c_str(), "tmpfs", 0, size) == 0);
  };
  mount("kstat-a", "a", "size=4m");
  mount("kstat-b", "b", "size=8m");
  const std::vector<std::string> names{"fs.mount", "vm.stats.pgfault"};
  Scraper::Settings settings{.sets = {{.names = names}}, .resolve_interval = std::chrono::hours(1)};
  auto scraper = Scraper::open(Namespace(), settings);
  REQUIRE(scraper);
  auto body = [&] { return *(*scraper)->scrape(opskit::TextFormat::prometheus); };
  auto size = [&](const char* point, const char* source, int mib) {
    return fmt::format("kstat_filesystem_size_bytes{{mountpoint=\"{}\",device=\"{}\","
                       "fstype=\"tmpfs\"}} {}\n",
                       dir / point, source, mib << 20);
  };
  auto first = body();
  CHECK(first.find(size("a", "kstat-a", 4)) != std::string::npos);
  CHECK(first.find(size("b", "kstat-b", 8)) != std::string::npos);

  // a unmounted, b another file system now, c new.
  REQUIRE(::umount((dir / "a").c_str()) == 0);
  REQUIRE(::umount((dir / "b").c_str()) == 0);
  mount("kstat-b2", "b", "size=2m");
  mount("kstat-c", "c", "size=1m");
  auto after = body();
  CHECK(after.find(dir / "a") == std::string::npos);
  CHECK(after.find("kstat-b\"") == std::string::npos);
  CHECK(after.find(size("b", "kstat-b2", 2)) != std::string::npos);
  CHECK(after.find(size("c", "kstat-c", 1)) != std::string::npos);
  CHECK(after.find("kstat_vmstat_pgfault_total ") != std::string::npos);
  CHECK(after.find("kstat_scrape_error{source=\"" + dir.path()) == std::string::npos);
  CHECK(series_of(after, "# TYPE kstat_filesystem_size_bytes ").size() == 1);

  // What a server started now would serve, in another order.
  auto fresh = Scraper::open(Namespace(), settings);
  REQUIRE(fresh);
  auto served = body();
  auto now = *(*fresh)->scrape(opskit::TextFormat::prometheus);
  for (const char* family : {"kstat_filesystem_size_bytes", "kstat_filesystem_files ",
                             "kstat_filesystem_readonly", "kstat_filesystem_device_error"})
    CHECK(series_of(served, family) == series_of(now, family));
  for (const char* point : {"b", "c"})
    ::umount2((dir / point).c_str(), MNT_DETACH);
}
