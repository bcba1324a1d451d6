// SPDX-License-Identifier: MIT
// The sources beyond the classic /proc files, on known bytes: tests/data/proc-basic for /proc
// and tests/data/sys-basic for /sys.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <sys/statvfs.h>
#include <unistd.h>

#include "opskit/probes/counters.hpp"
#include "opskit/probes/scrape.hpp"
#include "opskit/text.hpp"
#include "temp_dir.hpp"

using namespace opskit::counters;
namespace fs = std::filesystem;

using opskit::test::TempDir;

namespace {

const std::string k_proc = std::string(OPSKIT_TEST_DATA) + "/proc-basic";
const std::string k_sys = std::string(OPSKIT_TEST_DATA) + "/sys-basic";

using Labels = std::vector<std::pair<std::string, std::string>>;

std::uint64_t u(std::uint64_t v) {
  return v;
}

// The mount points that fs.mount names in `listed`, as name components ("/", "/home").
std::vector<std::string> mount_points(const std::vector<Info>& listed) {
  std::vector<std::string> points;
  for (const auto& info : listed)
    if (info.name.ends_with(".size"))
      points.push_back(info.name.substr(9, info.name.size() - 9 - 5));
  return points;
}

// Every name under `prefix` with its info, value and error, from one snapshot read.
struct Read {
  std::vector<Info> infos;
  std::vector<std::optional<Value>> values;
  std::vector<std::string> errors;

  Read(const Namespace& ns, const std::string& prefix) {
    auto snap = ns.snapshot(std::vector<std::string>{prefix});
    INFO(prefix);
    REQUIRE(snap);
    snap->read();
    for (std::size_t i = 0; i < snap->size(); ++i) {
      infos.push_back(snap->info(i));
      values.push_back(snap->error(i) ? std::nullopt : std::optional(snap->value(i)));
      errors.push_back(snap->error(i) ? snap->error(i)->message() : "");
    }
  }
  std::size_t at(std::string_view name) const {
    for (std::size_t i = 0; i < infos.size(); ++i)
      if (infos[i].name == name)
        return i;
    FAIL("no " << name);
    return 0;
  }
  Value value(std::string_view name) const {
    auto v = values[at(name)];
    INFO(name << ": " << errors[at(name)]);
    REQUIRE(v);
    return *v;
  }
  const Info& info(std::string_view name) const { return infos[at(name)]; }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& i : infos)
      out.push_back(i.name);
    return out;
  }
};

} // namespace

TEST_CASE("sources: pressure stall information per resource", "[counters][sources]") {
  Read r(Namespace(k_proc, k_sys), "kern.pressure");
  CHECK(r.infos.size() == 3 * 2 * 4 + 4); // irq: no "some" line
  CHECK(r.value("kern.pressure.cpu.some.avg10") == Value(1.48));
  CHECK(r.value("kern.pressure.io.some.avg300") == Value(1.68));
  CHECK(r.value("kern.pressure.memory.full.total") == Value(u(65432)));
  CHECK(r.info("kern.pressure.memory.full.total").kind == Kind::counter);
  CHECK(r.info("kern.pressure.memory.full.total").unit == "microseconds");
  CHECK(r.info("kern.pressure.cpu.some.avg60").kind == Kind::gauge);
  CHECK(r.value("kern.pressure.irq.full.total") == Value(u(4321)));
  CHECK(r.info("kern.pressure.cpu.some.avg60").unit == "percent");
}

TEST_CASE("sources: net.snmp.IcmpMsg by type name, as types come and pairs of lines are added",
          "[counters][sources]") {
  TempDir proc;
  std::filesystem::create_directories(proc.path() + "/net");
  auto write = [&](const std::string& icmpmsg) {
    std::ofstream(proc.path() + "/net/snmp", std::ios::trunc)
        << "Icmp: InMsgs OutMsgs\nIcmp: 80 80\n"
        << icmpmsg << "Tcp: RtoMin MaxConn\nTcp: 200 -1\n";
  };
  // None counted yet, as on a machine just started: the first type's lines are noticed.
  write("");
  Namespace ns(proc.path(), k_sys);
  auto none = ns.snapshot(std::vector<std::string>{"net.snmp"});
  REQUIRE(none);
  REQUIRE(none->read() == 0);
  write("IcmpMsg: InType3 OutType3\nIcmpMsg: 40 41\n");
  REQUIRE(none->read() == 0);
  CHECK(none->records_changed());
  auto snap = ns.snapshot(std::vector<std::string>{"net.snmp"});
  REQUIRE(snap);
  REQUIRE(snap->read() == 0);
  auto value = [&](std::string_view name) -> std::optional<Value> {
    for (std::size_t i = 0; i < snap->size(); ++i)
      if (snap->info(i).name == name && !snap->error(i))
        return snap->value(i);
    return std::nullopt;
  };
  CHECK(value("net.snmp.IcmpMsg.OutType3") == Value(u(41)));
  CHECK(value("net.snmp.Tcp.MaxConn") == Value(std::int64_t{-1}));
  // An echo reply's first: a column before each, which the snapshot notices; each is read by
  // its name meanwhile, not by its old column.
  write("IcmpMsg: InType0 InType3 OutType0 OutType3\nIcmpMsg: 1000 42 2000 43\n");
  REQUIRE(snap->read() == 0);
  CHECK(snap->records_changed());
  CHECK(value("net.snmp.IcmpMsg.InType3") == Value(u(42)));
  CHECK(value("net.snmp.IcmpMsg.OutType3") == Value(u(43)));
  // Past sixteen types, the kernel's second pair of lines.
  std::string names = "IcmpMsg:", values = "IcmpMsg:";
  for (int type = 0; type < 16; ++type) {
    names += fmt::format(" InType{}", type);
    values += fmt::format(" {}", 100 + type);
  }
  write(names + "\n" + values + "\nIcmpMsg: InType16 OutType3\nIcmpMsg: 116 44\n");
  Read all(ns, "net.snmp.IcmpMsg");
  CHECK(all.infos.size() == 18);
  CHECK(all.value("net.snmp.IcmpMsg.InType15") == Value(u(115)));
  CHECK(all.value("net.snmp.IcmpMsg.InType16") == Value(u(116)));
  CHECK(all.value("net.snmp.IcmpMsg.OutType3") == Value(u(44)));
}

TEST_CASE("sources: softirqs per CPU and in all, interrupts summed over CPUs",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read soft(ns, "kern.softirqs");
  CHECK(soft.infos.size() == 10 * 3);
  CHECK(soft.value("kern.softirqs.TIMER.0") == Value(u(1096575)));
  CHECK(soft.value("kern.softirqs.TIMER.1") == Value(u(771106)));
  CHECK(soft.value("kern.softirqs.TIMER.all") == Value(u(1096575 + 771106)));
  CHECK(soft.info("kern.softirqs.NET_RX.1").description == "NET_RX softirqs run on CPU 1");
  Read irq(ns, "kern.interrupts");
  CHECK(irq.names() == std::vector<std::string>{"kern.interrupts.0", "kern.interrupts.24",
                                                "kern.interrupts.28", "kern.interrupts.ERR",
                                                "kern.interrupts.LOC", "kern.interrupts.MIS",
                                                "kern.interrupts.NMI", "kern.interrupts.RES"});
  CHECK(irq.value("kern.interrupts.0") == Value(u(44)));
  CHECK(irq.value("kern.interrupts.LOC") == Value(u(23117003 + 21012345)));
  CHECK(irq.value("kern.interrupts.ERR") == Value(u(0)));
  CHECK(irq.info("kern.interrupts.24").description == "IRQ 24 (IO-APIC 5-edge ACPI:Ged), all CPUs");
  CHECK(irq.info("kern.interrupts.RES").description == "Rescheduling interrupts, all CPUs");
  CHECK(irq.info("kern.interrupts.RES").kind == Kind::counter);
}

