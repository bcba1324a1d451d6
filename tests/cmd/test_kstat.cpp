// SPDX-License-Identifier: MIT
// The kstat binary against the real /proc and procps sysctl.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mount_namespace.hpp"
#include "opskit/file.hpp"
#include "opskit/handle.hpp"
#include "opskit/text.hpp"
#include "process.hpp"
#include "skip.hpp"
#include "temp_dir.hpp"

using opskit::test::run;

namespace {

const std::string k_kstat = opskit::test::tool("kstat");
const std::string k_data = std::string(OPSKIT_TEST_DATA) + "/proc-basic";

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

std::string sysctl_value(const std::string& name) {
  auto r = run({"sysctl", "-n", name});
  REQUIRE(r.exit_status == 0);
  return r.out;
}

} // namespace

TEST_CASE("kstat read: values match procps sysctl", "[kstat][cli]") {
  for (std::string name : {"vm.swappiness", "kernel.ostype", "kernel.printk", "fs.file-max",
                           "net.ipv4.tcp_syncookies", "kernel.pid_max"}) {
    INFO(name);
    auto r = run({k_kstat, "read", "-n", name});
    CHECK(r.exit_status == 0);
    CHECK(r.out == sysctl_value(name));
    auto named = run({k_kstat, "read", name});
    CHECK(named.out == name + ": " + sysctl_value(name));
  }
}

TEST_CASE("kstat read: a name with slashes for separators is read as sysctl reads it",
          "[kstat][cli]") {
  auto dotted = run({k_kstat, "read", "kernel.printk", "vm.swappiness"});
  auto slashed = run({k_kstat, "read", "kernel/printk", "vm/swappiness"});
  CHECK(slashed.exit_status == 0);
  CHECK(slashed.out == dotted.out);
  auto path = run({k_kstat, "read", "/proc/sys/kernel/printk", "/proc/sys/vm/swappiness"});
  CHECK(path.out == dotted.out); // a file's path, as a shell completes it
  CHECK(run({k_kstat, "list", "/proc/sys/vm/"}).out == run({k_kstat, "list", "vm"}).out);
  CHECK(run({k_kstat, "read", "-n", "kernel/printk"}).out == sysctl_value("kernel/printk"));
  // A dot after the first slash is part of a component, as in an interface's name.
  opskit::test::TempDir dir;
  std::filesystem::copy(k_data, dir / "proc", std::filesystem::copy_options::recursive);
  std::filesystem::create_directories(dir / "proc/sys/net/ipv4/conf/eth0.100");
  std::ofstream(dir / "proc/sys/net/ipv4/conf/eth0.100/rp_filter") << "2\n";
  auto vlan =
      run({k_kstat, "--proc-root", dir / "proc", "read", "net/ipv4/conf/eth0.100/rp_filter"});
  INFO(vlan.err);
  CHECK(vlan.out == "net.ipv4.conf.eth0/100.rp_filter: 2\n");
}

TEST_CASE("kstat list: the /proc/sys names are sysctl -a's", "[kstat][cli]") {
  auto ours = run({k_kstat, "list", "kernel", "vm", "fs", "net", "dev", "user", "abi", "debug"});
  REQUIRE(ours.exit_status == 0);
  std::set<std::string> names;
  // The subtrees of other sources under the same roots.
  constexpr std::string_view k_not_sysctl[] = {
      "vm.stats.",      "vm.meminfo.",   "net.snmp.",      "net.snmp6.",   "net.netstat.",
      "net.dev.",       "net.sockstat.", "net.sockstat6.", "net.softnet.", "net.link.",
      "net.conntrack.", "net.arp.",      "net.udp.",       "net.udp6.",    "fs.mount."};
  for (const auto& line : lines(ours.out))
    if (std::none_of(std::begin(k_not_sysctl), std::end(k_not_sysctl),
                     [&](std::string_view tree) { return line.starts_with(tree); }))
      names.insert(line);
  auto theirs = run({"sysctl", "-a", "-N"});
  std::set<std::string> expected;
  for (const auto& line : lines(theirs.out))
    // vm.stat_refresh: sysctl reads it, and so makes the kernel act; kstat never does. An IPv6
    // stable_secret fails (EIO) until set, which sysctl -a passes over, and is a secret after.
    if (line != "vm.stat_refresh" && !line.ends_with(".stable_secret"))
      expected.insert(line);
  CHECK(names == expected);
  // So that every name listed reads, as sysctl -a does without an error.
  auto net = run({k_kstat, "read", "net"});
  INFO(net.err);
  CHECK(net.exit_status == 0);
}

TEST_CASE("kstat list: of the processes only proc.self, and how to ask for a pid", "[kstat][cli]") {
  auto all = run({k_kstat, "list"});
  REQUIRE(all.exit_status == 0);
  std::set<std::string> pids;
  for (const auto& line : lines(all.out))
    if (line.starts_with("proc."))
      pids.insert(line.substr(5, line.find('.', 5) - 5));
  CHECK(pids == std::set<std::string>{"self"});
  CHECK(all.err ==
        "kstat: processes other than proc.self are listed by pid: kstat list proc.1234\n");
  auto one = run({k_kstat, "list", "proc.1"});
  REQUIRE(one.exit_status == 0);
  CHECK(one.out.find("proc.1.stat.ppid\n") != std::string::npos);
  CHECK(one.err.empty());
}

TEST_CASE("kstat read: a prefix prints its subtree in name order", "[kstat][cli]") {
  auto r = run({k_kstat, "read", "vm.stats"});
  REQUIRE(r.exit_status == 0);
  auto out = lines(r.out);
  auto vmstat = run({"cat", "/proc/vmstat"});
  CHECK(out.size() == lines(vmstat.out).size());
  std::vector<std::string> names;
  for (const auto& line : out)
    names.push_back(line.substr(0, line.find(':')));
  CHECK(std::is_sorted(names.begin(), names.end(),
                       [](const auto& a, const auto& b) { return opskit::natural_less(a, b); }));
  CHECK(std::all_of(out.begin(), out.end(),
                    [](const auto& l) { return l.starts_with("vm.stats."); }));
}

TEST_CASE("kstat read: an unknown name is one line with a suggestion, exit 1", "[kstat][cli]") {
  auto r = run({k_kstat, "read", "vm.stat"});
  CHECK(r.exit_status == 1);
  CHECK(r.out.empty());
  CHECK(r.err == "kstat: error: unknown name 'vm.stat': did you mean vm.stats?\n");
  // Beside names that are known, as sysctl does: they are printed, and the exit is 1 still.
  auto some = run({k_kstat, "read", "kernel.ostype", "vm.stat", "kernel.ostype"});
  CHECK(some.exit_status == 1);
  CHECK(some.out == "kernel.ostype: Linux\n");
  CHECK(some.err == "kstat: error: unknown name 'vm.stat': did you mean vm.stats?\n");
  // list and watch likewise.
  auto listed = run({k_kstat, "list", "kernel.ostype", "vm.stat"});
  CHECK(listed.exit_status == 1);
  CHECK(listed.out == "kernel.ostype\n");
  CHECK(listed.err == "kstat: error: unknown name 'vm.stat': did you mean vm.stats?\n");
  auto watched = run({k_kstat, "watch", "-c", "1", "-i", "0.1", "vm.swappiness", "vm.stat"});
  CHECK(watched.exit_status == 1);
  CHECK(watched.out.starts_with("vm.swappiness\n"));
  CHECK(watched.err == "kstat: error: unknown name 'vm.stat': did you mean vm.stats?\n");
}

