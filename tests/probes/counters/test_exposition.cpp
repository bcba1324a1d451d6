// SPDX-License-Identifier: MIT
// kstat's names as Prometheus families, on the copied /proc of tests/data/proc-basic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "opskit/probes/exposition.hpp"
#include "opskit/probes/scrape.hpp"
#include "temp_dir.hpp"

using namespace opskit::counters;
using opskit::MetricType;
using opskit::TextFormat;

namespace {

const std::string k_proc_basic = std::string(OPSKIT_TEST_DATA) + "/proc-basic";
const std::string k_sys_basic = std::string(OPSKIT_TEST_DATA) + "/sys-basic";

std::string render(std::vector<std::string> names) {
  auto snapshot = Namespace(k_proc_basic, k_sys_basic).snapshot(names);
  REQUIRE(snapshot);
  snapshot->read();
  std::string out;
  Exposition(*snapshot).render(*snapshot, out, TextFormat::prometheus);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.starts_with(line + "\n");
}

} // namespace

TEST_CASE("exposition: CPU ticks are seconds by cpu and mode, without the sum",
          "[counters][exposition]") {
  auto out = render({"cpu"});
  CHECK(has_line(out, "# HELP kstat_cpu_seconds_total Time the CPUs spent in each mode\n"
                      "# TYPE kstat_cpu_seconds_total counter"));
  CHECK(has_line(out, "kstat_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 150"));
  CHECK(has_line(out, "kstat_cpu_guest_seconds_total{cpu=\"0\",mode=\"user\"} 0"));
  CHECK(out.find("cpu=\"all\"") == std::string::npos);
  CHECK(out.find("# TYPE kstat_cpu_seconds_total") == out.rfind("# TYPE kstat_cpu_seconds_total"));
}

TEST_CASE("exposition: disk sectors are bytes and milliseconds seconds, by device",
          "[counters][exposition]") {
  auto out = render({"disk.vda"});
  CHECK(has_line(out, "kstat_disk_read_bytes_total{device=\"vda\"} 295626752"));
  CHECK(has_line(out, "kstat_disk_read_time_seconds_total{device=\"vda\"} 3.364"));
  CHECK(has_line(out, "kstat_disk_reads_completed_total{device=\"vda\"} 7051"));
  CHECK(has_line(out, "# TYPE kstat_disk_io_now gauge"));
}

TEST_CASE("exposition: /proc/sys numbers are one family labelled by name, text left out",
          "[counters][exposition]") {
  auto out = render({"vm.swappiness", "net.ipv4.conf.eth0/100.rp_filter", "kernel.ostype"});
  CHECK(has_line(out, "kstat_sysctl{name=\"vm.swappiness\"} 60"));
  CHECK(has_line(out, "kstat_sysctl{name=\"net.ipv4.conf.eth0/100.rp_filter\"} 0"));
  CHECK(out.find("ostype") == std::string::npos);
}

TEST_CASE("exposition: pressure in seconds, interfaces by device, softirqs by type and cpu",
          "[counters][exposition]") {
  auto out = render({"kern.pressure.io", "net.dev.lo", "kern.softirqs.TIMER"});
  CHECK(has_line(out, "kstat_pressure_io_waiting_seconds_total 498.961726"));
  CHECK(has_line(out, "kstat_pressure_avg10{resource=\"io\",kind=\"full\"} 0.5"));
  CHECK(has_line(out, "kstat_network_receive_bytes_total{device=\"lo\"} 63164848253"));
  CHECK(has_line(out, "kstat_network_transmit_packets_total{device=\"lo\"} 3340808"));
  // node_exporter's sixteen families of /proc/net/dev, its sums included; a statistics file's
  // own counter keeps its name.
  // A dot in a device's name is '/' in kstat's names, and the dot again in its label.
  CHECK(has_line(render({"net.dev.eth0/100.rx_bytes"}),
                 "kstat_network_receive_bytes_total{device=\"eth0.100\"} 4096"));
  auto eth0 = render({"net.dev.eth0"});
  CHECK(has_line(eth0, "kstat_network_receive_drop_total{device=\"eth0\"} 7"));
  CHECK(has_line(eth0, "kstat_network_receive_frame_total{device=\"eth0\"} 5"));
  CHECK(has_line(eth0, "kstat_network_transmit_carrier_total{device=\"eth0\"} 9"));
  CHECK(has_line(eth0, "kstat_network_transmit_colls_total{device=\"eth0\"} 1"));
  CHECK(has_line(eth0, "kstat_network_receive_multicast_total{device=\"eth0\"} 12"));
  CHECK(has_line(eth0, "kstat_network_rx_dropped_total{device=\"eth0\"} 1"));
  CHECK(has_line(out, "kstat_softirqs_functions_total{type=\"TIMER\",cpu=\"1\"} 771106"));
  CHECK(out.find("cpu=\"all\"") == std::string::npos);
  CHECK(out.find("sysctl") == std::string::npos);
}