TEST_CASE("sources: file-nr's numbers, beside the sysctl text", "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read files(ns, "kern.openfiles");
  CHECK(files.value("kern.openfiles") == Value(u(225)));
  CHECK(Read(ns, "kern.maxfiles").value("kern.maxfiles") == Value(u(2466126)));
  CHECK(Read(ns, "fs.file-nr").value("fs.file-nr") == Value(std::string("225\t0\t2466126")));
}

TEST_CASE("sources: net.sockstat and net.sockstat6, socket memory in bytes",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read all(ns, "net.sockstat");
  CHECK(all.infos.size() == 12);
  CHECK(all.value("net.sockstat.sockets.used") == Value(u(231)));
  CHECK(all.value("net.sockstat.TCP.tw") == Value(u(7)));
  auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  CHECK(all.value("net.sockstat.TCP.mem") == Value(u(27 * page))); // the file counts pages
  CHECK(all.value("net.sockstat.FRAG.memory") == Value(u(8192)));  // and this one bytes
  CHECK(all.info("net.sockstat.TCP.mem").unit == "bytes");
  CHECK(all.info("net.sockstat.TCP.inuse").kind == Kind::gauge);
  CHECK(Read(ns, "net.sockstat6").value("net.sockstat6.TCP6.inuse") == Value(u(3)));
}

TEST_CASE("sources: net.dev from /proc/net/dev and the statistics files", "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read eth0(ns, "net.dev.eth0");
  CHECK(eth0.infos.size() == 27);
  CHECK(eth0.value("net.dev.eth0.rx_bytes") == Value(u(108689089)));
  CHECK(eth0.value("net.dev.eth0.rx_errors") == Value(u(2)));
  CHECK(eth0.value("net.dev.eth0.rx_fifo_errors") == Value(u(1)));
  CHECK(eth0.value("net.dev.eth0.multicast") == Value(u(12)));
  CHECK(eth0.value("net.dev.eth0.tx_dropped") == Value(u(4)));
  CHECK(eth0.value("net.dev.eth0.collisions") == Value(u(1)));
  // The file's three sums, as it prints them: node_exporter's receive_drop, receive_frame and
  // transmit_carrier.
  CHECK(eth0.value("net.dev.eth0.rx_drop") == Value(u(7)));
  CHECK(eth0.value("net.dev.eth0.rx_frame") == Value(u(5)));
  CHECK(eth0.value("net.dev.eth0.tx_carrier") == Value(u(9)));
  CHECK(eth0.value("net.dev.eth0.rx_dropped") == Value(u(1))); // the statistics files
  CHECK(eth0.value("net.dev.eth0.rx_crc_errors") == Value(u(5)));
  CHECK(eth0.value("net.dev.eth0.tx_window_errors") == Value(u(11)));
  CHECK(eth0.info("net.dev.eth0.tx_bytes").unit == "bytes");
  CHECK(eth0.info("net.dev.eth0.tx_bytes").kind == Kind::counter);
  // A dot in an interface's name is written '/', as sysctl writes eth0.100.
  CHECK(Read(ns, "net.dev.eth0/100").value("net.dev.eth0/100.rx_bytes") == Value(u(4096)));
  // Without a statistics directory, an interface has /proc/net/dev's 16 names.
  auto lo = ns.snapshot(std::vector<std::string>{"net.dev.lo"});
  REQUIRE(lo);
  CHECK(lo->size() == 16);
  CHECK(lo->source_count() == 1);
  auto all = ns.snapshot(std::vector<std::string>{"net.dev"});
  REQUIRE(all);
  CHECK(all->source_count() == 1 + 11); // /proc/net/dev once, and eth0's statistics files
  // Left out by glob before anything is opened: serve's defaults read /proc/net/dev alone.
  auto defaults = serve_defaults();
  auto served = ns.snapshot(std::vector<std::string>{"net.dev"}, {.leave_out = defaults.exclude});
  REQUIRE(served);
  CHECK(served->size() == 3 * 16);
  CHECK(served->source_paths() == std::vector<std::string>{k_proc + "/net/dev"});
}

TEST_CASE("sources: fs.mount lists each real mount point once, and gives its path back",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  auto listed = ns.list("fs.mount");
  REQUIRE(listed);
  auto points = mount_points(*listed);
  // Not a container's file system under /var/lib/docker, nor a service's credentials.
  CHECK(points == std::vector<std::string>{"/", "/home", "/home/my\\040disk\\056img", "/run",
                                           "/var/lib/docker"});
  CHECK(listed->size() == 5 * 7);
  Read root(ns, "fs.mount./");
  struct statvfs st {};
  REQUIRE(::statvfs("/", &st) == 0);
  CHECK(root.value("fs.mount./.size") == Value(u(st.f_blocks * st.f_frsize)));
  CHECK(root.value("fs.mount./.files") == Value(u(st.f_files)));
  CHECK(root.value("fs.mount./.readonly") == Value(u((st.f_flag & ST_RDONLY) != 0 ? 1 : 0)));
  CHECK(root.info("fs.mount./.avail").unit == "bytes");
  // The mount's source and type, which node_exporter labels its file systems with.
  CHECK(root.info("fs.mount./.avail").labels == Labels{{"device", "/dev/vda"}, {"fstype", "ext4"}});
  Read odd(ns, "fs.mount./home/my\\040disk\\056img.size");
  CHECK(odd.errors[0] == "statfs /home/my disk.img: No such file or directory");
}

TEST_CASE("sources: with the machine's root mounted here, its init's mount points under it",
          "[counters][sources]") {
  // A container's view: the machine's /proc, whose pid 1 is the machine's init, and its / at
  // <rootfs>. Its own mounts (<proc>/self/mountinfo) are not the machine's.
  TempDir proc, rootfs;
  std::filesystem::create_directories(proc.path() + "/1");
  std::filesystem::create_directories(proc.path() + "/self");
  std::filesystem::create_directories(rootfs.path() + "/data");
  std::ofstream(proc.path() + "/1/mountinfo")
      << "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
         "28 27 0:40 / /data rw,relatime - tmpfs tmpfs rw,size=1024k\n"
         "29 27 0:41 / /data/empty rw,relatime - tmpfs  rw,size=1024k\n" // source ""
         // mount --move of "first" onto "second": the one on top listed before the one under it
         "31 32 0:45 / /data/moved rw,relatime - tmpfs first rw\n"
         "32 27 0:44 / /data/moved rw,relatime - tmpfs second rw\n";
  std::filesystem::create_directories(rootfs.path() + "/data/empty");
  std::filesystem::create_directories(rootfs.path() + "/data/moved");
  std::ofstream(proc.path() + "/self/mountinfo")
      << "90 1 0:50 / / rw,relatime - overlay overlay rw\n"
         "91 90 254:0 / /host ro,relatime - ext4 /dev/vda rw\n";
  Namespace ns(proc.path(), k_sys, rootfs.path() + "/");
  auto listed = ns.list("fs.mount");
  REQUIRE(listed);
  auto points = mount_points(*listed);
  CHECK(points == std::vector<std::string>{"/", "/data", "/data/empty", "/data/moved"});
  Read data(ns, "fs.mount./data");
  struct statvfs st {};
  REQUIRE(::statvfs((rootfs.path() + "/data").c_str(), &st) == 0);
  CHECK(data.value("fs.mount./data.size") == Value(u(st.f_blocks * st.f_frsize)));
  CHECK(data.value("fs.mount./data.files") == Value(u(st.f_files)));
  CHECK(data.info("fs.mount./data.size").labels ==
        Labels{{"device", "tmpfs"}, {"fstype", "tmpfs"}});
  CHECK(Read(ns, "fs.mount./data/empty.size").info("fs.mount./data/empty.size").labels ==
        Labels{{"device", "none"}, {"fstype", "tmpfs"}});
  CHECK(Read(ns, "fs.mount./data/moved.size").info("fs.mount./data/moved.size").labels ==
        Labels{{"device", "first"}, {"fstype", "tmpfs"}});
  // Without it, this process's own mounts, as before.
  auto own = Namespace(proc.path(), k_sys).list("fs.mount");
  REQUIRE(own);
  CHECK(own->front().name.starts_with("fs.mount./."));
  CHECK(own->back().name.starts_with("fs.mount./host."));
}

