// SPDX-License-Identifier: MIT
// `kstat serve` beside the real thing: Debian's Prometheus scraping it every second, and
// node_exporter reading the same counters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "daemon.hpp"
#include "mount_namespace.hpp"
#include "net.hpp"
#include "opskit/handle.hpp"
#include "prometheus.hpp"
#include "serve.hpp"
#include "temp_dir.hpp"

using namespace opskit::test;

namespace {

// Two files as a backup script and a job's wrapper would write them for a textfile directory:
// a gauge with a label value that needs escapes, a counter, a histogram, an untyped sample.
void write_textfiles(const TempDir& dir) {
  std::ofstream(dir / "backup.prom")
      << "# HELP backup_last_success_seconds Time the last backup succeeded.\n"
         "# TYPE backup_last_success_seconds gauge\n"
         "backup_last_success_seconds{job=\"db\"} 1.7651e+09\n"
         "backup_last_success_seconds{job=\"files\",host=\"a \\\"b\\\" \\\\ c\"} 1765200000\n"
         "# TYPE backup_runs_total counter\nbackup_runs_total 42\n";
  std::ofstream(dir / "latency.prom") << "# HELP job_duration_seconds How long the job took.\n"
                                         "# TYPE job_duration_seconds histogram\n"
                                         "job_duration_seconds_bucket{le=\"1\"} 3\n"
                                         "job_duration_seconds_bucket{le=\"+Inf\"} 5\n"
                                         "job_duration_seconds_sum 12.5\n"
                                         "job_duration_seconds_count 5\n"
                                         "apt_upgrades_pending{origin=\"Debian\"} 7\n";
}

// Forks `n` children that exit at once, and reaps them.
void fork_children(int n) {
  for (int i = 0; i < n; ++i) {
    pid_t pid = ::fork();
    if (pid == 0)
      ::_exit(0);
    REQUIRE(pid > 0);
    ::waitpid(pid, nullptr, 0);
  }
}

// A series with its labels in name order ("f{b=\"1\",a=\"2\"}" -> "f{a=\"2\",b=\"1\"}"), as
// node_exporter writes them; kstat writes a family's own labels first. No ',' inside a value.
std::string labels_in_order(const std::string& series) {
  std::size_t open = series.find('{');
  if (open == std::string::npos)
    return series;
  std::vector<std::string> labels;
  std::string inside = series.substr(open + 1, series.size() - open - 2);
  for (std::size_t at = 0; at <= inside.size();) {
    std::size_t comma = std::min(inside.find(',', at), inside.size());
    labels.push_back(inside.substr(at, comma - at));
    at = comma + 1;
  }
  std::ranges::sort(labels);
  std::string out = series.substr(0, open + 1);
  for (const auto& label : labels)
    out += (out.back() == '{' ? "" : ",") + label;
  return out + "}";
}

// A series with its labels in name order and its empty ones left out (an empty label is no
// label to Prometheus).
std::string without_empty_labels(const std::string& series) {
  std::string kept = labels_in_order(series);
  for (std::size_t empty; (empty = kept.find("=\"\"")) != std::string::npos;) {
    std::size_t name = kept.find_last_of("{,", empty) + 1, end = empty + 3; // name="" ends
    if (kept[name - 1] == ',')
      kept.erase(name - 1, end - (name - 1)); // ,name=""
    else
      kept.erase(name, end - name + (kept[end] == ',' ? 1 : 0)); // {name="", or {name=""}
  }
  return kept;
}

// node_exporter's series as kstat names it: "kstat_" for "node_", and without_empty_labels().
std::string as_kstat_names(const std::string& series) {
  return without_empty_labels("kstat" + series.substr(4));
}

// kstat serve's series now, each with its labels in name order.
std::map<std::string, double> scraped(const KstatServe& serve) {
  std::map<std::string, double> out;
  for (const auto& [series, value] : samples(http_get(serve.url()).body))
    out[labels_in_order(series)] = value;
  return out;
}

// How many of node_exporter's annotations of `family` (node_network_info{...} 1) kstat serves
// the same (as_kstat_names()); each is checked.
int same_annotations(const std::map<std::string, double>& theirs,
                     const std::map<std::string, double>& ours, const std::string& family) {
  std::set<std::string> served;
  for (const auto& [series, value] : ours)
    if (series.starts_with("kstat_" + family.substr(5) + "{"))
      served.insert(without_empty_labels(series));
  int compared = 0;
  for (const auto& [series, value] : theirs) {
    if (!series.starts_with(family + "{"))
      continue;
    INFO(series);
    CHECK(served.count(as_kstat_names(series)) == 1);
    ++compared;
  }
  return compared;
}

// kstat serve's series now, each without_empty_labels().
std::map<std::string, double> served_series(const KstatServe& serve) {
  std::map<std::string, double> out;
  for (const auto& [series, value] : samples(http_get(serve.url()).body))
    out[without_empty_labels(series)] = value;
  return out;
}

// Each of node_exporter's series `theirs` is kstat's of `ours` of the same name after "kstat_",
// or the name `renamed` gives its family, with the same labels but empty ones and the same value
// (within a relative `epsilon`; 0: exactly); a family `renamed` names "" is not compared, nor a
// series of `skipped`. Returns how many were compared.
int compare_series(const std::map<std::string, double>& theirs,
                   const std::map<std::string, double>& ours,
                   const std::map<std::string, std::string>& renamed,
                   const std::set<std::string>& skipped, double epsilon) {
  int compared = 0;
  for (const auto& [name, value] : theirs) {
    INFO(name);
    std::string their_family = name.substr(0, name.find('{'));
    auto rename = renamed.find(their_family);
    if ((rename != renamed.end() && rename->second.empty()) || skipped.contains(name))
      continue; // a family kstat serves otherwise, a series node_exporter has wrong
    std::string kstat_name = without_empty_labels(
        rename == renamed.end() ? "kstat_" + name.substr(5)
                                : rename->second + name.substr(their_family.size()));
    REQUIRE(ours.count(kstat_name) == 1);
    CHECK(ours.at(kstat_name) == Approx(value).epsilon(epsilon));
    ++compared;
  }
  return compared;
}

// kstat serve and node_exporter, with one `collector`, on the same copy of /proc
// (tests/data/proc-basic: --proc-root and --path.procfs) or of /sys (sys-basic: --sys-root and
// --path.sysfs): node_exporter's series of the families one of `families` begins (node_md_)
// compared with kstat's by compare_series(). Returns node_exporter's series, and how many of
// them were compared.
struct Agreed {
  std::map<std::string, double> theirs;
  int compared = 0;
};
enum class Tree { proc, sys };
Agreed agree_on_copy(const std::vector<std::string>& kstat_names, const std::string& collector,
                     const std::vector<std::string>& families, Tree tree = Tree::proc,
                     const std::map<std::string, std::string>& renamed = {},
                     const std::set<std::string>& skipped = {}) {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  bool proc = tree == Tree::proc;
  const std::string copy = std::string(OPSKIT_TEST_DATA) + (proc ? "/proc-basic" : "/sys-basic");
  std::vector<std::string> arguments{proc ? "--proc-root" : "--sys-root", copy};
  arguments.insert(arguments.end(), kstat_names.begin(), kstat_names.end());
  KstatServe serve(arguments);
  int port = free_port();
  Daemon node({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               (proc ? "--path.procfs=" : "--path.sysfs=") + copy, "--collector.disable-defaults",
               "--collector." + collector},
              port);
  Agreed agreed{samples(http_get(node.url("/metrics")).body)};
  std::map<std::string, double> of_families;
  for (const auto& [name, value] : agreed.theirs)
    if (std::ranges::any_of(families, [&](const auto& f) { return name.starts_with(f); }))
      of_families.emplace(name, value);
  // A relative 1e-12: node_exporter's 102042 * 1e-9 against kstat's 102042 / 1e9
  agreed.compared = compare_series(of_families, served_series(serve), renamed, skipped, 1e-12);
  return agreed;
}

} // namespace