TEST_CASE("exposition: a family's help describes each of its series, not its first one",
          "[counters][exposition]") {
  auto names = Namespace(k_proc_basic, k_sys_basic).list("");
  REQUIRE(names);
  std::map<std::string, std::set<std::string>> helps; // by family
  for (const auto& info : *names)
    if (auto m = map_name(info))
      helps[m->family].insert(m->help);
  REQUIRE(helps.contains("kstat_interrupts_total"));
  REQUIRE(helps.contains("kstat_pressure_avg10"));
  for (const auto& [family, texts] : helps) {
    INFO(family);
    CHECK(texts.size() == 1);
  }
  auto out = render({"kern.interrupts", "kern.softirqs"});
  CHECK(has_line(out, "# HELP kstat_softirqs_functions_total Softirqs run, by type and CPU"));
}

TEST_CASE("exposition: each series of a default scrape has a help that says what it counts",
          "[counters][exposition]") {
  // /proc/meminfo and the three network files of a 6.18 kernel, in full.
  Namespace ns(std::string(OPSKIT_TEST_DATA) + "/proc-linux-6.18", k_sys_basic);
  Scraper::Settings settings{.sets = {serve_defaults()}};
  auto snapshot = ns.snapshot(settings.selections());
  REQUIRE(snapshot);
  REQUIRE(snapshot->size() > 60);
  for (std::size_t i = 0; i < snapshot->size(); ++i) {
    auto m = map_name(snapshot->info(i));
    REQUIRE(m);
    INFO(snapshot->info(i).name);
    CHECK_FALSE(m->help.starts_with("kstat's")); // the fallback: the name alone
  }
}

TEST_CASE("exposition: conntrack's sysctls in node_exporter's names", "[counters][exposition]") {
  auto out = render({"net.netfilter", "vm.swappiness"});
  CHECK(has_line(out, "# HELP kstat_nf_conntrack_entries Connections in the conntrack table\n"
                      "# TYPE kstat_nf_conntrack_entries gauge\nkstat_nf_conntrack_entries 17"));
  CHECK(has_line(out, "kstat_nf_conntrack_entries_limit 262144"));
  CHECK(has_line(out, "kstat_sysctl{name=\"vm.swappiness\"} 60")); // the rest stay sysctls
  CHECK(out.find("name=\"net.netfilter") == std::string::npos);
}

TEST_CASE("exposition: sockstat in node_exporter's names, memory in bytes",
          "[counters][exposition]") {
  auto out = render({"net.sockstat", "net.sockstat6"});
  CHECK(has_line(out,
                 "# HELP kstat_sockstat_tcp_inuse TCP sockets in use (listening and "
                 "connected)\n# TYPE kstat_sockstat_tcp_inuse gauge\nkstat_sockstat_tcp_inuse 12"));
  CHECK(has_line(out, "kstat_sockstat_sockets_used 231"));
  CHECK(has_line(out, "kstat_sockstat_frag_memory_bytes 8192"));
  CHECK(has_line(out, "kstat_sockstat_tcp6_inuse 3"));
  CHECK(out.find("kstat_sockstat_tcp_mem_bytes ") != std::string::npos);
}

TEST_CASE("exposition: a file system by mount point, device and type, as node_exporter's",
          "[counters][exposition]") {
  auto out = render({"fs.mount./"}); // tests/data's mountinfo, and statvfs of the live /
  CHECK(out.find("# TYPE kstat_filesystem_readonly gauge\n"
                 "kstat_filesystem_readonly{mountpoint=\"/\",device=\"/dev/vda\","
                 "fstype=\"ext4\"} ") != std::string::npos);
  CHECK(out.find("kstat_filesystem_size_bytes{mountpoint=\"/\",device=\"/dev/vda\","
                 "fstype=\"ext4\"} ") != std::string::npos);
  // The mount point's path, not its name component: '.' and ' ' as they are.
  auto odd = map_name(Info{"fs.mount./srv/my\\040disk\\056img.avail",
                           Kind::gauge,
                           "bytes",
                           {},
                           {{"device", "/dev/loop0"}, {"fstype", "ext4"}}});
  REQUIRE(odd);
  CHECK(odd->family == "kstat_filesystem_avail_bytes");
  using Labels = std::vector<std::pair<std::string, std::string>>;
  CHECK(odd->labels ==
        Labels{{"mountpoint", "/srv/my disk.img"}, {"device", "/dev/loop0"}, {"fstype", "ext4"}});
}