TEST_CASE("kstat read: a glob reads the names it matches, and one that matches none fails",
          "[kstat][cli]") {
  auto r = run({k_kstat, "read", "vm.stats.pg*fault"});
  REQUIRE(r.exit_status == 0);
  CHECK(r.out.starts_with("vm.stats.pgfault: "));
  CHECK(r.out.find("\nvm.stats.pgmajfault: ") != std::string::npos);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2);
  auto none = run({k_kstat, "read", "vm.stats.@(zz|yy)*"});
  CHECK(none.exit_status == 1);
  CHECK(none.err == "kstat: error: no name matches 'vm.stats.@(zz|yy)*'\n");
}

TEST_CASE("kstat read --json: one object, numbers as numbers, in the order asked", "[kstat][cli]") {
  auto r = run({k_kstat, "read", "--json", "vm.meminfo.MemTotal", "kern.loadavg", "kernel.ostype"});
  REQUIRE(r.exit_status == 0);
  auto json = nlohmann::ordered_json::parse(r.out);
  REQUIRE(json.is_object());
  CHECK(json["kern.loadavg.1"].is_number_float());
  CHECK(json["kernel.ostype"] == "Linux");
  CHECK(json["vm.meminfo.MemTotal"].get<std::uint64_t>() > 1u << 20);
  REQUIRE(json.size() == 8);
  CHECK(json.begin().key() == "vm.meminfo.MemTotal");
  CHECK(std::next(json.begin()).key() == "kern.loadavg.1");
  CHECK(std::prev(json.end()).key() == "kernel.ostype");
}

TEST_CASE("kstat read --json: text that is not UTF-8 is JSON still, its stray bytes U+FFFD",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a UTS namespace of its own");
  auto r = run({"unshare", "--uts", "sh", "-c",
                fmt::format("printf 'caf\\351' >/proc/sys/kernel/hostname; {} read --json "
                            "kernel.hostname",
                            k_kstat)});
  INFO(r.err);
  REQUIRE(r.exit_status == 0);
  CHECK(nlohmann::json::parse(r.out)["kernel.hostname"] == "caf\xef\xbf\xbd");
}

TEST_CASE("kstat read proc.self.status: signal masks are hexadecimal, the umask octal text",
          "[kstat][cli]") {
  // SIGUSR1 (10) and SIGUSR2 (12) ignored, inherited: bits 9 and 11, 0xa00.
  auto r = run({"sh", "-c",
                fmt::format("trap '' USR1 USR2; umask 027; {} read --json "
                            "'proc.self.status.@(SigIgn|Umask)'",
                            k_kstat)});
  INFO(r.err);
  REQUIRE(r.exit_status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK((json["proc.self.status.SigIgn"].get<std::uint64_t>() & 0xa00) == 0xa00);
  CHECK(json["proc.self.status.Umask"] == "0027");
}

TEST_CASE("kstat read --prometheus: families in node_exporter's names, no text", "[kstat][cli]") {
  auto r = run({k_kstat, "read", "--prometheus", "vm.stats.pgfault", "vm.meminfo.MemFree",
                "kernel.ostype", "vm.swappiness"});
  REQUIRE(r.exit_status == 0);
  CHECK(r.out.find("# HELP kstat_vmstat_pgfault_total Page faults, minor and major (faults)\n"
                   "# TYPE kstat_vmstat_pgfault_total counter\nkstat_vmstat_pgfault_total ") == 0);
  CHECK(r.out.find("# TYPE kstat_memory_mem_free_bytes gauge\nkstat_memory_mem_free_bytes ") !=
        std::string::npos);
  CHECK(r.out.find("kstat_sysctl{name=\"vm.swappiness\"} " + sysctl_value("vm.swappiness")) !=
        std::string::npos);
  CHECK(r.out.find("ostype") == std::string::npos);
}

TEST_CASE("kstat --proc-root reads a copied /proc", "[kstat][cli]") {
  auto r = run(
      {k_kstat, "--proc-root", k_data, "read", "kern.loadavg.1", "disk.vda.reads", "kern.cp_time"});
  CHECK(r.exit_status == 0);
  CHECK(r.out ==
        "kern.loadavg.1: 0.81\ndisk.vda.reads: 7051\nkern.cp_time: 31619 0 4383 55 108305\n");
}

TEST_CASE("kstat read: a value of several lines is a line each under its name, as sysctl prints it",
          "[kstat][cli]") {
  opskit::test::TempDir proc;
  std::filesystem::create_directories(proc / "sys/kernel");
  std::ofstream(proc / "sys/kernel/core_modes") << "file\npipe\nsocket\n";
  auto r = run({k_kstat, "--proc-root", proc.path(), "read", "kernel.core_modes"});
  CHECK(r.exit_status == 0);
  CHECK(r.out == "kernel.core_modes: file\nkernel.core_modes: pipe\nkernel.core_modes: socket\n");
  auto values = run({k_kstat, "--proc-root", proc.path(), "read", "-n", "kernel.core_modes"});
  CHECK(values.out == "file\npipe\nsocket\n");
}

TEST_CASE("kstat --proc-root and --sys-root read copies of the new sources", "[kstat][cli]") {
  const std::string sys = std::string(OPSKIT_TEST_DATA) + "/sys-basic";
  auto r = run({k_kstat, "--proc-root", k_data, "--sys-root", sys, "read", "kern.openfiles",
                "kern.pressure.cpu.some.avg10", "kern.interrupts.RES", "kern.softirqs.TIMER.all",
                "net.dev.eth0.rx_crc_errors", "net.dev.eth0/100.tx_bytes",
                "cgroup.system/slice.ssh/service.pids/current"});
  CHECK(r.exit_status == 0);
  CHECK(r.err.empty());
  CHECK(r.out == "kern.openfiles: 225\nkern.pressure.cpu.some.avg10: 1.48\n"
                 "kern.interrupts.RES: 6850363\nkern.softirqs.TIMER.all: 1867681\n"
                 "net.dev.eth0.rx_crc_errors: 5\nnet.dev.eth0/100.tx_bytes: 2048\n"
                 "cgroup.system/slice.ssh/service.pids/current: 3\n");
  auto json = run({k_kstat, "--proc-root", k_data, "--sys-root", sys, "list", "--json",
                   "fs.mount./home.avail"});
  REQUIRE(json.exit_status == 0);
  CHECK(nlohmann::json::parse(json.out) ==
        nlohmann::json::parse(R"([{"name":"fs.mount./home.avail","kind":"gauge","unit":"bytes",
                                   "description":"Space available to unprivileged users",
                                   "labels":{"device":"/dev/vdb","fstype":"ext4"}}])"));
  auto missing = run({k_kstat, "--sys-root", "/nonexistent", "list", "cgroup"});
  CHECK(missing.exit_status == 2);
  CHECK(missing.err.find("/nonexistent") != std::string::npos);
}

TEST_CASE("kstat read: the new sources of this machine", "[kstat][cli]") {
  auto r = run({k_kstat, "read", "--json", "kern.openfiles", "kern.maxfiles", "fs.mount./",
                "net.dev.lo", "kern.softirqs"});
  REQUIRE(r.exit_status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["kern.openfiles"].get<std::uint64_t>() > 0);
  CHECK(json["kern.openfiles"].get<std::uint64_t>() <= json["kern.maxfiles"].get<std::uint64_t>());
  CHECK(json["kern.maxfiles"] == std::stoull(sysctl_value("fs.file-max")));
  CHECK(json["fs.mount./.size"].get<std::uint64_t>() >=
        json["fs.mount./.free"].get<std::uint64_t>());
  CHECK(json["fs.mount./.free"].get<std::uint64_t>() >=
        json["fs.mount./.avail"].get<std::uint64_t>());
  // Loopback counts what it sends as received: the two are one figure in one read of the file.
  CHECK(json["net.dev.lo.rx_bytes"] == json["net.dev.lo.tx_bytes"]);
  CHECK(json["net.dev.lo.rx_packets"] == json["net.dev.lo.tx_packets"]);
  CHECK(json["kern.softirqs.TIMER.all"].get<std::uint64_t>() > 0);
}

