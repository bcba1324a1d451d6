// SPDX-License-Identifier: MIT
//
// kstat's names as Prometheus metric families. Prometheus's naming rules
// (https://prometheus.io/docs/practices/naming/) ask for one family per kind of thing, a base
// unit named in it, "_total" on counters and labels for what varies; node_exporter's collectors
// (cpu_linux.go, meminfo.go, diskstats_linux.go, netstat_linux.go) fix the names dashboards
// expect, and we follow them under the prefix "kstat_" with two departures: words are
// snake_case throughout (promtool's linter rejects node_memory_MemTotal_bytes' camelCase:
// ours is kstat_memory_mem_total_bytes), and counters end in "_total" where node_exporter's
// vmstat and netstat families are untyped.
//
// The mapping is the table k_rules: a name pattern, the family stem, its labels and what to do
// with the unit. The first row whose pattern matches wins, so specific rows come before general
// ones and the /proc/sys roots, which hold vm.stats and net.snmp's prefixes, come last. A name
// no row matches gets a family named after it, so a kernel's new counters are exported, legally,
// before a row names them well.

#include "opskit/probes/exposition.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "sources.hpp"

namespace opskit::counters {

namespace {

// What a row does with a name's unit.
enum class Units : std::uint8_t {
  base,  // convert to the base unit (milliseconds -> seconds, sectors and KiB -> bytes), named
  keep,  // as the source counts it, not named (node_exporter's vmstat and sysctl families do so)
  scale, // convert to the base unit, not named (node_exporter's power_supply_voltage_max, volts)
};

// What a label's value is written as.
enum class Path : std::uint8_t {
  none,   // the value itself
  cgroup, // a cgroup's name as its path ("system/slice.ssh/service" -> "/system.slice/ssh.service",
          // the root "/"), as /proc/<pid>/cgroup and systemd show it
  mount,  // a mount point's name component as its path ("/mnt/my\040disk\056img" ->
          // "/mnt/my disk.img"), as node_exporter labels it; a ZFS pool's or dataset's likewise
  device, // a device's name component as its name ("eth0/100" -> "eth0.100")
};

// A label's value is "$N", the Nth wildcard of the pattern ("$0": the whole name), or literal
// text.
struct Label {
  std::string_view name;
  std::string_view value;
  Path path = Path::none;
};

struct Rule {
  // Dotted. "*" matches one component; "**" last, the rest (one component or more), and
  // elsewhere as many components as leave the rest of the pattern one each (none or more).
  std::string_view pattern;
  std::string_view stem; // the family name after "kstat_"; "$N" as snake_case; "": left out
  std::array<Label, 2> labels = {};
  Units units = Units::base;
  std::string_view help = {}; // else the first name's description
  // For text: the label the entry's text is the value of, in a sample of value 1 (an
  // annotation, as node_exporter's node_hwmon_chip_names{chip,chip_name} is), or "$N", a
  // wildcard's capture; else text is left out.
  std::string_view text_label = {};
  // For text: a sample for each blank-separated word of it (the clock sources available).
  bool words = false;
  // Untyped, whatever the name's kind: a source that does not say which of its values count and
  // which are levels (ZFS's), served under names that claim neither ("_total" on none).
  bool untyped = false;
};

constexpr std::string_view k_sysctl_help = "Numeric /proc/sys entries, by sysctl name";
constexpr Label k_cpu{"cpu", "$1"};
constexpr Label k_device{"device", "$1", Path::device};
constexpr Label k_cgroup{"cgroup", "$1", Path::cgroup};
constexpr Label k_mountpoint{"mountpoint", "$1", Path::mount};
constexpr Label k_cgroup_device{"device", "$2"};
constexpr std::array<Label, 2> k_pressure{{{"resource", "$1"}, {"kind", "$2"}}};

// The help of a family whose series the names' own descriptions tell apart (guest or niced
// guest, some or full): one line must cover them all.
constexpr std::string_view k_guest_help =
    "Time the CPUs ran guests, also counted in kstat_cpu_seconds_total (mode user; nice for "
    "niced guests)";

constexpr std::string_view k_md_disks_help =
    "Devices of the array by state: active (in sync), failed, spare";
constexpr std::string_view k_csrow_corrected_help =
    "Corrected memory errors by controller and chip-select row (csrow \"unknown\": those no row "
    "was given for)";
constexpr std::string_view k_csrow_uncorrected_help =
    "Uncorrected memory errors by controller and chip-select row (csrow \"unknown\": those no "
    "row was given for)";
constexpr Label k_controller{"controller", "$1"};
constexpr std::string_view k_os_info_help =
    "1, the operating system's os-release(5) variables as labels";
constexpr std::string_view k_network_info_help =
    "1 for each interface, its operational state, addresses, duplex and alias as labels";
constexpr std::string_view k_disk_info_help =
    "1 for each disk udev knows, its numbers, path, WWN, model, serial number and firmware "
    "revision as labels";
constexpr std::string_view k_dmi_info_help =
    "1, the machine's DMI strings (vendor, product, board, chassis, BIOS) as labels";
constexpr Label k_block_group_type{"block_group_type", "$2"};
constexpr std::array<Label, 2> k_btrfs_profile{{k_block_group_type, {"mode", "$3"}}};
constexpr std::string_view k_btrfs_info_help = "1, the Btrfs file system's label as a label";
constexpr std::string_view k_btrfs_used_help =
    "Bytes used in the chunks of each block group type and profile (mode)";
constexpr std::string_view k_btrfs_size_help =
    "Bytes of the chunks of each block group type and profile (mode)";
constexpr std::string_view k_btrfs_errors_help =
    "Errors of each kind on the Btrfs file system's devices, as btrfs device stats counts them";
constexpr std::array<Label, 2> k_port{{k_device, {"port", "$2"}}};
constexpr Label k_fc_host{"fc_host", "$1"};
constexpr Label k_power_supply{"power_supply", "$1", Path::device};
constexpr std::string_view k_power_supply_info_help =
    "1, the power supply's kind, state and make as labels";
constexpr std::string_view k_fibrechannel_info_help =
    "1, the Fibre Channel port's speed, state, type, names and address as labels";
constexpr std::string_view k_infiniband_info_help =
    "1, the InfiniBand card's board, firmware and model as labels";
constexpr std::string_view k_nvme_info_help =
    "1 for each NVMe controller, its firmware revision, model, serial number and state as labels";
constexpr std::string_view k_nfsd_packets_help = "Packets the NFS server received, by protocol";
constexpr std::string_view k_nfsd_errors_help =
    "RPC calls the NFS server rejected: undecodable (fmt), for their credentials (auth), from a "
    "client it does not serve (cInt)";
constexpr std::string_view k_nfsd_requests_help =
    "Calls the NFS server answered by version and procedure; for NFSv4 the operations in its "
    "compounds";
constexpr std::string_view k_nfs_packets_help =
    "Packets the NFS client's RPC layer received, by protocol";
constexpr std::string_view k_nfs_requests_help =
    "Calls the NFS client made, by protocol version and procedure";
// A bcache set by its UUID, and its backing and cache devices by their links' names ("bdev0")
constexpr Label k_bcache_set{"uuid", "$1"};
constexpr std::array<Label, 2> k_backing_device{{k_bcache_set, {"backing_device", "$2"}}};
constexpr std::array<Label, 2> k_cache_device{{k_bcache_set, {"cache_device", "$2"}}};
// A ZFS pool's name, written with octal escapes in kstat's (zfs.cpp) as a mount point's is
constexpr Label k_zpool{"zpool", "$1", Path::mount};
constexpr std::array<Label, 2> k_chip_sensor{{{"chip", "$1"}, {"sensor", "$2"}}};
constexpr std::string_view k_udp_queues_help =
    "Bytes in the UDP sockets' queues, by IP version and queue (tx: to send, rx: received)";

// clang-format off
constexpr Rule k_rules[] = {
    // /proc/stat
    {"cpu.all.*", ""}, // the sum of the CPUs' lines: sum() them
    {"kern.cp_time", ""}, // text: FreeBSD's five numbers in one entry
    {"cpu.*.guest", "cpu_guest", {k_cpu, {"mode", "user"}}, Units::base, k_guest_help},
    {"cpu.*.guest_nice", "cpu_guest", {k_cpu, {"mode", "nice"}}, Units::base, k_guest_help},
    {"cpu.*.*", "cpu", {k_cpu, {"mode", "$2"}}, Units::base, "Time the CPUs spent in each mode"},
    {"kern.ctxt", "context_switches"},
    {"kern.forks", "forks"},
    {"kern.intr", "intr"},
    {"kern.softirq", "softirqs"},
    {"kern.boottime", "boot_time"},
    {"kern.procs_running", "procs_running"},
    {"kern.procs_blocked", "procs_blocked"},
    // /proc/loadavg
    {"kern.loadavg.1", "load1"},
    {"kern.loadavg.5", "load5"},
    {"kern.loadavg.15", "load15"},
    {"kern.loadavg.*", "loadavg_$1"},
    // /proc/vmstat and /proc/meminfo
    {"vm.stats.*", "vmstat_$1", {}, Units::keep},
    {"vm.meminfo.*", "memory_$1"},
    // /proc/net/{snmp,netstat,snmp6}: node_exporter's netstat collector reads all three
    {"net.snmp.*.*", "netstat_$1_$2"},
    {"net.netstat.*.*", "netstat_$1_$2"},
    {"net.snmp6.*", "netstat_$1"},
    // /proc/diskstats
    {"disk.*.reads", "disk_reads_completed", {k_device}},
    {"disk.*.reads_merged", "disk_reads_merged", {k_device}},
    {"disk.*.read_sectors", "disk_read", {k_device}},
    {"disk.*.read_ms", "disk_read_time", {k_device}},
    {"disk.*.writes", "disk_writes_completed", {k_device}},
    {"disk.*.writes_merged", "disk_writes_merged", {k_device}},
    {"disk.*.write_sectors", "disk_written", {k_device}},
    {"disk.*.write_ms", "disk_write_time", {k_device}},
    {"disk.*.in_flight", "disk_io_now", {k_device}},
    {"disk.*.io_ms", "disk_io_time", {k_device}},
    {"disk.*.weighted_io_ms", "disk_io_time_weighted", {k_device}},
    {"disk.*.discards", "disk_discards_completed", {k_device}},
    {"disk.*.discards_merged", "disk_discards_merged", {k_device}},
    // in sectors of 512 bytes, as node_exporter counts them (its one disk family not in bytes)
    {"disk.*.discard_sectors", "disk_discarded_sectors", {k_device}, Units::keep},
    {"disk.*.discard_ms", "disk_discard_time", {k_device}},
    {"disk.*.flushes", "disk_flush_requests", {k_device}},
    {"disk.*.flush_ms", "disk_flush_requests_time", {k_device}},
    // udev's properties of a disk, in one annotation, as node_exporter's node_disk_info
    {"disk.*.path", "disk_info", {k_device}, Units::keep, k_disk_info_help, "path"},
    {"disk.*.wwn", "disk_info", {k_device}, Units::keep, k_disk_info_help, "wwn"},
    {"disk.*.model", "disk_info", {k_device}, Units::keep, k_disk_info_help, "model"},
    {"disk.*.serial", "disk_info", {k_device}, Units::keep, k_disk_info_help, "serial"},
    {"disk.*.revision", "disk_info", {k_device}, Units::keep, k_disk_info_help, "revision"},
    {"disk.*.*", "disk_$2", {k_device}},
    // /proc/<pid>/{stat,status,io}
    {"proc.*.**", "process_$2", {{{"pid", "$1"}}}},
    // /proc/pressure/{cpu,memory,io,irq}: node_exporter's pressure collector has the totals only,
    // named as it names them; the averages, which it leaves out, with labels
    {"kern.pressure.*.some.total", "pressure_$1_waiting", {}, Units::base,
     "Time at least one task waited on the resource (pressure some), in seconds"},
    {"kern.pressure.*.full.total", "pressure_$1_stalled", {}, Units::base,
     "Time all non-idle tasks stalled on the resource at once (pressure full), in seconds"},
    {"kern.pressure.*.*.avg10", "pressure_avg10", k_pressure, Units::keep,
     "Share of the last 10 seconds tasks stalled on the resource, in percent "
     "(kind some: at least one task; full: all non-idle tasks at once)"},
    {"kern.pressure.*.*.avg60", "pressure_avg60", k_pressure, Units::keep,
     "Share of the last 60 seconds tasks stalled on the resource, in percent "
     "(kind some: at least one task; full: all non-idle tasks at once)"},
    {"kern.pressure.*.*.avg300", "pressure_avg300", k_pressure, Units::keep,
     "Share of the last 300 seconds tasks stalled on the resource, in percent "
     "(kind some: at least one task; full: all non-idle tasks at once)"},
    {"kern.pressure.*.*.*", "pressure_$3", k_pressure, Units::keep},
    // /proc/softirqs, /proc/interrupts, /proc/sys/fs/file-nr
    {"kern.softirqs.*.all", ""}, // the sum of the CPUs: sum() them
    {"kern.softirqs.*.*", "softirqs_functions", {{{"type", "$1"}, {"cpu", "$2"}}}, Units::keep,
     "Softirqs run, by type and CPU"},
    {"kern.interrupts.*", "interrupts", {{{"irq", "$1"}}}, Units::keep,
     "Interrupts serviced, summed over the CPUs, by IRQ number or the kernel's name for the kind "
     "(LOC, RES, ...)"},
    // /proc/schedstat: node_exporter's schedstat collector
    {"kern.schedstat.*.timeslices", "schedstat_timeslices", {k_cpu}, Units::keep},
    {"kern.schedstat.*.*", "schedstat_$2", {k_cpu}},
    {"kern.openfiles", "filefd_allocated", {}, Units::keep},
    {"kern.maxfiles", "filefd_maximum", {}, Units::keep},
    // adjtimex(2): node_exporter's timex collector
    {"kern.timex.sync", "timex_sync_status", {}, Units::keep},
    {"kern.timex.frequency_ratio", "timex_frequency_adjustment_ratio", {}, Units::keep},
    {"kern.timex.esterror", "timex_estimated_error"},
    {"kern.timex.constant", "timex_loop_time_constant", {}, Units::keep},
    {"kern.timex.tai", "timex_tai_offset"},
    {"kern.timex.pps_frequency", "timex_pps_frequency_hertz", {}, Units::keep},
    {"kern.timex.pps_stability", "timex_pps_stability_hertz", {}, Units::keep},
    {"kern.timex.pps_shift", "timex_pps_shift_seconds", {}, Units::keep},
    {"kern.timex.pps_jitter_count", "timex_pps_jitter", {}, Units::keep},
    {"kern.timex.pps_calibrations", "timex_pps_calibration", {}, Units::keep},
    {"kern.timex.pps_errors", "timex_pps_error", {}, Units::keep},
    {"kern.timex.*", "timex_$1"},
    // SELinux: node_exporter's selinux collector
    {"kern.selinux.*", "selinux_$1", {}, Units::keep},
    // the clock's source: node_exporter's time collector
    {"kern.clocksource.*.current", "time_clocksource_current_info", {{{"device", "$1"}}},
     Units::keep, "1 for the clock source the kernel keeps time by", "clocksource"},
    {"kern.clocksource.*.available", "time_clocksource_available_info", {{{"device", "$1"}}},
     Units::keep, "1 for each clock source the kernel could keep time by", "clocksource", true},
    // /proc/net/sockstat and sockstat6: node_exporter's sockstat collector
    {"net.sockstat.*.*", "sockstat_$1_$2"},
    {"net.sockstat6.*.*", "sockstat_$1_$2"},
    // rtnetlink's links: node_exporter's netclass collector
    {"net.link.*.up", "network_up", {k_device}, Units::keep},
    {"net.link.*.mtu", "network_mtu", {k_device}},
    {"net.link.*.speed", "network_speed", {k_device}},
    {"net.link.*.tx_queue_len", "network_transmit_queue_length", {k_device}, Units::keep},
    {"net.link.*.carrier_up_count", "network_carrier_up_changes", {k_device}, Units::keep},
    {"net.link.*.carrier_down_count", "network_carrier_down_changes", {k_device}, Units::keep},
    {"net.link.*.type", "network_protocol_type", {k_device}, Units::keep},
    // ip link's flags, IFF_RUNNING and IFF_LOWER_UP among them: not /sys/class/net's, which
    // node_exporter's node_network_flags serves
    {"net.link.*.flags", "network_link_flags", {k_device}, Units::keep},
    // the text ones in one annotation, as node_exporter's node_network_info
    {"net.link.*.operstate", "network_info", {k_device}, Units::keep, k_network_info_help,
     "operstate"},
    {"net.link.*.address", "network_info", {k_device}, Units::keep, k_network_info_help, "address"},
    {"net.link.*.broadcast", "network_info", {k_device}, Units::keep, k_network_info_help,
     "broadcast"},
    {"net.link.*.duplex", "network_info", {k_device}, Units::keep, k_network_info_help, "duplex"},
    {"net.link.*.alias", "network_info", {k_device}, Units::keep, k_network_info_help, "ifalias"},
    {"net.link.*.*", "network_$2", {k_device}, Units::keep},
    // /proc/mdstat: node_exporter's mdadm collector
    {"md.*.disks_required", "md_disks_required", {k_device}, Units::keep},
    {"md.*.disks_active", "md_disks", {k_device, {"state", "active"}}, Units::keep, k_md_disks_help},
    {"md.*.disks_failed", "md_disks", {k_device, {"state", "failed"}}, Units::keep, k_md_disks_help},
    {"md.*.disks_spare", "md_disks", {k_device, {"state", "spare"}}, Units::keep, k_md_disks_help},
    {"md.*.blocks", "md_blocks", {k_device}, Units::keep},
    {"md.*.blocks_synced", "md_blocks_synced", {k_device}, Units::keep},
    {"md.*.*", "md_state", {k_device, {"state", "$2"}}, Units::keep,
     "1 for the array's state (active, inactive, recovering, resync, check), 0 for the others"},
    // /proc/net/arp: node_exporter's arp collector
    {"net.arp.*.entries", "arp_entries", {k_device}, Units::keep},
    // /sys/class/net's bonds: node_exporter's bonding collector
    {"net.bonding.*.*", "bonding_$2", {{{"master", "$1", Path::device}}}, Units::keep},
    // /proc/net/udp and udp6: node_exporter's udp_queues collector
    {"net.udp.queues.*", "udp_queues", {{{"ip", "v4"}, {"queue", "$1"}}}, Units::keep,
     k_udp_queues_help},
    {"net.udp6.queues.*", "udp_queues", {{{"ip", "v6"}, {"queue", "$1"}}}, Units::keep,
     k_udp_queues_help},
    // /proc/net/rpc/nfs: node_exporter's nfs collector; packets by protocol, not summed
    {"net.rpc.nfs.net.packets", ""},
    {"net.rpc.nfs.net.udp", "nfs_packets", {{{"protocol", "udp"}}}, Units::keep, k_nfs_packets_help},
    {"net.rpc.nfs.net.tcp", "nfs_packets", {{{"protocol", "tcp"}}}, Units::keep, k_nfs_packets_help},
    {"net.rpc.nfs.net.tcp_connections", "nfs_connections", {}, Units::keep},
    {"net.rpc.nfs.rpc.calls", "nfs_rpcs", {}, Units::keep},
    {"net.rpc.nfs.rpc.retransmissions", "nfs_rpc_retransmissions", {}, Units::keep},
    {"net.rpc.nfs.rpc.auth_refreshes", "nfs_rpc_authentication_refreshes", {}, Units::keep},
    {"net.rpc.nfs.v2.*", "nfs_requests", {{{"method", "$1"}, {"proto", "2"}}}, Units::keep,
     k_nfs_requests_help},
    {"net.rpc.nfs.v3.*", "nfs_requests", {{{"method", "$1"}, {"proto", "3"}}}, Units::keep,
     k_nfs_requests_help},
    {"net.rpc.nfs.v4.*", "nfs_requests", {{{"method", "$1"}, {"proto", "4"}}}, Units::keep,
     k_nfs_requests_help},
    // /proc/net/rpc/nfsd: node_exporter's nfsd collector, whose proto 4 is the operations
    {"net.rpc.nfsd.rc.hits", "nfsd_reply_cache_hits", {}, Units::keep},
    {"net.rpc.nfsd.rc.misses", "nfsd_reply_cache_misses", {}, Units::keep},
    {"net.rpc.nfsd.rc.nocache", "nfsd_reply_cache_nocache", {}, Units::keep},
    {"net.rpc.nfsd.fh.stale", "nfsd_file_handles_stale", {}, Units::keep},
    {"net.rpc.nfsd.io.read", "nfsd_disk_bytes_read", {}, Units::keep},
    {"net.rpc.nfsd.io.write", "nfsd_disk_bytes_written", {}, Units::keep},
    {"net.rpc.nfsd.th.threads", "nfsd_server_threads", {}, Units::keep},
    {"net.rpc.nfsd.ra.size", "nfsd_read_ahead_cache_size_blocks", {}, Units::keep},
    {"net.rpc.nfsd.ra.not_found", "nfsd_read_ahead_cache_not_found", {}, Units::keep},
    {"net.rpc.nfsd.net.packets", ""},
    {"net.rpc.nfsd.net.udp", "nfsd_packets", {{{"proto", "udp"}}}, Units::keep,
     k_nfsd_packets_help},
    {"net.rpc.nfsd.net.tcp", "nfsd_packets", {{{"proto", "tcp"}}}, Units::keep,
     k_nfsd_packets_help},
    {"net.rpc.nfsd.net.tcp_connections", "nfsd_connections", {}, Units::keep},
    {"net.rpc.nfsd.rpc.calls", "nfsd_server_rpcs", {}, Units::keep},
    {"net.rpc.nfsd.rpc.bad", ""},
    {"net.rpc.nfsd.rpc.bad_format", "nfsd_rpc_errors", {{{"error", "fmt"}}}, Units::keep,
     k_nfsd_errors_help},
    {"net.rpc.nfsd.rpc.bad_auth", "nfsd_rpc_errors", {{{"error", "auth"}}}, Units::keep,
     k_nfsd_errors_help},
    {"net.rpc.nfsd.rpc.bad_client", "nfsd_rpc_errors", {{{"error", "cInt"}}}, Units::keep,
     k_nfsd_errors_help},
    {"net.rpc.nfsd.v2.*", "nfsd_requests", {{{"method", "$1"}, {"proto", "2"}}}, Units::keep,
     k_nfsd_requests_help},
    {"net.rpc.nfsd.v3.*", "nfsd_requests", {{{"method", "$1"}, {"proto", "3"}}}, Units::keep,
     k_nfsd_requests_help},
    {"net.rpc.nfsd.v4ops.*", "nfsd_requests", {{{"method", "$1"}, {"proto", "4"}}}, Units::keep,
     k_nfsd_requests_help},
    {"net.rpc.nfsd.v4.*", "nfsd_v4_rpcs", {{{"method", "$1"}}}, Units::keep,
     "NFSv4 calls the server answered: Null, and Compound, each of one operation or more"},
    // /proc/net/ip_vs_stats and ip_vs: node_exporter's ipvs collector
    {"net.ipvs.total.connections", "ipvs_connections", {}, Units::keep},
    {"net.ipvs.total.incoming_packets", "ipvs_incoming_packets", {}, Units::keep},
    {"net.ipvs.total.outgoing_packets", "ipvs_outgoing_packets", {}, Units::keep},
    {"net.ipvs.total.incoming_bytes", "ipvs_incoming_bytes", {}, Units::keep},
    {"net.ipvs.total.outgoing_bytes", "ipvs_outgoing_bytes", {}, Units::keep},
    {"net.ipvs.backend.*.weight", "ipvs_backend_weight", {}, Units::keep},
    {"net.ipvs.backend.*.active", "ipvs_backend_connections_active", {}, Units::keep},
    {"net.ipvs.backend.*.inactive", "ipvs_backend_connections_inactive", {}, Units::keep},
    // <sys>/class/scsi_tape: node_exporter's tapestats collector
    {"hw.tape.*.in_flight", "tape_io_now", {k_device}, Units::keep},
    {"hw.tape.*.io_ns", "tape_io_time", {k_device}},
    {"hw.tape.*.other_cnt", "tape_io_others", {k_device}, Units::keep},
    {"hw.tape.*.read_byte_cnt", "tape_read", {k_device}},
    {"hw.tape.*.read_cnt", "tape_reads_completed", {k_device}, Units::keep},
    {"hw.tape.*.read_ns", "tape_read_time", {k_device}},
    {"hw.tape.*.resid_cnt", "tape_residual", {k_device}, Units::keep},
    {"hw.tape.*.write_byte_cnt", "tape_written", {k_device}},
    {"hw.tape.*.write_cnt", "tape_writes_completed", {k_device}, Units::keep},
    {"hw.tape.*.write_ns", "tape_write_time", {k_device}},
    // <sys>/class/fc_host: node_exporter's fibrechannel collector, whose info leaves out the
    // node's name
    {"hw.fibrechannel.*.speed", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "speed"},
    {"hw.fibrechannel.*.port_state", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "port_state"},
    {"hw.fibrechannel.*.port_type", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "port_type"},
    {"hw.fibrechannel.*.symbolic_name", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "symbolic_name"},
    {"hw.fibrechannel.*.port_id", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "port_id"},
    {"hw.fibrechannel.*.port_name", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "port_name"},
    {"hw.fibrechannel.*.fabric_name", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "fabric_name"},
    {"hw.fibrechannel.*.dev_loss_tmo", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "dev_loss_tmo"},
    {"hw.fibrechannel.*.supported_classes", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "supported_classes"},
    {"hw.fibrechannel.*.supported_speeds", "fibrechannel_info", {k_fc_host}, Units::keep,
     k_fibrechannel_info_help, "supported_speeds"},
    {"hw.fibrechannel.*.node_name", ""},
    {"hw.fibrechannel.*.invalid_crc_count", "fibrechannel_invalid_crc", {k_fc_host}, Units::keep},
    {"hw.fibrechannel.*.invalid_tx_word_count", "fibrechannel_invalid_tx_words", {k_fc_host},
     Units::keep},
    {"hw.fibrechannel.*.link_failure_count", "fibrechannel_link_failure", {k_fc_host}, Units::keep},
    {"hw.fibrechannel.*.loss_of_sync_count", "fibrechannel_loss_of_sync", {k_fc_host}, Units::keep},
    {"hw.fibrechannel.*.loss_of_signal_count", "fibrechannel_loss_of_signal", {k_fc_host},
     Units::keep},
    {"hw.fibrechannel.*.nos_count", "fibrechannel_nos", {k_fc_host}, Units::keep},
    {"hw.fibrechannel.*.*", "fibrechannel_$2", {k_fc_host}, Units::keep},
    // <sys>/class/power_supply: node_exporter's powersupplyclass collector. Its names without a
    // unit keep their values in volts, amperes, watt-hours and ampere-hours; those with one are
    // named in the plural (power_watt: power_watts), and its charge_ampere in ampere-hours
    {"hw.power_supply.*.type", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "type"},
    {"hw.power_supply.*.status", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "status"},
    {"hw.power_supply.*.capacity_level", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "capacity_level"},
    {"hw.power_supply.*.charge_type", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "charge_type"},
    {"hw.power_supply.*.health", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "health"},
    {"hw.power_supply.*.technology", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "technology"},
    {"hw.power_supply.*.manufacturer", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "manufacturer"},
    {"hw.power_supply.*.model_name", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "model_name"},
    {"hw.power_supply.*.serial_number", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "serial_number"},
    {"hw.power_supply.*.usb_type", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "usb_type"},
    {"hw.power_supply.*.scope", "power_supply_info", {k_power_supply}, Units::keep,
     k_power_supply_info_help, "scope"},
    {"hw.power_supply.*.cycle_count", "power_supply_cyclecount", {k_power_supply}, Units::keep},
    {"hw.power_supply.*.time_to_empty_now", "power_supply_time_to_empty", {k_power_supply}},
    {"hw.power_supply.*.time_to_full_now", "power_supply_time_to_full", {k_power_supply}},
    {"hw.power_supply.*.voltage_now", "power_supply_voltage", {k_power_supply}},
    {"hw.power_supply.*.current_now", "power_supply_current", {k_power_supply}},
    {"hw.power_supply.*.power_now", "power_supply_power", {k_power_supply}},
    {"hw.power_supply.*.energy_now", "power_supply_energy", {k_power_supply}},
    {"hw.power_supply.*.charge_now", "power_supply_charge", {k_power_supply}},
    {"hw.power_supply.*.temp", "power_supply_temp", {k_power_supply}},
    {"hw.power_supply.*.temp_alert_max", "power_supply_temp_alert_max", {k_power_supply}},
    {"hw.power_supply.*.temp_alert_min", "power_supply_temp_alert_min", {k_power_supply}},
    {"hw.power_supply.*.temp_ambient", "power_supply_temp_ambient", {k_power_supply}},
    {"hw.power_supply.*.temp_ambient_max", "power_supply_temp_ambient_max", {k_power_supply}},
    {"hw.power_supply.*.temp_ambient_min", "power_supply_temp_ambient_min", {k_power_supply}},
    {"hw.power_supply.*.temp_max", "power_supply_temp_max", {k_power_supply}},
    {"hw.power_supply.*.temp_min", "power_supply_temp_min", {k_power_supply}},
    {"hw.power_supply.*.*", "power_supply_$2", {k_power_supply}, Units::scale},
    // <sys>/class/infiniband: node_exporter's infiniband collector
    {"hw.infiniband.*.board_id", "infiniband_info", {k_device}, Units::keep, k_infiniband_info_help,
     "board_id"},
    {"hw.infiniband.*.fw_ver", "infiniband_info", {k_device}, Units::keep, k_infiniband_info_help,
     "firmware_version"},
    {"hw.infiniband.*.hca_type", "infiniband_info", {k_device}, Units::keep,
     k_infiniband_info_help, "hca_type"},
    {"hw.infiniband.*.*.state", "infiniband_state_id", k_port, Units::keep},
    {"hw.infiniband.*.*.phys_state", "infiniband_physical_state_id", k_port, Units::keep},
    {"hw.infiniband.*.*.rate", "infiniband_rate", k_port},
    {"hw.infiniband.*.*.multicast_rcv_packets", "infiniband_multicast_packets_received", k_port,
     Units::keep},
    {"hw.infiniband.*.*.multicast_xmit_packets", "infiniband_multicast_packets_transmitted", k_port,
     Units::keep},
    {"hw.infiniband.*.*.port_rcv_constraint_errors",
     "infiniband_port_constraint_errors_received", k_port, Units::keep},
    {"hw.infiniband.*.*.port_xmit_constraint_errors",
     "infiniband_port_constraint_errors_transmitted", k_port, Units::keep},
    {"hw.infiniband.*.*.port_rcv_data", "infiniband_port_data_received", k_port},
    {"hw.infiniband.*.*.port_xmit_data", "infiniband_port_data_transmitted", k_port},
    {"hw.infiniband.*.*.port_rcv_discards", "infiniband_port_discards_received", k_port,
     Units::keep},
    {"hw.infiniband.*.*.port_xmit_discards", "infiniband_port_discards_transmitted", k_port,
     Units::keep},
    {"hw.infiniband.*.*.port_rcv_errors", "infiniband_port_errors_received", k_port, Units::keep},
    {"hw.infiniband.*.*.port_rcv_packets", "infiniband_port_packets_received", k_port,
     Units::keep},
    {"hw.infiniband.*.*.port_xmit_packets", "infiniband_port_packets_transmitted", k_port,
     Units::keep},
    {"hw.infiniband.*.*.port_rcv_remote_physical_errors",
     "infiniband_port_receive_remote_physical_errors", k_port, Units::keep},
    {"hw.infiniband.*.*.port_rcv_switch_relay_errors",
     "infiniband_port_receive_switch_relay_errors", k_port, Units::keep},
    {"hw.infiniband.*.*.port_xmit_wait", "infiniband_port_transmit_wait", k_port, Units::keep},
    {"hw.infiniband.*.*.unicast_rcv_packets", "infiniband_unicast_packets_received", k_port,
     Units::keep},
    {"hw.infiniband.*.*.unicast_xmit_packets", "infiniband_unicast_packets_transmitted", k_port,
     Units::keep},
    {"hw.infiniband.*.*.VL15_dropped", "infiniband_vl15_dropped", k_port, Units::keep},
    {"hw.infiniband.*.*.*", "infiniband_$3", k_port, Units::keep},
    // <sys>/fs/xfs/<device>/stats/stats: node_exporter's xfs collector; its vnode_active_total
    // is a level, served as the gauge it is
    {"xfs.*.extent_alloc.*", "xfs_extent_allocation_$2", {k_device}, Units::keep},
    {"xfs.*.abt.*", "xfs_allocation_btree_$2", {k_device}, Units::keep},
    {"xfs.*.blk_map.*", "xfs_block_mapping_$2", {k_device}, Units::keep},
    {"xfs.*.bmbt.*", "xfs_block_map_btree_$2", {k_device}, Units::keep},
    {"xfs.*.dir.*", "xfs_directory_operation_$2", {k_device}, Units::keep},
    {"xfs.*.ig.*", "xfs_inode_operation_$2", {k_device}, Units::keep},
    {"xfs.*.rw.*", "xfs_$2", {k_device}, Units::keep},
    {"xfs.*.vnodes.*", "xfs_vnode_$2", {k_device}, Units::keep},
    {"xfs.*.xpc.*", "xfs_$2", {k_device}, Units::keep},
    {"xfs.*.*.*", "xfs_$2_$3", {k_device}, Units::keep},
    // <sys>/fs/btrfs and a mount point's ioctls: node_exporter's btrfs collector, and the
    // commit statistics of its later versions; the files it does not serve as btrfs_allocation_*
    {"btrfs.*.label", "btrfs_info", {}, Units::keep, k_btrfs_info_help, "label"},
    {"btrfs.*.allocation.global_rsv_size", "btrfs_global_rsv_size"},
    {"btrfs.*.allocation.global_rsv_reserved", "btrfs_global_rsv_reserved"},
    {"btrfs.*.allocation.*.bytes_reserved", "btrfs_reserved", {k_block_group_type}},
    {"btrfs.*.allocation.*.*.used_bytes", "btrfs_used", k_btrfs_profile, Units::base,
     k_btrfs_used_help},
    {"btrfs.*.allocation.*.*.total_bytes", "btrfs_size", k_btrfs_profile, Units::base,
     k_btrfs_size_help},
    {"btrfs.*.allocation.*.bytes_used", "btrfs_allocation_used", {k_block_group_type}},
    {"btrfs.*.allocation.*.total_bytes", "btrfs_allocation_size", {k_block_group_type}},
    {"btrfs.*.allocation.*.bytes_may_use", "btrfs_allocation_may_use", {k_block_group_type}},
    {"btrfs.*.allocation.*.bytes_pinned", "btrfs_allocation_pinned", {k_block_group_type}},
    {"btrfs.*.allocation.*.bytes_readonly", "btrfs_allocation_readonly", {k_block_group_type}},
    {"btrfs.*.allocation.*.disk_used", "btrfs_allocation_disk_used", {k_block_group_type}},
    {"btrfs.*.allocation.*.disk_total", "btrfs_allocation_disk_size", {k_block_group_type}},
    {"btrfs.*.commit_stats.commits", "btrfs_commits", {}, Units::keep},
    {"btrfs.*.commit_stats.total_commit_ms", "btrfs_commit"},
    {"btrfs.*.commit_stats.last_commit_ms", "btrfs_last_commit"},
    {"btrfs.*.commit_stats.max_commit_ms", "btrfs_max_commit"},
    {"btrfs.*.commit_stats.cur_commit_ms", "btrfs_current_commit"},
    {"btrfs.*.device.*.size", "btrfs_device_size"},
    {"btrfs.*.device.*.used", "btrfs_device_used"},
    {"btrfs.*.device.*.unused", "btrfs_device_unused"},
    {"btrfs.*.device.*.write_errs", "btrfs_device_errors", {{{"type", "write"}}}, Units::keep,
     k_btrfs_errors_help},
    {"btrfs.*.device.*.read_errs", "btrfs_device_errors", {{{"type", "read"}}}, Units::keep,
     k_btrfs_errors_help},
    {"btrfs.*.device.*.flush_errs", "btrfs_device_errors", {{{"type", "flush"}}}, Units::keep,
     k_btrfs_errors_help},
    {"btrfs.*.device.*.corruption_errs", "btrfs_device_errors", {{{"type", "corruption"}}},
     Units::keep, k_btrfs_errors_help},
    {"btrfs.*.device.*.generation_errs", "btrfs_device_errors", {{{"type", "generation"}}},
     Units::keep, k_btrfs_errors_help},
    // <sys>/fs/bcache: node_exporter's bcache collector; the set's own period statistics are
    // the sums of its backing devices', and writeback_rate_debug's dirty is dirty_data again
    {"bcache.*.stats_total.*", ""},
    {"bcache.*.internal.btree_read_average_duration_us", "bcache_btree_read_average_duration",
     {k_bcache_set}},
    {"bcache.*.internal.*", "bcache_$2", {k_bcache_set}, Units::keep},
    {"bcache.*.average_key_size", "bcache_average_key_size_sectors", {k_bcache_set}, Units::keep},
    {"bcache.*.btree_cache_size", "bcache_btree_cache_size", {k_bcache_set}},
    {"bcache.*.*.writeback_rate_debug.target", "bcache_dirty_target", k_backing_device},
    {"bcache.*.*.writeback_rate_debug.rate", "bcache_writeback_rate", k_backing_device,
     Units::keep},
    {"bcache.*.*.writeback_rate_debug.proportional", "bcache_writeback_rate_proportional_term",
     k_backing_device, Units::keep},
    {"bcache.*.*.writeback_rate_debug.integral", "bcache_writeback_rate_integral_term",
     k_backing_device, Units::keep},
    {"bcache.*.*.writeback_rate_debug.change", "bcache_writeback_change", k_backing_device,
     Units::keep},
    {"bcache.*.*.writeback_rate_debug.*", ""},
    {"bcache.*.*.dirty_data", "bcache_dirty_data", k_backing_device},
    {"bcache.*.*.stats_total.bypassed", "bcache_bypassed", k_backing_device},
    {"bcache.*.*.stats_total.*", "bcache_$3", k_backing_device, Units::keep},
    {"bcache.*.*.io_errors", "bcache_io_errors", k_cache_device, Units::keep},
    {"bcache.*.*.metadata_written", "bcache_metadata_written", k_cache_device},
    {"bcache.*.*.written", "bcache_written", k_cache_device},
    {"bcache.*.*", "bcache_$2", {k_bcache_set}, Units::keep},
    // <proc>/spl/kstat/zfs: node_exporter's zfs collector, untyped as it serves them
    {.pattern = "zfs.pool.*.state.*", .stem = "zfs_zpool_state",
     .labels = {{k_zpool, {"state", "$2"}}}, .units = Units::keep,
     .help = "1 for the pool's state, 0 for the others"},
    {.pattern = "zfs.pool.*.io.*", .stem = "zfs_zpool_$2", .labels = {k_zpool},
     .units = Units::keep, .untyped = true},
    {.pattern = "zfs.pool.*.dataset.*.*", .stem = "zfs_zpool_dataset_$3",
     .labels = {{k_zpool, {"dataset", "$2", Path::mount}}}, .units = Units::keep, .untyped = true},
    {.pattern = "zfs.*.*", .stem = "zfs_$1_$2", .units = Units::keep, .untyped = true},
    // /proc/net/softnet_stat: node_exporter's softnet collector
    {"net.softnet.*.time_squeeze", "softnet_times_squeezed", {k_cpu}, Units::keep},
    {"net.softnet.*.*", "softnet_$2", {k_cpu}, Units::keep},
    // /proc/net/dev, node_exporter's sixteen families; the statistics files' other counters
    {"net.dev.*.rx_bytes", "network_receive_bytes", {k_device}},
    {"net.dev.*.rx_packets", "network_receive_packets", {k_device}, Units::keep},
    {"net.dev.*.rx_errors", "network_receive_errs", {k_device}, Units::keep},
    {"net.dev.*.rx_drop", "network_receive_drop", {k_device}, Units::keep},
    {"net.dev.*.rx_fifo_errors", "network_receive_fifo", {k_device}, Units::keep},
    {"net.dev.*.rx_frame", "network_receive_frame", {k_device}, Units::keep},
    {"net.dev.*.rx_compressed", "network_receive_compressed", {k_device}, Units::keep},
    {"net.dev.*.multicast", "network_receive_multicast", {k_device}, Units::keep},
    {"net.dev.*.tx_bytes", "network_transmit_bytes", {k_device}},
    {"net.dev.*.tx_packets", "network_transmit_packets", {k_device}, Units::keep},
    {"net.dev.*.tx_errors", "network_transmit_errs", {k_device}, Units::keep},
    {"net.dev.*.tx_dropped", "network_transmit_drop", {k_device}, Units::keep},
    {"net.dev.*.tx_fifo_errors", "network_transmit_fifo", {k_device}, Units::keep},
    {"net.dev.*.collisions", "network_transmit_colls", {k_device}, Units::keep},
    {"net.dev.*.tx_carrier", "network_transmit_carrier", {k_device}, Units::keep},
    {"net.dev.*.tx_compressed", "network_transmit_compressed", {k_device}, Units::keep},
    {"net.dev.*.rx_nohandler", "network_receive_nohandler", {k_device}, Units::keep},
    {"net.dev.*.*", "network_$2", {k_device}, Units::keep},
    // cgroup v2: each cgroup a label; cpu.stat's microseconds as seconds, as cAdvisor names them
    {"cgroup.**.cpu/stat.usage_usec", "cgroup_cpu_usage", {k_cgroup}},
    {"cgroup.**.cpu/stat.user_usec", "cgroup_cpu_user", {k_cgroup}},
    {"cgroup.**.cpu/stat.system_usec", "cgroup_cpu_system", {k_cgroup}},
    {"cgroup.**.cpu/stat.nice_usec", "cgroup_cpu_nice", {k_cgroup}},
    {"cgroup.**.cpu/stat.nr_periods", "cgroup_cpu_periods", {k_cgroup}, Units::keep},
    {"cgroup.**.cpu/stat.nr_throttled", "cgroup_cpu_throttled_periods", {k_cgroup}, Units::keep},
    {"cgroup.**.cpu/stat.throttled_usec", "cgroup_cpu_throttled", {k_cgroup}},
    {"cgroup.**.cpu/stat.nr_bursts", "cgroup_cpu_bursts", {k_cgroup}, Units::keep},
    {"cgroup.**.cpu/stat.burst_usec", "cgroup_cpu_burst", {k_cgroup}},
    {"cgroup.**.cpu/stat.core_sched/force_idle_usec", "cgroup_cpu_core_sched_force_idle", {k_cgroup}},
    {"cgroup.**.cpu/stat.*", "cgroup_cpu_$2", {k_cgroup}},
    {"cgroup.**.memory/current", "cgroup_memory_current", {k_cgroup}},
    {"cgroup.**.memory/stat.*", "cgroup_memory_$2", {k_cgroup}},
    {"cgroup.**.pids/current", "cgroup_pids_current", {k_cgroup}, Units::keep},
    {"cgroup.**.io/stat.*.rbytes", "cgroup_io_read", {k_cgroup, k_cgroup_device}},
    {"cgroup.**.io/stat.*.wbytes", "cgroup_io_written", {k_cgroup, k_cgroup_device}},
    {"cgroup.**.io/stat.*.dbytes", "cgroup_io_discarded", {k_cgroup, k_cgroup_device}},
    {"cgroup.**.io/stat.*.rios", "cgroup_io_reads", {k_cgroup, k_cgroup_device}, Units::keep},
    {"cgroup.**.io/stat.*.wios", "cgroup_io_writes", {k_cgroup, k_cgroup_device}, Units::keep},
    {"cgroup.**.io/stat.*.dios", "cgroup_io_discards", {k_cgroup, k_cgroup_device}, Units::keep},
    {"cgroup.**.io/stat.*.cost/vrate", "cgroup_io_cost_vrate_percent", {k_cgroup, k_cgroup_device}, Units::keep},
    {"cgroup.**.io/stat.*.cost/*", "cgroup_io_$3", {k_cgroup, k_cgroup_device}},
    {"cgroup.**.io/stat.*.avg_lat", "cgroup_io_latency_average", {k_cgroup, k_cgroup_device}},
    {"cgroup.**.io/stat.*.win", "cgroup_io_latency_window", {k_cgroup, k_cgroup_device}},
    {"cgroup.**.io/stat.*.*", "cgroup_io_$3", {k_cgroup, k_cgroup_device}, Units::keep},
    // statfs of each mount point
    {"fs.mount.*.size", "filesystem_size", {k_mountpoint}},
    {"fs.mount.*.free", "filesystem_free", {k_mountpoint}},
    {"fs.mount.*.avail", "filesystem_avail", {k_mountpoint}},
    {"fs.mount.*.readonly", "filesystem_readonly", {k_mountpoint}, Units::keep},
    {"fs.mount.*.*", "filesystem_$2", {k_mountpoint}, Units::keep},
    // /proc/net/stat/nf_conntrack: node_exporter's conntrack collector; the table's size is
    // nf_conntrack_count's, below
    {"net.conntrack.entries", ""},
    {"net.conntrack.*", "nf_conntrack_stat_$1", {}, Units::keep},
    // /proc/sys entries that node_exporter's conntrack collector exports by name
    {"net.netfilter.nf_conntrack_count", "nf_conntrack_entries", {}, Units::keep,
     "Connections in the conntrack table"},
    {"net.netfilter.nf_conntrack_max", "nf_conntrack_entries_limit", {}, Units::keep,
     "Connections the conntrack table holds at most"},
    // sysfs: node_exporter's edac and thermal_zone collectors
    {"hw.edac.*.ce_count", "edac_correctable_errors", {k_controller}, Units::keep},
    {"hw.edac.*.ue_count", "edac_uncorrectable_errors", {k_controller}, Units::keep},
    {"hw.edac.*.ce_noinfo_count", "edac_csrow_correctable_errors",
     {k_controller, {"csrow", "unknown"}}, Units::keep, k_csrow_corrected_help},
    {"hw.edac.*.ue_noinfo_count", "edac_csrow_uncorrectable_errors",
     {k_controller, {"csrow", "unknown"}}, Units::keep, k_csrow_uncorrected_help},
    {"hw.edac.*.csrow.*.ce_count", "edac_csrow_correctable_errors", {k_controller, {"csrow", "$2"}},
     Units::keep, k_csrow_corrected_help},
    {"hw.edac.*.csrow.*.ue_count", "edac_csrow_uncorrectable_errors",
     {k_controller, {"csrow", "$2"}}, Units::keep, k_csrow_uncorrected_help},
    {"hw.thermal.zone.*.temp", "thermal_zone_temp", {{{"zone", "$1"}}}},
    {"hw.thermal.cooling.*.*", "cooling_device_$2", {{{"name", "$1"}}}, Units::keep},
    // node_exporter's cpufreq collector; the governor as the newer ones serve it, but only the
    // one in use
    {"hw.cpufreq.*.cpuinfo_cur_freq", "cpu_frequency", {k_cpu}},
    {"hw.cpufreq.*.cpuinfo_min_freq", "cpu_frequency_min", {k_cpu}},
    {"hw.cpufreq.*.cpuinfo_max_freq", "cpu_frequency_max", {k_cpu}},
    {"hw.cpufreq.*.scaling_cur_freq", "cpu_scaling_frequency", {k_cpu}},
    {"hw.cpufreq.*.scaling_min_freq", "cpu_scaling_frequency_min", {k_cpu}},
    {"hw.cpufreq.*.scaling_max_freq", "cpu_scaling_frequency_max", {k_cpu}},
    {"hw.cpufreq.*.scaling_governor", "cpu_scaling_governor", {k_cpu}, Units::keep,
     "1 for each CPU, the governor that chooses its frequency as a label", "governor"},
    // node_exporter's cpu collector's thermal throttling counts
    {"hw.throttle.*.package_throttle_count", "cpu_package_throttles", {{{"package", "$1"}}},
     Units::keep},
    {"hw.throttle.*.core.*.core_throttle_count", "cpu_core_throttles",
     {{{"core", "$2"}, {"package", "$1"}}}, Units::keep},
    // node_exporter's rapl collector: a family for each kind of domain
    {"hw.rapl.*.*.energy_uj", "rapl_$1", {{{"index", "$2"}}}},
    // node_exporter's nvme collector: the texts of a controller in one annotation
    {"hw.nvme.*.firmware_rev", "nvme_info", {k_device}, Units::keep, k_nvme_info_help,
     "firmware_revision"},
    {"hw.nvme.*.model", "nvme_info", {k_device}, Units::keep, k_nvme_info_help, "model"},
    {"hw.nvme.*.serial", "nvme_info", {k_device}, Units::keep, k_nvme_info_help, "serial"},
    {"hw.nvme.*.state", "nvme_info", {k_device}, Units::keep, k_nvme_info_help, "state"},
    // node_exporter's dmi collector: the firmware's strings as the labels of one annotation
    {"hw.dmi.sys_vendor", "dmi_info", {}, Units::keep, k_dmi_info_help, "system_vendor"},
    {"hw.dmi.*", "dmi_info", {}, Units::keep, k_dmi_info_help, "$1"},
    // node_exporter's hwmon collector: a sensor's reading (input, or a PWM's value) is the
    // family of its type, the rest a family of their own; labels and the chip's name annotate
    {"hw.hwmon.*.name", "hwmon_chip_names", {{{"chip", "$1"}}}, Units::base,
     "The hardware monitoring chips' names, as their drivers give them", "chip_name"},
    {"hw.hwmon.*.*.label", "hwmon_sensor_label", k_chip_sensor, Units::base,
     "The sensors' labels, as their drivers give them", "label"},
    {"hw.hwmon.*.temp*.input", "hwmon_temp", k_chip_sensor},
    {"hw.hwmon.*.temp*.*", "hwmon_temp_$3", k_chip_sensor},
    {"hw.hwmon.*.fan*.input", "hwmon_fan", k_chip_sensor},
    {"hw.hwmon.*.fan*.*", "hwmon_fan_$3", k_chip_sensor},
    {"hw.hwmon.*.intrusion*.*", "hwmon_intrusion_$3", k_chip_sensor}, // before in*
    {"hw.hwmon.*.in*.input", "hwmon_in", k_chip_sensor},
    {"hw.hwmon.*.in*.*", "hwmon_in_$3", k_chip_sensor},
    {"hw.hwmon.*.curr*.input", "hwmon_curr", k_chip_sensor},
    {"hw.hwmon.*.curr*.*", "hwmon_curr_$3", k_chip_sensor},
    {"hw.hwmon.*.power*.input", "hwmon_power", k_chip_sensor},
    {"hw.hwmon.*.power*.*", "hwmon_power_$3", k_chip_sensor},
    {"hw.hwmon.*.energy*.input", "hwmon_energy", k_chip_sensor},
    {"hw.hwmon.*.energy*.*", "hwmon_energy_$3", k_chip_sensor},
    {"hw.hwmon.*.humidity*.input", "hwmon_humidity", k_chip_sensor, Units::scale},
    {"hw.hwmon.*.humidity*.*", "hwmon_humidity_$3", k_chip_sensor, Units::scale},
    {"hw.hwmon.*.freq*.input", "hwmon_freq", k_chip_sensor},
    {"hw.hwmon.*.freq*.*", "hwmon_freq_$3", k_chip_sensor},
    {"hw.hwmon.*.pwm*.value", "hwmon_pwm", k_chip_sensor},
    {"hw.hwmon.*.pwm*.*", "hwmon_pwm_$3", k_chip_sensor},
    // os-release(5): node_exporter's os collector, its variables the labels of one annotation
    {"os.release.BUILD_ID", "os_info", {}, Units::keep, k_os_info_help, "build_id"},
    {"os.release.ID", "os_info", {}, Units::keep, k_os_info_help, "id"},
    {"os.release.ID_LIKE", "os_info", {}, Units::keep, k_os_info_help, "id_like"},
    {"os.release.IMAGE_ID", "os_info", {}, Units::keep, k_os_info_help, "image_id"},
    {"os.release.IMAGE_VERSION", "os_info", {}, Units::keep, k_os_info_help, "image_version"},
    {"os.release.NAME", "os_info", {}, Units::keep, k_os_info_help, "name"},
    {"os.release.PRETTY_NAME", "os_info", {}, Units::keep, k_os_info_help, "pretty_name"},
    {"os.release.VARIANT", "os_info", {}, Units::keep, k_os_info_help, "variant"},
    {"os.release.VARIANT_ID", "os_info", {}, Units::keep, k_os_info_help, "variant_id"},
    {"os.release.VERSION", "os_info", {}, Units::keep, k_os_info_help, "version"},
    {"os.release.VERSION_CODENAME", "os_info", {}, Units::keep, k_os_info_help, "version_codename"},
    {"os.release.VERSION_ID", "os_info", {}, Units::keep, k_os_info_help, "version_id"},
    {"os.release.*", ""}, // the rest (HOME_URL, ...): node_exporter's labels are those above
    {"os.version", "os_version", {}, Units::keep},
    // /proc/sys, last: its roots hold the prefixes above
    {"kernel.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"vm.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"fs.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"net.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"dev.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"user.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"abi.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"debug.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"crypto.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
    {"sunrpc.**", "sysctl", {{{"name", "$0"}}}, Units::keep, k_sysctl_help},
};
// clang-format on

// Units that have a base unit, and the factor to it.
struct BaseUnit {
  std::string_view unit;
  std::string_view base;
  std::uint64_t multiply;
  double divide;
};
constexpr BaseUnit k_base_units[] = {
    {"seconds", "seconds", 1, 1},
    {"milliseconds", "seconds", 1, 1000},
    {"microseconds", "seconds", 1, 1e6},
    {"nanoseconds", "seconds", 1, 1e9},
    {"bytes", "bytes", 1, 1},
    {"KiB", "bytes", 1024, 1},
    {"sectors", "bytes", 512, 1},
    {"millicelsius", "celsius", 1, 1000},
    {"millipercent", "ratio", 1, 100000},
    {"hertz", "hertz", 1, 1},
    {"millivolts", "volts", 1, 1000},
    {"milliamperes", "amperes", 1, 1000},
    {"microwatts", "watts", 1, 1e6},
    {"microjoules", "joules", 1, 1e6},
    {"rpm", "rpm", 1, 1},
    {"kilohertz", "hertz", 1000, 1},
    {"dwords", "bytes", 4, 1},
    {"microvolts", "volts", 1, 1e6},
    {"microamperes", "amperes", 1, 1e6},
    {"microwatthours", "watthours", 1, 1e6},
    {"microamperehours", "amperehours", 1, 1e6},
    {"decicelsius", "celsius", 1, 10},
    {"Gb/s", "bytes_per_second", 125000000, 1},
};

const BaseUnit* base_unit(std::string_view unit) noexcept {
  for (const auto& u : k_base_units)
    if (u.unit == unit)
      return &u;
  return nullptr;
}

// Whether `name` matches `pattern`, and the parts of it the wildcards match in `captures`, [0]
// being the whole name (left half-written when it does not match). One vector for every try: a
// resolve tries a hundred rules on each of thousands of names.
bool match(std::string_view pattern, std::string_view name,
           std::vector<std::string_view>& captures) {
  captures.assign(1, name);
  std::size_t p = 0, n = 0;
  for (;;) {
    std::size_t p_end = std::min(pattern.find('.', p), pattern.size());
    std::string_view want = pattern.substr(p, p_end - p);
    if (n > name.size())
      return false;
    if (want == "**" && p_end == pattern.size()) {
      captures.push_back(name.substr(n));
      return n < name.size();
    }
    if (want == "**") { // the name's components but as many as the pattern has after it
      auto after =
          static_cast<std::size_t>(std::count(pattern.begin() + p_end, pattern.end(), '.'));
      auto left = 1 + static_cast<std::size_t>(std::count(name.begin() + n, name.end(), '.'));
      if (left < after)
        return false;
      std::size_t end = n;
      for (std::size_t k = 0; k < left - after; ++k)
        end = name.find('.', end) + 1;
      captures.push_back(end == n ? name.substr(n, 0) : name.substr(n, end - 1 - n));
      p = p_end + 1;
      n = end;
      continue;
    }
    std::size_t n_end = std::min(name.find('.', n), name.size());
    std::string_view got = name.substr(n, n_end - n);
    if (want == "*" || (want.size() > 1 && want.ends_with('*') && got.size() >= want.size() &&
                        got.starts_with(want.substr(0, want.size() - 1))))
      captures.push_back(got); // "temp*": a component that begins "temp", captured whole
    else if (want != got)
      return false;
    if (p_end == pattern.size() || n_end == name.size())
      return p_end == pattern.size() && n_end == name.size();
    p = p_end + 1;
    n = n_end + 1;
  }
}

// "$N" is capture N; anything else is itself.
std::string_view label_value(std::string_view value, const std::vector<std::string_view>& caps) {
  if (value.size() == 2 && value[0] == '$' && value[1] >= '0' && value[1] <= '9') {
    auto i = static_cast<std::size_t>(value[1] - '0');
    return i < caps.size() ? caps[i] : std::string_view{};
  }
  return value;
}

// The path of the cgroup whose name is `components` (cgroups.cpp).
std::string cgroup_path(std::string_view components) {
  std::string out = "/";
  for (char c : components)
    out.push_back(c == '.' ? '/' : c == '/' ? '.' : c);
  return out;
}

// The value of `label` for a name whose wildcards matched `caps`.
std::string written(const Label& label, const std::vector<std::string_view>& caps) {
  std::string_view value = label_value(label.value, caps);
  switch (label.path) {
  case Path::cgroup:
    return cgroup_path(value);
  case Path::mount:
    return mount_path(value);
  case Path::device:
    return file_name_of(value);
  case Path::none:
    break;
  }
  return std::string(value);
}

// The stem with each "$N" replaced by capture N in snake_case.
std::string expand_stem(std::string_view stem, const std::vector<std::string_view>& caps) {
  std::string out;
  for (std::size_t i = 0; i < stem.size(); ++i) {
    if (stem[i] == '$' && i + 1 < stem.size()) {
      out += snake_case(label_value(stem.substr(i, 2), caps));
      ++i;
    } else {
      out.push_back(stem[i]);
    }
  }
  return out;
}

bool labelled(const Rule& rule, std::size_t capture) noexcept {
  for (const auto& label : rule.labels)
    if (label.value.size() == 2 && label.value[0] == '$' &&
        static_cast<std::size_t>(label.value[1] - '0') == capture)
      return true;
  return false;
}

// The rule's pattern with each wildcard written as what it matched, or as '*' where a label
// carries it ("proc.1.stat.utime" -> "proc.*.stat.utime"): the help of a family no description
// covers.
std::string general_name(const Rule& rule, const std::vector<std::string_view>& caps) {
  std::string out;
  std::size_t capture = 0;
  for (std::size_t p = 0; p <= rule.pattern.size();) {
    std::size_t p_end = std::min(rule.pattern.find('.', p), rule.pattern.size());
    std::string_view part = rule.pattern.substr(p, p_end - p);
    if (part.ends_with('*')) {
      ++capture;
      part = labelled(rule, capture) ? std::string_view("*") : caps[capture];
    }
    if (!part.empty())
      out.append(out.empty() ? "" : ".").append(part);
    p = p_end + 1;
  }
  return out;
}

// A name's first component, or a pattern's, which is never a wildcard in k_rules.
constexpr std::string_view root_of(std::string_view name) noexcept {
  return name.substr(0, name.find('.'));
}

static_assert(std::ranges::none_of(k_rules, [](const Rule& rule) {
  return root_of(rule.pattern).find('*') != std::string_view::npos;
}));

// The rules a name under `root` may match, in k_rules' order: a name is tried against a tenth
// of the rules, or none.
std::span<const std::uint16_t> rules_under(std::string_view root) {
  static const auto k_index = [] {
    std::unordered_map<std::string_view, std::vector<std::uint16_t>> index;
    for (std::size_t i = 0; i < std::size(k_rules); ++i)
      index[root_of(k_rules[i].pattern)].push_back(static_cast<std::uint16_t>(i));
    return index;
  }();
  auto found = k_index.find(root);
  return found == k_index.end() ? std::span<const std::uint16_t>() : found->second;
}

// What every name a pattern matches ends in: the pattern after its last wildcard component
// (".usage_usec" of "cgroup.**.cpu/stat.usage_usec"; "" where a wildcard ends it).
constexpr std::string_view literal_tail(std::string_view pattern) noexcept {
  std::size_t star = pattern.rfind('*');
  if (star == std::string_view::npos)
    return pattern;
  std::size_t dot = pattern.find('.', star);
  return dot == std::string_view::npos ? std::string_view{} : pattern.substr(dot);
}

// The first rule `name` matches, its captures in `captures`; none: null, and `captures` holds
// the name alone. A rule whose tail the name does not end in is passed over unwalked: a
// cgroup's memory.stat key was walked against a dozen rules before its own.
const Rule* rule_for(std::string_view name, std::vector<std::string_view>& captures) {
  static const auto k_tails = [] {
    std::array<std::string_view, std::size(k_rules)> tails;
    std::ranges::transform(k_rules, tails.begin(),
                           [](const Rule& rule) { return literal_tail(rule.pattern); });
    return tails;
  }();
  for (std::uint16_t i : rules_under(root_of(name)))
    if (name.ends_with(k_tails[i]) && match(k_rules[i].pattern, name, captures))
      return &k_rules[i];
  captures.assign(1, name);
  return nullptr;
}

void name_units(Mapping& m, const Info& info, Units units) {
  const BaseUnit* base = units != Units::keep ? base_unit(info.unit) : nullptr;
  if (base != nullptr) {
    m.multiply = base->multiply;
    m.divide = base->divide;
    std::string suffix = fmt::format("_{}", base->base);
    if (units == Units::base && !m.family.ends_with(suffix))
      m.family += suffix;
  }
  if (m.type == MetricType::counter && !m.family.ends_with("_total"))
    m.family += "_total";
  else if (m.type == MetricType::gauge && m.family.ends_with("_total")) // HugePages_Total
    m.family.resize(m.family.size() - 6);
}

// A description with the unit its values are in, where the family's name does not say it.
std::string help_with_unit(const Info& info, Units units, const Mapping& m) {
  if (units == Units::keep && !info.unit.empty())
    return fmt::format("{} ({})", info.description, info.unit);
  if (m.multiply != 1 || m.divide != 1)
    return fmt::format("{}, in {}", info.description, base_unit(info.unit)->base);
  return info.description;
}

} // namespace

bool exported(std::string_view name) {
  // Most roots leave nothing out, and their names need no rule found (a cgroup hierarchy's
  // tens of thousands at each resolve).
  if (std::ranges::none_of(rules_under(root_of(name)),
                           [](std::uint16_t i) { return k_rules[i].stem.empty(); }))
    return true;
  std::vector<std::string_view> caps{name};
  const Rule* rule = rule_for(name, caps);
  return rule == nullptr || !rule->stem.empty();
}

namespace {

// map_name(), with the help where `with_help`: a family's help is written once, of its first
// name, and most of the help strings of tens of thousands of names would be made to be dropped.
std::optional<Mapping> place(const Info& info, bool with_help) {
  std::vector<std::string_view> caps{info.name};
  static constexpr Rule k_generic{"**", "$0"};
  const Rule* rule = rule_for(info.name, caps);
  if (rule == nullptr) {
    rule = &k_generic;
    caps.push_back(info.name); // what its "**" matches
  }
  if (rule->stem.empty() || (info.kind == Kind::text) != !rule->text_label.empty())
    return std::nullopt;
  Mapping m;
  m.family = "kstat_" + expand_stem(rule->stem, caps);
  m.type = info.kind == Kind::counter ? MetricType::counter : MetricType::gauge;
  if (rule->untyped)
    m.type = MetricType::untyped;
  m.text_label = label_value(rule->text_label, caps); // "$1": the name's component
  m.words = rule->words;
  for (const auto& label : rule->labels)
    if (!label.name.empty())
      m.labels.emplace_back(label.name, written(label, caps));
  m.labels.insert(m.labels.end(), info.labels.begin(), info.labels.end());
  name_units(m, info, rule->units);
  if (!with_help)
    return m;
  if (!rule->help.empty())
    m.help = rule->help;
  else if (!info.description.empty())
    m.help = help_with_unit(info, rule->units, m);
  else
    m.help = fmt::format("kstat's {}", general_name(*rule, caps));
  return m;
}

} // namespace

std::optional<Mapping> map_name(const Info& info) {
  return place(info, true);
}

// The longest number write_value() writes: a uint64, or a double's shortest form.
constexpr std::size_t k_number_max = k_real_max;
// The bytes put_head() copies a step.
constexpr std::size_t k_head_step = 16;

namespace {

// An annotation's sample by its family and labels (text_samples_).
std::string text_sample_key(std::string_view family, std::string_view labels) {
  return fmt::format("{}{{{}}}", family, labels);
}

} // namespace

Exposition::Exposition(const Snapshot& snapshot) {
  add(snapshot, 0);
}

void Exposition::add(const Snapshot& snapshot, std::size_t first) {
  // The members there were, by family: their heads are in heads_; those added here, in `fresh`.
  auto before = member_counts();
  std::string fresh;
  // Whether a family has a head, which is a label set: among the members there were, by the
  // sorted hashes of their heads, taken the first time the family gains one here (a set of
  // 31,000 heads was most of a cgroup's coming); among those added here, in a set of their own.
  std::hash<std::string_view> hash;
  using Hashed = std::pair<std::size_t, std::size_t>; // a head's hash, its member
  std::vector<std::optional<std::vector<Hashed>>> had(families_.size());
  auto head_of = [&](std::size_t f, std::size_t k) {
    const Member& member = families_[f].members[k];
    return std::string_view(heads_.data() + member.head_at, member.head_size);
  };
  // The heads added here by where they are in `fresh`, not copies of them (31,000 of a
  // hierarchy's cgroups were 4 MB at a resolve's peak).
  using Fresh = std::pair<std::uint32_t, std::uint32_t>; // where in `fresh`, how long
  auto fresh_head = [&](Fresh at) { return std::string_view(fresh).substr(at.first, at.second); };
  auto hash_fresh = [&](Fresh at) { return hash(fresh_head(at)); };
  auto same_fresh = [&](Fresh a, Fresh b) { return fresh_head(a) == fresh_head(b); };
  std::unordered_set<Fresh, decltype(hash_fresh), decltype(same_fresh)> added(0, hash_fresh,
                                                                              same_fresh);
  // Whether the head at the end of `fresh`, `at`, is family f's already.
  auto taken = [&](std::size_t f, Fresh at) {
    if (had.size() <= f)
      had.resize(f + 1);
    if (!had[f]) {
      auto& hashes = had[f].emplace();
      for (std::size_t k = 0; f < before.size() && k < before[f]; ++k)
        hashes.emplace_back(hash(head_of(f, k)), k);
      std::ranges::sort(hashes);
    }
    std::string_view head = fresh_head(at);
    auto same = std::ranges::equal_range(*had[f], hash(head), {}, &Hashed::first);
    return std::ranges::any_of(same,
                               [&](const Hashed& h) { return head_of(f, h.second) == head; }) ||
           !added.insert(at).second;
  };
  // The help of the name a family is first met with.
  auto help = [&](std::size_t i) { return map_name(snapshot.info(i))->help; };
  for (std::size_t i = first; i < snapshot.size(); ++i) {
    auto m = place(snapshot.info(i), false);
    if (!m)
      continue;
    if (!m->text_label.empty()) {
      auto [at, is_new] = texts_by_name_.try_emplace(m->family, text_families_.size());
      if (is_new) {
        TextFamily family{m->family, {}, {}, m->words};
        for (auto format : {TextFormat::prometheus, TextFormat::openmetrics})
          append_family(family.headers[static_cast<std::size_t>(format)], m->family, help(i),
                        m->type, format);
        text_families_.push_back(std::move(family));
      }
      std::string labels;
      for (const auto& [name, value] : m->labels)
        append_label(labels, name, value);
      // The texts of one label set are one sample (an interface's state and addresses).
      auto& members = text_families_[at->second].members;
      auto [sample, new_sample] =
          text_samples_.try_emplace(text_sample_key(m->family, labels), members.size());
      if (new_sample)
        members.push_back(TextMember{std::move(labels), {}, {}, {}});
      members[sample->second].texts.emplace_back(i, m->text_label);
      continue;
    }
    // Keyed by the name OpenMetrics gives the family, a counter's without "_total": there a
    // gauge kstat_x and a counter kstat_x_total would be two families of one name.
    std::string key = m->family;
    if (m->type == MetricType::counter && key.ends_with("_total"))
      key.resize(key.size() - 6);
    auto [it, is_new] = by_name_.try_emplace(std::move(key), families_.size());
    if (is_new) {
      Family family{m->family, m->type, {}, {}};
      for (auto format : {TextFormat::prometheus, TextFormat::openmetrics})
        append_family(family.headers[static_cast<std::size_t>(format)], m->family, help(i), m->type,
                      format);
      families_.push_back(std::move(family));
    }
    Family& family = families_[it->second];
    std::string head = family.name;
    std::string labels;
    for (const auto& [name, value] : m->labels)
      append_label(labels, name, value);
    if (!labels.empty())
      head.append("{").append(labels).push_back('}');
    head.push_back(' ');
    // One sample per label set, of one type: a second (proc.self beside its pid), or one of
    // another type (vm.stats.Nr_dirty, a counter, beside the gauge nr_dirty), is left out.
    if (family.type != m->type)
      continue;
    Fresh at{static_cast<std::uint32_t>(fresh.size()), static_cast<std::uint32_t>(head.size())};
    fresh += head;
    if (taken(it->second, at)) {
      fresh.resize(at.first);
      continue;
    }
    family.members.push_back(Member{i, at.first, at.second, m->multiply, m->divide});
  }
  lay_out(before, fresh);
}

void Exposition::erase(std::span<const std::size_t> moved_to) {
  for (auto& family : families_) {
    std::erase_if(family.members, [&](const Member& member) {
      return moved_to[member.entry] == Snapshot::k_erased;
    });
    for (auto& member : family.members)
      member.entry = moved_to[member.entry];
  }
  // An annotation's label set whose texts have all gone goes too: interfaces and disks come and
  // go by names of their own (a pod's veth), and each would leave its sample's place behind.
  text_samples_.clear();
  for (auto& family : text_families_) {
    for (auto& member : family.members) {
      std::erase_if(member.texts,
                    [&](const auto& text) { return moved_to[text.first] == Snapshot::k_erased; });
      for (auto& text : member.texts)
        text.first = moved_to[text.first];
    }
    std::erase_if(family.members, [](const TextMember& member) { return member.texts.empty(); });
    for (std::size_t k = 0; k < family.members.size(); ++k)
      text_samples_.emplace(text_sample_key(family.name, family.members[k].labels), k);
  }
  lay_out(member_counts(), {});
}

std::vector<std::size_t> Exposition::member_counts() const {
  std::vector<std::size_t> out;
  for (const auto& family : families_)
    out.push_back(family.members.size());
  return out;
}

// The heads side by side in the order render() writes them, which it then reads straight
// through (a separate string each: 1 us more a scrape of serve's defaults): of each family, the
// first `before[f]` members' from heads_, the rest's from `fresh`.
void Exposition::lay_out(std::span<const std::size_t> before, const std::string& fresh) {
  std::size_t size = k_head_step;
  for (const auto& family : families_)
    for (const auto& member : family.members)
      size += member.head_size;
  std::string heads;
  heads.reserve(size);
  most_ = {};
  for (std::size_t f = 0; f < families_.size(); ++f) {
    Family& family = families_[f];
    for (std::size_t k = 0; k < family.members.size(); ++k) {
      Member& member = family.members[k];
      const std::string& from = f < before.size() && k < before[f] ? heads_ : fresh;
      auto at = static_cast<std::uint32_t>(heads.size());
      heads.append(from, member.head_at, member.head_size);
      member.head_at = at;
    }
    for (std::size_t format = 0; format < most_.size(); ++format)
      most_[format] += family.headers[format].size() + family.members.size() * (k_number_max + 1);
  }
  for (auto& most : most_)
    most += heads.size();
  heads.append(k_head_step, '\0'); // what put_head() may read past the last head
  heads_ = std::move(heads);
}

namespace {

// Writes `value` times `multiply` over `divide` at `at`, as the exposition writes numbers, and
// returns the end; nullptr for text. An integer in the base unit is written exactly while it
// fits in 64 bits (std::to_chars), as a real past that (write_real).
char* write_value(char* at, const Value& value, std::uint64_t multiply, double divide) {
  std::uint64_t u = 0;
  std::int64_t s = 0;
  if (const auto* v = std::get_if<std::uint64_t>(&value);
      v && divide == 1 && !__builtin_mul_overflow(*v, multiply, &u))
    return std::to_chars(at, at + k_number_max, u).ptr;
  if (const auto* w = std::get_if<std::int64_t>(&value);
      w && divide == 1 && !__builtin_mul_overflow(*w, multiply, &s))
    return std::to_chars(at, at + k_number_max, s).ptr;
  if (auto number = as_number(value))
    return write_real(at, *number * static_cast<double>(multiply) / divide);
  return nullptr;
}

char* put(char* at, std::string_view text) noexcept {
  std::memcpy(at, text.data(), text.size());
  return at + text.size();
}

// put() for a sample's head, k_head_step bytes a step, without a call a head: the last step may
// read past the head, and heads_ ends in as many bytes to read; and may write past it, where the
// sample's value goes next, which has room for k_number_max bytes.
char* put_head(char* at, const char* head, std::size_t size) noexcept {
  static_assert(k_head_step <= k_number_max);
  for (std::size_t done = 0; done < size; done += k_head_step)
    std::memcpy(at + done, head + done, k_head_step);
  return at + size;
}

} // namespace

// A scrape's inner loop, a thousand samples each time: the body is sized for the longest it can
// be and written through a pointer, then cut to what was written (appending each piece to the
// string cost four times as many instructions, callgrind says).
void Exposition::render(const Snapshot& snapshot, std::string& out, TextFormat format) const {
  auto f = static_cast<std::size_t>(format);
  std::size_t start = out.size();
  out.resize_and_overwrite(start + most_[f], [&](char* body, std::size_t) {
    char* at = body + start;
    for (const auto& family : families_) {
      bool started = false;
      for (const auto& member : family.members) {
        if (snapshot.error(member.entry) != nullptr)
          continue;
        char* sample = started ? at : put(at, family.headers[f]);
        char* end = write_value(put_head(sample, heads_.data() + member.head_at, member.head_size),
                                snapshot.value(member.entry), member.multiply, member.divide);
        if (end == nullptr)
          continue; // text: no sample
        *end++ = '\n';
        at = end;
        started = true;
      }
    }
    return static_cast<std::size_t>(at - body);
  });
  render_texts(snapshot, out, format);
}

namespace {

// Whether `member`'s texts are those its lines were last written with.
template <typename Member, typename TextOf>
bool same_texts(const Member& member, const TextOf& text_of) {
  if (member.written_texts.size() != member.texts.size())
    return false;
  for (std::size_t k = 0; k < member.texts.size(); ++k) {
    const auto* text = text_of(member.texts[k].first);
    const auto& written = member.written_texts[k];
    if (text == nullptr ? written.has_value() : written != *text)
      return false;
  }
  return true;
}

// Writes `member`'s lines of `family` with its texts now, and keeps the texts.
template <typename Family, typename Member, typename TextOf>
void write_member(const Family& family, const Member& member, const TextOf& text_of) {
  member.written_texts.clear();
  for (const auto& t : member.texts) {
    const auto* text = text_of(t.first);
    member.written_texts.push_back(text ? std::optional<std::string>(*text) : std::nullopt);
  }
  std::string& out = member.lines;
  out.clear();
  if (family.words) { // a sample for each word, the word its label's value
    for (const auto& [entry, label] : member.texts)
      if (const auto* text = text_of(entry))
        for (Tokens words(*text, " \t"); auto word = words.next();) {
          std::string labels = member.labels;
          append_label(labels, label, *word);
          append_sample(out, family.name, labels, "1");
        }
    return;
  }
  // One sample: the labels of its texts follow its others, comma-separated.
  std::string labels = member.labels;
  for (const auto& [entry, label] : member.texts)
    if (const auto* text = text_of(entry))
      append_label(labels, label, *text);
  append_sample(out, family.name, labels, "1");
}

} // namespace

void Exposition::render_texts(const Snapshot& snapshot, std::string& out, TextFormat format) const {
  auto text_of = [&](std::size_t entry) {
    return snapshot.error(entry) == nullptr ? std::get_if<std::string>(&snapshot.value(entry))
                                            : nullptr;
  };
  for (const auto& family : text_families_) {
    bool started = false;
    for (const auto& member : family.members) {
      if (std::ranges::none_of(member.texts, [&](const auto& t) { return text_of(t.first); }))
        continue;
      if (!std::exchange(started, true))
        out.append(family.headers[static_cast<std::size_t>(format)]);
      if (!same_texts(member, text_of))
        write_member(family, member, text_of);
      out.append(member.lines);
    }
  }
}

} // namespace opskit::counters