TEST_CASE("exposition: a hwmon chip's humidity as a ratio, as node_exporter's, and its clock in "
          "hertz",
          "[counters][exposition]") {
  auto humidity =
      map_name(Info{"hw.hwmon.sht3x.humidity1.input", Kind::gauge, "millipercent", {}, {}});
  REQUIRE(humidity);
  CHECK(humidity->family == "kstat_hwmon_humidity");
  auto clock = map_name(Info{"hw.hwmon.amdgpu.freq1.input", Kind::gauge, "hertz", {}, {}});
  REQUIRE(clock);
  CHECK(clock->family == "kstat_hwmon_freq_hertz");
}

TEST_CASE("exposition: a cgroup is a label holding its path, as /proc/<pid>/cgroup shows it",
          "[counters][exposition]") {
  auto out = render({"cgroup"});
  CHECK(has_line(out, "# HELP kstat_cgroup_cpu_usage_seconds_total CPU time of the cgroup's tasks, "
                      "in seconds\n"
                      "# TYPE kstat_cgroup_cpu_usage_seconds_total counter\n"
                      "kstat_cgroup_cpu_usage_seconds_total{cgroup=\"/\"} 53598.148442\n"
                      "kstat_cgroup_cpu_usage_seconds_total{cgroup=\"/system.slice\"} 9\n"
                      "kstat_cgroup_cpu_usage_seconds_total{cgroup=\"/system.slice/ssh.service\"} "
                      "0.001"));
  CHECK(has_line(out, "kstat_cgroup_cpu_throttled_periods_total{cgroup=\"/system.slice\"} 2"));
  CHECK(has_line(
      out, "kstat_cgroup_memory_current_bytes{cgroup=\"/system.slice/ssh.service\"} 8388608"));
  CHECK(has_line(out, "kstat_cgroup_memory_pgfault_total{cgroup=\"/system.slice\"} 123456"));
  CHECK(has_line(out, "kstat_cgroup_memory_pswpin_total{cgroup=\"/system.slice\"} 6")); // pages
  CHECK(has_line(out, "kstat_cgroup_pids_current{cgroup=\"/system.slice/ssh.service\"} 3"));
  CHECK(has_line(out, "kstat_cgroup_io_read_bytes_total{cgroup=\"/system.slice\",device=\"254:0\"} "
                      "1048576"));
  CHECK(
      has_line(out, "kstat_cgroup_io_writes_total{cgroup=\"/system.slice\",device=\"254:0\"} 512"));
  CHECK(out.find("slice_ssh") == std::string::npos); // no cgroup in a family's name
  // A key with a '.' (core scheduling's) is a family like the others, not one per cgroup.
  CHECK(has_line(out, "kstat_cgroup_cpu_core_sched_force_idle_seconds_total"
                      "{cgroup=\"/system.slice\"} 2.5"));
  // io.cost's and io.latency's fields: times in seconds, levels as gauges, and no depth, which
  // turns "max" whenever io.latency stops throttling.
  auto sdb = [](std::string_view sample) {
    return fmt::format("{}{{cgroup=\"/system.slice\",device=\"8:16\"}} ", sample);
  };
  CHECK(has_line(out, sdb("kstat_cgroup_io_read_bytes_total") + "8192"));
  CHECK(has_line(out, "# TYPE kstat_cgroup_io_cost_usage_seconds_total counter\n" +
                          sdb("kstat_cgroup_io_cost_usage_seconds_total") + "0.003"));
  CHECK(has_line(out, "# TYPE kstat_cgroup_io_cost_vrate_percent gauge\n" +
                          sdb("kstat_cgroup_io_cost_vrate_percent") + "87.5"));
  CHECK(has_line(out, "# TYPE kstat_cgroup_io_latency_average_seconds gauge\n" +
                          sdb("kstat_cgroup_io_latency_average_seconds") + "0.0025"));
  CHECK(has_line(out, sdb("kstat_cgroup_io_latency_window_seconds") + "0.1"));
  CHECK(out.find("depth") == std::string::npos);
}