TEST_CASE("kstat list -d and --json describe each name", "[kstat][cli]") {
  auto table = run({k_kstat, "--proc-root", k_data, "list", "-d", "kern.loadavg"});
  REQUIRE(table.exit_status == 0);
  auto rows = lines(table.out);
  REQUIRE(rows.size() == 7);
  CHECK(rows[0].starts_with("NAME"));
  CHECK(rows[1].starts_with("kern.loadavg.1 "));
  CHECK(rows[1].find("gauge") != std::string::npos);
  auto json = run({k_kstat, "--proc-root", k_data, "list", "--json", "vm.stats.pgfault"});
  REQUIRE(json.exit_status == 0);
  CHECK(nlohmann::json::parse(json.out) ==
        nlohmann::json::parse(R"([{"name":"vm.stats.pgfault","kind":"counter","unit":"faults",
                                   "description":"Page faults, minor and major"}])"));
}

TEST_CASE("kstat read: entries denied to the user are reported, the rest printed",
          "[kstat][cli][root]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root to drop to another user");
  auto drop = [](std::vector<std::string> args) {
    std::vector<std::string> argv{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                  k_kstat};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv);
  };
  auto partial = drop({"read", "proc.1"});
  CHECK(partial.exit_status == 3);
  CHECK(partial.out.find("proc.1.stat.state: ") != std::string::npos);
  CHECK(partial.out.find("proc.1.io.") == std::string::npos);
  CHECK(partial.err == "kstat: error: proc.1.io.*: open /proc/1/io: Permission denied\n");
  auto none = drop({"read", "proc.1.io"});
  CHECK(none.exit_status == 1);
  CHECK(none.out.empty());
}

TEST_CASE("kstat: past the soft limit of open files every source is read, past the hard "
          "limit one line says so",
          "[kstat][cli]") {
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_max < 1024)
    OPSKIT_SKIP("the hard limit of open files is under 1024");
  // 100 cgroups of three files each: 300 files a snapshot holds open, past a limit of 64.
  opskit::test::TempDir sys;
  std::filesystem::path root = sys / "fs/cgroup";
  std::filesystem::create_directories(root);
  std::ofstream(root / "cgroup.controllers") << "cpu memory pids\n";
  for (int i = 0; i < 100; ++i) {
    std::filesystem::path cgroup = root / fmt::format("job{}.scope", i);
    std::filesystem::create_directory(cgroup);
    std::ofstream(cgroup / "cpu.stat") << "usage_usec 7\nuser_usec 5\nsystem_usec 2\n";
    std::ofstream(cgroup / "memory.current") << "4096\n";
    std::ofstream(cgroup / "pids.current") << "1\n";
  }
  auto under_limit = [&](std::string_view ulimit, std::string_view args) {
    return run({"sh", "-c",
                fmt::format("ulimit {} 64 && exec timeout 20 {} --sys-root {} {}", ulimit, k_kstat,
                            sys.path(), args)});
  };
  auto soft = under_limit("-Sn", "read cgroup");
  CHECK(soft.exit_status == 0);
  CHECK(soft.err.empty());
  CHECK(lines(soft.out).size() == 500);
  CHECK(soft.out.find("cgroup.job99/scope.pids/current: 1\n") != std::string::npos);

  auto hard = under_limit("-n", "read cgroup");
  CHECK(hard.exit_status == 3); // some read, the rest not
  CHECK(hard.err == "kstat: error: cgroup.*: not opened: this process holds as many files open "
                    "as its limit allows (64; ulimit -n)\n");
  auto serve = under_limit("-n", "serve --listen 127.0.0.1:0 cgroup");
  CHECK(serve.exit_status == 1);
  CHECK(serve.out.empty());
  CHECK(lines(serve.err).size() == 1);
  CHECK(serve.err.find("of 300 source files not opened: this process holds as many files open "
                       "as its limit allows (64; ulimit -n)") != std::string::npos);
}

TEST_CASE("kstat watch: counts, rates and JSON lines", "[kstat][cli]") {
  auto r = run(
      {k_kstat, "watch", "--json", "-i", "0.05", "-c", "3", "kern.forks", "vm.meminfo.MemTotal"});
  REQUIRE(r.exit_status == 0);
  auto out = lines(r.out);
  REQUIRE(out.size() == 3);
  for (const auto& line : out) {
    auto json = nlohmann::json::parse(line);
    CHECK(json["interval_s"].get<double>() > 0);
    CHECK(json["values"]["kern.forks"].get<double>() >= 0);
    CHECK(json["values"]["vm.meminfo.MemTotal"].get<std::uint64_t>() > 0);
  }
  // Into a pipe, the header once, however many lines follow it (on a terminal, every 20).
  auto table = run({k_kstat, "watch", "-i", "0.01", "-c", "25", "kern.ctxt", "kern.loadavg.1"});
  REQUIRE(table.exit_status == 0);
  auto rows = lines(table.out);
  REQUIRE(rows.size() == 26); // header and 25 samples
  CHECK(rows[0].find("kern.ctxt") != std::string::npos);
  CHECK(std::count_if(rows.begin(), rows.end(), [](const std::string& row) {
          return row.find("kern.ctxt") != std::string::npos;
        }) == 1);
}

TEST_CASE("kstat watch: after a stop (Ctrl-Z) the next sample is an interval away, not a burst",
          "[kstat][cli]") {
  opskit::test::TempDir dir;
  std::string out = dir / "out";
  pid_t watching = opskit::test::spawn_quiet(
      {"sh", "-c", "exec " + k_kstat + " watch --json -i 0.5 -c 6 kern.ctxt > " + out});
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  ::kill(watching, SIGSTOP);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ::kill(watching, SIGCONT);
  int status = 0;
  REQUIRE(::waitpid(watching, &status, 0) == watching);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  auto samples = lines(*opskit::read_file(out));
  REQUIRE(samples.size() == 6);
  bool stopped = false;
  for (const auto& line : samples) {
    double interval = nlohmann::json::parse(line)["interval_s"].get<double>();
    INFO(line);
    CHECK(interval > 0.05);
    stopped = stopped || interval > 1.5;
  }
  CHECK(stopped); // the sample that came late, over the stop
}

TEST_CASE("kstat: what standard output does not take (a full disk, a closed descriptor) fails in "
          "one line",
          "[kstat][cli]") {
  for (std::string redirect : {"> /dev/full", ">&-"})
    for (std::string command : {"read vm", "read --json vm", "list", "read -n vm.swappiness",
                                "watch -i 0.01 -c 1000 kern.ctxt", "--help"}) {
      INFO(command << " " << redirect);
      auto r = run({"sh", "-c", k_kstat + " " + command + " " + redirect});
      CHECK(r.exit_status == 1);
      CHECK(r.err.ends_with(
          "kstat: error: write to standard output: " +
          std::string(redirect == ">&-" ? "Bad file descriptor" : "not all of it was written") +
          "\n"));
    }
}

