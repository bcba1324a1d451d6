// SPDX-License-Identifier: MIT
// The namespace over a copied /proc tree (tests/data/proc-basic), so names and values are known.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/scrape.hpp"
#include "opskit/probes/watch.hpp"
#include "opskit/text.hpp"
#include "temp_dir.hpp"

using namespace opskit::counters;
namespace fs = std::filesystem;

namespace {

const std::string k_root = std::string(OPSKIT_TEST_DATA) + "/proc-basic";

// A writable copy of the data tree, removed at the end of the test.
struct TempRoot {
  fs::path path;
  TempRoot() {
    char tmpl[] = "/tmp/opskit-proc-XXXXXX";
    path = ::mkdtemp(tmpl);
    fs::copy(k_root, path, fs::copy_options::recursive);
  }
  ~TempRoot() { fs::remove_all(path); }
  void write(const std::string& file, const std::string& text) const {
    std::ofstream(path / file, std::ios::trunc) << text; // same inode: open handles see it
  }
};

std::vector<std::string> names_of(const std::vector<Info>& infos) {
  std::vector<std::string> names;
  for (const auto& i : infos)
    names.push_back(i.name);
  return names;
}

Value read_one(const Namespace& ns, std::string_view name) {
  auto handle = ns.resolve(name);
  INFO(name);
  REQUIRE(handle);
  auto value = handle->read();
  REQUIRE(value);
  return *value;
}

} // namespace