TEST_CASE("sources: a cgroup's names are its paths written as sysctl writes them",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read all(ns, "cgroup");
  CHECK(all.value("cgroup.cpu/stat.usage_usec") == Value(u(53598148442)));
  CHECK(all.value("cgroup.system/slice.memory/current") == Value(u(1073741824)));
  CHECK(all.value("cgroup.system/slice.cpu/stat.nr_throttled") == Value(u(2)));
  CHECK(all.value("cgroup.system/slice.io/stat.254:0.wbytes") == Value(u(2097152)));
  CHECK(all.value("cgroup.system/slice.io/stat.7:1.rios") == Value(u(1)));
  CHECK(all.value("cgroup.system/slice.ssh/service.pids/current") == Value(u(3)));
  CHECK(all.info("cgroup.system/slice.memory/stat.anon").kind == Kind::gauge);
  CHECK(all.info("cgroup.system/slice.memory/stat.anon").unit == "bytes");
  CHECK(all.info("cgroup.system/slice.memory/stat.workingset_refault_file").kind == Kind::counter);
  CHECK(all.info("cgroup.system/slice.cpu/stat.usage_usec").unit == "microseconds");
  Read ssh(ns, "cgroup.system/slice.ssh/service");
  CHECK(ssh.names() ==
        std::vector<std::string>{"cgroup.system/slice.ssh/service.cpu/stat.system_usec",
                                 "cgroup.system/slice.ssh/service.cpu/stat.usage_usec",
                                 "cgroup.system/slice.ssh/service.cpu/stat.user_usec",
                                 "cgroup.system/slice.ssh/service.memory/current",
                                 "cgroup.system/slice.ssh/service.pids/current"});
}

TEST_CASE("sources: a cgroup made with dots and levels reads back by its name",
          "[counters][sources]") {
  char tmpl[] = "/tmp/opskit-sys-XXXXXX";
  fs::path sys = ::mkdtemp(tmpl);
  fs::copy(k_sys, sys, fs::copy_options::recursive);
  fs::create_directories(sys / "fs/cgroup/a.b/c.d");
  std::ofstream(sys / "fs/cgroup/a.b/c.d/memory.current") << "5\n";
  Namespace ns(k_proc, sys);
  auto handle = ns.resolve("cgroup.a/b.c/d.memory/current");
  CHECK(handle);
  if (handle)
    CHECK(handle->read() == Value(u(5)));
  CHECK_FALSE(ns.resolve("cgroup.a.b.c.d.memory.current"));
  fs::remove_all(sys);
}

TEST_CASE("sources: cgroups are listed in name order, whatever order their directory holds them",
          "[counters][sources]") {
  // Components that sort one way as numbers, another as bytes, and a child's name beside its
  // parent's files ("io", "memory", "a-b" before "a.x"'s "a/x").
  TempDir sys;
  const fs::path hierarchy = fs::path(sys.path()) / "fs/cgroup";
  fs::create_directories(hierarchy);
  std::ofstream(hierarchy / "cgroup.controllers") << "cpu memory\n";
  for (const char* dir :
       {"a10", "a9", "a1", "a-b", "a.x", "io", "memory", "zz", "a9/b2", "a9/b10"}) {
    fs::create_directories(hierarchy / dir);
    std::ofstream(hierarchy / dir / "cpu.stat") << "usage_usec 3\nuser_usec 2\nsystem_usec 1\n";
    std::ofstream(hierarchy / dir / "memory.current") << "4096\n";
  }
  std::ofstream(hierarchy / "memory.stat") << "file 2\nanon 1\npgfault 3\n";
  auto listed = Namespace(k_proc, sys.path()).list("cgroup");
  REQUIRE(listed);
  std::vector<std::string> names;
  for (const auto& info : *listed)
    names.push_back(info.name);
  auto sorted = names;
  std::ranges::stable_sort(sorted, opskit::natural_less);
  CHECK(names == sorted);
  CHECK(names.size() == 10 * 4 + 3);
  CHECK(std::ranges::adjacent_find(names) == names.end());
  CHECK(names.front() == "cgroup.a-b.cpu/stat.system_usec");
  CHECK(std::ranges::find(names, "cgroup.a9.b10.memory/current") >
        std::ranges::find(names, "cgroup.a9.b2.memory/current"));
}

TEST_CASE("sources: without a cgroup2 hierarchy there are no cgroup names", "[counters][sources]") {
  Namespace ns(k_proc, k_proc); // a tree with no fs/cgroup
  auto listed = ns.list("cgroup");
  REQUIRE_FALSE(listed);
  CHECK(listed.error().message() == "unknown name 'cgroup': nothing is under cgroup now");
}

TEST_CASE("sources: net.softnet per CPU from hexadecimal, named by the CPU's number",
          "[counters][sources]") {
  // Linux 6.x: the backlog's length and the CPU's number in columns 12 and 13; CPU 1 offline.
  Namespace ns(k_proc, k_sys);
  Read now(ns, "net.softnet");
  CHECK(now.infos.size() == 2 * 6);
  CHECK(now.value("net.softnet.0.processed") == Value(u(0x5c7798)));
  CHECK(now.value("net.softnet.0.dropped") == Value(u(2)));
  CHECK(now.value("net.softnet.0.time_squeeze") == Value(u(3)));
  CHECK(now.value("net.softnet.0.received_rps") == Value(u(10)));
  CHECK(now.value("net.softnet.0.flow_limit_count") == Value(u(1)));
  CHECK(now.value("net.softnet.0.backlog_len") == Value(u(4)));
  CHECK(now.value("net.softnet.2.processed") == Value(u(0x57d1b8)));
  CHECK(now.value("net.softnet.2.time_squeeze") == Value(u(31)));
  CHECK(now.info("net.softnet.2.dropped").kind == Kind::counter);
  CHECK(now.info("net.softnet.2.backlog_len").kind == Kind::gauge);
  CHECK(now.info("net.softnet.2.processed").unit == "packets");

  // Before Linux 5.10: eleven columns, a line's CPU its place in the file, no backlog.
  TempDir proc;
  std::filesystem::create_directories(proc.path() + "/net");
  std::ofstream(proc.path() + "/net/softnet_stat")
      << "00000010 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
         "00000000 00000000\n"
         "000000ff 00000001 00000000 00000000 00000000 00000000 00000000 00000000 00000000 "
         "00000005 00000000\n";
  Namespace old(proc.path(), k_sys);
  Read then(old, "net.softnet");
  CHECK(then.names() ==
        std::vector<std::string>{"net.softnet.0.dropped", "net.softnet.0.flow_limit_count",
                                 "net.softnet.0.processed", "net.softnet.0.received_rps",
                                 "net.softnet.0.time_squeeze", "net.softnet.1.dropped",
                                 "net.softnet.1.flow_limit_count", "net.softnet.1.processed",
                                 "net.softnet.1.received_rps", "net.softnet.1.time_squeeze"});
  CHECK(then.value("net.softnet.1.processed") == Value(u(255)));
  CHECK(then.value("net.softnet.1.received_rps") == Value(u(5)));

  // Before Linux 3.11 (RHEL 7's 3.10): ten columns, no flow limit.
  TempDir older_proc;
  std::filesystem::create_directories(older_proc.path() + "/net");
  std::ofstream(older_proc.path() + "/net/softnet_stat")
      << "00000010 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
         "00000007\n";
  Read older(Namespace(older_proc.path(), k_sys), "net.softnet");
  CHECK(older.names() ==
        std::vector<std::string>{"net.softnet.0.dropped", "net.softnet.0.processed",
                                 "net.softnet.0.received_rps", "net.softnet.0.time_squeeze"});
  CHECK(older.value("net.softnet.0.received_rps") == Value(u(7)));

  // A CPU taken offline: its line goes, and the snapshot says its records changed.
  auto snap = old.snapshot(std::vector<std::string>{"net.softnet"});
  REQUIRE(snap);
  REQUIRE(snap->read() == 0);
  std::ofstream(proc.path() + "/net/softnet_stat", std::ios::trunc)
      << "00000011 00000000 00000001 00000000 00000000 00000000 00000000 00000000 00000000 "
         "00000000 00000000\n";
  snap->read();
  CHECK(snap->records_changed());
}

