// SPDX-License-Identifier: MIT
//
// The sources of kstat's namespace that are one file at a fixed place under /proc, as a table:
// which prefix each file feeds, how the file is laid out (see reader.cpp), and how its records
// become names. The names are made from the files each time, so a kernel's new counters appear
// without a new kstat. find_fields() adds the sources that are many files or none: /proc/sys,
// processes, mount points, cgroups, the kernel clock (adjtimex) and its clock sources, the
// network links (rtnetlink), and softnet_stat, mdstat, nf_conntrack's statistics, the ARP table,
// the UDP sockets' tables and IPVS's, which are rendered before they are read; the bonds'
// interfaces, the hardware's sysfs files, os-release, udev's entries of the disks, the XFS
// file systems' statistics, and the Btrfs file systems' space and devices.

#include <algorithm>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

void enumerate_vmstat(const Record& r, std::string_view, Emitter& e) {
  bool level = r.key.starts_with("nr_");
  std::string name = fmt::format("vm.stats.{}", r.key);
  e.emit(name, name, level ? Kind::gauge : Kind::counter, level ? "pages" : "events",
         {std::string(r.key), 0, r.offset});
}

void enumerate_meminfo(const Record& r, std::string_view, Emitter& e) {
  std::string leaf;
  for (char c : r.key)
    if (c == '(')
      leaf.push_back('_');
    else if (c != ')')
      leaf.push_back(c);
  std::string name = "vm.meminfo." + leaf;
  bool kib = r.tokens.size() >= 2 && r.tokens[1] == "kB";
  e.emit(name, name, Kind::gauge, kib ? "bytes" : "", {std::string(r.key), 0, r.offset},
         {.multiply = kib ? 1024u : 1u});
}

constexpr std::string_view k_cpu_states[] = {"user", "nice",    "system", "idle",  "iowait",
                                             "irq",  "softirq", "steal",  "guest", "guest_nice"};

void enumerate_stat(const Record& r, std::string_view, Emitter& e) {
  Locator at{std::string(r.key), 0, r.offset};
  if (r.key.starts_with("cpu")) {
    std::string cpu = r.key == "cpu" ? "all" : std::string(r.key.substr(3));
    for (std::size_t i = 0; i < std::size(k_cpu_states) && i < r.tokens.size(); ++i) {
      std::string name = fmt::format("cpu.{}.{}", cpu, k_cpu_states[i]);
      at.column = static_cast<int>(i);
      e.emit(name, fmt::format("cpu.*.{}", k_cpu_states[i]), Kind::counter, "seconds", at,
             {.divide = ticks_per_second(), .never_back = true});
    }
    if (r.key == "cpu")
      e.emit("kern.cp_time", "kern.cp_time", Kind::text, "ticks", {"cpu", -1, r.offset},
             {.cp_time = true});
    return;
  }
  static constexpr std::pair<std::string_view, std::string_view> k_names[] = {
      {"ctxt", "kern.ctxt"},
      {"btime", "kern.boottime"},
      {"processes", "kern.forks"},
      {"procs_running", "kern.procs_running"},
      {"procs_blocked", "kern.procs_blocked"},
      {"intr", "kern.intr"},
      {"softirq", "kern.softirq"}};
  for (auto [key, name] : k_names)
    if (r.key == key)
      e.emit(std::string(name), name, Kind::counter, "", at);
}

void enumerate_loadavg(const Record& r, std::string_view, Emitter& e) {
  static constexpr std::string_view k_names[] = {"1", "5", "15", "runnable", "tasks", "last_pid"};
  for (std::size_t i = 0; i < std::size(k_names) && i < r.tokens.size(); ++i) {
    std::string name = fmt::format("kern.loadavg.{}", k_names[i]);
    e.emit(name, name, Kind::gauge, "", {{}, static_cast<int>(i), 0});
  }
}