namespace {

// Rewrites, in place (watch keeps the file open and rereads it), field `field` (0-based, the
// first word on a line being 0) of the line of `file` whose word `key_at` is `key`. The value is
// written in 20 digits, zero-padded, so that the file keeps its length from the first rewrite on
// and every later one is a single pwrite: a sample taken at the same moment reads the old text
// or the new, never an empty or a half-written file.
void set_field(const std::string& file, std::size_t key_at, const std::string& key,
               std::size_t field, std::uint64_t value) {
  std::ifstream in(file);
  std::string text;
  for (std::string line; std::getline(in, line);) {
    auto words = opskit::words(line);
    if (words.size() > std::max(key_at, field) && words[key_at] == key) {
      words[field] = fmt::format("{:020}", value);
      line.clear();
      for (const auto& word : words)
        line += (line.empty() ? "" : " ") + word;
    }
    text += line + "\n";
  }
  in.close();
  opskit::UniqueFd out(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  REQUIRE(out.get() >= 0);
  REQUIRE(::pwrite(out.get(), text.data(), text.size(), 0) == static_cast<ssize_t>(text.size()));
  REQUIRE(::ftruncate(out.get(), static_cast<off_t>(text.size())) == 0);
}

} // namespace

TEST_CASE("kstat watch: a counter that went back, reset or wrapped at 32 bits, counts from zero",
          "[kstat][cli]") {
  opskit::test::TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  const std::string vmstat = root / "vmstat", diskstats = root / "diskstats";
  // pgfault: a reset from a million to 500; vda's read_ms (the kernel prints it as 32 bits):
  // a wrap from just below 2^32 to 200. Then both count on: 1000 more.
  auto set = [&](std::uint64_t faults, std::uint64_t read_ms) {
    set_field(vmstat, 0, "pgfault", 1, faults);
    set_field(diskstats, 2, "vda", 6, read_ms);
  };
  set(1'000'000, 4'294'967'000);
  FILE* watch = ::popen(("'" + k_kstat + "' --proc-root '" + root.path() +
                         "' watch --json -i 0.5 -c 3 vm.stats.pgfault disk.vda.read_ms")
                            .c_str(),
                        "r");
  REQUIRE(watch != nullptr);
  // After each line, the change the next interval is to see: none, the reset, 1000 more.
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> next{{500, 200}, {1500, 1200}};
  std::vector<nlohmann::json> seen;
  char line[4096];
  while (std::fgets(line, sizeof line, watch) != nullptr) {
    seen.push_back(nlohmann::json::parse(line));
    if (seen.size() <= next.size())
      set(next[seen.size() - 1].first, next[seen.size() - 1].second);
  }
  CHECK(::pclose(watch) == 0);
  REQUIRE(seen.size() == 3);
  // The counts per interval: rate times interval.
  auto counted = [&](std::size_t at, const char* name) {
    return seen[at]["values"][name].get<double>() * seen[at]["interval_s"].get<double>();
  };
  CHECK(counted(0, "vm.stats.pgfault") == Approx(0));
  CHECK(counted(1, "vm.stats.pgfault") == Approx(500)); // from zero, not 2^64 - 999,500
  CHECK(counted(2, "vm.stats.pgfault") == Approx(1000));
  CHECK(counted(0, "disk.vda.read_ms") == Approx(0));
  CHECK(counted(1, "disk.vda.read_ms") == Approx(200));
  CHECK(counted(2, "disk.vda.read_ms") == Approx(1000));
}

TEST_CASE("kstat watch: a CPU's iowait that goes back a tick is kept, one back 3 s or more "
          "counts from zero",
          "[kstat][cli]") {
  opskit::test::TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  const std::string stat = root / "stat";
  set_field(stat, 0, "cpu0", 5, 1816);
  FILE* watch = ::popen(
      ("'" + k_kstat + "' --proc-root '" + root.path() + "' watch --json -i 1 -c 4 cpu.0.iowait")
          .c_str(),
      "r");
  REQUIRE(watch != nullptr);
  // After each line, the iowait the next interval is to see (in ticks, USER_HZ 100): a tick
  // back, 99 on from there, then back 10 s (a CPU online again).
  const std::vector<std::uint64_t> next{1815, 1915, 915};
  std::vector<nlohmann::json> seen;
  char line[4096];
  while (std::fgets(line, sizeof line, watch) != nullptr) {
    seen.push_back(nlohmann::json::parse(line));
    if (seen.size() <= next.size())
      set_field(stat, 0, "cpu0", 5, next[seen.size() - 1]);
  }
  CHECK(::pclose(watch) == 0);
  REQUIRE(seen.size() == 4);
  auto counted = [&](std::size_t at) {
    return seen[at]["values"]["cpu.0.iowait"].get<double>() * seen[at]["interval_s"].get<double>();
  };
  CHECK(counted(1) == Approx(0));    // not 18.15 s, the whole count
  CHECK(counted(2) == Approx(0.99)); // from the 1816 kept
  CHECK(counted(3) == Approx(9.15)); // from zero
}

namespace {

// The lines `kstat watch ARGS...` prints on --proc-root `root`, with `change` called after the
// line numbered `after` (the first is 0); what it said on standard error into `errors`, and its
// exit status into `status`.
std::vector<std::string> watch_lines(const std::string& root, const std::string& args,
                                     std::size_t after, const std::function<void()>& change,
                                     std::string& errors, int& status,
                                     const std::string& root_option = "--proc-root",
                                     const std::string& run_under = "") {
  const std::string said = root + "/errors";
  FILE* watch = ::popen((run_under + " '" + k_kstat + "' " + root_option + " '" + root +
                         "' watch " + args + " 2>'" + said + "'")
                            .c_str(),
                        "r");
  REQUIRE(watch != nullptr);
  std::vector<std::string> seen;
  char line[4096];
  while (std::fgets(line, sizeof line, watch) != nullptr) {
    seen.emplace_back(line);
    if (seen.size() == after + 1)
      change();
  }
  status = WEXITSTATUS(::pclose(watch));
  errors = opskit::read_file(said).value_or("");
  return seen;
}

// Writes `text` over `file` where `old` is, in place: one pwrite, which a read sees whole.
void overwrite(const std::string& file, std::string_view old, std::string_view text) {
  auto content = opskit::read_file(file);
  REQUIRE(content);
  REQUIRE(content->find(old) != std::string::npos);
  opskit::UniqueFd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  REQUIRE(::pwrite(fd.get(), text.data(), text.size(), static_cast<off_t>(content->find(old))) ==
          static_cast<ssize_t>(text.size()));
}

// What a test runs kstat under to have the system calls `calls` (strace's -e trace=) written to
// `record`, a word of sh ("$calls" expands). A sanitizer build's LeakSanitizer cannot run under
// ptrace, and is left off.
std::string traced(std::string_view calls, std::string_view record) {
  return fmt::format("ASAN_OPTIONS=detect_leaks=0 strace -f -e trace={} -o \"{}\"", calls, record);
}

// traced() for watch_lines(): kstat's opens written to `opened`.
std::string traced_opens(const std::string& opened) {
  return traced("openat", opened);
}

// How often `file` was opened in strace's record `opened` of openat(2) calls ("/proc/vmstat\"":
// the quote ends the path).
std::size_t opens_of(const std::string& opened, std::string_view file) {
  auto calls = opskit::read_file(opened);
  REQUIRE(calls);
  std::size_t n = 0;
  for (std::size_t at = 0; (at = calls->find(file, at)) != std::string::npos; at += file.size())
    ++n;
  return n;
}

} // namespace

TEST_CASE("kstat watch: names that come and go are resolved again, under a header of their own",
          "[kstat][cli]") {
  opskit::test::TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  std::string errors;
  int status = -1;
  // After the first sample, br0's one ARP entry moves to br1.
  auto seen = watch_lines(
      root.path(), "-i 0.2 -c 4 net.arp", 1, [&] { overwrite(root / "net/arp", "br0", "br1"); },
      errors, status);
  CHECK(status == 0);
  CHECK(errors == "");
  REQUIRE(seen.size() >= 5); // a header, four samples, and a header again
  CHECK(seen[0].find("net.arp.br0.entries") != std::string::npos);
  auto again = std::ranges::find_if(
      seen, [](const auto& line) { return line.find("net.arp.br1.entries") != std::string::npos; });
  REQUIRE(again != seen.end());
  CHECK(std::none_of(again, seen.end(), [](const auto& line) {
    return line.find("br0") != std::string::npos || line.find('-') != std::string::npos;
  }));
}

TEST_CASE("kstat watch: a cgroup made is watched from the next line on", "[kstat][cli]") {
  opskit::test::TempDir sys;
  std::filesystem::copy(std::string(OPSKIT_TEST_DATA) + "/sys-basic", sys.path(),
                        std::filesystem::copy_options::recursive);
  // Made whole beside the hierarchy and moved into it, as mkdir(2) makes a cgroup with its files.
  std::filesystem::create_directory(sys / "web.service");
  std::ofstream(sys / "web.service/pids.current") << "7\n";
  std::string errors;
  int status = -1;
  auto seen = watch_lines(
      sys.path(), "-i 0.2 -c 4 'cgroup.system/slice.*.pids/current'", 1,
      [&] {
        std::filesystem::rename(sys / "web.service", sys / "fs/cgroup/system.slice/web.service");
      },
      errors, status, "--sys-root");
  CHECK(status == 0);
  CHECK(errors == "");
  REQUIRE(!seen.empty());
  CHECK(seen[0].find("cgroup.system/slice.ssh/service.pids/current") != std::string::npos);
  CHECK(seen[0].find("web/service") == std::string::npos);
  CHECK(std::ranges::any_of(seen, [](const auto& line) {
    return line.find("cgroup.system/slice.web/service.pids/current") != std::string::npos;
  }));
}

TEST_CASE("kstat watch: cgroups made and removed are followed without opening the others' "
          "files again",
          "[kstat][cli]") {
  opskit::test::TempDir sys;
  std::filesystem::copy(std::string(OPSKIT_TEST_DATA) + "/sys-basic", sys.path(),
                        std::filesystem::copy_options::recursive);
  std::filesystem::create_directory(sys / "web.service");
  std::ofstream(sys / "web.service/pids.current") << "7\n";
  std::string errors, opened = sys / "opened";
  int status = -1;
  // After the first sample web.service comes and ssh.service goes, each moved whole.
  auto seen = watch_lines(
      sys.path(), "-i 0.2 -c 4 --json cgroup", 1,
      [&] {
        std::filesystem::rename(sys / "web.service", sys / "fs/cgroup/system.slice/web.service");
        std::filesystem::rename(sys / "fs/cgroup/system.slice/ssh.service", sys / "ssh.service");
      },
      errors, status, "--sys-root", traced_opens(opened));
  CHECK(status == 0);
  CHECK(errors == ""); // ssh.service's entries left; they did not fail
  REQUIRE(seen.size() == 4);
  CHECK(seen.front().find("ssh/service.pids/current") != std::string::npos);
  CHECK(seen.back().find("ssh/service") == std::string::npos);
  CHECK(seen.back().find("\"cgroup.system/slice.web/service.pids/current\":7") !=
        std::string::npos);
  // system.slice's cpu.stat opened at the start alone (its names found, then its snapshot's
  // file): the names under the cgroups that changed were found, not all again.
  CHECK(opens_of(opened, "system.slice/cpu.stat\"") == 2);
  CHECK(opens_of(opened, "web.service/pids.current\"") == 2);
}

TEST_CASE("kstat watch: a file system mounted is followed without opening the other names' "
          "files again",
          "[kstat][cli][root]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root to mount");
  // In a mount namespace of the test's own, which kstat starts in: nothing else sees the mount.
  opskit::test::enter_own_mount_namespace();
  opskit::test::TempDir sys; // an empty /sys: the names are /proc's
  std::filesystem::create_directory(sys / "point");
  std::string errors, opened = sys / "opened";
  int status = -1;
  auto seen = watch_lines(
      sys.path(), "-i 0.2 -c 4 --json fs.mount vm.stats.pgfault", 1,
      [&] { REQUIRE(::mount("kstat-test", (sys / "point").c_str(), "tmpfs", 0, "size=4m") == 0); },
      errors, status, "--sys-root", traced_opens(opened));
  ::umount2((sys / "point").c_str(), MNT_DETACH);
  CHECK(status == 0);
  CHECK(errors == "");
  REQUIRE(seen.size() == 4);
  CHECK(seen.front().find("point") == std::string::npos);
  CHECK(seen.back().find("point.size\":4194304") != std::string::npos);
  CHECK(seen.back().find("\"vm.stats.pgfault\":") != std::string::npos);
  // Opened at the start alone (its names found, then the snapshot's file): the names under the
  // mount point were found, not all again.
  CHECK(opens_of(opened, "\"/proc/vmstat\"") == 2);
}

TEST_CASE("kstat watch: an interface that comes is followed without opening the other names' "
          "files again",
          "[kstat][cli]") {
  opskit::test::TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  std::string errors, opened = root / "opened";
  int status = -1;
  auto seen = watch_lines(
      root.path(), "-i 0.2 -c 6 --json net.dev vm.stats.pgfault", 1,
      [&] {
        std::ofstream(root / "net/dev", std::ios::app)
            << " veth1: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n";
      },
      errors, status, "--proc-root", traced_opens(opened));
  CHECK(status == 0);
  CHECK(errors == "");
  REQUIRE(seen.size() == 6);
  CHECK(seen.front().find("veth1") == std::string::npos);
  auto came = std::ranges::find_if(
      seen, [](const auto& line) { return line.find("veth1") != std::string::npos; });
  REQUIRE(came < seen.end() - 1); // the change is seen at the sample after it, or the next
  // The interfaces there were go on with their rates; the one that came has its first a line on.
  CHECK(came->find("\"net.dev.eth0.rx_bytes\":0.0") != std::string::npos);
  CHECK(came->find("\"net.dev.veth1.rx_bytes\":null") != std::string::npos);
  CHECK((came + 1)->find("\"net.dev.veth1.rx_bytes\":0.0") != std::string::npos);
  // Opened at the start alone (its names found, then the snapshot's file): the names under
  // net.dev were found anew, not all.
  CHECK(opens_of(opened, "/vmstat\"") == 2);
}

TEST_CASE("kstat watch: a device new in a cgroup's io.stat finds that cgroup's names alone",
          "[kstat][cli]") {
  opskit::test::TempDir sys;
  std::filesystem::copy(std::string(OPSKIT_TEST_DATA) + "/sys-basic", sys.path(),
                        std::filesystem::copy_options::recursive);
  std::string errors, opened = sys / "opened";
  int status = -1;
  auto seen = watch_lines(
      sys.path(), "-i 0.2 -c 4 --json cgroup", 1,
      [&] {
        std::ofstream(sys / "fs/cgroup/system.slice/io.stat", std::ios::app)
            << "8:0 rbytes=512 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n";
      },
      errors, status, "--sys-root", traced_opens(opened));
  CHECK(status == 0);
  CHECK(errors == "");
  REQUIRE(seen.size() == 4);
  CHECK(seen.front().find("io/stat.8:0") == std::string::npos);
  CHECK(seen.back().find("\"cgroup.system/slice.io/stat.8:0.rbytes\":") != std::string::npos);
  CHECK(seen.back().find("\"cgroup.system/slice.ssh/service.pids/current\":") != std::string::npos);
  // The root cgroup's cpu.stat opened at the start alone: system.slice's names were found anew
  // (and ssh.service's under it), not every cgroup's.
  CHECK(opens_of(opened, "fs/cgroup/cpu.stat\"") == 2);
  CHECK(opens_of(opened, "system.slice/io.stat\"") == 4);
}

TEST_CASE("kstat watch: an entry that fails is told once, and shown as '-'", "[kstat][cli]") {
  opskit::test::TempDir root;
  std::filesystem::copy(k_data, root.path(), std::filesystem::copy_options::recursive);
  std::string errors;
  int status = -1;
  // After the first sample, pgfault's value is no longer a number.
  auto seen = watch_lines(
      root.path(), "-i 0.2 -c 4 vm.stats.pgfault vm.stats.pgmajfault", 1,
      [&] { overwrite(root / "vmstat", "pgfault 7", "pgfault x"); }, errors, status);
  CHECK(status == 3); // some entries failed
  REQUIRE(seen.size() == 5);
  CHECK(seen.back().find(" - ") != std::string::npos);
  CHECK(errors == "kstat: error: vm.stats.pgfault: no longer in " + root / "vmstat" + "\n");
}

TEST_CASE("kstat watch: a process that exits is told once, and not looked for each sample",
          "[kstat][cli]") {
  // Under strace (its stat calls), the process killed once the first sample is out.
  auto r = run(
      {"sh", "-c",
       "sleep 30 & sp=$!; out=$(mktemp); calls=$(mktemp); " +
           traced("stat,lstat,newfstatat,statx", "$calls") +
           " \"$0\" watch -i 0.1 -c 10 "
           "--json proc.$sp.stat.num_threads vm.swappiness >$out 2>&1 & w=$!; "
           "for i in $(seq 400); do [ -s $out ] && break; sleep 0.05; done; kill $sp; wait $sp; "
           "wait $w; echo \"status $?\"; cat $out; "
           "echo \"looked $(grep -c \"/proc/$sp/stat\\\".*ENOENT\" $calls)\"; rm -f $out $calls",
       k_kstat});
  INFO(r.out);
  CHECK(r.out.find("status 3\n") != std::string::npos); // an entry failed
  auto told = r.out.find("stat.num_threads: read /proc/");
  REQUIRE(told != std::string::npos);
  CHECK(r.out.find("stat.num_threads: read /proc/", told + 1) == std::string::npos);
  CHECK(r.out.find("\"vm.swappiness\":") != std::string::npos);
  // The one resolve after it exited looked twice; each sample after did, before: 16 times.
  int looked = -1;
  REQUIRE(std::sscanf(r.out.substr(r.out.rfind("looked ")).c_str(), "looked %d", &looked) == 1);
  CHECK(looked <= 2);
}

TEST_CASE("kstat watch: Ctrl-C ends it cleanly with status 0, also while its output is blocked",
          "[kstat][cli]") {
  auto r = run({"sh", "-c",
                "out=$(mktemp); \"$0\" watch -i 0.05 kern.forks >\"$out\" & pid=$!; i=0; "
                "while [ ! -s \"$out\" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; "
                "kill -INT $pid; wait $pid; "
                "echo status=$?; tail -c 1 \"$out\" | od -An -c; rm -f \"$out\"",
                k_kstat});
  CHECK(r.out.find("status=0\n") != std::string::npos);
  CHECK(r.out.find("\\n") != std::string::npos); // the last line is complete
  // Its output read once (so its handlers are in place), then waits until its write does
  // (30 s at most): the kernel names where a process sleeps in /proc/PID/wchan.
  const std::string start_blocked =
      "d=$(mktemp -d); mkfifo \"$d/pipe\"; "
      "\"$0\" watch --json -i 0.01 vm.stats >\"$d/pipe\" 2>\"$d/err\" & pid=$!; "
      "exec 3<\"$d/pipe\"; head -c 1 <&3 >/dev/null; "
      "blocked() { i=0; until grep -q pipe_write /proc/$pid/wchan || [ $i -ge 600 ]; do "
      "sleep 0.05; i=$((i+1)); done; }; blocked; ";
  // Stopped while its output waits on a full pipe (watch | less): the line goes out whole.
  auto blocked = run({"sh", "-c",
                      start_blocked + "kill -INT $pid; tail -c 1 <&3 | od -An -c; wait $pid; "
                                      "echo status=$?; cat \"$d/err\"; rm -r \"$d\"",
                      k_kstat});
  CHECK(blocked.out.find("\\n") != std::string::npos);
  CHECK(blocked.out.ends_with("status=0\n")); // and nothing on stderr
  // A second stop while it waits on a reader that stopped reading: it ends at once.
  auto twice = run({"sh", "-c",
                    start_blocked + "kill -INT $pid; sleep 0.1; blocked; kill -TERM $pid; "
                                    "wait $pid; echo status=$?; rm -r \"$d\"",
                    k_kstat});
  CHECK(twice.out == "status=143\n");
}

TEST_CASE("kstat write: prints old and new, rejects what the kernel rejects",
          "[kstat][cli][root]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root to write /proc/sys");
  std::string current = sysctl_value("vm.swappiness");
  current.pop_back();
  auto same = run({k_kstat, "write", "vm.swappiness=" + current});
  CHECK(same.exit_status == 0);
  CHECK(same.out == "vm.swappiness: " + current + " -> " + current + "\n");
  auto bad = run({k_kstat, "write", "vm.swappiness=lots"});
  CHECK(bad.exit_status == 1);
  CHECK(bad.err == "kstat: error: write vm.swappiness = lots: Invalid argument\n");
  auto outside = run({k_kstat, "write", "vm.stats.pgfault=1"});
  CHECK(outside.exit_status == 1);
  CHECK(outside.err == "kstat: error: vm.stats.pgfault: not a /proc/sys entry, so not writable\n");
  auto read_only = run({k_kstat, "write", "kernel.ostype=Linux"});
  CHECK(read_only.exit_status == 1);
  CHECK(read_only.err == "kstat: error: kernel.ostype: read-only, not writable\n");
  CHECK(sysctl_value("vm.swappiness") == current + "\n");
  // The kernel takes the first number of two: set, said, and the rest an error.
  auto partly = run({k_kstat, "write", "vm.swappiness=" + current + " 70"});
  CHECK(partly.exit_status == 1);
  CHECK(partly.out == "vm.swappiness: " + current + " -> " + current + "\n");
  CHECK(partly.err ==
        "kstat: error: vm.swappiness = " + current + " 70: the kernel ignored '70'\n");
  // A malformed assignment after a good one: nothing written.
  auto malformed = run({k_kstat, "write", "vm.swappiness=" + current, "swappiness"});
  CHECK(malformed.exit_status == 2);
  CHECK(malformed.out.empty());
  CHECK(malformed.err == "kstat: error: 'swappiness': expected NAME=VALUE\n");
  // A name mistyped, or read-only, after a good one: nothing written, and the name meant guessed.
  std::string other = current == "60" ? "61" : "60";
  auto typo =
      run({k_kstat, "write", "vm.swappiness=" + other, "vm.swapiness=10", "kernel.ostype=Linux"});
  CHECK(typo.exit_status == 1);
  CHECK(typo.out.empty());
  CHECK(typo.err == "kstat: error: unknown name 'vm.swapiness': did you mean vm.swappiness?\n"
                    "kstat: error: kernel.ostype: read-only, not writable\n");
  CHECK(run({k_kstat, "write", "vm=1"}).err == "kstat: error: vm: a /proc/sys directory, not an "
                                               "entry\n");
  if (sysctl_value("vm.swappiness") != current + "\n") {
    run({k_kstat, "write", "vm.swappiness=" + current});
    FAIL("vm.swappiness was written");
  }
  // A secret, which kstat never reads, is set and not read, before or after.
  auto secret =
      run({"unshare", "--net", k_kstat, "write", "net.ipv6.conf.lo.stable_secret=2001:db8::1"});
  CHECK(secret.exit_status == 0);
  CHECK(secret.out == "net.ipv6.conf.lo.stable_secret: - -> 2001:db8::1\n");
}