TEST_CASE("sources: md arrays from /proc/mdstat's stanzas, as node_exporter counts them",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read md(ns, "md");
  CHECK(md.infos.size() == 6 * 11);
  // A healthy mirror with a bitmap.
  CHECK(md.value("md.md127.disks_required") == Value(u(2)));
  CHECK(md.value("md.md127.disks_active") == Value(u(2)));
  CHECK(md.value("md.md127.blocks_synced") == Value(u(976630464)));
  CHECK(md.value("md.md127.active") == Value(u(1)));
  // RAID 5 rebuilding onto a spare after a failure: degraded by one, a failed disk, a spare.
  CHECK(md.value("md.md1.disks_required") == Value(u(4)));
  CHECK(md.value("md.md1.disks_active") == Value(u(3)));
  CHECK(md.value("md.md1.disks_failed") == Value(u(1)));
  CHECK(md.value("md.md1.disks_spare") == Value(u(1)));
  CHECK(md.value("md.md1.blocks") == Value(u(2930280448)));
  CHECK(md.value("md.md1.blocks_synced") == Value(u(123456789)));
  CHECK(md.value("md.md1.recovering") == Value(u(1)));
  CHECK(md.value("md.md1.active") == Value(u(0)));
  // Inactive: nothing required, nothing active; its spare counted.
  CHECK(md.value("md.md2.inactive") == Value(u(1)));
  CHECK(md.value("md.md2.disks_required") == Value(u(0)));
  CHECK(md.value("md.md2.disks_spare") == Value(u(1)));
  // RAID 0: every device required and active. A resync waiting: none of it done yet.
  CHECK(md.value("md.md3.disks_required") == Value(u(2)));
  CHECK(md.value("md.md3.disks_active") == Value(u(2)));
  CHECK(md.value("md.md4.resync") == Value(u(1)));
  CHECK(md.value("md.md4.blocks_synced") == Value(u(0)));
  CHECK(md.value("md.md5.check") == Value(u(1)));
  CHECK(md.value("md.md5.blocks_synced") == Value(u(5239552)));
  CHECK(md.info("md.md1.blocks").unit == "KiB");
  // A RAID 5 grown by a disk, reshaping: no state of those is 1, as node_exporter has it, and
  // its progress synced. A RAID 0 whose member went (Linux 5.x's "broken"): neither active nor
  // inactive, its devices still counted.
  TempDir proc;
  std::ofstream(proc.path() + "/mdstat")
      << "Personalities : [raid0] [raid6] [raid5] [raid4]\n"
         "md42 : active raid5 sde[4] sdd[3] sdc[2] sdb[1] sda[0]\n"
         "      1953381440 blocks super 1.2 level 5, 512k chunk, algorithm 2 [5/5] [UUUUU]\n"
         "      [===========>.........]  reshape = 56.1% (1096879076/1953381440) "
         "finish=7.3min speed=131072K/sec\n"
         "      \n"
         "md0 : broken raid0 sdb[1] sda[0]\n"
         "      1953260544 blocks super 1.2 512k chunks\n"
         "      \n"
         "unused devices: <none>\n";
  Read odd(Namespace(proc.path(), k_sys), "md");
  for (const char* state : {"active", "inactive", "recovering", "resync", "check"}) {
    INFO(state);
    CHECK(odd.value(fmt::format("md.md42.{}", state)) == Value(u(0)));
    CHECK(odd.value(fmt::format("md.md0.{}", state)) == Value(u(0)));
  }
  CHECK(odd.value("md.md42.blocks_synced") == Value(u(1096879076)));
  CHECK(odd.value("md.md42.disks_active") == Value(u(5)));
  CHECK(odd.value("md.md0.disks_required") == Value(u(2)));
  CHECK(odd.value("md.md0.disks_active") == Value(u(2)));
}

TEST_CASE("sources: net.conntrack, the tracker's counters summed over the CPUs",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read stat(ns, "net.conntrack");
  CHECK(stat.infos.size() == 17); // the columns the file's header names
  CHECK(stat.value("net.conntrack.found") == Value(u(0x0f + 0x01)));
  CHECK(stat.value("net.conntrack.ignore") == Value(u(0xff + 1)));
  CHECK(stat.value("net.conntrack.insert_failed") == Value(u(1)));
  CHECK(stat.value("net.conntrack.drop") == Value(u(2 + 5)));
  CHECK(stat.value("net.conntrack.search_restart") == Value(u(4)));
  CHECK(stat.value("net.conntrack.entries") == Value(u(42))); // the table's, on every line
  CHECK(stat.info("net.conntrack.entries").kind == Kind::gauge);
  CHECK(stat.info("net.conntrack.drop").kind == Kind::counter);
  CHECK(stat.info("net.conntrack.drop").description ==
        "Packets dropped because the table was full");
}

TEST_CASE("sources: net.arp, the ARP table's entries counted by interface, incomplete ones too",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read arp(ns, "net.arp");
  std::vector<std::string> names;
  for (const auto& info : arp.infos)
    names.push_back(info.name);
  // By the interfaces' names, not the table's order; a dot in a name written as '/'.
  CHECK(names == std::vector<std::string>{"net.arp.br0.entries", "net.arp.eth0.entries",
                                          "net.arp.eth0/100.entries"});
  CHECK(arp.value("net.arp.eth0.entries") == Value(u(3))); // flags 0x0: not yet resolved
  CHECK(arp.value("net.arp.eth0/100.entries") == Value(u(1)));
  CHECK(arp.info("net.arp.br0.entries").kind == Kind::gauge);
  CHECK(arp.info("net.arp.br0.entries").description == "Entries of the ARP table on the interface");
}

TEST_CASE("sources: a rendering read as before keeps its values, and a read that failed between "
          "is parsed anew",
          "[counters][sources]") {
  TempDir proc;
  fs::create_directories(proc / "net");
  constexpr std::string_view header = "IP address       HW type     Flags       HW address"
                                      "            Mask     Device\n";
  auto write_arp = [&](int entries) {
    std::ofstream arp(proc / "net/arp");
    arp << header;
    for (int k = 0; k < entries; ++k)
      arp << "192.0.2." << k + 1 << "        0x1         0x2         02:fc:00:00:00:05     *"
          << "        eth0\n";
  };
  write_arp(2);
  Namespace ns(proc.path(), k_sys);
  auto snap = ns.snapshot(std::vector<std::string>{"net.arp"});
  REQUIRE(snap);
  REQUIRE(snap->size() == 1);
  CHECK(snap->read() == 0);
  CHECK(snap->value(0) == Value(u(2)));
  CHECK(snap->read() == 0); // the same bytes: the value stands
  CHECK(snap->value(0) == Value(u(2)));
  write_arp(3);
  CHECK(snap->read() == 0);
  CHECK(snap->value(0) == Value(u(3)));
  CHECK(snap->read() == 0);
  // A read the deadline passed fails the entry; the next, of the bytes before it, is its value.
  CHECK(snap->read(std::chrono::steady_clock::now() - std::chrono::seconds(1)) == 1);
  REQUIRE(snap->error(0) != nullptr);
  CHECK(snap->error(0)->message() == (proc / "net/arp") + ": not read: the deadline passed");
  CHECK(snap->read() == 0);
  CHECK(snap->error(0) == nullptr);
  CHECK(snap->value(0) == Value(u(3)));
  CHECK(snap->read() == 0);
  CHECK(snap->error(0) == nullptr);
}