TEST_CASE("namespace: every source feeds its names", "[counters][namespace]") {
  Namespace ns(k_root);
  auto all = ns.list("");
  REQUIRE(all);
  auto names = names_of(*all);
  for (const char* expected : {"vm.stats.pgfault",
                               "vm.stats.nr_free_pages",
                               "vm.meminfo.MemTotal",
                               "vm.meminfo.Active_anon",
                               "vm.meminfo.HugePages_Total",
                               "cpu.all.idle",
                               "cpu.0.user",
                               "cpu.1.steal",
                               "kern.cp_time",
                               "kern.ctxt",
                               "kern.intr",
                               "kern.forks",
                               "kern.boottime",
                               "kern.procs_running",
                               "kern.softirq",
                               "kern.loadavg.1",
                               "kern.loadavg.15",
                               "kern.loadavg.tasks",
                               "net.snmp.Tcp.CurrEstab",
                               "net.snmp.Ip.Forwarding",
                               "net.netstat.TcpExt.ListenOverflows",
                               "net.snmp6.Ip6InReceives",
                               "disk.vda.read_sectors",
                               "disk.loop0.flush_ms",
                               "vm.swappiness",
                               "kernel.printk",
                               "net.ipv4.conf.eth0/100.rp_filter"}) {
    INFO(expected);
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  CHECK(std::is_sorted(names.begin(), names.end(),
                       [](const auto& a, const auto& b) { return opskit::natural_less(a, b); }));
  CHECK(std::none_of(names.begin(), names.end(),
                     [](const auto& n) { return n.starts_with("proc.self"); }));
}

TEST_CASE("namespace: a process is listed when asked for by pid, not under everything",
          "[counters][namespace]") {
  Namespace ns(k_root);
  for (std::string_view all : {"", "proc"}) {
    auto listed = ns.list(all);
    if (!listed)
      continue; // "proc" alone: the copy has no proc.self
    auto names = names_of(*listed);
    CHECK(std::none_of(names.begin(), names.end(),
                       [](const auto& n) { return n.starts_with("proc."); }));
  }
  auto one = ns.list("proc.42");
  REQUIRE(one);
  auto names = names_of(*one);
  for (const char* expected :
       {"proc.42.stat.utime", "proc.42.stat.state", "proc.42.status.VmRSS", "proc.42.io.rchar"}) {
    INFO(expected);
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
}

TEST_CASE("namespace: values come in documented units", "[counters][namespace]") {
  Namespace ns(k_root);
  double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  CHECK(read_one(ns, "vm.stats.pgfault") == Value(std::uint64_t{7998986}));
  CHECK(read_one(ns, "vm.meminfo.MemTotal") == Value(std::uint64_t{24684084} * 1024));
  CHECK(read_one(ns, "vm.meminfo.HugePages_Total") == Value(std::uint64_t{0}));
  CHECK(read_one(ns, "cpu.0.user") == Value(15000 / hz));
  CHECK(read_one(ns, "kern.cp_time") == Value(std::string("31619 0 4383 55 108305")));
  CHECK(read_one(ns, "kern.intr") == Value(std::uint64_t{1234567}));
  CHECK(read_one(ns, "kern.forks") == Value(std::uint64_t{5961}));
  CHECK(read_one(ns, "kern.loadavg.5") == Value(0.61));
  CHECK(read_one(ns, "kern.loadavg.runnable") == Value(std::uint64_t{1}));
  CHECK(read_one(ns, "net.snmp.Tcp.MaxConn") == Value(std::int64_t{-1}));
  CHECK(read_one(ns, "net.netstat.IpExt.InOctets") == Value(std::uint64_t{123456}));
  CHECK(read_one(ns, "net.snmp6.Ip6OutRequests") == Value(std::uint64_t{299}));
  CHECK(read_one(ns, "disk.vda.read_sectors") == Value(std::uint64_t{577396}));
  CHECK(read_one(ns, "disk.vda.flush_ms") == Value(std::uint64_t{951}));
  CHECK(read_one(ns, "proc.42.stat.state") == Value(std::string("S")));
  CHECK(read_one(ns, "proc.42.stat.utime") == Value(250 / hz));
  CHECK(read_one(ns, "proc.42.stat.num_threads") == Value(std::uint64_t{3}));
  CHECK(read_one(ns, "proc.42.status.VmRSS") == Value(std::uint64_t{2560} * 1024));
  CHECK(read_one(ns, "proc.42.status.State") == Value(std::string("S (sleeping)")));
  CHECK(read_one(ns, "proc.42.status.Name") == Value(std::string("my (odd) prog")));
  CHECK(read_one(ns, "proc.42.io.read_bytes") == Value(std::uint64_t{45056}));
  CHECK(read_one(ns, "net.ipv4.conf.eth0/100.rp_filter") == Value(std::uint64_t{0}));
  CHECK(read_one(ns, "kernel.printk") == Value(std::string("4\t4\t1\t7")));
}

TEST_CASE("namespace: every name knows its kind and unit", "[counters][namespace]") {
  Namespace ns(k_root);
  auto snap = ns.snapshot(std::vector<std::string>{"vm.stats", "vm.meminfo.MemTotal", "cpu.0.user",
                                                   "kern.loadavg.1", "vm.swappiness",
                                                   "kernel.printk", "proc.42.status.VmRSS"});
  REQUIRE(snap);
  REQUIRE(snap->read() == 0);
  auto info = [&](std::string_view name) {
    for (std::size_t i = 0; i < snap->size(); ++i)
      if (snap->info(i).name == name)
        return snap->info(i);
    FAIL("no " << name);
    return Info{};
  };
  CHECK(info("vm.stats.pgfault").kind == Kind::counter);
  CHECK(info("vm.stats.pgfault").description == "Page faults, minor and major");
  CHECK(info("vm.stats.nr_free_pages").kind == Kind::gauge);
  CHECK(info("vm.stats.nr_free_pages").unit == "pages");
  CHECK(info("vm.stats.nr_dirtied").kind == Kind::counter); // nr_ but cumulative
  CHECK(info("vm.stats.nr_foll_pin_acquired").kind == Kind::counter);
  CHECK(info("vm.stats.nr_file_hugepages").unit == "huge pages");
  CHECK(info("vm.stats.workingset_nodes").kind == Kind::gauge); // not nr_ but a level
  CHECK(info("vm.stats.pgpgin").unit == "KiB");
  CHECK(info("vm.meminfo.MemTotal").unit == "bytes");
  CHECK(info("cpu.0.user").kind == Kind::counter);
  CHECK(info("cpu.0.user").unit == "seconds");
  CHECK(info("kern.loadavg.1").kind == Kind::gauge);
  CHECK_FALSE(info("kern.loadavg.1").description.empty());
  CHECK(info("vm.swappiness").kind == Kind::gauge);
  CHECK(info("kernel.printk").kind == Kind::text);
  CHECK(info("proc.42.status.VmRSS").unit == "bytes");
}

TEST_CASE("namespace: a snapshot keeps the order asked for, without repeats",
          "[counters][namespace]") {
  Namespace ns(k_root);
  auto snap =
      ns.snapshot(std::vector<std::string>{"vm.swappiness", "kern.loadavg", "vm.swappiness"});
  REQUIRE(snap);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < snap->size(); ++i)
    names.push_back(snap->info(i).name);
  CHECK(names == std::vector<std::string>{"vm.swappiness", "kern.loadavg.1", "kern.loadavg.5",
                                          "kern.loadavg.15", "kern.loadavg.last_pid",
                                          "kern.loadavg.runnable", "kern.loadavg.tasks"});
  CHECK(snap->source_count() == 2);

  // Across selections, and where a glob, a prefix and a name name one name each their way.
  std::vector<std::string> first{"kern.loadavg.@(1|5)"}, second{"kern", "kern.loadavg.1", "cpu"};
  std::vector<Selection> selections{{first, {}}, {second, {}}};
  auto across = ns.snapshot(selections);
  REQUIRE(across);
  std::vector<std::string> all;
  for (std::size_t i = 0; i < across->size(); ++i)
    all.push_back(across->info(i).name);
  CHECK(all[0] == "kern.loadavg.1");
  CHECK(all[1] == "kern.loadavg.5");
  CHECK(std::ranges::count(all, "kern.loadavg.1") == 1);
  CHECK(std::ranges::count(all, "kern.loadavg.5") == 1);
  CHECK(std::ranges::count(all, "kern.loadavg.15") == 1);
  CHECK(std::set<std::string>(all.begin(), all.end()).size() == all.size());
  CHECK(std::ranges::count_if(all, [](const auto& n) { return n.starts_with("cpu."); }) > 0);
}

TEST_CASE("namespace: unknown names get a suggestion", "[counters][namespace]") {
  Namespace ns(k_root);
  auto typo = ns.list("vm.stat");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().message() == "unknown name 'vm.stat': did you mean vm.stats?");
  CHECK(ns.resolve("vm.swapiness").error().message() ==
        "unknown name 'vm.swapiness': did you mean vm.swappiness?");
  CHECK(ns.resolve("kern.loadavg.2").error().message() ==
        "unknown name 'kern.loadavg.2': did you mean kern.loadavg.1?");
  CHECK(ns.resolve("zzzzzz.qqq").error().message() == "unknown name 'zzzzzz.qqq'");
  CHECK(ns.resolve("proc.4242.io.rchar").error().message() ==
        "unknown name 'proc.4242.io.rchar': no such process");
  CHECK_FALSE(ns.resolve("vm..swappiness"));
  CHECK(ns.resolve("vm.swappiness.x").error().message() ==
        "unknown name 'vm.swappiness.x': vm.swappiness is a name, with nothing under it");
}