// IcmpMsg's columns come and go with the ICMP types counted: found by name (icmpmsg.cpp).
void enumerate_table(const Record& r, std::string_view base, Emitter& e) {
  if (r.key == "IcmpMsg")
    return;
  for (std::size_t i = 0; i < r.names.size() && i < r.tokens.size(); ++i) {
    std::string name = fmt::format("{}.{}.{}", base, r.key, r.names[i]);
    e.emit(name, name, Kind::counter, "", {std::string(r.key), static_cast<int>(i), r.offset});
  }
}

void enumerate_keyed_counters(const Record& r, std::string_view base, Emitter& e) {
  std::string name = fmt::format("{}.{}", base, r.key);
  e.emit(name, name, Kind::counter, "", {std::string(r.key), 0, r.offset});
}

constexpr std::string_view k_disk_fields[] = {
    "reads",          "reads_merged",  "read_sectors",    "read_ms",         "writes",
    "writes_merged",  "write_sectors", "write_ms",        "in_flight",       "io_ms",
    "weighted_io_ms", "discards",      "discards_merged", "discard_sectors", "discard_ms",
    "flushes",        "flush_ms"};

void enumerate_diskstats(const Record& r, std::string_view, Emitter& e) {
  for (std::size_t i = 0; i < std::size(k_disk_fields) && i < r.tokens.size(); ++i)
    e.emit(fmt::format("disk.{}.{}", component_of(r.key), k_disk_fields[i]),
           fmt::format("disk.*.{}", k_disk_fields[i]), Kind::counter, "",
           {std::string(r.key), static_cast<int>(i), r.offset});
}

// /proc/pressure/<resource>: "some avg10=1.48 avg60=3.18 avg300=9.52 total=7241695524"; with
// '=' a separator the tokens alternate between a field's name and its value.
void enumerate_pressure(const Record& r, std::string_view base, Emitter& e) {
  for (std::size_t i = 0; i + 1 < r.tokens.size(); i += 2) {
    std::string_view field = r.tokens[i];
    bool total = field == "total";
    e.emit(fmt::format("{}.{}.{}", base, r.key, field),
           fmt::format("kern.pressure.*.{}.{}", r.key, field), total ? Kind::counter : Kind::gauge,
           total ? "microseconds" : "percent",
           {std::string(r.key), static_cast<int>(i + 1), r.offset});
  }
}

// /proc/net/sockstat and sockstat6: "TCP: inuse 5 orphan 0 tw 2 alloc 8 mem 1", a protocol and
// then pairs of a field's name and its value, all levels. "mem" counts pages, made bytes here;
// FRAG's "memory" is bytes already.
void enumerate_sockstat(const Record& r, std::string_view base, Emitter& e) {
  static const auto k_page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  for (std::size_t i = 0; i + 1 < r.tokens.size(); i += 2) {
    std::string_view field = r.tokens[i];
    bool pages = field == "mem";
    std::string name = fmt::format("{}.{}.{}", base, r.key, field);
    e.emit(name, name, Kind::gauge, pages || field == "memory" ? "bytes" : "",
           {std::string(r.key), static_cast<int>(i + 1), r.offset},
           {.multiply = pages ? k_page : 1});
  }
}

// /proc/net/dev's columns under the names of /sys/class/net/<iface>/statistics. Three columns
// sum several of those counters, and are named after the file's header instead: rx_drop
// (rx_dropped and rx_missed_errors), rx_frame (rx_length_errors, rx_over_errors, rx_crc_errors
// and rx_frame_errors) and tx_carrier (tx_carrier_errors, tx_aborted_errors, tx_window_errors and
// tx_heartbeat_errors): node_exporter's receive_drop, receive_frame and transmit_carrier. The
// counters they sum come from the statistics files, one file a counter.
constexpr std::string_view k_netdev_columns[] = {
    "rx_bytes",       "rx_packets", "rx_errors",  "rx_drop",      "rx_fifo_errors", "rx_frame",
    "rx_compressed",  "multicast",  "tx_bytes",   "tx_packets",   "tx_errors",      "tx_dropped",
    "tx_fifo_errors", "collisions", "tx_carrier", "tx_compressed"};