TEST_CASE("sources: net.udp and net.udp6, the sockets' queues summed", "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read udp(ns, "net.udp");
  CHECK(udp.infos.size() == 2);
  CHECK(udp.value("net.udp.queues.rx") == Value(u(0xA00 + 0x12000)));
  CHECK(udp.value("net.udp.queues.tx") == Value(u(0x300)));
  CHECK(udp.info("net.udp.queues.rx").unit == "bytes");
  CHECK(udp.info("net.udp.queues.rx").kind == Kind::gauge);
  Read udp6(ns, "net.udp6");
  CHECK(udp6.value("net.udp6.queues.rx") == Value(u(0x400)));
  CHECK(udp6.value("net.udp6.queues.tx") == Value(u(0)));
}

TEST_CASE("sources: hw.edac, memory errors by controller and row", "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read edac(ns, "hw.edac");
  CHECK(edac.infos.size() == 2 * (4 + 2 * 2));
  CHECK(edac.value("hw.edac.0.ce_count") == Value(u(5)));
  CHECK(edac.value("hw.edac.0.ce_noinfo_count") == Value(u(1)));
  CHECK(edac.value("hw.edac.1.csrow.1.ue_count") == Value(u(2)));
  CHECK(edac.info("hw.edac.1.ue_count").kind == Kind::counter);
  CHECK(edac.info("hw.edac.1.ue_count").description ==
        "Uncorrected memory errors on the controller");
}

TEST_CASE("sources: hw.thermal, zones' temperatures and cooling devices, their kinds as labels",
          "[counters][sources]") {
  TempDir sys;
  fs::copy(k_sys, sys.path(), fs::copy_options::recursive);
  // A zone whose sensor fails each read (here: its temp is a directory) is left out.
  fs::create_directories(sys / "class/thermal/thermal_zone2/temp");
  std::ofstream(sys / "class/thermal/thermal_zone2/type") << "iwlwifi_1\n";
  Namespace ns(k_proc, sys.path());
  Read thermal(ns, "hw.thermal");
  CHECK(thermal.names() ==
        std::vector<std::string>{"hw.thermal.cooling.0.cur_state", "hw.thermal.cooling.0.max_state",
                                 "hw.thermal.zone.0.temp", "hw.thermal.zone.1.temp"});
  CHECK(thermal.value("hw.thermal.zone.0.temp") == Value(u(47000)));
  CHECK(thermal.value("hw.thermal.zone.1.temp") == Value(std::int64_t{-2500}));
  CHECK(thermal.info("hw.thermal.zone.1.temp").unit == "millicelsius");
  CHECK(thermal.info("hw.thermal.zone.1.temp").labels == Labels{{"type", "acpitz"}});
  CHECK(thermal.info("hw.thermal.cooling.0.max_state").labels == Labels{{"type", "Fan"}});
  CHECK(thermal.value("hw.thermal.cooling.0.cur_state") == Value(u(1)));
}

TEST_CASE("sources: hw.cpufreq, each online CPU's frequency, its limits and governor",
          "[counters][sources]") {
  // cpu0 and cpu1 link to their cpufreq policies, as the kernel links them; cpu2 is offline,
  // without one; only cpu0's driver gives the hardware's own reading (cpuinfo_cur_freq).
  Namespace ns(k_proc, k_sys);
  Read cpufreq(ns, "hw.cpufreq");
  CHECK(cpufreq.infos.size() == 7 + 6);
  CHECK(cpufreq.value("hw.cpufreq.0.cpuinfo_cur_freq") == Value(u(2100000)));
  CHECK(cpufreq.value("hw.cpufreq.1.scaling_cur_freq") == Value(u(3912000)));
  CHECK(cpufreq.value("hw.cpufreq.1.scaling_governor") == Value(std::string("performance")));
  CHECK(cpufreq.info("hw.cpufreq.1.scaling_min_freq").unit == "kilohertz");
  CHECK(cpufreq.info("hw.cpufreq.1.scaling_governor").kind == Kind::text);
  CHECK_FALSE(ns.list("hw.cpufreq.1.cpuinfo_cur_freq"));
  CHECK_FALSE(ns.list("hw.cpufreq.2"));
}

TEST_CASE("sources: hw.throttle, a package's and each core's count, read from one CPU of each",
          "[counters][sources]") {
  // cpu0 and cpu1 are one core's two threads, cpu3 another core of package 0; cpu2 is offline
  // and has no topology.
  Namespace ns(k_proc, k_sys);
  Read throttle(ns, "hw.throttle");
  CHECK(throttle.names() == std::vector<std::string>{"hw.throttle.0.core.0.core_throttle_count",
                                                     "hw.throttle.0.core.1.core_throttle_count",
                                                     "hw.throttle.0.package_throttle_count"});
  CHECK(throttle.value("hw.throttle.0.core.1.core_throttle_count") == Value(u(3)));
  CHECK(throttle.info("hw.throttle.0.package_throttle_count").kind == Kind::counter);
}

TEST_CASE("sources: hw.rapl, each power domain's energy by its name and index",
          "[counters][sources]") {
  // Two packages, each with a DRAM domain named without an index: numbered in the directory's
  // order. The control type's own directory (intel-rapl) has no name and is no zone.
  Namespace ns(k_proc, k_sys);
  Read rapl(ns, "hw.rapl");
  CHECK(rapl.names() ==
        std::vector<std::string>{"hw.rapl.core.0.energy_uj", "hw.rapl.dram.0.energy_uj",
                                 "hw.rapl.dram.1.energy_uj", "hw.rapl.package.0.energy_uj",
                                 "hw.rapl.package.1.energy_uj"});
  CHECK(rapl.value("hw.rapl.dram.1.energy_uj") == Value(u(1234567890)));
  CHECK(rapl.info("hw.rapl.dram.1.energy_uj").labels ==
        Labels{{"path", k_sys + "/class/powercap/intel-rapl:1:0"}});
}

TEST_CASE("sources: net.rpc.nfs, the NFS client's RPC calls by version and procedure",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read nfs(ns, "net.rpc.nfs");
  CHECK(nfs.infos.size() == 4 + 3 + 18 + 22 + 59); // proc4's ten procedures past Clone unnamed
  CHECK(nfs.value("net.rpc.nfs.rpc.retransmissions") == Value(u(17)));
  CHECK(nfs.value("net.rpc.nfs.v3.Commit") == Value(u(4410)));
  CHECK(nfs.value("net.rpc.nfs.v4.Null") == Value(u(5)));
  CHECK(nfs.info("net.rpc.nfs.v3.Commit").description == "NFSv3 Commit calls the client made");
  CHECK(Namespace(k_sys, k_sys).list("net.rpc.nfs").error().message() ==
        "unknown name 'net.rpc.nfs': this machine has no " + k_sys + "/net/rpc/nfs");
}

TEST_CASE("sources: xfs, each file system's statistics by device, the sum over all left out",
          "[counters][sources]") {
  // sda1 as a 6.1 kernel writes the file, dm-0 as a 4.9 kernel did (no v2 B-trees' lines, no
  // quota or relog line); <sys>/fs/xfs/stats sums them.
  Namespace ns(k_proc, k_sys);
  Read xfs(ns, "xfs");
  Read sda1(ns, "xfs.sda1");
  CHECK(sda1.infos.size() == 76 + 7 * 15 + 8 + 3 + 1);
  CHECK(xfs.infos.size() == sda1.infos.size() + 76 + 3);
  CHECK(sda1.value("xfs.sda1.rw.write_calls") == Value(u(1062811))); // the kernel writes it first
  CHECK(sda1.value("xfs.sda1.rw.read_calls") == Value(u(2011239)));
  CHECK(sda1.value("xfs.sda1.abtc2.record_moves") == Value(u(567890)));
  CHECK(sda1.value("xfs.sda1.xpc.read_bytes") == Value(u(86219234)));
  CHECK(sda1.info("xfs.sda1.xpc.read_bytes").unit == "bytes");
  CHECK(sda1.info("xfs.sda1.vnodes.active").kind == Kind::gauge);
  CHECK(sda1.info("xfs.sda1.vnodes.free").kind == Kind::counter);
  CHECK(sda1.info("xfs.sda1.rw.read_calls").description ==
        "read(2) calls to the file system's files");
  CHECK(xfs.value("xfs.dm-0.vnodes.free") == Value(u(67)));
  CHECK_FALSE(ns.list("xfs.stats"));
  CHECK_FALSE(ns.list("xfs.dm-0.debug"));
}