TEST_CASE("namespace: a glob names what it matches, across components and with alternatives",
          "[counters][namespace]") {
  Namespace ns(k_root);
  auto faults = ns.list("vm.stats.@(oom_kill|pg*fault)*");
  REQUIRE(faults);
  CHECK(names_of(*faults) ==
        std::vector<std::string>{"vm.stats.oom_kill", "vm.stats.pgfault", "vm.stats.pgmajfault"});
  auto opens = ns.list("net.snmp.*.@(Active|Passive)Opens");
  REQUIRE(opens);
  CHECK(names_of(*opens) ==
        std::vector<std::string>{"net.snmp.Tcp.ActiveOpens", "net.snmp.Tcp.PassiveOpens"});
  auto snap = ns.snapshot(std::vector<std::string>{"kern.loadavg.?", "vm.stats.nr_*"},
                          {.leave_out = std::vector<std::string>{"*.nr_zone_*"}});
  REQUIRE(snap);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < snap->size(); ++i)
    names.push_back(snap->info(i).name);
  CHECK(names == std::vector<std::string>{"kern.loadavg.1", "kern.loadavg.5", "vm.stats.nr_dirtied",
                                          "vm.stats.nr_dirty", "vm.stats.nr_file_hugepages",
                                          "vm.stats.nr_foll_pin_acquired",
                                          "vm.stats.nr_free_pages"});
  CHECK(ns.list("vm.stats.zz*").error().message() == "no name matches 'vm.stats.zz*'");
  // A name that holds a wildcard's character is still itself.
  TempRoot root;
  fs::create_directories(root.path / "sys/kernel/a[1]");
  root.write("sys/kernel/a[1]/b", "7\n");
  CHECK(read_one(Namespace(root.path), "kernel.a[1].b") == Value(std::uint64_t{7}));
  auto held = Namespace(root.path).list("kernel.a[1]");
  REQUIRE(held);
  CHECK(names_of(*held) == std::vector<std::string>{"kernel.a[1].b"});
  CHECK(ns.snapshot(std::vector<std::string>{"vm.stats.zz*"}, {.absent_ok = true})->size() == 0);
  CHECK(ns.resolve("kern.loadavg.1?").error().message() ==
        "kern.loadavg.1?: a glob (of 1 name), not one name");
}

TEST_CASE("namespace: serve's default exclusions leave out the disks node_exporter leaves out",
          "[counters][namespace]") {
  TempRoot root;
  std::string lines;
  for (std::string disk : {"loop0", "ram1", "vda", "vda1", "sda", "sda12", "xvdb3", "nvme0n1",
                           "nvme0n1p2", "zram0", "dm-0", "md127"})
    lines += "   8 0 " + disk + " 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n";
  root.write("diskstats", lines);
  auto defaults = serve_defaults();
  auto served = Namespace(root.path).snapshot(std::vector<std::string>{"disk"},
                                              {.leave_out = defaults.exclude});
  REQUIRE(served);
  std::set<std::string> disks;
  for (std::size_t i = 0; i < served->size(); ++i) {
    std::string_view name = served->info(i).name;
    name.remove_prefix(5);
    disks.emplace(name.substr(0, name.find('.')));
  }
  CHECK(disks == std::set<std::string>{"dm-0", "md127", "nvme0n1", "sda", "vda", "zram0"});
}

TEST_CASE("namespace: serve's defaults read neither /proc/interrupts nor /proc/softirqs",
          "[counters][namespace]") {
  // node_exporter's interrupts and softirqs collectors are off by default; /proc/stat's totals
  // of both are served.
  Scraper::Settings settings{.sets = {serve_defaults()}};
  auto served = Namespace(k_root).snapshot(settings.selections());
  REQUIRE(served);
  auto paths = served->source_paths();
  CHECK(std::ranges::count(paths, k_root + "/stat") == 1);
  CHECK(std::ranges::count(paths, k_root + "/interrupts") == 0);
  CHECK(std::ranges::count(paths, k_root + "/softirqs") == 0);
  std::set<std::string> names;
  for (std::size_t i = 0; i < served->size(); ++i)
    names.insert(served->info(i).name);
  CHECK(names.contains("kern.intr"));
  CHECK(names.contains("kern.softirq"));
}

TEST_CASE("namespace: a prefix is not a leaf", "[counters][namespace]") {
  Namespace ns(k_root);
  auto r = ns.resolve("kern.loadavg");
  REQUIRE_FALSE(r);
  CHECK(r.error().message() == "kern.loadavg: a prefix of 6 names, not one name");
}

TEST_CASE("namespace: write-only and act-when-read entries are never read",
          "[counters][namespace]") {
  TempRoot root;
  root.write("sys/vm/drop_caches", "");
  fs::permissions(root.path / "sys/vm/drop_caches", fs::perms::owner_write);
  root.write("sys/vm/stat_refresh", "");
  Namespace ns(root.path);
  auto vm = ns.list("vm");
  REQUIRE(vm);
  auto names = names_of(*vm);
  CHECK(std::find(names.begin(), names.end(), "vm.drop_caches") == names.end());
  CHECK(std::find(names.begin(), names.end(), "vm.stat_refresh") == names.end());
  CHECK(std::find(names.begin(), names.end(), "vm.swappiness") != names.end());
  CHECK(ns.resolve("vm.drop_caches").error().message() ==
        "vm.drop_caches: write-only entry, not read (kstat write sets it)");
  CHECK(ns.resolve("vm.stat_refresh").error().message() ==
        "vm.stat_refresh: not read: reading it acts");
}