TEST_CASE("exposition: a scrape leaves out before reading what no family holds",
          "[counters][exposition]") {
  CHECK_FALSE(exported("cpu.all.user"));
  CHECK_FALSE(exported("kern.softirqs.TIMER.all"));
  CHECK_FALSE(exported("kern.cp_time"));
  CHECK(exported("cpu.0.user"));
  CHECK(exported("kernel.ostype")); // text or a number: known once read
  Scraper::Settings settings{.sets = {{.names = {"cpu", "kern.softirqs", "kern.cp_time"}}}};
  auto snapshot = Namespace(k_proc_basic, k_sys_basic).snapshot(settings.selections());
  REQUIRE(snapshot);
  REQUIRE(snapshot->size() > 0);
  for (std::size_t i = 0; i < snapshot->size(); ++i) {
    INFO(snapshot->info(i).name);
    CHECK(exported(snapshot->info(i).name));
  }
}

TEST_CASE("exposition: a gauge and a counter that OpenMetrics names alike make one family",
          "[counters][exposition]") {
  // vm.stats.nr_dirty is a gauge, kstat_vmstat_nr_dirty; vm.stats.Nr_dirty a counter,
  // kstat_vmstat_nr_dirty_total, which OpenMetrics names kstat_vmstat_nr_dirty too.
  opskit::test::TempDir root;
  std::ofstream(root / "vmstat") << "nr_dirty 1\nNr_dirty 2\n";
  auto snapshot = Namespace(root.path()).snapshot(std::vector<std::string>{"vm.stats"});
  REQUIRE(snapshot);
  REQUIRE(snapshot->size() == 2);
  snapshot->read();
  for (auto format : {TextFormat::prometheus, TextFormat::openmetrics}) {
    std::string out;
    Exposition(*snapshot).render(*snapshot, out, format);
    INFO(out);
    auto type = out.find("# TYPE kstat_vmstat_nr_dirty");
    REQUIRE(type != std::string::npos);
    CHECK(out.find("# TYPE", type + 1) == std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 3); // HELP, TYPE, one sample
  }
}

TEST_CASE("exposition: a figure made bytes past 64 bits is written as a real, never wrapped",
          "[counters][exposition]") {
  opskit::test::TempDir root;
  // read_sectors -2^63 and write_sectors 2^64-1: 512 times either is past 64 bits.
  std::ofstream(root / "diskstats")
      << "8 0 vda 1 2 -9223372036854775808 4 5 6 18446744073709551615 8 0 9 10\n";
  auto snapshot = Namespace(root.path()).snapshot(std::vector<std::string>{"disk.vda"});
  REQUIRE(snapshot);
  snapshot->read();
  std::string out;
  Exposition(*snapshot).render(*snapshot, out, TextFormat::prometheus);
  CHECK(has_line(out, "kstat_disk_read_bytes_total{device=\"vda\"} -4.722366482869645e+21"));
  CHECK(has_line(out, "kstat_disk_written_bytes_total{device=\"vda\"} 9.44473296573929e+21"));
  CHECK(has_line(out, "kstat_disk_reads_completed_total{device=\"vda\"} 1"));
}