TEST_CASE("sources: btrfs, a file system's space by block group type and profile, and commits",
          "[counters][sources]") {
  // Two devices, raid1 throughout; no mount point of it to ask its devices of.
  Namespace ns(k_proc, k_sys);
  Read btrfs(ns, "btrfs");
  const std::string fs = "btrfs.7c3a1e52-8f4b-4d6e-9a0b-2c5d8e1f3a47";
  CHECK(btrfs.infos.size() == 1 + 2 + 3 * 8 + 3 * 2 + 5);
  CHECK(btrfs.value(fs + ".label") == Value(std::string("backup")));
  CHECK(btrfs.value(fs + ".allocation.data.raid1.used_bytes") == Value(u(612345675776)));
  CHECK(btrfs.value(fs + ".allocation.metadata.disk_total") == Value(u(10737418240)));
  CHECK(btrfs.value(fs + ".commit_stats.max_commit_ms") == Value(u(1843)));
  CHECK(btrfs.info(fs + ".commit_stats.total_commit_ms").kind == Kind::counter);
  CHECK(btrfs.info(fs + ".commit_stats.total_commit_ms").unit == "milliseconds");
  CHECK(btrfs.info(fs + ".allocation.system.bytes_used").labels ==
        Labels{{"uuid", "7c3a1e52-8f4b-4d6e-9a0b-2c5d8e1f3a47"}});
  CHECK_FALSE(ns.list("btrfs.features"));
  // Before 6.1 the kernel wrote no cur_commit_ms: the others are read, and no error.
  TempDir sys;
  std::filesystem::copy(k_sys, sys.path(), std::filesystem::copy_options::recursive);
  std::ofstream(sys.path() + "/fs/btrfs/7c3a1e52-8f4b-4d6e-9a0b-2c5d8e1f3a47/commit_stats")
      << "commits 48213\nlast_commit_ms 27\nmax_commit_ms 1843\ntotal_commit_ms 2214567\n";
  Read older(Namespace(k_proc, sys.path()), "btrfs");
  CHECK(older.infos.size() == btrfs.infos.size() - 1);
  CHECK(older.value(fs + ".commit_stats.max_commit_ms") == Value(u(1843)));
  CHECK(std::ranges::count(older.errors, "") == static_cast<long>(older.errors.size()));
}

TEST_CASE("sources: net.rpc.nfsd, the NFS server's calls, and its operations by number",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read nfsd(ns, "net.rpc.nfsd");
  // rc 3, fh 1, io 2, th 1, ra 2, net 4, rpc 5; NFSv2, v3, v4's two, 72 operations less 0 to 2
  CHECK(nfsd.infos.size() == 18 + 18 + 22 + 2 + 69);
  CHECK(nfsd.value("net.rpc.nfsd.th.threads") == Value(u(8)));
  CHECK(nfsd.info("net.rpc.nfsd.th.threads").kind == Kind::gauge);
  CHECK(nfsd.value("net.rpc.nfsd.rpc.bad_auth") == Value(u(44)));
  CHECK(nfsd.value("net.rpc.nfsd.v4ops.Access") == Value(u(33)));    // operation 3
  CHECK(nfsd.value("net.rpc.nfsd.v4ops.Sequence") == Value(u(533))); // 53
  CHECK(nfsd.value("net.rpc.nfsd.v4ops.Clone") == Value(u(713)));    // 71, the file's last
  CHECK(nfsd.info("net.rpc.nfsd.v4ops.Write").description ==
        "NFSv4 Write operations the server ran");
  CHECK_FALSE(ns.list("net.rpc.nfsd.v4ops.ListXattrs")); // 74, past this kernel's
}

TEST_CASE("sources: kern.selinux, enabled on every machine, and its modes where it is",
          "[counters][sources]") {
  // This machine has no SELinux: enabled, 0, and nothing else
  Read off(Namespace(k_proc, k_sys), "kern.selinux");
  REQUIRE(off.infos.size() == 1);
  CHECK(off.value("kern.selinux.enabled") == Value(u(0)));
  // A copy of /sys with selinuxfs's enforce file, and a root file system booting it permissive
  TempDir sys, rootfs;
  std::filesystem::create_directories(sys / "fs/selinux");
  std::ofstream(sys / "fs/selinux/enforce") << "1";
  std::filesystem::create_directories(rootfs / "etc/selinux");
  std::ofstream(rootfs / "etc/selinux/config")
      << "# comment\nSELINUX=permissive\nSELINUXTYPE=targeted\n";
  Namespace ns(k_proc, sys.path(), rootfs.path());
  Read on(ns, "kern.selinux");
  CHECK(on.infos.size() == 3);
  CHECK(on.value("kern.selinux.enabled") == Value(u(1)));
  CHECK(on.value("kern.selinux.current_mode") == Value(u(1)));
  CHECK(on.value("kern.selinux.config_mode") == Value(u(0)));
  std::ofstream(rootfs / "etc/selinux/config") << "SELINUX=disabled\n";
  CHECK(Read(ns, "kern.selinux.config_mode").value("kern.selinux.config_mode") ==
        Value(std::int64_t{-1}));
}

TEST_CASE("sources: bcache, a cache set, its backing and cache devices", "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read bcache(ns, "bcache");
  const std::string set = "bcache.5d3a8f0e-2b7c-4e91-a6d4-0c8b1f2e7a35";
  // the set's 6, internal 4 and totals 7; two backing devices' 1 + 7 + 6; a cache device's 3
  CHECK(bcache.infos.size() == 6 + 4 + 7 + 2 * (1 + 7 + 6) + 3);
  CHECK(bcache.value(set + ".btree_cache_size") == Value(u(98234368))); // 93.7M
  CHECK(bcache.info(set + ".btree_cache_size").unit == "bytes");
  CHECK(bcache.value(set + ".bdev0.dirty_data") == Value(u(133681152)));
  CHECK(bcache.value(set + ".bdev0.writeback_rate_debug.rate") == Value(u(2609152)));
  CHECK(bcache.value(set + ".bdev1.writeback_rate_debug.proportional") ==
        Value(std::int64_t{-2609152}));
  CHECK(bcache.value(set + ".bdev1.stats_total.cache_hits") == Value(u(311116)));
  CHECK(bcache.info(set + ".bdev1.stats_total.cache_hits").kind == Kind::counter);
  CHECK(bcache.value(set + ".cache0.written") == Value(u(52378468352)));
  CHECK(bcache.info(set + ".cache0.written").kind == Kind::counter);
  CHECK(bcache.info(set + ".cache0.io_errors").kind == Kind::gauge);
  CHECK(bcache.value(set + ".internal.btree_read_average_duration_us") == Value(u(471)));
  CHECK_FALSE(ns.list(set + ".bdev0.writeback_rate_debug.next")); // "next io: -8ms"
}