constexpr std::string_view k_netdev_statistics_only[] = {
    "rx_dropped",        "rx_missed_errors",    "rx_length_errors", "rx_over_errors",
    "rx_crc_errors",     "rx_frame_errors",     "rx_nohandler",     "tx_aborted_errors",
    "tx_carrier_errors", "tx_heartbeat_errors", "tx_window_errors"};

void emit_netdev_statistics(std::string_view iface, const std::string& name, Emitter& e) {
  std::string dir = fmt::format("{}/class/net/{}/statistics", e.roots().sys, iface);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return;
  for (std::string_view file : k_netdev_statistics_only) {
    std::string field = fmt::format("{}.{}", name, file);
    if (holds(e.prefix(), field))
      e.with_source(fmt::format("{}/{}", dir, file), {.shape = Layout::Shape::whole})
          .emit(std::move(field), fmt::format("net.dev.*.{}", file), Kind::counter, "packets", {});
  }
}

void enumerate_netdev(const Record& r, std::string_view base, Emitter& e) {
  if (r.tokens.size() < std::size(k_netdev_columns) || !parse_number(r.tokens[0]))
    return; // the two header lines
  std::string name = fmt::format("{}.{}", base, component_of(r.key));
  if (!related(e.prefix(), name))
    return;
  for (std::size_t i = 0; i < std::size(k_netdev_columns); ++i) {
    std::string_view column = k_netdev_columns[i];
    e.emit(fmt::format("{}.{}", name, column), fmt::format("net.dev.*.{}", column), Kind::counter,
           column.ends_with("bytes") ? "bytes" : "packets",
           {std::string(r.key), static_cast<int>(i), r.offset});
  }
  emit_netdev_statistics(r.key, name, e);
}

// /proc/softirqs: a header of CPUs ("CPU0 CPU1"), then a line per softirq with a count per CPU.
void enumerate_softirqs(const Record& r, std::string_view base, Emitter& e) {
  std::string type = fmt::format("{}.{}", base, r.key);
  auto columns = static_cast<std::uint16_t>(r.names.size());
  if (Info* info = e.emit(type + ".all", "kern.softirqs.*.all", Kind::counter, "softirqs",
                          {std::string(r.key), -1, r.offset}, {.sum_columns = columns}))
    info->description = fmt::format("{} softirqs run, all CPUs", r.key);
  for (std::size_t i = 0; i < r.names.size() && i < r.tokens.size(); ++i) {
    std::string_view cpu = r.names[i];
    if (cpu.starts_with("CPU"))
      cpu.remove_prefix(3);
    if (Info* info = e.emit(fmt::format("{}.{}", type, cpu), "kern.softirqs.*.*", Kind::counter,
                            "softirqs", {std::string(r.key), static_cast<int>(i), r.offset}))
      info->description = fmt::format("{} softirqs run on CPU {}", r.key, cpu);
  }
}

// /proc/schedstat (the kernel's Documentation/scheduler/sched-stats.rst): a "cpu<N>" line for each
// CPU, whose seventh to ninth numbers are the time its tasks ran and waited to run, in
// nanoseconds, and the timeslices it ran; the scheduling domains' lines are left alone.
void enumerate_schedstat(const Record& r, std::string_view base, Emitter& e) {
  if (!r.key.starts_with("cpu") || r.key.size() == 3)
    return;
  struct SchedstatColumn {
    std::string_view name;
    int column;
    std::string_view unit, description;
  };
  static constexpr SchedstatColumn k_columns[] = {
      {"running", 6, "nanoseconds", "Time the CPU ran tasks"},
      {"waiting", 7, "nanoseconds", "Time tasks waited on the CPU's run queue to run"},
      {"timeslices", 8, "timeslices", "Timeslices the CPU ran"},
  };
  std::string_view cpu = r.key.substr(3);
  for (const auto& c : k_columns)
    if (static_cast<std::size_t>(c.column) < r.tokens.size())
      if (Info* info = e.emit(fmt::format("{}.{}.{}", base, cpu, c.name),
                              fmt::format("kern.schedstat.*.{}", c.name), Kind::counter, c.unit,
                              {std::string(r.key), c.column, r.offset}))
        info->description = c.description;
}