TEST_CASE("namespace: a handle rereads its file and follows a moved field",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path);
  auto handle = ns.resolve("vm.stats.pgfault");
  REQUIRE(handle);
  CHECK(handle->read() == Value(std::uint64_t{7998986}));
  root.write("vmstat", "nr_free_pages 1\nnew_counter 2\npgfault 8000000\n");
  CHECK(handle->read() == Value(std::uint64_t{8000000}));
  root.write("vmstat", "nr_free_pages 1\n");
  auto gone = handle->read();
  REQUIRE_FALSE(gone);
  CHECK(gone.error().message().find("vm.stats.pgfault: no longer in") == 0);
}

TEST_CASE("namespace: a file that grows far past its first read is read whole",
          "[counters][namespace]") {
  TempRoot root;
  root.write("vmstat", "pgfault 5\n"); // a buffer of 64 bytes after the first read
  Namespace ns(root.path);
  auto handle = ns.resolve("vm.stats.pgfault");
  REQUIRE(handle);
  CHECK(handle->read() == Value(std::uint64_t{5}));
  std::string grown;
  for (int i = 0; i < 2000; ++i)
    grown += "nr_padding_" + std::to_string(i) + " 0\n";
  root.write("vmstat", grown + "pgfault 9\n"); // 38 KB
  CHECK(handle->read() == Value(std::uint64_t{9}));
  root.write("vmstat", "pgfault 11\n");
  CHECK(handle->read() == Value(std::uint64_t{11}));
}

TEST_CASE("namespace: a disk whose name has a dot is named with '/', as sysctl writes one, and "
          "its own names alone read",
          "[counters][namespace]") {
  TempRoot root;
  root.write("diskstats", "  43 0 nbd 1 2 3 4 5 6 7 8 9 10 11\n"
                          "  43 1 nbd.x 21 22 23 24 25 26 27 28 29 30 31\n");
  Namespace ns(root.path);
  auto nbd = ns.snapshot(std::vector<std::string>{"disk.nbd"});
  REQUIRE(nbd);
  CHECK(nbd->size() == 11);
  auto dotted = ns.snapshot(std::vector<std::string>{"disk.nbd/x.reads"});
  REQUIRE(dotted);
  REQUIRE(dotted->size() == 1);
  CHECK(dotted->read() == 0);
  CHECK(dotted->value(0) == Value(std::uint64_t{21}));
}

TEST_CASE("namespace: a record's columns follow it when it moves, and only those that went fail",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path);
  auto snap = ns.snapshot(std::vector<std::string>{"disk.vda"}); // by name, not by column
  REQUIRE(snap);
  auto value_of = [&](std::string_view name) -> std::optional<Value> {
    for (std::size_t i = 0; i < snap->size(); ++i)
      if (snap->info(i).name == name)
        return snap->error(i) ? std::nullopt : std::optional(snap->value(i));
    FAIL("no entry " << name);
    return std::nullopt;
  };
  auto count = [](std::uint64_t n) { return std::optional(Value(n)); };
  CHECK(snap->read() == 0);
  CHECK(value_of("disk.vda.reads") == count(7051));
  CHECK(value_of("disk.vda.writes") == count(9233));
  CHECK(value_of("disk.vda.flushes") == count(1010));

  // A disk came before it.
  root.write("diskstats", "   7 0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                          " 253 0 vda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n");
  CHECK(snap->read() == 0);
  CHECK(value_of("disk.vda.reads") == count(1));
  CHECK(value_of("disk.vda.writes") == count(5));
  CHECK(value_of("disk.vda.flushes") == count(16));

  // A kernel before 4.18 writes eleven columns: no discards, no flushes.
  root.write("diskstats", " 253 0 vda 1 2 3 4 5 6 7 8 9 10 11\n");
  CHECK(snap->read() == 6);
  CHECK(value_of("disk.vda.weighted_io_ms") == count(11));
  CHECK_FALSE(value_of("disk.vda.discards"));
  CHECK_FALSE(value_of("disk.vda.flush_ms"));

  root.write("diskstats", "   7 0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
  CHECK(snap->read() == snap->size());
  CHECK(snap->error(0)->message().starts_with("no longer in ")); // the caller names the entry
}

TEST_CASE("namespace: an unreadable source fails its entries and no others",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path);
  auto snap = ns.snapshot(std::vector<std::string>{"proc.42", "vm.swappiness"});
  REQUIRE(snap);
  fs::remove(root.path / "42/io"); // as if the process's io were out of reach
  CHECK(snap->read() == 7);
  for (std::size_t i = 0; i < snap->size(); ++i) {
    INFO(snap->info(i).name);
    CHECK((snap->error(i) != nullptr) == snap->info(i).name.starts_with("proc.42.io."));
  }
}

TEST_CASE("namespace: a /proc/sys number is a gauge but in a name known as text",
          "[counters][namespace]") {
  TempRoot root;
  root.write("sys/kernel/hostname", "007\n");
  root.write("sys/kernel/threads-max", "007\n");
  Namespace ns(root.path.string());
  CHECK(std::get<std::string>(read_one(ns, "kernel.hostname")) == "007");
  CHECK(std::get<std::uint64_t>(read_one(ns, "kernel.threads-max")) == 7);
  auto written = ns.write("kernel.hostname", "008"); // what write prints as the old value
  REQUIRE(written);
  REQUIRE(written->before);
  CHECK(std::get<std::string>(*written->before) == "007");
}