TEST_CASE("sources: zfs, the module's statistics and each pool's state, I/O and datasets",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read zfs(ns, "zfs");
  // abd 11, arc 49, dbuf 11, dmu_tx 11, dnode 9, fm 4, vdev_mirror 7, zfetch 3, zil 9; three
  // pools' states, backup's I/O, three datasets
  CHECK(zfs.infos.size() == 11 + 49 + 11 + 11 + 9 + 4 + 7 + 3 + 9 + 3 * 7 + 12 + 3 * 6);
  CHECK(zfs.value("zfs.arc.hits") == Value(u(48275190)));
  CHECK(zfs.info("zfs.arc.hits").kind == Kind::counter);
  CHECK(zfs.info("zfs.arc.size").kind == Kind::gauge);
  CHECK(zfs.info("zfs.arc.c").kind == Kind::gauge);
  CHECK(zfs.info("zfs.arc.mru_evictable_data").kind == Kind::gauge);
  CHECK(zfs.info("zfs.arc.memory_throttle_count").kind == Kind::counter);
  CHECK(zfs.info("zfs.dbuf.cache_size_bytes").kind == Kind::gauge);
  CHECK(zfs.info("zfs.dbuf.hash_hits").kind == Kind::counter);
  CHECK(zfs.info("zfs.abd.scatter_cnt").kind == Kind::gauge);
  CHECK(zfs.info("zfs.abd.scatter_page_multi_zone").kind == Kind::counter);
  CHECK(zfs.value("zfs.arc.memory_available_bytes") == Value(std::int64_t{-213909504})); // type 3
  CHECK(zfs.value("zfs.fm.erpt-dropped") == Value(u(18)));
  CHECK(zfs.info("zfs.fm.erpt-dropped").description == "ZFS's erpt-dropped (fm)");
  CHECK(zfs.value("zfs.pool.tank.state.online") == Value(u(1)));
  CHECK(zfs.value("zfs.pool.tank.state.degraded") == Value(u(0)));
  CHECK(zfs.value("zfs.pool.scratch.state.suspended") == Value(u(1)));
  CHECK(zfs.value("zfs.pool.backup.io.nwritten") == Value(u(3206144)));
  CHECK(zfs.info("zfs.pool.backup.io.wtime").unit == "nanoseconds");
  CHECK(zfs.info("zfs.pool.backup.io.wcnt").kind == Kind::gauge);
  // A '.' in a dataset's name does not split the name: written as a mount point's is
  CHECK(zfs.value("zfs.pool.tank.dataset.tank/home\\056d.nread") == Value(u(6121947136)));
  CHECK(zfs.value("zfs.pool.tank.dataset.tank.writes") == Value(u(118)));
  CHECK_FALSE(ns.list("zfs.pool.tank.dataset.tank.dataset_name")); // text: the name itself
  CHECK_FALSE(ns.list("zfs.arc.name"));                            // the header
}

TEST_CASE("sources: net.ipvs, the totals and each real server under its service",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read ipvs(ns, "net.ipvs");
  CHECK(ipvs.infos.size() == 5 + 5 * 3);
  CHECK(ipvs.value("net.ipvs.total.incoming_bytes") == Value(u(0x7D4E2F1)));
  const std::string v6 = "net.ipvs.backend.TCP_20010db8000000000000000000000001:0050_"
                         "20010db80000000000000000000000a2:1f90";
  CHECK(ipvs.value(v6 + ".weight") == Value(u(2)));
  CHECK(ipvs.info(v6 + ".active").labels == Labels{{"proto", "TCP"},
                                                   {"local_address", "2001:db8::1"},
                                                   {"local_port", "80"},
                                                   {"remote_address", "2001:db8::a2"},
                                                   {"remote_port", "8080"}});
}

TEST_CASE("sources: hw.dmi, the firmware's strings, read once", "[counters][sources]") {
  TempDir sys;
  fs::copy(k_sys, sys.path(), fs::copy_options::recursive);
  Namespace ns(k_proc, sys.path());
  auto snap = ns.snapshot(std::vector<std::string>{"hw.dmi.product_name"});
  REQUIRE(snap);
  snap->read();
  CHECK(snap->value(0) == Value(std::string("PowerEdge R650")));
  CHECK(snap->info(0).kind == Kind::text);
  // What a scrape reads again is not read again: the first read stands
  std::ofstream(sys / "class/dmi/id/product_name") << "changed\n";
  snap->read();
  CHECK(snap->value(0) == Value(std::string("PowerEdge R650")));
  CHECK(Read(ns, "hw.dmi.product_name").value("hw.dmi.product_name") ==
        Value(std::string("changed")));
}

TEST_CASE("sources: kern.schedstat, each CPU's time running and waiting to run",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read sched(ns, "kern.schedstat");
  CHECK(sched.names() ==
        std::vector<std::string>{"kern.schedstat.0.running", "kern.schedstat.0.timeslices",
                                 "kern.schedstat.0.waiting", "kern.schedstat.1.running",
                                 "kern.schedstat.1.timeslices", "kern.schedstat.1.waiting"});
  CHECK(sched.value("kern.schedstat.1.waiting") == Value(u(290250000000)));
  CHECK(sched.info("kern.schedstat.1.waiting").unit == "nanoseconds");
  CHECK(sched.info("kern.schedstat.1.timeslices").kind == Kind::counter);
  // A kernel built without it: the file it lacks, named
  auto missing = Namespace(k_sys, k_sys).list("kern.schedstat.0.running");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() ==
        "unknown name 'kern.schedstat.0.running': this machine has no " + k_sys + "/schedstat");
}