TEST_CASE("kstat bench: three methods, figures per read", "[kstat][cli]") {
  auto r = run({k_kstat, "bench", "--json", "-n", "200", "vm.stats.pgfault"});
  REQUIRE(r.exit_status == 0);
  auto json = nlohmann::json::parse(r.out);
  CHECK(json["iterations"] == 200);
  CHECK(json["handle_ns"].get<double>() > 0);
  CHECK(json["by_name_ns"].get<double>() > 0);
  CHECK(json["snapshot_names"].get<int>() ==
        static_cast<int>(lines(run({"cat", "/proc/vmstat"}).out).size()));
}

TEST_CASE("kstat: usage errors exit 2", "[kstat][cli]") {
  CHECK(run({k_kstat}).exit_status == 2);
  CHECK(run({k_kstat, "read"}).exit_status == 2);
  CHECK(run({k_kstat, "read", "-n", "--json", "vm.swappiness"}).exit_status == 2);
  CHECK(run({k_kstat, "read", "-n", "--prometheus", "vm.swappiness"}).exit_status == 2);
  auto bogus = run({k_kstat, "frobnicate"});
  CHECK(bogus.exit_status == 2);
  CHECK(bogus.err == "kstat: error: unknown command 'frobnicate' (see 'kstat --help')\n");
  auto typo = run({k_kstat, "--proc-root", "/proc", "reed", "vm"});
  CHECK(typo.err == "kstat: error: unknown command 'reed' (see 'kstat --help')\n");
  for (std::string interval : {"abc", "0x10", "nan"}) {
    auto wrong = run({k_kstat, "watch", "-i", interval, "kern.ctxt"});
    CHECK(wrong.exit_status == 2);
    CHECK(wrong.err == "kstat: error: --interval: " + interval +
                           " is not a number of seconds (see 'kstat watch --help')\n");
  }
  // Seconds that are no number, and counts that are no count, which would run for ever.
  auto nan = run({k_kstat, "watch", "-i", "nan", "kern.ctxt"});
  CHECK(nan.exit_status == 2);
  CHECK(nan.err.starts_with("kstat: error: --interval: nan is not a number of seconds"));
  CHECK(run({k_kstat, "read", "--timeout", "NaN", "vm.swappiness"}).exit_status == 2);
  auto negative = run({k_kstat, "watch", "-c", "-5", "kern.ctxt"});
  CHECK(negative.exit_status == 2);
  CHECK(negative.err == "kstat: error: --count: '-5' is not a number of samples (1 or more) (see "
                        "'kstat watch --help')\n");
  CHECK(run({k_kstat, "watch", "-c", "99999999999999999999", "kern.ctxt"}).exit_status == 2);
  CHECK(run({k_kstat, "watch", "-c", "0", "kern.ctxt"}).exit_status == 2);
}