// /proc/interrupts: a header of CPUs, then a line per interrupt source: its count on each CPU
// and what it is ("IO-APIC 5-edge ACPI:Ged", "Rescheduling interrupts"). kstat sums the CPUs.
void enumerate_interrupts(const Record& r, std::string_view base, Emitter& e) {
  auto columns = static_cast<std::uint16_t>(r.names.size());
  Info* info = e.emit(fmt::format("{}.{}", base, r.key), "kern.interrupts.*", Kind::counter,
                      "interrupts", {std::string(r.key), -1, r.offset}, {.sum_columns = columns});
  if (info == nullptr)
    return;
  std::size_t counts = 0;
  while (counts < r.tokens.size() && counts < columns && parse_number(r.tokens[counts]))
    ++counts;
  std::string what;
  for (std::size_t i = counts; i < r.tokens.size(); ++i)
    what.append(what.empty() ? "" : " ").append(r.tokens[i]);
  bool irq = parse_number(r.key).has_value();
  std::string who = irq ? fmt::format("IRQ {}", r.key) : std::string(r.key);
  if (what.empty())
    info->description = fmt::format("{} interrupts, all CPUs", who);
  else
    info->description = irq ? fmt::format("{} ({}), all CPUs", who, what) : what + ", all CPUs";
}

// /proc/sys/fs/file-nr: "allocated unused limit" (unused is always 0 since Linux 2.6). Its
// sysctl name fs.file-nr is the line as text; these are its numbers, under FreeBSD's names.
void enumerate_file_nr(const Record& r, std::string_view, Emitter& e) {
  if (r.tokens.size() < 3)
    return;
  e.emit("kern.openfiles", "kern.openfiles", Kind::gauge, "files", {{}, 0, 0});
  e.emit("kern.maxfiles", "kern.maxfiles", Kind::gauge, "files", {{}, 2, 0});
}

// Each /proc file below but vmstat, interrupts, schedstat, net/dev and diskstats (a record a
// line, or a CPU's lines) the kernel writes as one record (Layout::End::first_read); file-nr is a
// /proc/sys value, whole in any read at offset 0.
constexpr Layout k_fixed_record{.fixed_lines = true, .end = Layout::End::first_read};
constexpr Layout k_pressure{.separators = "=", .fixed_lines = true, .end = Layout::End::first_read};
constexpr Layout k_fixed_table{
    .shape = Layout::Shape::table, .fixed_lines = true, .end = Layout::End::first_read};
// net/snmp's lines but IcmpMsg's are fixed: those come with the first ICMP message of a type
// counted (icmpmsg.cpp), and their lines counted at each read tell it.
constexpr Layout k_snmp_table{.shape = Layout::Shape::table, .end = Layout::End::first_read};