TEST_CASE("sources: hw.infiniband, each card's ports, their states, rates and counters",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read ib(ns, "hw.infiniband");
  CHECK(ib.infos.size() == 2 * 3 + 3 * (3 + 21));
  CHECK(ib.value("hw.infiniband.mlx5_0.fw_ver") == Value(std::string("16.35.2000")));
  CHECK(ib.value("hw.infiniband.mlx5_0.1.state") == Value(u(4)));
  CHECK(ib.value("hw.infiniband.mlx4_0.2.phys_state") == Value(u(3)));
  CHECK(ib.value("hw.infiniband.mlx5_0.1.rate") == Value(u(100)));
  CHECK(ib.value("hw.infiniband.mlx4_0.2.rate") == Value(2.5));
  CHECK(ib.info("hw.infiniband.mlx5_0.1.port_xmit_data").unit == "dwords");
  CHECK(ib.info("hw.infiniband.mlx5_0.1.symbol_error").kind == Kind::counter);
  // A port without a performance management agent: its state, no counters, no error.
  TempDir sys;
  fs::copy(k_sys, sys.path(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  for (const auto& entry : fs::directory_iterator(sys / "class/infiniband/mlx4_0/ports/2/counters"))
    std::ofstream(entry.path()) << "N/A (no PMA)\n";
  Read no_pma(Namespace(k_proc, sys.path()), "hw.infiniband.mlx4_0.2");
  CHECK(no_pma.infos.size() == 3);
  CHECK(std::ranges::count(no_pma.errors, "") == 3);
}

TEST_CASE("sources: hw.fibrechannel, each port's names, state and statistics from hexadecimal",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read fc(ns, "hw.fibrechannel");
  CHECK(fc.infos.size() == 2 * (11 + 13)); // a statistic of each not kept: all ones
  CHECK(fc.value("hw.fibrechannel.host0.port_name") == Value(std::string("2100f4e9d4a1b2c3")));
  CHECK(fc.value("hw.fibrechannel.host0.speed") == Value(std::string("16 Gbit")));
  CHECK(fc.value("hw.fibrechannel.host0.rx_words") == Value(u(0x5011)));
  CHECK(fc.info("hw.fibrechannel.host0.rx_words").kind == Kind::counter);
  CHECK_FALSE(ns.list("hw.fibrechannel.host0.dumped_frames"));
  CHECK(fc.value("hw.fibrechannel.host1.dumped_frames") == Value(u(1)));
}

TEST_CASE("sources: hw.tape, each tape drive's statistics, its other nodes left out",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read tape(ns, "hw.tape");
  CHECK(tape.infos.size() == 2 * 10);
  CHECK(tape.value("hw.tape.st0.io_ns") == Value(u(123456789012)));
  CHECK(tape.info("hw.tape.st0.io_ns").unit == "nanoseconds");
  CHECK(tape.info("hw.tape.st1.in_flight").kind == Kind::gauge);
  CHECK_FALSE(ns.list("hw.tape.nst0"));
}

TEST_CASE("sources: hw.power_supply, each supply's files in the kernel's units, and its texts",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read supplies(ns, "hw.power_supply");
  CHECK(supplies.infos.size() == 2 + 16 + 13); // BAT0's alarm is no file of the class's
  CHECK(supplies.value("hw.power_supply.AC.online") == Value(u(1)));
  CHECK(supplies.value("hw.power_supply.BAT0.energy_now") == Value(u(44631000)));
  CHECK(supplies.info("hw.power_supply.BAT0.energy_now").unit == "microwatthours");
  CHECK(supplies.value("hw.power_supply.BAT0.serial_number") == Value(std::string("965")));
  CHECK(supplies.info("hw.power_supply.BAT1.temp").unit == "decicelsius");
  CHECK_FALSE(ns.list("hw.power_supply.BAT0.alarm"));
}

TEST_CASE("sources: a machine without the hardware says what it lacks", "[counters][sources]") {
  Namespace ns(k_proc, k_proc); // a tree with no EDAC nor thermal zones
  auto listed = ns.list("hw.thermal");
  REQUIRE_FALSE(listed);
  CHECK(listed.error().message() ==
        "unknown name 'hw.thermal': this machine has no thermal zones or cooling devices in " +
            k_proc + "/class/thermal");
  CHECK(ns.list("hw").error().message() ==
        "unknown name 'hw': this machine has none of hw.edac, hw.thermal, hw.hwmon, hw.cpufreq, "
        "hw.throttle, hw.rapl, hw.nvme, hw.tape, hw.dmi, hw.infiniband, hw.fibrechannel, "
        "hw.power_supply in " +
            k_proc + " ('kstat list hw.edac' says what one reads)");
  Namespace with(k_proc, k_sys);
  CHECK(with.list("hw"));
  CHECK(with.list("hw.thermal.zone.9").error().message() ==
        "unknown name 'hw.thermal.zone.9': did you mean hw.thermal.zone.0?");
}

TEST_CASE("sources: net.bonding, each bond's interfaces and those whose link is up",
          "[counters][sources]") {
  Namespace ns(k_proc, k_sys);
  Read bonds(ns, "net.bonding");
  CHECK(bonds.names() ==
        std::vector<std::string>{"net.bonding.bond0.active", "net.bonding.bond0.slaves",
                                 "net.bonding.bond1.active", "net.bonding.bond1.slaves"});
  CHECK(bonds.value("net.bonding.bond0.slaves") == Value(u(2)));
  CHECK(bonds.value("net.bonding.bond0.active") == Value(u(1))); // eth2's link is down
  CHECK(bonds.value("net.bonding.bond1.active") == Value(u(1))); // slave_eth3: before Linux 4.11
  CHECK(bonds.info("net.bonding.bond0.active").kind == Kind::gauge);

  // An interface whose status cannot be read fails the bonds' source, named in the error.
  TempDir sys;
  fs::copy(k_sys, sys.path(), fs::copy_options::recursive);
  auto snap = Namespace(k_proc, sys.path()).snapshot(std::vector<std::string>{"net.bonding"});
  REQUIRE(snap);
  CHECK(snap->read() == 0);
  std::ofstream(sys / "class/net/bond1/bonding/slaves") << "eth3 eth4\n";
  CHECK(snap->read() == 4);
  REQUIRE(snap->error(0));
  CHECK(snap->error(0)->message().find("slave_eth4/bonding_slave/mii_status") != std::string::npos);
}

TEST_CASE("sources: hw.hwmon, a chip named by its device, else its name, else hwmonN",
          "[counters][sources]") {
  TempDir sys;
  fs::copy(k_sys, sys.path(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  // A chip with neither: hwmon7. And one whose readings lie in its device's directory, as
  // older drivers put them.
  fs::create_directories(sys / "class/hwmon/hwmon7");
  std::ofstream(sys / "class/hwmon/hwmon7/temp3_input") << "-5000\n";
  fs::create_directories(sys / "class/hwmon/hwmon8");
  fs::create_directories(sys / "devices/platform/it87.2608");
  fs::create_directory_symlink("../../../devices/platform/it87.2608",
                               sys / "class/hwmon/hwmon8/device");
  std::ofstream(sys / "devices/platform/it87.2608/fan2_input") << "900\n";
  // A wifi card's two radios, each a chip of the one device: named by their name files too.
  fs::create_directories(sys / "devices/pci0000:00/0000:00:1c.0/ieee80211/phy0");
  for (int radio : {0, 1}) {
    fs::path chip = sys / fmt::format("class/hwmon/hwmon{}", 9 + radio);
    fs::create_directories(chip);
    fs::create_directory_symlink("../../../devices/pci0000:00/0000:00:1c.0/ieee80211/phy0",
                                 chip / "device");
    std::ofstream(chip / "name") << fmt::format("mt7996_phy0.{}\n", radio);
    std::ofstream(chip / "temp1_input") << 55000 + radio * 1000 << "\n";
  }
  // A humidity sensor, and a GPU's clock.
  fs::create_directories(sys / "class/hwmon/hwmon11");
  std::ofstream(sys / "class/hwmon/hwmon11/name") << "sht3x\n";
  std::ofstream(sys / "class/hwmon/hwmon11/humidity1_input") << "45500\n";
  std::ofstream(sys / "class/hwmon/hwmon11/freq1_input") << "1500000000\n";
  Namespace ns(k_proc, sys.path());
  Read hwmon(ns, "hw.hwmon");
  CHECK(hwmon.value("hw.hwmon.sht3x.humidity1.input") == Value(u(45500)));
  CHECK(hwmon.info("hw.hwmon.sht3x.humidity1.input").unit == "millipercent");
  CHECK(hwmon.info("hw.hwmon.sht3x.freq1.input").unit == "hertz");
  CHECK(hwmon.value("hw.hwmon.platform_coretemp_0.temp1.input") == Value(u(45000)));
  CHECK(hwmon.info("hw.hwmon.platform_coretemp_0.temp1.input").unit == "millicelsius");
  CHECK(hwmon.value("hw.hwmon.platform_coretemp_0.temp1.label") ==
        Value(std::string("Package id 0")));
  CHECK(hwmon.info("hw.hwmon.platform_coretemp_0.temp1.label").kind == Kind::text);
  CHECK(hwmon.info("hw.hwmon.platform_coretemp_0.temp1.crit_alarm").unit == "");
  CHECK(hwmon.value("hw.hwmon.platform_nct6775_656.pwm1.value") == Value(u(128)));
  CHECK(hwmon.info("hw.hwmon.platform_nct6775_656.fan1.input").unit == "rpm");
  CHECK(hwmon.info("hw.hwmon.power_meter.energy1.input").kind == Kind::counter);
  CHECK(hwmon.value("hw.hwmon.hwmon7.temp3.input") == Value(std::int64_t{-5000}));
  CHECK(hwmon.value("hw.hwmon.platform_it87_2608.fan2.input") == Value(u(900)));
  CHECK(hwmon.value("hw.hwmon.ieee80211_phy0_mt7996_phy0_0.temp1.input") == Value(u(55000)));
  CHECK(hwmon.value("hw.hwmon.ieee80211_phy0_mt7996_phy0_1.temp1.input") == Value(u(56000)));
}

TEST_CASE("sources: os.release, os-release(5)'s variables unquoted, and VERSION_ID's major.minor",
          "[counters][sources]") {
  TempDir rootfs;
  fs::create_directories(rootfs / "etc");
  std::ofstream(rootfs / "etc/os-release")
      << "# comment\n\nNAME=\"Arch \\\"Linux\\\" \\\\ x\"\nID=arch\n  BUILD_ID=rolling  \n"
         "PRETTY_NAME='it'\\''s \\n'\nnot an assignment\n=x\nVERSION_ID=\n";
  Namespace ns(k_proc, k_sys, rootfs.path());
  Read os(ns, "os");
  CHECK(os.value("os.release.NAME") == Value(std::string("Arch \"Linux\" \\ x")));
  CHECK(os.value("os.release.BUILD_ID") == Value(std::string("rolling")));
  CHECK(os.value("os.release.PRETTY_NAME") == Value(std::string("it's \\n")));
  CHECK(os.value("os.release.VERSION_ID") == Value(std::string()));
  CHECK(os.names().size() == 5); // no os.version: VERSION_ID has no number
  std::ofstream(rootfs / "etc/os-release") << "VERSION_ID=\"3.18.4\"\nID=alpine\n";
  CHECK(Read(ns, "os.version").value("os.version") == Value(3.18));
  CHECK(Read(ns, "os.version").info("os.version").labels ==
        std::vector<std::pair<std::string, std::string>>{{"id", "alpine"}});
}