TEST_CASE("kstat serve: Prometheus scrapes it, CPU seconds add up, forks are counted",
          "[kstat][serve][prometheus]") {
  if (!have_program("prometheus"))
    FAIL("prometheus is needed (scripts/dev installs it)");
  // With a script's metrics beside kstat's: a counter and a histogram, which Prometheus asks
  // for in OpenMetrics, where a counter's family drops its "_total".
  TempDir textfiles;
  write_textfiles(textfiles);
  KstatServe serve({"cpu", "kern", "--textfile-directory", textfiles.path()});
  TempDir dir;
  Prometheus prometheus(dir, serve.address());
  auto up = prometheus.wait_for("up{job=\"kstat\"}", [](double v) { return v == 1; });
  REQUIRE(up == 1);
  CHECK(prometheus.wait_for("backup_runs_total", [](double v) { return v == 42; }) == 42);
  CHECK(prometheus.wait_for("job_duration_seconds_count", [](double v) { return v == 5; }) == 5);
  CHECK(prometheus.wait_for("histogram_quantile(0.5, job_duration_seconds_bucket)",
                            [](double v) { return v > 0; }));

  auto forks_before = prometheus.wait_for("kstat_forks_total", [](double) { return true; });
  REQUIRE(forks_before);
  fork_children(300);
  auto forks_after =
      prometheus.wait_for("kstat_forks_total", [&](double v) { return v >= *forks_before + 300; });
  CHECK(forks_after >= *forks_before + 300);

  double cpus = static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN));
  auto busy = prometheus.wait_for("sum(rate(kstat_cpu_seconds_total[5s]))",
                                  [&](double v) { return std::abs(v - cpus) < 0.15 * cpus; });
  REQUIRE(busy);
  CHECK(*busy == Approx(cpus).epsilon(0.15));

  // The host by its name, as dashboards list hosts, in the info type OpenMetrics gives it; and
  // its uptime as dashboards compute it.
  std::array<char, 256> host{};
  REQUIRE(::gethostname(host.data(), host.size() - 1) == 0);
  auto named = prometheus.wait_for("count(kstat_uname_info{nodename=\"" + std::string(host.data()) +
                                       "\",sysname=\"Linux\"})",
                                   [](double v) { return v == 1; });
  CHECK(named == 1);
  auto uptime = prometheus.query("kstat_time_seconds - kstat_boot_time_seconds");
  REQUIRE(uptime);
  std::ifstream proc_uptime("/proc/uptime");
  double seconds = 0;
  REQUIRE(proc_uptime >> seconds);
  CHECK(*uptime == Approx(seconds).margin(30));
}