TEST_CASE("namespace: a source snapshot holds every name of the same file",
          "[counters][namespace]") {
  Namespace ns(k_root);
  auto vmstat = ns.source_snapshot("vm.stats.pgfault");
  REQUIRE(vmstat);
  CHECK(vmstat->size() == 11);
  CHECK(vmstat->source_count() == 1);
  auto stat = ns.source_snapshot("kern.ctxt");
  REQUIRE(stat);
  CHECK(stat->size() == 30 + 1 + 7); // 3 cpu lines x 10 states, cp_time, 7 kern names
  auto sysctl = ns.source_snapshot("vm.swappiness");
  REQUIRE(sysctl);
  CHECK(sysctl->size() == 1);
}

TEST_CASE("namespace: write sets a /proc/sys entry and returns the old value",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path);
  auto written = ns.write("vm.swappiness", "10");
  REQUIRE(written);
  CHECK(written->before == Value(std::uint64_t{60}));
  CHECK(written->ignored.empty());
  root.write("sys/vm/drop_caches", "");
  fs::permissions(root.path / "sys/vm/drop_caches", fs::perms::owner_write);
  auto write_only = ns.write("vm.drop_caches", "3");
  REQUIRE(write_only);
  CHECK_FALSE(write_only->before);
  CHECK(read_one(ns, "vm.swappiness") == Value(std::uint64_t{10}));
  auto outside = ns.write("vm.stats.pgfault", "1");
  REQUIRE_FALSE(outside);
  CHECK(outside.error().message() == "vm.stats.pgfault: not a /proc/sys entry, so not writable");
}

TEST_CASE("namespace: a subtree whose names come and go says it is empty now, and a snapshot "
          "may wait for it",
          "[counters][namespace]") {
  TempRoot root;
  root.write("mdstat", "Personalities : \nunused devices: <none>\n");
  Namespace ns(root.path);
  CHECK(Namespace::transient("md"));
  CHECK(Namespace::transient("net.dev.wg0"));
  CHECK_FALSE(Namespace::transient("mdd"));
  CHECK_FALSE(Namespace::transient("vm.stats"));
  CHECK_FALSE(ns.has("md"));
  CHECK(ns.has("vm.stats.pgfault"));
  CHECK(ns.resolve("md.md0.blocks").error().message() ==
        "unknown name 'md.md0.blocks': nothing is under md now");
  std::vector<std::string> md{"md"};
  CHECK_FALSE(ns.snapshot(md));
  auto awaited = ns.snapshot(md, {.transient_ok = true});
  REQUIRE(awaited);
  CHECK(awaited->size() == 0);
}

TEST_CASE("namespace: a caller sees what a snapshot would be made of, and may keep its own",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path);
  std::vector<std::string> names{"vm.swappiness", "kern.loadavg"},
      reversed{"kern.loadavg", "vm.swappiness"};
  auto served = ns.snapshot(names);
  REQUIRE(served);
  // The same names in another order are the same; a name more is not.
  auto asked = [&](std::span<const std::string> these, std::size_t& found, bool& same) {
    std::vector<Selection> selections{{these, {}}};
    return ns.snapshot(selections, [&](const Found& f) {
      found = f.size();
      same = f.same_as(*served);
      return !same;
    });
  };
  std::size_t found = 0;
  bool same = false;
  auto again = asked(reversed, found, same);
  REQUIRE(again);
  CHECK(same);
  CHECK(found == served->size());
  CHECK(again->size() == 0); // declined: nothing made
  std::vector<std::string> more{"vm", "kern.loadavg"};
  auto other = asked(more, found, same);
  REQUIRE(other);
  CHECK_FALSE(same);
  CHECK(other->size() == found);
  CHECK(found > served->size());
  // A CPU that comes online: the same interrupts, each summed over a column more.
  std::vector<std::string> interrupts{"kern.interrupts"};
  std::ofstream(root.path / "interrupts") << "  CPU0  CPU1\n  0:  5  6  IO-APIC  2-edge  timer\n";
  auto two = ns.snapshot(interrupts);
  REQUIRE(two);
  two->read();
  CHECK_FALSE(two->records_changed());
  std::ofstream(root.path / "interrupts")
      << "  CPU0  CPU1  CPU2\n  0:  5  6  7  IO-APIC  2-edge  timer\n";
  REQUIRE(ns.snapshot(std::vector<Selection>{{interrupts, {}}}, [&](const Found& f) {
    same = f.same_as(*two);
    return false;
  }));
  CHECK_FALSE(same);
  // A snapshot's read tells the header's change as a change of records, which resolves again.
  two->read();
  CHECK(two->records_changed());
  two->read();
  CHECK_FALSE(two->records_changed());
}