namespace {

// Both ends brought up; the kernel reports the state a moment later: ip link is asked until it
// says UP.
constexpr std::string_view k_links_up =
    "ip link set kst0 up; ip link set kst1 up; "
    "for i in $(seq 50); do ip -o link show kst0 | grep -q 'state UP' && break; sleep 0.1; done";

// The output of `script` (sh; "{0}" stands for kstat, "{1}" for k_links_up) run in a network
// namespace of its own, where a veth pair, kst0 and kst1, is made first.
std::string in_own_network(std::string_view script) {
  std::string commands = fmt::format("set -e; ip link add kst0 type veth peer name kst1; {}",
                                     fmt::format(fmt::runtime(script), k_kstat, k_links_up));
  auto r = run({"unshare", "--net", "sh", "-c", commands});
  INFO(r.err);
  REQUIRE(r.exit_status == 0);
  return r.out;
}

// The output of `script` (sh; "{0}" stands for `dir`, "{1}" for kstat) run in a mount namespace
// of its own, where what it mounts is gone with it.
std::string in_own_mounts(const std::string& dir, std::string_view script) {
  std::string commands = "set -e; " + fmt::format(fmt::runtime(script), dir, k_kstat);
  auto r = run({"unshare", "--mount", "--propagation", "private", "sh", "-c", commands});
  INFO(r.err);
  REQUIRE(r.exit_status == 0);
  return r.out;
}

} // namespace