TEST_CASE("kstat serve and node_exporter agree on the families both expose",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  KstatServe serve({});
  int port = free_port();
  Daemon node({"prometheus-node-exporter",
               "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--collector.disable-defaults",
               "--collector.cpu",
               "--collector.meminfo",
               "--collector.loadavg",
               "--collector.diskstats",
               "--collector.netstat",
               "--collector.vmstat",
               "--collector.stat",
               "--collector.netdev",
               "--collector.filesystem",
               "--collector.sockstat",
               "--collector.conntrack",
               "--collector.uname",
               "--collector.time",
               "--collector.timex",
               "--collector.softnet",
               "--collector.netclass",
               "--collector.os"},
              port);
  auto started = std::chrono::steady_clock::now();
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto ours = samples(http_get(serve.url()).body);
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Counters read later are larger by what happened in between; levels agree within a margin.
  auto later = [&](const std::string& node_series, const std::string& kstat_series, double most) {
    INFO(node_series << " vs " << kstat_series);
    REQUIRE(theirs.count(node_series) == 1);
    REQUIRE(ours.count(kstat_series) == 1);
    CHECK(ours[kstat_series] >= theirs[node_series] - 0.02); // node rounds ticks to 10 ms too
    CHECK(ours[kstat_series] - theirs[node_series] <= most);
  };
  auto near = [&](const std::string& node_series, const std::string& kstat_series, double margin) {
    INFO(node_series << " vs " << kstat_series);
    REQUIRE(theirs.count(node_series) == 1);
    REQUIRE(ours.count(kstat_series) == 1);
    CHECK(std::abs(ours[kstat_series] - theirs[node_series]) <= margin);
  };
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < cpus; ++cpu)
    for (std::string mode : {"user", "system", "idle", "iowait", "softirq"}) {
      std::string labels = "{cpu=\"" + std::to_string(cpu) + "\",mode=\"" + mode + "\"}";
      later("node_cpu_seconds_total" + labels, "kstat_cpu_seconds_total" + labels, elapsed + 0.05);
    }
  later("node_context_switches_total", "kstat_context_switches_total", 1e6 * (elapsed + 1));
  later("node_forks_total", "kstat_forks_total", 1e4 * (elapsed + 1));
  near("node_boot_time_seconds", "kstat_boot_time_seconds", 1);
  near("node_time_seconds", "kstat_time_seconds", elapsed + 0.01);
  int unames = 0; // the same labels, in the same order
  for (const auto& [series, value] : theirs)
    if (series.starts_with("node_uname_info{")) {
      near(series, "kstat_uname_info" + series.substr(15), 0);
      ++unames;
    }
  CHECK(unames == 1);
  near("node_memory_MemTotal_bytes", "kstat_memory_mem_total_bytes", 0);
  near("node_memory_SwapTotal_bytes", "kstat_memory_swap_total_bytes", 0);
  near("node_memory_MemAvailable_bytes", "kstat_memory_mem_available_bytes", 256 << 20);
  near("node_load1", "kstat_load1", 1);
  later("node_netstat_Tcp_ActiveOpens", "kstat_netstat_tcp_active_opens_total", 1e4);
  later("node_netstat_Tcp_InSegs", "kstat_netstat_tcp_in_segs_total", 1e6);
  // The same selection of /proc/vmstat and of the SNMP counters as node_exporter's defaults.
  auto count = [](const auto& exposed, const std::string& family_prefix) {
    return std::ranges::count_if(
        exposed, [&](const auto& kv) { return kv.first.starts_with(family_prefix); });
  };
  for (const auto& [series, value] : theirs)
    if (series.starts_with("node_vmstat_"))
      later(series, "kstat_vmstat_" + series.substr(12) + "_total", 1e7 * (elapsed + 1));
  CHECK(count(ours, "kstat_vmstat_") == count(theirs, "node_vmstat_"));
  CHECK(count(ours, "kstat_netstat_") == count(theirs, "node_netstat_"));
  // Levels that move with the machine's sockets, this test's own connections among them, and
  // those of a test beside that scrapes 200 times at once (twice 200 sockets on loopback).
  near("node_sockstat_sockets_used", "kstat_sockstat_sockets_used", 1000);
  near("node_sockstat_TCP_inuse", "kstat_sockstat_tcp_inuse", 500);
  near("node_sockstat_TCP_mem_bytes", "kstat_sockstat_tcp_mem_bytes", 64 << 20);
  // The clock's discipline: each of node_exporter's timex families under its name. An NTP daemon
  // may steer the offset, the errors (the maximum grows 500 µs a second between its updates) and
  // the frequency between the two reads.
  for (const auto& [series, value] : theirs)
    if (series.starts_with("node_timex_")) {
      bool steered = series.find("offset_seconds") != std::string::npos ||
                     series.find("error_seconds") != std::string::npos;
      double margin = series.starts_with("node_timex_frequency") ? 1e-6 : steered ? 0.01 : 0;
      near(series, "kstat_timex_" + series.substr(11), margin + (steered ? elapsed * 1e-3 : 0));
    }
  CHECK(count(theirs, "node_timex_") == 17);
  CHECK(count(ours, "kstat_timex_") == count(theirs, "node_timex_"));
  if (theirs.count("node_nf_conntrack_entries_limit") != 0) // when netfilter's conntrack is loaded
    near("node_nf_conntrack_entries_limit", "kstat_nf_conntrack_entries_limit", 0);
  // The tracker's statistics, node_exporter's eight, summed over the CPUs by both.
  for (const auto& [series, value] : theirs)
    if (series.starts_with("node_nf_conntrack_stat_"))
      later(series, "kstat_" + series.substr(5) + "_total", 1e6 * (elapsed + 1));
  CHECK(count(ours, "kstat_nf_conntrack_stat_") == count(theirs, "node_nf_conntrack_stat_"));
  // Calls `check` with the labels of each of node_exporter's series of `family` ("{device=...}"),
  // and returns how many there were.
  auto each_labelled = [&](const std::string& family, auto check) {
    int found = 0;
    for (const auto& [series, value] : theirs)
      if (series.starts_with(family + "{")) {
        check(series.substr(family.size()));
        ++found;
      }
    return found;
  };
  int disks = each_labelled("node_disk_read_bytes_total", [&](const std::string& labels) {
    later("node_disk_read_bytes_total" + labels, "kstat_disk_read_bytes_total" + labels,
          4e9 * (elapsed + 1));
    later("node_disk_written_bytes_total" + labels, "kstat_disk_written_bytes_total" + labels,
          4e9 * (elapsed + 1));
    later("node_disk_io_time_seconds_total" + labels, "kstat_disk_io_time_seconds_total" + labels,
          elapsed + 0.01);
    later("node_disk_discarded_sectors_total" + labels,
          "kstat_disk_discarded_sectors_total" + labels, 8e6 * (elapsed + 1));
  });
  CHECK(disks > 0);
  int interfaces =
      each_labelled("node_network_receive_bytes_total", [&](const std::string& labels) {
        later("node_network_receive_bytes_total" + labels,
              "kstat_network_receive_bytes_total" + labels, 1e9 * (elapsed + 1));
        later("node_network_transmit_packets_total" + labels,
              "kstat_network_transmit_packets_total" + labels, 1e6 * (elapsed + 1));
        for (std::string sum : {"receive_drop", "receive_frame", "transmit_carrier"})
          later("node_network_" + sum + "_total" + labels,
                "kstat_network_" + sum + "_total" + labels, 1e6 * (elapsed + 1));
      });
  CHECK(interfaces > 0);
  // The links, from rtnetlink against node_exporter's reads of /sys/class/net, which has no
  // carrier for an interface set down (kstat's is 0).
  int links = each_labelled("node_network_up", [&](const std::string& labels) {
    for (std::string family :
         {"up", "carrier", "mtu_bytes", "transmit_queue_length", "protocol_type"})
      if (family != "carrier" || theirs.count("node_network_carrier" + labels) != 0)
        near("node_network_" + family + labels, "kstat_network_" + family + labels, 0);
    // A speed the driver does not know is -1 Mb/s to node_exporter, and no series to kstat.
    if (auto speed = theirs.find("node_network_speed_bytes" + labels);
        speed != theirs.end() && speed->second >= 0)
      near(speed->first, "kstat_network_speed_bytes" + labels, 0);
    for (std::string family : {"carrier_changes", "carrier_up_changes", "carrier_down_changes"})
      later("node_network_" + family + "_total" + labels,
            "kstat_network_" + family + "_total" + labels, 2);
  });
  CHECK(links >= interfaces);
  // Each link's state and addresses, and the operating system, as labels.
  CHECK(same_annotations(theirs, ours, "node_network_info") == links);
  CHECK(same_annotations(theirs, ours, "node_os_info") == 1);
  CHECK(each_labelled("node_os_version", [&](const std::string& labels) {
          near("node_os_version" + labels, as_kstat_names("node_os_version" + labels), 0);
        }) == 1);
  int softnet = each_labelled("node_softnet_processed_total", [&](const std::string& labels) {
    for (std::string family : {"processed", "dropped", "times_squeezed"})
      later("node_softnet_" + family + "_total" + labels,
            "kstat_softnet_" + family + "_total" + labels, 1e6 * (elapsed + 1));
  });
  CHECK(softnet == cpus);
  // Each file system by the same labels, the mount point first in kstat's:
  // {device="/dev/vda",fstype="ext4",mountpoint="/"} is {mountpoint="/",device=...,fstype=...}.
  int file_systems = each_labelled("node_filesystem_size_bytes", [&](const std::string& labels) {
    std::size_t point = labels.find(",mountpoint=");
    REQUIRE(point != std::string::npos);
    std::string kstat_labels = "{" + labels.substr(point + 1, labels.size() - point - 2) + "," +
                               labels.substr(1, point - 1) + "}";
    near("node_filesystem_size_bytes" + labels, "kstat_filesystem_size_bytes" + kstat_labels, 0);
    near("node_filesystem_avail_bytes" + labels, "kstat_filesystem_avail_bytes" + kstat_labels,
         256 << 20);
    near("node_filesystem_files" + labels, "kstat_filesystem_files" + kstat_labels, 0);
    near("node_filesystem_readonly" + labels, "kstat_filesystem_readonly" + kstat_labels, 0);
  });
  CHECK(file_systems > 0);
}

TEST_CASE("kstat serve and node_exporter agree on software RAID arrays",
          "[kstat][serve][node_exporter]") {
  // This machine has no md arrays: both read the same /proc/mdstat of six, one rebuilding after
  // a failure, one inactive, one a RAID 0, one waiting to resync, one being checked.
  auto [theirs, compared] = agree_on_copy({"md"}, "mdadm", {"node_md_"});
  CHECK(compared == 6 * 11);
  auto degraded = [&](const std::string& prefix, const std::string& device) {
    return theirs[prefix + "disks_required{device=\"" + device + "\"}"] -
           theirs[prefix + "disks{device=\"" + device + "\",state=\"active\"}"];
  };
  CHECK(degraded("node_md_", "md1") == 1); // what the alert on a degraded array asks
}

TEST_CASE("kstat serve and node_exporter count the same ARP entries",
          "[kstat][serve][node_exporter]") {
  // Both read the same /proc/net/arp: three interfaces, a dot in a name, an entry not resolved.
  auto [theirs, compared] = agree_on_copy({"net.arp"}, "arp", {"node_arp_entries"});
  CHECK(compared == 3);
  CHECK(theirs["node_arp_entries{device=\"eth0\"}"] == 3);
}

TEST_CASE("kstat serve and node_exporter sum the same UDP queues",
          "[kstat][serve][node_exporter]") {
  // Both read the same /proc/net/udp and udp6: three sockets and one, queues in hexadecimal.
  auto [theirs, compared] =
      agree_on_copy({"net.udp", "net.udp6"}, "udp_queues", {"node_udp_queues"});
  CHECK(compared == 4);
  CHECK(theirs["node_udp_queues{ip=\"v4\",queue=\"rx\"}"] == 0xA00 + 0x12000);
}