TEST_CASE("namespace: records that came or went name the subtree to find again, or none where "
          "a file's names lie elsewhere too",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path.string());
  auto snapshot = ns.snapshot(std::vector<std::string>{"net.dev", "disk", "cpu", "kern.forks"});
  REQUIRE(snapshot);
  snapshot->read();
  CHECK_FALSE(snapshot->records_changed());
  CHECK(Namespace::record_subtrees(*snapshot) == std::vector<std::string>{});
  auto dev = opskit::read_file((root.path / "net/dev").string());
  auto disks = opskit::read_file((root.path / "diskstats").string());
  auto stat = opskit::read_file((root.path / "stat").string());
  REQUIRE((dev && disks && stat));
  root.write("net/dev", *dev + " veth1: 1 1 0 0 0 0 0 0 2 2 0 0 0 0 0 0\n");
  root.write("diskstats", *disks + "   8 400 sdz 42 0 336 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n");
  snapshot->read();
  CHECK(snapshot->records_changed());
  // Each line's names are the interface's or the disk's own: those that came, alone.
  CHECK(Namespace::record_subtrees(*snapshot).value_or(std::vector<std::string>{"none"}) ==
        std::vector<std::string>{"net.dev.veth1", "disk.sdz"});
  // The same lines again are no change; lines gone are the ones before's.
  snapshot->read();
  CHECK_FALSE(snapshot->records_changed());
  root.write("net/dev", *dev);
  root.write("diskstats", *disks);
  snapshot->read(); // gone, and no entry read them: nothing to find again
  CHECK(snapshot->records_changed());
  CHECK(Namespace::record_subtrees(*snapshot).value_or(std::vector<std::string>{"none"}) ==
        std::vector<std::string>{});
  snapshot->read();
  CHECK_FALSE(snapshot->records_changed());
  // A CPU: /proc/stat's lines hold kern.* too.
  root.write("stat", "cpu2 1 0 1 1 0 0 0 0 0 0\n" + *stat);
  snapshot->read();
  CHECK_FALSE(Namespace::record_subtrees(*snapshot));
}

TEST_CASE("scraper: a resolve interval that finds the names served keeps serving them, and one "
          "that finds a new name serves it",
          "[counters][namespace]") {
  TempRoot root;
  Scraper::Settings settings{.sets = {{.names = {"vm"}}},
                             .resolve_interval = Scraper::Clock::duration::zero()};
  auto scraper = Scraper::open(Namespace(root.path), settings);
  REQUIRE(scraper);
  auto body = [&] { return *(*scraper)->scrape(opskit::TextFormat::prometheus); };
  CHECK(body().find("kstat_sysctl{name=\"vm.swappiness\"} 60\n") != std::string::npos);
  root.write("sys/vm/swappiness", "7\n");
  CHECK(body().find("kstat_sysctl{name=\"vm.swappiness\"} 7\n") != std::string::npos);
  // An entry that nothing but the interval's resolve finds (a module loaded).
  CHECK(body().find("vm.overcommit_ratio") == std::string::npos);
  root.write("sys/vm/overcommit_ratio", "50\n");
  auto found = body();
  CHECK(found.find("kstat_sysctl{name=\"vm.overcommit_ratio\"} 50\n") != std::string::npos);
  CHECK(found.find("kstat_sysctl{name=\"vm.swappiness\"} 7\n") != std::string::npos);
  CHECK(found.find("kstat_scrape_error") == std::string::npos);
}