const SourceSpec k_global_sources[] = {
    {{"vm.stats"}, "vmstat", k_fixed_lines, enumerate_vmstat},
    {{"vm.meminfo"}, "meminfo", k_fixed_record, enumerate_meminfo},
    {{"cpu", "kern"}, "stat", k_one_record, enumerate_stat},
    {{"kern.loadavg"},
     "loadavg",
     {.key_token = -1, .separators = "/", .fixed_lines = true, .end = Layout::End::first_read},
     enumerate_loadavg},
    {{"kern.pressure.cpu"}, "pressure/cpu", k_pressure, enumerate_pressure},
    {{"kern.pressure.memory"}, "pressure/memory", k_pressure, enumerate_pressure},
    {{"kern.pressure.io"}, "pressure/io", k_pressure, enumerate_pressure},
    {{"kern.pressure.irq"}, "pressure/irq", k_pressure, enumerate_pressure}, // "full" alone
    {{"kern.softirqs"},
     "softirqs",
     {.header_line = true, .end = Layout::End::first_read},
     enumerate_softirqs},
    {{"kern.interrupts"}, "interrupts", {.header_line = true}, enumerate_interrupts},
    {{"kern.schedstat"}, "schedstat", {.end = Layout::End::empty_read}, enumerate_schedstat},
    {{"kern.openfiles", "kern.maxfiles"},
     "sys/fs/file-nr",
     {.key_token = -1, .fixed_lines = true},
     enumerate_file_nr},
    {{"net.snmp"}, "net/snmp", k_snmp_table, enumerate_table},
    {{"net.netstat"}, "net/netstat", k_fixed_table, enumerate_table},
    {{"net.snmp6"}, "net/snmp6", k_fixed_record, enumerate_keyed_counters},
    {{"net.dev"}, "net/dev", k_lines, enumerate_netdev},
    {{"net.sockstat"}, "net/sockstat", k_fixed_record, enumerate_sockstat},
    {{"net.sockstat6"}, "net/sockstat6", k_fixed_record, enumerate_sockstat},
    {{"net.rpc.nfs"}, "net/rpc/nfs", k_one_record, enumerate_nfs},
    {{"net.rpc.nfsd"}, "net/rpc/nfsd", k_one_record, enumerate_nfsd},
    {{"disk"}, "diskstats", {.key_token = 2}, enumerate_diskstats},
};

} // namespace

bool holds(std::string_view prefix, std::string_view name) noexcept {
  return prefix.empty() || name == prefix ||
         (name.size() > prefix.size() && name.starts_with(prefix) && name[prefix.size()] == '.');
}

std::optional<std::string> missing_source(const Roots& roots, std::string_view name) {
  // The file of the longest prefix that holds the name: kern.schedstat's, not /proc/stat's kern.
  const SourceSpec* source = nullptr;
  std::size_t longest = 0;
  for (const auto& spec : k_global_sources)
    for (std::string_view prefix : spec.prefixes)
      if (!prefix.empty() && holds(prefix, name) && prefix.size() > longest) {
        source = &spec;
        longest = prefix.size();
      }
  if (source == nullptr)
    return std::nullopt;
  std::string path = fmt::format("{}/{}", roots.proc, source->file);
  if (::access(path.c_str(), F_OK) == 0)
    return std::nullopt;
  return fmt::format("this machine has no {}", path);
}

std::vector<Field> find_fields(const Roots& roots, std::string_view prefix) {
  std::vector<Field> out;
  for (const auto& spec : k_global_sources) {
    bool wanted = std::any_of(spec.prefixes.begin(), spec.prefixes.end(),
                              [&](std::string_view p) { return related(prefix, p); });
    if (!wanted)
      continue;
    Emitter emitter(roots, fmt::format("{}/{}", roots.proc, spec.file), spec.layout, prefix, out);
    read_source(spec, spec.prefixes[0], emitter);
  }
  find_sysctl(roots.proc, prefix, out);
  find_pids(roots, prefix, out);
  find_mounts(roots, prefix, out);
  find_cgroups(roots, prefix, out);
  find_timex(roots, prefix, out);
  find_clocksource(roots, prefix, out);
  find_softnet(roots, prefix, out);
  find_icmpmsg(roots, prefix, out);
  find_links(roots, prefix, out);
  find_md(roots, prefix, out);
  find_conntrack(roots, prefix, out);
  find_arp(roots, prefix, out);
  find_udp(roots, prefix, out);
  find_ipvs(roots, prefix, out);
  find_bonding(roots, prefix, out);
  find_hardware(roots, prefix, out);
  find_os_release(roots, prefix, out);
  find_disk_info(roots, prefix, out);
  find_xfs(roots, prefix, out);
  find_btrfs(roots, prefix, out);
  find_zfs(roots, prefix, out);
  find_bcache(roots, prefix, out);
  find_selinux(roots, prefix, out);
  return out;
}

} // namespace opskit::counters