TEST_CASE("kstat read net.link: the links of its network namespace, as ip link set them",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a network namespace of its own");
  // One end's MTU set, then both brought up.
  auto out = lines(in_own_network(
      "ip link set kst0 mtu 1234 address 02:00:00:00:aa:01 alias 'uplink to sw1 \\ rack-2'; "
      "{0} read net.link; {1}; echo --; {0} read net.link.kst0"));
  auto split = std::find(out.begin(), out.end(), "--");
  REQUIRE(split != out.end());
  std::set<std::string> before(out.begin(), split), after(split + 1, out.end());
  for (const char* line :
       {"net.link.kst0.mtu: 1234", "net.link.kst1.mtu: 1500", "net.link.kst0.up: 0",
        "net.link.kst0.carrier: 0", "net.link.lo.type: 772", "net.link.kst0.type: 1",
        "net.link.kst0.operstate: down", "net.link.kst0.address: 02:00:00:00:aa:01",
        "net.link.kst0.broadcast: ff:ff:ff:ff:ff:ff",
        "net.link.kst0.alias: uplink to sw1 \\ rack-2"}) {
    INFO(line);
    CHECK(before.count(line) == 1);
  }
  CHECK(std::none_of(before.begin(), before.end(),
                     [](const std::string& l) { return l.starts_with("net.link.eth"); }));
  CHECK(before.count("net.link.kst1.alias: -") == 0); // no alias: no name
  CHECK(std::none_of(before.begin(), before.end(),
                     [](const std::string& l) { return l.starts_with("net.link.kst0.duplex"); }));
  // A veth's speed and duplex, as ethtool gives them: 10 Gb/s, full; none while it was down.
  for (const char* line :
       {"net.link.kst0.up: 1", "net.link.kst0.carrier: 1", "net.link.kst0.carrier_up_count: 1",
        "net.link.kst0.mtu: 1234", "net.link.kst0.speed: 1250000000", "net.link.kst0.operstate: up",
        "net.link.kst0.duplex: full"}) {
    INFO(line);
    CHECK(after.count(line) == 1);
  }
}

TEST_CASE("kstat watch net.link: a link changed while it watches is read anew, the others as "
          "before",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a network namespace of its own");
  // The MTU set once the first sample is out: the samples after it have the new one; kst1 and lo,
  // whose messages read as before, keep theirs.
  auto out = lines(in_own_network(
      "out=$(mktemp); {0} watch -i 0.05 -c 20 --json net.link.kst0.mtu net.link.kst1.mtu "
      "net.link.lo.mtu > $out & pid=$!; "
      "for i in $(seq 100); do [ -s $out ] && break; sleep 0.05; done; "
      "ip link set kst0 mtu 1300; wait $pid; cat $out; rm -f $out"));
  REQUIRE(out.size() == 20);
  auto sample = [](const std::string& line) {
    auto values = nlohmann::json::parse(line).at("values");
    return std::array<int, 3>{values.at("net.link.kst0.mtu").get<int>(),
                              values.at("net.link.kst1.mtu").get<int>(),
                              values.at("net.link.lo.mtu").get<int>()};
  };
  CHECK(sample(out.front()) == std::array<int, 3>{1500, 1500, 65536});
  CHECK(sample(out.back()) == std::array<int, 3>{1300, 1500, 65536});
  for (const auto& line : out) {
    INFO(line);
    auto mtu = sample(line);
    CHECK((mtu[0] == 1500 || mtu[0] == 1300));
    CHECK(mtu[1] == 1500);
    CHECK(mtu[2] == 65536);
  }
}