namespace {

// A cgroup v2 hierarchy of the test's own under <sys>/fs/cgroup, whose cgroups are made whole
// beside it and moved in, as mkdir(2) makes a cgroup with its files.
struct Hierarchy {
  opskit::test::TempDir sys;
  fs::path root = fs::path(sys.path()) / "fs/cgroup";
  Hierarchy() {
    fs::create_directories(root);
    std::ofstream(root / "cgroup.controllers") << "cpu io memory\n";
  }
  void make(const std::string& path, int pages) const {
    fs::path made = fs::path(sys.path()) / "made";
    fs::create_directory(made);
    std::ofstream(made / "cpu.stat") << "usage_usec 7\nuser_usec 5\nsystem_usec 2\n";
    std::ofstream(made / "io.stat")
        << "254:0 rbytes=" << pages * 4096 << " wbytes=8 rios=1 wios=2\n";
    std::ofstream(made / "memory.current") << pages * 4096 << "\n";
    fs::rename(made, root / path);
  }
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("scraper: a cgroup made or removed is found or left alone, the others kept as they "
          "were",
          "[counters][namespace]") {
  Hierarchy cgroups;
  for (int i = 0; i < 3; ++i)
    cgroups.make(fmt::format("job{}.scope", i), i + 1);
  std::vector<std::string> given{"cgroup.*.@(memory/current|io/stat.*)"};
  Scraper::Settings settings{.sets = {{.names = given}}, .resolve_interval = std::chrono::hours(1)};
  auto scraper = Scraper::open(Namespace(k_root, cgroups.sys.path()), settings);
  REQUIRE(scraper);
  auto body = [&] { return *(*scraper)->scrape(opskit::TextFormat::prometheus); };
  auto memory = [](const std::string& cgroup, int pages) {
    return fmt::format("kstat_cgroup_memory_current_bytes{{cgroup=\"{}\"}} {}\n", cgroup,
                       pages * 4096);
  };
  auto read = [](const std::string& cgroup, int pages) {
    return fmt::format("kstat_cgroup_io_read_bytes_total{{cgroup=\"{}\",device=\"254:0\"}} {}\n",
                       cgroup, pages * 4096);
  };
  auto first = body();
  CHECK(first.find(memory("/job2.scope", 3)) != std::string::npos);
  CHECK(first.find("cpu_usage") == std::string::npos); // not among the names given

  // One removed before the others, one made after them, one made with one under it.
  fs::remove_all(cgroups.root / "job0.scope");
  cgroups.make("later.scope", 5);
  cgroups.make("a.slice", 6);
  cgroups.make("a.slice/b.scope", 7);
  cgroups.make("x[1].scope", 4); // a glob's characters in its name: taken as they are
  auto after = body();
  CHECK(after.find("job0.scope") == std::string::npos);
  for (auto [cgroup, pages] : {std::pair{"/job1.scope", 2},
                               {"/job2.scope", 3},
                               {"/later.scope", 5},
                               {"/a.slice", 6},
                               {"/a.slice/b.scope", 7},
                               {"/x[1].scope", 4}}) {
    INFO(cgroup);
    CHECK(after.find(memory(cgroup, pages)) != std::string::npos);
    CHECK(after.find(read(cgroup, pages)) != std::string::npos);
  }
  CHECK(after.find("cpu_usage") == std::string::npos);
  CHECK(after.find("kstat_scrape_error") == std::string::npos);
  CHECK(count(after, "# TYPE kstat_cgroup_memory_current_bytes ") == 1);
  CHECK(count(after, "# TYPE kstat_cgroup_io_read_bytes_total ") == 1);

  // The cgroups made are watched in turn, and every file is read where it was, after the move.
  cgroups.make("later.scope/c.scope", 8);
  std::ofstream(cgroups.root / "job1.scope/memory.current", std::ios::trunc) << 9 * 4096 << "\n";
  std::ofstream(cgroups.root / "a.slice/b.scope/memory.current", std::ios::trunc)
      << 10 * 4096 << "\n";
  auto last = body();
  CHECK(last.find(memory("/later.scope/c.scope", 8)) != std::string::npos);
  CHECK(last.find(memory("/job1.scope", 9)) != std::string::npos);
  CHECK(last.find(memory("/a.slice/b.scope", 10)) != std::string::npos);
  CHECK(last.find(read("/later.scope", 5)) != std::string::npos);
  CHECK(last.find("kstat_scrape_error") == std::string::npos);

  // What a server started now would serve, in another order.
  auto fresh = Scraper::open(Namespace(k_root, cgroups.sys.path()), settings);
  REQUIRE(fresh);
  auto series = [](const std::string& text) {
    std::multiset<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("kstat_cgroup_"))
        lines.insert(line);
    return lines;
  };
  auto served = series(body());
  CHECK(served.size() == 7 * 5); // memory.current and io.stat's four of seven cgroups
  CHECK(served == series(*(*fresh)->scrape(opskit::TextFormat::prometheus)));
}

TEST_CASE("scraper: disks that come and go, each by a name of its own, leave nothing behind",
          "[counters][namespace]") {
#ifdef OPSKIT_SANITIZED
  WARN("skipped: AddressSanitizer's allocator does not count what mallinfo2 does");
#else
  // A disk with a udev entry is an annotation too (kstat_disk_info, its model a label): as a
  // pod's veth does, each comes by a new name and goes. Past the first ones, the heap holds what
  // it held.
  TempRoot root;
  opskit::test::TempDir sys, rootfs;
  fs::path udev = fs::path(rootfs.path()) / "run/udev/data";
  fs::create_directories(udev);
  std::ofstream(udev / "b8:400") << "E:ID_MODEL=Disk_of_the_test\n";
  auto disks = opskit::read_file((root.path / "diskstats").string());
  REQUIRE(disks);
  Scraper::Settings settings{.sets = {{.names = {"disk"}}},
                             .resolve_interval = std::chrono::hours(1)};
  auto scraper = Scraper::open(Namespace(root.path.string(), sys.path(), rootfs.path()), settings);
  REQUIRE(scraper);
  auto body = [&] { return *(*scraper)->scrape(opskit::TextFormat::prometheus); };
  std::size_t served = 0, gone = 0, heap = 0;
  for (int i = 0; i < 300; ++i) {
    if (i == 50)
      heap = ::mallinfo2().uordblks;
    std::string name = fmt::format("d{}", i);
    root.write("diskstats", *disks + "   8 400 " + name + " 42 0 336 10 0 0 0 0 0 10 10\n");
    served += body().find("kstat_disk_info{device=\"" + name + "\"") != std::string::npos;
    root.write("diskstats", *disks);
    gone += body().find("device=\"" + name + "\"") == std::string::npos;
  }
  CHECK(served == 300);
  CHECK(gone == 300);
  // 740 bytes a disk before its annotation's place went with it: 185,000 here.
  CHECK(::mallinfo2().uordblks < heap + 8192);
#endif
}

namespace {

// A process of the test's own, paused until it is ended (killed and waited for: its /proc
// directory gone).
struct Child {
  pid_t pid = ::fork();
  Child() {
    if (pid == 0) {
      ::pause();
      ::_exit(0);
    }
    REQUIRE(pid > 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() { end(); }
  void end() {
    if (pid <= 0)
      return;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    pid = -1;
  }
};

// A /sys with power supplies, where one more comes as the kernel adds a device: whole.
struct PowerSupplies {
  opskit::test::TempDir sys;
  PowerSupplies() {
    fs::copy(std::string(OPSKIT_TEST_DATA) + "/sys-basic", sys.path(), fs::copy_options::recursive);
  }
  void add(const std::string& name) const {
    fs::path supplies = fs::path(sys.path()) / "class/power_supply";
    fs::copy(supplies / "AC", fs::path(sys.path()) / name, fs::copy_options::recursive);
    fs::rename(fs::path(sys.path()) / name, supplies / name);
  }
};

// A scraper of a process of the test's own and of power supplies, resolving at `interval`.
struct ProcessScrape {
  Child child;
  PowerSupplies power;
  std::string pid = std::to_string(child.pid);
  Scraper::Settings settings;
  std::unique_ptr<Scraper> scraper;
  explicit ProcessScrape(Scraper::Clock::duration interval)
      : settings{.sets = {{.names = {"proc." + pid, "hw.power_supply"}, .transient_ok = true}},
                 .resolve_interval = interval} {
    auto opened = open();
    REQUIRE(opened);
    scraper = std::move(*opened);
  }
  opskit::Result<std::unique_ptr<Scraper>> open() const {
    return Scraper::open(Namespace("/proc", power.sys.path()), settings);
  }
  std::string body() const { return *scraper->scrape(opskit::TextFormat::prometheus); }
};

} // namespace

TEST_CASE("scraper: a process that exits leaves with its names alone, the others served as "
          "they were",
          "[counters][namespace]") {
  ProcessScrape served(std::chrono::hours(1));
  std::string pid = "pid=\"" + served.pid + "\"";
  CHECK(served.body().find("kstat_process_stat_num_threads{" + pid + "} 1\n") != std::string::npos);
  // It exits as a device comes that only a resolve of every name finds.
  served.child.end();
  served.power.add("AC2");
  for (int scrape = 0; scrape < 2; ++scrape) {
    auto after = served.body();
    CHECK(after.find(pid) == std::string::npos);
    CHECK(after.find("kstat_scrape_error") == std::string::npos);
    CHECK(after.find("kstat_power_supply_online{power_supply=\"AC\"} 1\n") != std::string::npos);
    CHECK(after.find("AC2") == std::string::npos);
  }
}

TEST_CASE("scraper: a process given must be running at the start, and once it has exited the "
          "names are resolved without it",
          "[counters][namespace]") {
  ProcessScrape served(Scraper::Clock::duration::zero()); // a resolve every scrape
  std::string pid = "pid=\"" + served.pid + "\"";
  CHECK(served.body().find(pid) != std::string::npos);
  served.child.end();
  CHECK(served.body().find(pid) == std::string::npos);
  served.power.add("AC2");
  auto found = served.body();
  CHECK(found.find("kstat_power_supply_online{power_supply=\"AC2\"} 1\n") != std::string::npos);
  CHECK(found.find(pid) == std::string::npos);
  CHECK(found.find("kstat_scrape_error") == std::string::npos);
  auto late = served.open();
  REQUIRE_FALSE(late);
  CHECK(late.error().message() == "unknown name 'proc." + served.pid + "': no such process");
}

TEST_CASE("namespace: a device new in a cgroup's io.stat names that cgroup to find again",
          "[counters][namespace]") {
  Hierarchy cgroups;
  cgroups.make("io.stat", 1); // a cgroup named like a file
  cgroups.make("io.stat/job.scope", 2);
  auto snapshot =
      Namespace(k_root, cgroups.sys.path()).snapshot(std::vector<std::string>{"cgroup"});
  REQUIRE(snapshot);
  snapshot->read();
  std::ofstream(cgroups.root / "io.stat/job.scope/io.stat", std::ios::app)
      << "8:0 rbytes=1 wbytes=0 rios=1 wios=0 dbytes=0 dios=0\n";
  snapshot->read();
  CHECK(Namespace::record_subtrees(*snapshot) ==
        std::vector<std::string>{"cgroup.io/stat.job/scope"});
}

TEST_CASE("watch: an interface that came is followed alone, its line read with the others'",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path.string());
  const std::vector<std::string> names{"net.dev"};
  auto snapshot = ns.snapshot(names);
  REQUIRE(snapshot);
  Watch watch(std::move(*snapshot));
  watch.sample(1);
  std::size_t sources = watch.snapshot().source_count();
  auto dev = opskit::read_file((root.path / "net/dev").string());
  REQUIRE(dev);
  root.write("net/dev", *dev + " veth1: 1 1 0 0 0 0 0 0 2 2 0 0 0 0 0 0\n");
  watch.sample(1);
  auto subtrees = Namespace::record_subtrees(watch.snapshot());
  REQUIRE(subtrees);
  CHECK(*subtrees == std::vector<std::string>{"net.dev.veth1"});
  const Selection all{names};
  CHECK(watch.follow(ns, std::span(&all, 1), *subtrees));
  CHECK(watch.snapshot().source_count() == sources); // /proc/net/dev once, not twice
  auto& readings = watch.sample(1);
  CHECK_FALSE(watch.names_changed());
  bool found = false;
  for (std::size_t i = 0; i < watch.snapshot().size(); ++i)
    if (watch.snapshot().info(i).name == "net.dev.veth1.rx_bytes") {
      found = true;
      CHECK(format_value(watch.snapshot().value(i)) == "1");
      CHECK_FALSE(readings[i].rate); // new to the watch: its first rate a sample later
    }
  CHECK(found);
}

TEST_CASE("watch: an interrupt summed over a CPU more, after a CPU came online, has no rate of "
          "what that CPU took before",
          "[counters][namespace]") {
  TempRoot root;
  Namespace ns(root.path.string());
  root.write("interrupts", "  CPU0  CPU1\n  0:  100  100  IO-APIC  2-edge  timer\n");
  const std::vector<std::string> names{"kern.interrupts.0"};
  auto snapshot = ns.snapshot(names);
  REQUIRE(snapshot);
  Watch watch(std::move(*snapshot));
  watch.sample(1);
  root.write("interrupts", "  CPU0  CPU1  CPU2\n  0:  150  150  5000  IO-APIC  2-edge  timer\n");
  watch.sample(1);
  REQUIRE(watch.snapshot().records_changed());
  auto fresh = ns.snapshot(names);
  REQUIRE(fresh);
  Watch again(std::move(*fresh), watch);
  root.write("interrupts", "  CPU0  CPU1  CPU2\n  0:  200  200  5100  IO-APIC  2-edge  timer\n");
  auto& readings = again.sample(1);
  REQUIRE(readings.size() == 1);
  CHECK_FALSE(readings[0].rate); // not 5,400 a second: CPU2's count of before it went offline
  CHECK(again.sample(1)[0].rate == 0.0);
}