TEST_CASE("kstat serve and node_exporter agree on memory errors and temperatures",
          "[kstat][serve][node_exporter]") {
  // This machine has neither: both read the same copy of /sys, two memory controllers (one with
  // corrected errors, some placed on no row), two thermal zones (one below zero) and a fan.
  auto edac = agree_on_copy({"hw"}, "edac", {"node_edac_"}, Tree::sys);
  CHECK(edac.compared == 2 * (2 + 2 + 2 * 2));
  CHECK(
      edac.theirs["node_edac_csrow_correctable_errors_total{controller=\"0\",csrow=\"unknown\"}"] ==
      1);
  auto thermal =
      agree_on_copy({"hw"}, "thermal_zone", {"node_thermal_zone_", "node_cooling_device_"},
                    Tree::sys, {{"node_thermal_zone_temp", "kstat_thermal_zone_temp_celsius"}});
  CHECK(thermal.compared == 2 + 2);
  CHECK(thermal.theirs["node_thermal_zone_temp{type=\"acpitz\",zone=\"1\"}"] == -2.5);
}

TEST_CASE("kstat serve and node_exporter agree on the NFS client's calls",
          "[kstat][serve][node_exporter]") {
  // This machine mounts no NFS: both read the same copy of /proc/net/rpc/nfs, with a kernel's
  // 69 NFSv4 procedures, of which both name the first 59.
  auto [theirs, compared] = agree_on_copy({"net.rpc.nfs"}, "nfs", {"node_nfs_"});
  CHECK(compared == 2 + 1 + 3 + 18 + 22 + 59);
  CHECK(theirs["node_nfs_rpc_retransmissions_total"] == 17);
  CHECK(theirs["node_nfs_requests_total{method=\"Write\",proto=\"3\"}"] == 8830);
}

TEST_CASE("kstat serve and node_exporter agree on the NFS server's calls",
          "[kstat][serve][node_exporter]") {
  // This machine serves no NFS: both read the same copy of /proc/net/rpc/nfsd, a kernel's with
  // NFSv2 and the read-ahead cache of kernels before 5.4, and 72 NFSv4 operations (operation N's
  // count 10 N + 3).
  auto op = [](int n) { return 10.0 * n + 3; };
  auto v4 = [](const std::string& method) {
    return "node_nfsd_requests_total{method=\"" + method + "\",proto=\"4\"}";
  };
  // node_exporter 1.5 gives the last three operations it names the counts of the two before
  // them: SETCLIENTID (35) as Verify (37), SETCLIENTID_CONFIRM as Write, VERIFY as RelLockOwner
  const std::set<std::string> shifted{v4("Verify"), v4("Write"), v4("RelLockOwner")};
  auto [theirs, compared] =
      agree_on_copy({"net.rpc.nfsd"}, "nfsd", {"node_nfsd_"}, Tree::proc, {}, shifted);
  CHECK(compared == 16 + (18 - 1) + (22 - 1) + 33 - 3); // node_exporter serves no Null
  CHECK(theirs[v4("Verify")] == op(35));
  CHECK(theirs[v4("RelLockOwner")] == op(37));
  CHECK(theirs["node_nfsd_server_threads"] == 8);
  // kstat: each operation under its number's name, those of NFSv4.1 and 4.2 too
  KstatServe serve({"--proc-root", std::string(OPSKIT_TEST_DATA) + "/proc-basic", "net.rpc.nfsd"});
  auto ours = scraped(serve);
  CHECK(ours["kstat" + v4("Verify").substr(4)] == op(37));
  CHECK(ours["kstat" + v4("Write").substr(4)] == op(38));
  CHECK(ours["kstat" + v4("RelLockOwner").substr(4)] == op(39));
  CHECK(ours["kstat" + v4("SetClientID").substr(4)] == op(35));
  CHECK(ours["kstat" + v4("Sequence").substr(4)] == op(53));
  CHECK(ours["kstat_nfsd_v4_rpcs_total{method=\"Compound\"}"] == 1234300);
}

TEST_CASE("kstat serve and node_exporter agree on IPVS's virtual and real servers",
          "[kstat][serve][node_exporter]") {
  // This machine has no IPVS: both read the same copy of /proc/net/ip_vs and ip_vs_stats, with a
  // TCP service of two real servers, a UDP one, an IPv6 one and one by firewall mark.
  auto [theirs, compared] = agree_on_copy({"net.ipvs"}, "ipvs", {"node_ipvs_"});
  CHECK(compared == 5 + 5 * 3);
  CHECK(theirs["node_ipvs_backend_connections_inactive{local_address=\"10.96.0.1\",local_mark="
               "\"\",local_port=\"443\",proto=\"TCP\",remote_address=\"10.244.1.5\","
               "remote_port=\"8443\"}"] == 12);
}

TEST_CASE("kstat serve and node_exporter agree on the scheduler's statistics",
          "[kstat][serve][node_exporter]") {
  // This kernel has no /proc/schedstat: both read the same copy, two CPUs' lines among their
  // scheduling domains'.
  auto [theirs, compared] = agree_on_copy({"kern.schedstat"}, "schedstat", {"node_schedstat_"});
  CHECK(compared == 2 * 3);
  CHECK(theirs["node_schedstat_waiting_seconds_total{cpu=\"1\"}"] == 290.25);
}

TEST_CASE("kstat serve and node_exporter name and count pressure stalls alike",
          "[kstat][serve][node_exporter]") {
  auto [theirs, compared] = agree_on_copy({"kern.pressure"}, "pressure", {"node_pressure_"});
  CHECK(compared >= 5); // cpu waiting, io and memory waiting and stalled, by this node_exporter
  CHECK(theirs["node_pressure_io_waiting_seconds_total"] == Approx(498.961726));
}