TEST_CASE("exposition: node_exporter's names, snake_case, _total on counters",
          "[counters][exposition]") {
  auto name = [](std::string n, Kind kind, std::string unit = "") {
    auto m = map_name(Info{std::move(n), kind, std::move(unit), {}});
    REQUIRE(m);
    return m->family;
  };
  CHECK(name("vm.stats.pgfault", Kind::counter, "faults") == "kstat_vmstat_pgfault_total");
  CHECK(name("vm.stats.pgpgin", Kind::counter, "KiB") == "kstat_vmstat_pgpgin_total");
  CHECK(name("vm.meminfo.MemTotal", Kind::gauge, "bytes") == "kstat_memory_mem_total_bytes");
  CHECK(name("net.snmp.Tcp.ActiveOpens", Kind::counter) == "kstat_netstat_tcp_active_opens_total");
  CHECK(name("net.snmp.Tcp.RtoMin", Kind::gauge, "milliseconds") ==
        "kstat_netstat_tcp_rto_min_seconds");
  CHECK(name("kern.loadavg.1", Kind::gauge) == "kstat_load1");
  CHECK(name("kern.boottime", Kind::gauge, "seconds") == "kstat_boot_time_seconds");
  CHECK(name("proc.1.stat.utime", Kind::counter, "seconds") ==
        "kstat_process_stat_utime_seconds_total");
  // No row: a family of its own, still legal.
  CHECK(name("kern.new_counter.x", Kind::counter, "milliseconds") ==
        "kstat_kern_new_counter_x_seconds_total");
  CHECK(!map_name(Info{"cpu.all.user", Kind::counter, "seconds", {}}));
  CHECK(!map_name(Info{"kernel.ostype", Kind::text, "", {}}));
  auto pid = map_name(Info{"proc.42.io.rchar", Kind::counter, "bytes", {}});
  REQUIRE(pid);
  CHECK(pid->labels == std::vector<std::pair<std::string, std::string>>{{"pid", "42"}});
  CHECK(pid->type == MetricType::counter);
  CHECK(pid->help == "kstat's proc.*.io.rchar");
  // A cgroup's name is as deep as its path: the pattern's inner "**" takes what the rest of the
  // pattern leaves, none of it for the root cgroup.
  auto cgroup = [](std::string n, Kind kind, std::string unit) {
    auto m = map_name(Info{std::move(n), kind, std::move(unit), {}});
    REQUIRE(m);
    return std::pair(m->family, m->labels);
  };
  using Labels = std::vector<std::pair<std::string, std::string>>;
  CHECK(cgroup("cgroup.memory/stat.active_anon", Kind::gauge, "bytes") ==
        std::pair(std::string("kstat_cgroup_memory_active_anon_bytes"), Labels{{"cgroup", "/"}}));
  CHECK(cgroup("cgroup.a.b/c.d.io/stat.8:16.wbytes", Kind::counter, "bytes") ==
        std::pair(std::string("kstat_cgroup_io_written_bytes_total"),
                  Labels{{"cgroup", "/a/b.c/d"}, {"device", "8:16"}}));
  auto deep = map_name(Info{"cgroup.user/slice.cpu/stat.nr_bursts", Kind::counter, "", {}});
  REQUIRE(deep);
  CHECK(deep->family == "kstat_cgroup_cpu_bursts_total");
  CHECK(deep->help == "kstat's cgroup.*.cpu/stat.nr_bursts");
}

TEST_CASE("exposition: ZFS's statistics untyped under node_exporter's names, pools as labels",
          "[counters][exposition]") {
  // ZFS does not say which count: neither "_total" nor a type, whatever kstat's kind of each
  for (Kind kind : {Kind::counter, Kind::gauge}) {
    auto hits = map_name(Info{"zfs.arc.hits", kind, "", {}});
    REQUIRE(hits);
    CHECK(hits->family == "kstat_zfs_arc_hits");
    CHECK(hits->type == MetricType::untyped);
  }
  auto dataset =
      map_name(Info{"zfs.pool.tank.dataset.tank/home\\056d.nread", Kind::counter, "", {}});
  REQUIRE(dataset);
  CHECK(dataset->family == "kstat_zfs_zpool_dataset_nread");
  CHECK(dataset->labels == std::vector<std::pair<std::string, std::string>>{
                               {"zpool", "tank"}, {"dataset", "tank/home.d"}});
  auto state = map_name(Info{"zfs.pool.tank.state.online", Kind::gauge, "", {}});
  REQUIRE(state);
  CHECK(state->family == "kstat_zfs_zpool_state");
  CHECK(state->type == MetricType::gauge);
  CHECK(state->labels ==
        std::vector<std::pair<std::string, std::string>>{{"zpool", "tank"}, {"state", "online"}});
  auto fm = map_name(Info{"zfs.fm.erpt-dropped", Kind::counter, "", {}});
  REQUIRE(fm);
  CHECK(fm->family == "kstat_zfs_fm_erpt_dropped");
}

TEST_CASE("scraper: a scrape past its deadline reads no more sources and names them",
          "[counters][exposition]") {
  std::vector<std::string> names{"kern.loadavg", "vm.stats"};
  auto none = Scraper::open(Namespace(k_proc_basic), {.sets = {{.names = names}},
                                                      .timeout = Scraper::Clock::duration::zero()});
  REQUIRE(none);
  auto late = (*none)->scrape(TextFormat::prometheus);
  CHECK(late->find("kstat_load1") == std::string::npos);
  CHECK(late->find("kstat_scrape_error{source=\"" + k_proc_basic + "/loadavg\"} 1\n") !=
        std::string::npos);
  CHECK(late->find("kstat_scrape_error{source=\"" + k_proc_basic + "/vmstat\"} 1\n") !=
        std::string::npos);
  auto all = Scraper::open(Namespace(k_proc_basic),
                           {.sets = {{.names = names}}, .timeout = std::chrono::hours(1)});
  REQUIRE(all);
  auto body = (*all)->scrape(TextFormat::openmetrics);
  CHECK(body->find("kstat_load1 0.81\n") != std::string::npos);
  CHECK(body->find("kstat_scrape_error") == std::string::npos);
  CHECK(body->ends_with("# EOF\n"));
}