TEST_CASE("kstat watch net.link: a link without settings (lo) is not asked for them each sample, "
          "its counters moving, a veth is",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a network namespace of its own");
  // Connections refused on lo all along, so that its counters differ in every dump.
  auto out = lines(
      in_own_network("{1}; ip link set lo up; "
                     "(while :; do curl -s 127.0.0.1:1 || true; done) >/dev/null 2>&1 & load=$!; "
                     "trap 'kill $load' EXIT; " // stopped however the shell ends
                     "calls=$(mktemp); " +
                     traced("ioctl", "$calls") +
                     " {0} watch -i 0.02 -c 20 --json net.link.kst0.speed net.link.lo.mtu; "
                     "echo \"asked $(grep SIOCETHTOOL $calls | grep -c '= 0$') "
                     "$(grep SIOCETHTOOL $calls | grep -c EOPNOTSUPP)\"; rm -f $calls"));
  REQUIRE(out.size() == 21);
  for (std::size_t k = 0; k < 20; ++k) { // the veth's speed each time: it is asked each sample
    INFO(out[k]);
    CHECK(nlohmann::json::parse(out[k]).at("values").at("net.link.kst0.speed") == 1250000000);
  }
  int answered = 0, none = 0;
  REQUIRE(std::sscanf(out.back().c_str(), "asked %d %d", &answered, &none) == 2);
  CHECK(answered >= 2 * 20); // kst0 and kst1, each sample
  CHECK(none <= 3);          // lo, as each source first reads the links, not in every sample
}

TEST_CASE("kstat serve: an interface's sysctl given, the interface deleted, is a scrape error, "
          "not a resolve each scrape",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a network namespace of its own");
  // Served under strace (its openat calls), kst0 deleted after the first scrape, four more; the
  // last one's body printed. The server is stopped however the script ends.
  auto out = in_own_network(
      "ip link set lo up; dir=$(mktemp -d); " + traced("openat", "$dir/opened") +
      " {0} serve --listen 127.0.0.1:0 net.ipv4.conf.kst0.forwarding vm.swappiness "
      ">$dir/out 2>&1 & tracer=$!; trap 'kill $(pgrep -P $tracer) 2>/dev/null || true' EXIT; "
      "for i in $(seq 300); do grep -q serving $dir/out && break; sleep 0.1; done; "
      "url=$(sed -n 's/^kstat: serving //p' $dir/out); curl -s $url >/dev/null; "
      "ip link del kst0; for i in 1 2 3 4; do curl -s $url >$dir/last; done; "
      "kill $(pgrep -P $tracer); wait $tracer || true; cat $dir/last; "
      "echo \"listed $(grep -c '/proc/sys/net/ipv4/conf\"' $dir/opened)\"; rm -rf $dir");
  CHECK(out.find("kstat_scrape_error{source=\"/proc/sys/net/ipv4/conf/kst0/forwarding\"} 1\n") !=
        std::string::npos);
  CHECK(out.find("kstat_sysctl{name=\"vm.swappiness\"} ") != std::string::npos);
  // The resolve after the first failure could not find the name, and listed its parent for a
  // suggestion; the three scrapes after it tried no resolve (each did, one a scrape, before).
  auto listed = out.substr(out.rfind("listed "));
  CHECK(listed == "listed 1\n");
}

TEST_CASE("kstat read net.dev: every interface, where /proc/net/dev is more than a page",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a network namespace of its own");
  // 123 interfaces: /proc/net/dev gives a page a read, the first 31 of them here.
  auto out = lines(in_own_network(
      "for i in $(seq 60); do ip link add va$i type veth peer name vb$i; done; "
      "wc -c < /proc/net/dev; {0} read --prometheus net.dev; {0} read net.dev.vb60.rx_bytes"));
  REQUIRE(!out.empty());
  CHECK(std::stoul(out.front()) > 4096);
  CHECK(std::ranges::count_if(out, [](const std::string& line) {
          return line.starts_with("kstat_network_receive_bytes_total{");
        }) == 123);
  CHECK(std::ranges::count(out, "kstat_network_receive_bytes_total{device=\"vb60\"} 0") == 1);
  CHECK(out.back() == "net.dev.vb60.rx_bytes: 0");
}

TEST_CASE("kstat list fs.mount: every mount point, where the mount table is more than a page",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a mount namespace of its own");
  opskit::test::TempDir dir;
  auto out = lines(in_own_mounts(dir.path(), "for i in $(seq 100); do mkdir {0}/m$i; "
                                             "mount -t tmpfs kstat-test {0}/m$i; done; "
                                             "wc -c < /proc/self/mountinfo; {1} list fs.mount"));
  REQUIRE(!out.empty());
  CHECK(std::stoul(out.front()) > 4096);
  // The directory's name has no dot to escape, wherever TMPDIR puts it.
  std::string ours = "/" + std::filesystem::path(dir.path()).filename().string() + "/m";
  CHECK(std::ranges::count_if(out, [&](const std::string& line) {
          return line.starts_with("fs.mount.") && line.find(ours) != std::string::npos &&
                 line.ends_with(".size");
        }) == 100);
}

TEST_CASE("kstat read fs.mount: a mount point mounted over is the mount on top, its size and "
          "its device",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a mount namespace of its own");
  opskit::test::TempDir dir;
  auto out = in_own_mounts(dir.path(), "mkdir {0}/m; mount -t tmpfs -o size=1m below {0}/m; "
                                       "mount -t tmpfs -o size=4m above {0}/m; "
                                       "{1} read --prometheus fs.mount.{0}/m.size");
  CHECK(out.find(fmt::format("kstat_filesystem_size_bytes{{mountpoint=\"{}/m\",device=\"above\","
                             "fstype=\"tmpfs\"}} 4194304\n",
                             dir.path())) != std::string::npos);
  CHECK(out.find("below") == std::string::npos);
}

TEST_CASE("kstat read fs.mount: a glob matches a mount point's name with its dot escaped",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a mount namespace of its own");
  opskit::test::TempDir dir;
  auto out = in_own_mounts(dir.path(), "mkdir {0}/a.b; mount -t tmpfs -o size=1m t {0}/a.b; "
                                       "{1} read 'fs.mount.{0}/a\\056b.s*'");
  CHECK(out == "fs.mount." + dir.path() + "/a\\056b.size: 1048576\n");
}

TEST_CASE("kstat read net.arp: the ARP table's entries by interface, as ip neigh made them",
          "[kstat][cli]") {
  if (::geteuid() != 0)
    OPSKIT_SKIP("needs root for a network namespace of its own");
  // Three neighbours on the two ends, then one of them deleted.
  auto out =
      in_own_network("ip link set kst0 up; ip link set kst1 up; "
                     "ip neigh add 10.9.0.2 lladdr 02:00:00:00:00:02 dev kst0 nud permanent; "
                     "ip neigh add 10.9.0.3 lladdr 02:00:00:00:00:03 dev kst0 nud permanent; "
                     "ip neigh add 10.9.1.2 lladdr 02:00:00:00:00:04 dev kst1 nud permanent; "
                     "{0} read net.arp; echo --; ip neigh del 10.9.1.2 dev kst1; {0} read net.arp");
  CHECK(out == "net.arp.kst0.entries: 2\nnet.arp.kst1.entries: 1\n--\nnet.arp.kst0.entries: 2\n");
}

TEST_CASE("kstat read net.udp: datagrams left unread are in the receive queues", "[kstat][cli]") {
  opskit::UniqueFd socket(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  REQUIRE(socket);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  auto* any = reinterpret_cast<sockaddr*>(&address);
  REQUIRE(::bind(socket.get(), any, sizeof address) == 0);
  REQUIRE(::getsockname(socket.get(), any, &length) == 0);
  // Ten datagrams of 1,000 bytes to itself, none read: each holds at least its bytes in the
  // socket's receive queue (the kernel counts its buffers' whole size).
  std::string datagram(1000, 'x');
  for (int i = 0; i < 10; ++i)
    REQUIRE(::sendto(socket.get(), datagram.data(), datagram.size(), 0, any, sizeof address) ==
            1000);
  auto r = run({k_kstat, "read", "-n", "net.udp.queues.rx"});
  REQUIRE(r.exit_status == 0);
  CHECK(std::stoull(r.out) >= 10 * 1000);
}