TEST_CASE("kstat serve and node_exporter agree on the CPUs' frequencies and thermal throttling",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: two CPUs with a cpufreq policy each (one with the
  // hardware's own reading, one held at its highest frequency), one without, one offline.
  auto [theirs, compared] = agree_on_copy({"hw.cpufreq"}, "cpufreq", {"node_cpu_"}, Tree::sys);
  CHECK(compared == 6 + 5);
  CHECK(theirs["node_cpu_scaling_frequency_hertz{cpu=\"1\"}"] == 3.912e9);
  // And the thermal throttling counts its cpu collector serves: a core's two threads counted once
  auto throttles = agree_on_copy(
      {"hw.throttle"}, "cpu", {"node_cpu_core_throttles_total", "node_cpu_package_throttles_total"},
      Tree::sys);
  CHECK(throttles.compared == 2 + 1);
  // The governor, which node_exporter 1.5 does not serve, as the newer ones serve the one in use
  KstatServe serve({"--sys-root", std::string(OPSKIT_TEST_DATA) + "/sys-basic", "hw.cpufreq"});
  auto body = http_get(serve.url()).body;
  CHECK(body.find("kstat_cpu_scaling_governor{cpu=\"0\",governor=\"schedutil\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("kstat serve and node_exporter agree on the power domains' energy",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: two packages' RAPL domains, a core's and two DRAM's
  auto [theirs, compared] = agree_on_copy({"hw.rapl"}, "rapl", {"node_rapl_"}, Tree::sys);
  CHECK(compared == 5);
  CHECK(theirs["node_rapl_dram_joules_total{index=\"1\",path=\"" + std::string(OPSKIT_TEST_DATA) +
               "/sys-basic/class/powercap/intel-rapl:1:0\"}"] == 1234.56789);
}

TEST_CASE("kstat serve and node_exporter describe the same disks from udev's database",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  // A SATA disk, a RAID controller's volume with its serial number only in SCSI_IDENT_SERIAL,
  // an NVMe namespace, and a virtual disk udev has no entry for.
  TempDir proc, rootfs;
  std::ofstream(proc / "diskstats") << "   8       0 sda 100 0 800 10 50 0 400 5 0 15 15\n"
                                       "   8      16 sdb 100 0 800 10 50 0 400 5 0 15 15\n"
                                       " 259       0 nvme0n1 100 0 800 10 50 0 400 5 0 15 15\n"
                                       " 253       0 vda 100 0 800 10 50 0 400 5 0 15 15\n";
  std::filesystem::create_directories(rootfs / "run/udev/data");
  std::ofstream(rootfs / "run/udev/data/b8:0")
      << "S:disk/by-id/ata-Samsung_SSD_870_EVO_1TB_S6PTNX0T123456A\nI:6142334\nE:ID_BUS=ata\n"
         "E:ID_MODEL=Samsung_SSD_870_EVO_1TB\nE:ID_REVISION=SVT02B6Q\n"
         "E:ID_SERIAL=Samsung_SSD_870_EVO_1TB_S6PTNX0T123456A\nE:ID_SERIAL_SHORT=S6PTNX0T123456A\n"
         "E:ID_WWN=0x5002538f42b0a1b2\nE:ID_PATH=pci-0000:00:17.0-ata-1\nG:systemd\nV:1\n";
  std::ofstream(rootfs / "run/udev/data/b8:16")
      << "E:ID_MODEL=PERC_H730P_Mini\nE:ID_REVISION=4.30\nE:SCSI_IDENT_SERIAL=00a1b2c3d4e5f60718\n"
         "E:ID_PATH=pci-0000:18:00.0-scsi-0:2:0:0\nV:1\n";
  std::ofstream(rootfs / "run/udev/data/b259:0")
      << "E:ID_MODEL=SAMSUNG MZVL21T0HCLR-00B00\nE:ID_SERIAL_SHORT=S676NF0R908202\n"
         "E:ID_REVISION=GXA7601Q\nE:ID_WWN=eui.002538b921b47a90\nE:ID_PATH=pci-0000:02:00.0-nvme-"
         "1\n";
  KstatServe serve({"--proc-root", proc.path(), "--rootfs", rootfs.path(), "disk"});
  int port = free_port();
  Daemon node({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--path.procfs=" + proc.path(),
               "--path.udev.data=" + rootfs.path() + "/run/udev/data",
               "--collector.disable-defaults", "--collector.diskstats"},
              port);
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto ours = scraped(serve);
  for (const auto* disk : {"sda", "nvme0n1"}) {
    auto found = std::ranges::find_if(theirs, [&](const auto& s) {
      return s.first.starts_with("node_disk_info{device=\"" + std::string(disk) + "\"");
    });
    REQUIRE(found != theirs.end());
    INFO(found->first);
    CHECK(ours.count(as_kstat_names(found->first)) == 1);
  }
  // The serial number node_exporter 1.5 leaves empty, as newer ones take it; and no series for
  // a disk udev knows nothing of, where node_exporter serves its numbers alone.
  CHECK(ours.count(
            "kstat_disk_info{device=\"sdb\",major=\"8\",minor=\"16\",model=\"PERC_H730P_Mini\","
            "path=\"pci-0000:18:00.0-scsi-0:2:0:0\",revision=\"4.30\","
            "serial=\"00a1b2c3d4e5f60718\"}") == 1);
  CHECK(std::ranges::none_of(
      ours, [](const auto& s) { return s.first.starts_with("kstat_disk_info{device=\"vda\""); }));
  CHECK(ours.count("kstat_disk_reads_completed_total{device=\"vda\"}") == 1);
}

TEST_CASE("kstat serve and node_exporter describe the same machine from its DMI strings",
          "[kstat][serve][node_exporter]") {
  // This VM has no DMI: both read a server's strings from the copy of /sys, blanks and empty
  // fields among them. kstat reads them once, as they change with the firmware alone.
  auto [theirs, compared] = agree_on_copy({"hw.dmi"}, "dmi", {"node_dmi_info"}, Tree::sys);
  CHECK(compared == 1);
  auto r = run({tool("kstat"), "--sys-root", std::string(OPSKIT_TEST_DATA) + "/sys-basic", "read",
                "-n", "hw.dmi.product_name", "hw.dmi.chassis_asset_tag"});
  CHECK(r.out == "PowerEdge R650\nrack-12 u07\n");
}

TEST_CASE("kstat serve and node_exporter describe the same NVMe controllers",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: two controllers, one resetting, a model and a serial
  // number padded with blanks as drivers pad them.
  auto [theirs, compared] = agree_on_copy({"hw.nvme"}, "nvme", {"node_nvme_info"}, Tree::sys);
  CHECK(compared == 2);
  CHECK(theirs.count(
            "node_nvme_info{device=\"nvme0\",firmware_revision=\"1B2QEXM7\",model="
            "\"Samsung SSD 970 EVO Plus 1TB\",serial=\"S4EWNX0R123456A\",state=\"live\"}") == 1);
}

TEST_CASE("kstat serve and node_exporter agree on InfiniBand ports",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: a ConnectX-5's port, active at 100 Gb/s, and a ConnectX-3's
  // two, one disabled at 2.5 Gb/s. The data counters count 32-bit words: both serve bytes.
  auto [theirs, compared] =
      agree_on_copy({"hw.infiniband"}, "infiniband", {"node_infiniband_"}, Tree::sys);
  CHECK(compared == 2 + 3 * (3 + 21));
  CHECK(theirs["node_infiniband_rate_bytes_per_second{device=\"mlx4_0\",port=\"2\"}"] == 2.5e9 / 8);
  CHECK(theirs["node_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"}"] ==
        4.0 * 3000008008);
}

TEST_CASE("kstat serve and node_exporter agree on Fibre Channel ports",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: a QLogic adapter's two ports, one online at 16 Gbit and one
  // down, statistics in hexadecimal; each has a counter its driver does not keep (all ones),
  // which both leave out.
  auto [theirs, compared] =
      agree_on_copy({"hw.fibrechannel"}, "fibrechannel", {"node_fibrechannel_"}, Tree::sys);
  CHECK(compared == 2 + 2 * 13);
  CHECK(theirs["node_fibrechannel_link_failure_total{fc_host=\"host0\"}"] == 0xa011);
  CHECK(theirs.count("node_fibrechannel_dumped_frames_total{fc_host=\"host0\"}") == 0);
}

TEST_CASE("kstat serve and node_exporter agree on SCSI tape drives",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: two drives, and st0's other nodes (nst0, st0a), which count
  // the same and are left out.
  auto [theirs, compared] = agree_on_copy({"hw.tape"}, "tapestats", {"node_tape_"}, Tree::sys);
  CHECK(compared == 2 * 10);
  CHECK(theirs["node_tape_io_time_seconds_total{device=\"st0\"}"] == Approx(123.456789012));
  CHECK(theirs.count("node_tape_io_now{device=\"nst0\"}") == 0);
}

TEST_CASE("kstat serve and node_exporter agree on batteries and adapters",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: a mains adapter, a battery that counts energy and one that
  // counts charge. Where node_exporter names a unit in the singular kstat names it in the plural,
  // and its charge_ampere, in ampere-hours, as that.
  auto [theirs, compared] =
      agree_on_copy({"hw.power_supply"}, "powersupplyclass", {"node_power_supply_"}, Tree::sys,
                    {{"node_power_supply_voltage_volt", "kstat_power_supply_voltage_volts"},
                     {"node_power_supply_current_ampere", "kstat_power_supply_current_amperes"},
                     {"node_power_supply_power_watt", "kstat_power_supply_power_watts"},
                     {"node_power_supply_energy_watthour", "kstat_power_supply_energy_watthours"},
                     {"node_power_supply_charge_ampere", "kstat_power_supply_charge_amperehours"}});
  CHECK(compared == 2 + 10 + 10);
  CHECK(theirs["node_power_supply_temp_celsius{power_supply=\"BAT1\"}"] == 29.5);
  CHECK(theirs["node_power_supply_energy_full{power_supply=\"BAT0\"}"] == 51.3);
}

TEST_CASE("kstat serve and node_exporter count the same bonded interfaces",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: bond0 with one of its two interfaces down, bond1 with one
  // interface, listed where kernels before 4.11 list it.
  auto [theirs, compared] = agree_on_copy({"net.bonding"}, "bonding", {"node_bonding_"}, Tree::sys);
  CHECK(compared == 2 * 2);
  // What node_exporter's alert on a degraded bond asks
  CHECK(theirs["node_bonding_slaves{master=\"bond0\"}"] -
            theirs["node_bonding_active{master=\"bond0\"}"] ==
        1);
}

TEST_CASE("kstat serve and node_exporter agree on hardware monitoring chips",
          "[kstat][serve][node_exporter]") {
  // Both read the same copy of /sys: a CPU's temperatures, a Super I/O chip's fan, voltage, PWM
  // and chassis intrusion, a power meter; two named by the device they monitor, one by its name.
  // kstat names the units Prometheus names (amperes, watts, joules), and serves an alarm as the
  // 0 or 1 it is, where node_exporter divides it by 1000 as a temperature.
  auto [theirs, compared] =
      agree_on_copy({"hw.hwmon"}, "hwmon", {"node_hwmon_"}, Tree::sys,
                    {{"node_hwmon_curr_amps", "kstat_hwmon_curr_amperes"},
                     {"node_hwmon_power_average_watt", "kstat_hwmon_power_average_watts"},
                     {"node_hwmon_energy_joule_total", "kstat_hwmon_energy_joules_total"},
                     {"node_hwmon_temp_crit_alarm_celsius", ""}});
  CHECK(compared == 23);
  CHECK(theirs["node_hwmon_temp_celsius{chip=\"platform_coretemp_0\",sensor=\"temp1\"}"] == 45);
  CHECK(theirs["node_hwmon_chip_names{chip=\"platform_nct6775_656\",chip_name=\"nct6798\"}"] == 1);
}

TEST_CASE("kstat serve and node_exporter read the same os-release under a root file system",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  // A container's view of its host: /etc/os-release a link into the host's /usr/lib, its values
  // quoted each way os-release(5) allows.
  TempDir rootfs;
  std::filesystem::create_directories(rootfs / "etc");
  std::filesystem::create_directories(rootfs / "usr/lib");
  std::ofstream(rootfs / "usr/lib/os-release")
      << "# made by the test\nNAME=\"Example \\\"Linux\\\"\"\nID=example\nID_LIKE='debian ubuntu'\n"
         "VERSION_ID=\"22.04.3\"\nPRETTY_NAME=\"Example Linux 22.04.3 LTS\"\nVARIANT_ID=server\n";
  std::filesystem::create_symlink("../usr/lib/os-release", rootfs / "etc/os-release");
  KstatServe serve({"--rootfs", rootfs.path(), "os"});
  int port = free_port();
  Daemon node({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--path.rootfs=" + rootfs.path(), "--collector.disable-defaults", "--collector.os"},
              port);
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto ours = samples(http_get(serve.url()).body);
  CHECK(same_annotations(theirs, ours, "node_os_info") == 1);
  CHECK(
      ours.count("kstat_os_info{id=\"example\",id_like=\"debian ubuntu\",name=\"Example "
                 "\\\"Linux\\\"\",pretty_name=\"Example Linux 22.04.3 LTS\",variant_id=\"server\","
                 "version_id=\"22.04.3\"}") == 1);
  REQUIRE(theirs.count("node_os_version{id=\"example\",id_like=\"debian ubuntu\",name=\"Example "
                       "\\\"Linux\\\"\"}") == 1);
  CHECK(ours["kstat_os_version{id=\"example\",id_like=\"debian ubuntu\",name=\"Example "
             "\\\"Linux\\\"\"}"] == 22.04);

  // An absolute link is the host's path: kstat takes it under the root, where node_exporter
  // follows it out to the container's own.
  std::filesystem::remove(rootfs / "etc/os-release");
  std::filesystem::create_symlink("/usr/lib/os-release", rootfs / "etc/os-release");
  auto r = run({tool("kstat"), "--rootfs", rootfs.path(), "read", "-n", "os.release.ID"});
  CHECK(r.out == "example\n");
}

TEST_CASE("kstat serve and node_exporter agree on the clock's source and the time zone",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  // Both in a zone of the test's choosing, half an hour off the hour and without daylight
  // saving time: its offset is the same all year.
  const std::vector<std::string> in_zone{"env", "TZ=Asia/Kolkata"};
  KstatServe serve({"kern.clocksource"}, in_zone);
  int port = free_port();
  std::vector<std::string> argv = in_zone;
  argv.insert(argv.end(),
              {"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--collector.disable-defaults", "--collector.time"});
  Daemon node(argv, port);
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto ours = samples(http_get(serve.url()).body);
  CHECK(theirs["node_time_zone_offset_seconds{time_zone=\"IST\"}"] == 5.5 * 3600);
  CHECK(ours["kstat_time_zone_offset_seconds{time_zone=\"IST\"}"] == 5.5 * 3600);
  // This machine's clock sources, one sample each
  std::ifstream available("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  int sources = static_cast<int>(std::distance(std::istream_iterator<std::string>(available),
                                               std::istream_iterator<std::string>()));
  REQUIRE(sources > 0);
  CHECK(same_annotations(theirs, ours, "node_time_clocksource_available_info") == sources);
  CHECK(same_annotations(theirs, ours, "node_time_clocksource_current_info") == 1);

  // A machine whose kernel left the TSC for the HPET, from a copy of /sys
  auto copy = agree_on_copy({"kern.clocksource"}, "time", {"node_time_clocksource_"}, Tree::sys);
  CHECK(copy.compared == 3 + 1);
  CHECK(copy.theirs["node_time_clocksource_current_info{clocksource=\"hpet\",device=\"0\"}"] == 1);
}

TEST_CASE("kstat serve and node_exporter flag the same mount point whose statfs fails",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  // The machine's mounts as its init sees them (kstat reads mountinfo, node_exporter mounts),
  // its / at <rootfs>: an NFS mount point that is not there fails its statfs.
  TempDir proc, rootfs;
  std::filesystem::create_directories(proc / "1");
  std::ofstream(proc / "1/mountinfo")
      << "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
         "28 27 0:52 / /gone rw,relatime - nfs4 server:/export rw,vers=4.2\n";
  std::ofstream(proc / "1/mounts") << "/dev/vda / ext4 rw,relatime 0 0\n"
                                      "server:/export /gone nfs4 rw,relatime,vers=4.2 0 0\n";
  KstatServe serve({"--proc-root", proc.path(), "--rootfs", rootfs.path(), "fs.mount"});
  int port = free_port();
  Daemon node({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--path.procfs=" + proc.path(), "--path.rootfs=" + rootfs.path(),
               "--collector.disable-defaults", "--collector.filesystem"},
              port);
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto ours = scraped(serve);
  int compared = 0;
  for (const auto& [series, value] : theirs)
    if (series.starts_with("node_filesystem_device_error{") ||
        series.starts_with("node_filesystem_size_bytes{")) {
      INFO(series);
      REQUIRE(ours.count(as_kstat_names(series)) == 1);
      CHECK(ours[as_kstat_names(series)] == value);
      ++compared;
    }
  CHECK(compared == 2 + 1);
  CHECK(theirs["node_filesystem_device_error{device=\"server:/export\",fstype=\"nfs4\","
               "mountpoint=\"/gone\"}"] == 1);
  // And the failed source, by its path, as every failed source is
  CHECK(ours.count("kstat_scrape_error{source=\"" + rootfs.path() + "/gone\"}") == 1);
}

namespace {

// A file system of the test's own: a sparse image file, made by `mkfs` ("mkfs.xfs") and mounted
// on a loop device, unmounted when dropped. Mounted in a mount namespace of this process's own,
// which the programs it starts share: the tests running beside, df and the machine's init never
// see it come and go (its /sys/fs entry they do).
class LoopMount {
public:
  explicit LoopMount(const std::string& mkfs) {
    if (!have_program(mkfs))
      FAIL(mkfs << " is needed (scripts/dev installs it)");
    opskit::test::enter_own_mount_namespace();
    std::string image = dir_ / "fs.img";
    std::filesystem::create_directories(point());
    std::ofstream{image}.close();
    std::filesystem::resize_file(image, 320 << 20); // mkfs.xfs's least is 300 MiB
    auto made = run({mkfs, "-q", image});
    INFO(made.err);
    REQUIRE(made.exit_status == 0);
    auto mounted = run({"mount", "-o", "loop", image, point()});
    INFO(mounted.err);
    REQUIRE(mounted.exit_status == 0);
  }
  LoopMount(const LoopMount&) = delete;
  LoopMount& operator=(const LoopMount&) = delete;
  ~LoopMount() { ::umount2(point().c_str(), MNT_DETACH); } // the loop device goes with it

  std::string point() const { return dir_ / "mnt"; }
  // What findmnt(8) says of it: "SOURCE" ("/dev/loop3"), "UUID".
  std::string show(const std::string& column) const {
    auto r = run({"findmnt", "-n", "-o", column, point()});
    REQUIRE(r.exit_status == 0);
    return std::string(r.out.substr(0, r.out.find('\n')));
  }
  // The loop device's name, as /sys/fs/xfs and Btrfs's devices name it: "loop3".
  std::string device() const { return std::filesystem::path(show("SOURCE")).filename(); }

private:
  TempDir dir_;
};

// How many of `serve`'s series are of families `family` begins, with `labels` among their labels.
int count_series(const KstatServe& serve, const std::string& family, const std::string& labels) {
  int count = 0;
  for (const auto& [series, value] : samples(http_get(serve.url()).body))
    count += series.starts_with(family) && series.find(labels) != std::string::npos;
  return count;
}

// `serve`'s series that node_exporter serves of the families `family` begins (node_xfs_), with
// `labels` among their labels (device="loop3"), compared with node_exporter's of this machine
// and `collector`; each named as node_exporter names it, or `renamed` names its family ("":
// not compared). node_exporter is read before and after kstat, until both agree, so that a count
// the kernel moved in between (a log worker's) is not taken for a difference. Returns how many
// were compared.
int agree_on_machine(const KstatServe& serve, const std::string& collector,
                     const std::string& family, const std::string& labels,
                     const std::map<std::string, std::string>& renamed = {},
                     const std::vector<std::string>& node_options = {}) {
  int port = free_port();
  std::vector<std::string> argv{"prometheus-node-exporter",
                                "--web.listen-address=127.0.0.1:" + std::to_string(port),
                                "--collector.disable-defaults", "--collector." + collector};
  argv.insert(argv.end(), node_options.begin(), node_options.end());
  Daemon node(argv, port);
  auto theirs_now = [&] {
    std::map<std::string, double> out;
    for (const auto& [series, value] : samples(http_get(node.url("/metrics")).body))
      if (series.starts_with(family) && series.find(labels) != std::string::npos)
        out[without_empty_labels(series)] = value;
    return out;
  };
  std::map<std::string, double> theirs, ours;
  for (int attempt = 0; attempt < 5; ++attempt) {
    theirs = theirs_now();
    ours = served_series(serve);
    if (theirs == theirs_now())
      break;
  }
  return compare_series(theirs, ours, renamed, {}, 0);
}

} // namespace

TEST_CASE("kstat serve and node_exporter agree on XFS file systems' statistics",
          "[kstat][serve][node_exporter]") {
  // A copy of /sys: a file system as a 6.1 kernel counts, another as a 4.9 kernel did, and the
  // sum over both, which neither serves. node_exporter's vnode_active_total is a level: kstat
  // serves it as the gauge it is.
  const std::map<std::string, std::string> active{
      {"node_xfs_vnode_active_total", "kstat_xfs_vnode_active"}};
  auto copy = agree_on_copy({"xfs"}, "xfs", {"node_xfs_"}, Tree::sys, active);
  CHECK(copy.compared == 2 * 39);
  CHECK(copy.theirs["node_xfs_write_calls_total{device=\"sda1\"}"] == 1062811);

  // This machine: a file system of the test's own, written to
  LoopMount xfs("mkfs.xfs");
  std::string calls = fmt::format("xfs.{}.rw.write_calls", xfs.device());
  auto write_calls = [&] {
    auto r = run({tool("kstat"), "read", "-n", calls});
    INFO(r.err);
    REQUIRE(r.exit_status == 0);
    return std::stoull(r.out);
  };
  auto before = write_calls();
  {
    opskit::UniqueFd fd(
        ::open((xfs.point() + "/written").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    REQUIRE(fd);
    for (int i = 0; i < 25; ++i)
      REQUIRE(::write(fd.get(), "counted\n", 8) == 8);
  }
  CHECK(write_calls() - before == 25);
  ::sync();
  KstatServe serve({"xfs"});
  CHECK(agree_on_machine(serve, "xfs", "node_xfs_", fmt::format("device=\"{}\"", xfs.device()),
                         active) == 39);
  // By default, what node_exporter serves of it, no more
  CHECK(count_series(KstatServe({}), "kstat_xfs_", fmt::format("device=\"{}\"", xfs.device())) ==
        39);
}

TEST_CASE("kstat serve and node_exporter agree on Btrfs file systems' space and devices",
          "[kstat][serve][node_exporter]") {
  // A copy of /sys: a file system of two devices, raid1 throughout, and its commits (Linux 6.0).
  // Its devices are asked of a mount point, which a copy has none of; node_exporter's
  // allocation_ratio is derived from the profile's name, and not served.
  const std::map<std::string, std::string> derived{{"node_btrfs_allocation_ratio", ""}};
  auto copy =
      agree_on_copy({"btrfs"}, "btrfs", {"node_btrfs_"}, Tree::sys,
                    {{"node_btrfs_allocation_ratio", ""}, {"node_btrfs_device_size_bytes", ""}});
  CHECK(copy.compared == 1 + 1 + 3 * 3);
  CHECK(copy.theirs["node_btrfs_used_bytes{block_group_type=\"data\",mode=\"raid1\",uuid="
                    "\"7c3a1e52-8f4b-4d6e-9a0b-2c5d8e1f3a47\"}"] == 612345675776);

  // This machine: a file system of the test's own, 8 MiB written to it
  LoopMount btrfs("mkfs.btrfs");
  std::string uuid = btrfs.show("UUID");
  REQUIRE_FALSE(uuid.empty());
  std::string used = fmt::format("btrfs.{}.allocation.data.bytes_used", uuid);
  auto data_used = [&] {
    auto r = run({tool("kstat"), "read", "-n", used});
    INFO(r.err);
    REQUIRE(r.exit_status == 0);
    return std::stoull(r.out);
  };
  auto before = data_used();
  {
    std::ofstream written(btrfs.point() + "/written", std::ios::binary);
    written << std::string(8 << 20, 'x');
  }
  ::sync();
  CHECK(data_used() - before == 8 << 20);
  KstatServe serve({"btrfs"});
  // node_exporter finds the mount point in PID 1's mountinfo, which this namespace's mounts are
  // not in: a /proc whose 1 is the reader itself.
  TempDir proc;
  std::filesystem::create_directory_symlink("/proc/self", proc / "1");
  CHECK(agree_on_machine(serve, "btrfs", "node_btrfs_", fmt::format("uuid=\"{}\"", uuid), derived,
                         {"--path.procfs=" + proc.path()}) == 1 + 1 + 3 * 3 + 5 + 2);
  // By default, what node_exporter serves of it (but the derived ratios), and the commits
  CHECK(count_series(KstatServe({}), "kstat_btrfs_", fmt::format("uuid=\"{}\"", uuid)) ==
        1 + 1 + 3 + 3 * 2 + 5 + 2 + 4);
}

TEST_CASE("kstat serve and node_exporter agree that this machine's SELinux is off",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  int port = free_port();
  Daemon node({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--collector.disable-defaults", "--collector.selinux"},
              port);
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto ours = served_series(KstatServe({}));
  REQUIRE(theirs.count("node_selinux_enabled") == 1);
  CHECK(ours["kstat_selinux_enabled"] == theirs["node_selinux_enabled"]);
  CHECK(theirs.count("node_selinux_current_mode") == ours.count("kstat_selinux_current_mode"));
}

TEST_CASE("kstat serve and node_exporter agree on bcache's sets and devices",
          "[kstat][serve][node_exporter]") {
  // This machine has no bcache: both read a copy of /sys/fs/bcache, a set of two backing devices
  // and a cache device, its sizes written for people ("127.5M"). node_exporter reads the B-tree's
  // average read time, which the kernel writes in microseconds, as nanoseconds.
  const std::string set = "uuid=\"5d3a8f0e-2b7c-4e91-a6d4-0c8b1f2e7a35\"";
  const std::string duration = "node_bcache_btree_read_average_duration_seconds{" + set + "}";
  auto [theirs, compared] =
      agree_on_copy({"bcache"}, "bcache", {"node_bcache_"}, Tree::sys, {}, {duration});
  CHECK(compared == 38);
  CHECK(theirs["node_bcache_dirty_data_bytes{backing_device=\"bdev0\"," + set + "}"] == 133681152);
  CHECK(theirs[duration] == Approx(471e-9));
  KstatServe serve({"--sys-root", std::string(OPSKIT_TEST_DATA) + "/sys-basic", "bcache"});
  auto ours = served_series(serve);
  CHECK(ours["kstat_bcache_btree_read_average_duration_seconds{" + set + "}"] == Approx(471e-6));
  // The set's own hits are its backing devices' summed: not served beside them
  CHECK(count_series(serve, "kstat_bcache_cache_hits_total", "backing_device=") == 2);
  CHECK(ours.count("kstat_bcache_cache_hits_total{" + set + "}") == 0);
}

TEST_CASE("kstat serve and node_exporter agree on ZFS's statistics and pools",
          "[kstat][serve][node_exporter]") {
  // This machine has no ZFS: both read a copy of /proc/spl/kstat/zfs, a ZFS 2.1 module's
  // statistics and three pools: tank, online, of two datasets (one named with a '.'); backup,
  // degraded, with the I/O kstat ZFS wrote before 0.8; scratch, suspended.
  auto [theirs, compared] = agree_on_copy({"zfs"}, "zfs", {"node_zfs_"});
  CHECK(compared == 150);
  CHECK(theirs["node_zfs_arc_hits"] == 48275190);
  CHECK(theirs["node_zfs_zpool_dataset_nread{dataset=\"tank/home.d\",zpool=\"tank\"}"] ==
        6121947136);
  CHECK(theirs["node_zfs_zpool_nwritten{zpool=\"backup\"}"] == 3206144);

  // Served untyped under the same names, and what node_exporter 1.5 leaves out: dbufstats (it
  // looks for dbuf_stats), a signed statistic, and a pool's state past its six
  KstatServe serve({"--proc-root", std::string(OPSKIT_TEST_DATA) + "/proc-basic", "zfs"});
  std::string body = http_get(serve.url()).body;
  CHECK_THAT(body, Catch::Contains("# TYPE kstat_zfs_arc_hits untyped\n"));
  CHECK_THAT(body, Catch::Contains("# TYPE kstat_zfs_zpool_state gauge\n"));
  auto ours = served_series(serve);
  CHECK(ours["kstat_zfs_dbuf_hash_hits"] == 50122991);
  CHECK(ours["kstat_zfs_arc_memory_available_bytes"] == -213909504);
  CHECK(ours["kstat_zfs_zpool_state{state=\"suspended\",zpool=\"scratch\"}"] == 1);
  CHECK(promtool_check(body).out.empty());
}

TEST_CASE("kstat serve and node_exporter serve the same textfile directory",
          "[kstat][serve][node_exporter]") {
  if (!have_program("prometheus-node-exporter"))
    FAIL("prometheus-node-exporter is needed (scripts/dev installs it)");
  TempDir textfiles;
  write_textfiles(textfiles);
  std::ofstream(textfiles / "broken.prom") << "half_written{job=\"x\" 1\n"; // left out by both
  std::ofstream(textfiles / "notes.txt") << "not a .prom file\n";
  KstatServe serve({"kern.loadavg.1", "--textfile-directory", textfiles.path()});
  int port = free_port();
  Daemon node({"prometheus-node-exporter", "--web.listen-address=127.0.0.1:" + std::to_string(port),
               "--collector.disable-defaults", "--collector.textfile",
               "--collector.textfile.directory=" + textfiles.path()},
              port);
  auto theirs = samples(http_get(node.url("/metrics")).body);
  auto body = http_get(serve.url()).body;
  std::map<std::string, double> ours;
  for (const auto& [series, value] : samples(body))
    ours[labels_in_order(series)] = value;
  int compared = 0;
  for (const auto& [series, value] : theirs) {
    if (series.starts_with("node_") || series.starts_with("go_") ||
        series.starts_with("process_") || series.starts_with("promhttp_"))
      continue;
    std::string kept = as_kstat_names("node_" + series).substr(6); // empty labels left out
    INFO(series);
    REQUIRE(ours.count(kept) == 1);
    CHECK(ours[kept] == value);
    ++compared;
  }
  CHECK(compared == 8);
  CHECK(ours["kstat_textfile_scrape_error"] == theirs["node_textfile_scrape_error"]);
  CHECK(ours["kstat_textfile_scrape_error"] == 1);
  for (const char* file : {"backup.prom", "latency.prom"}) {
    std::string labels = "{file=\"" + textfiles.path() + "/" + file + "\"}";
    CHECK(ours["kstat_textfile_mtime_seconds" + labels] ==
          Approx(theirs["node_textfile_mtime_seconds" + labels]).margin(1e-6));
  }
  auto check = promtool_check(body);
  CHECK(check.out + check.err == "");
  CHECK(serve.err().find("textfile " + textfiles.path() +
                         "/broken.prom: half_written: labels that do not parse; left out") !=
        std::string::npos);
}
