// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reader.hpp"

namespace opskit::counters {

// Where the sources lie: a /proc tree and a /sys tree.
struct Roots {
  std::string proc = "/proc";
  std::string sys = "/sys";
  std::string rootfs = {}; // the machine's / as mounted here; empty: this process's mounts
};

// True when `name` is `prefix` or lies under it ("" holds everything): component-wise, so
// "vm.stat" holds neither "vm.stats" nor "vm.stats.pgfault".
bool holds(std::string_view prefix, std::string_view name) noexcept;

// The subtree a name, prefix or glob names nothing outside of: a glob's components before the
// one its first wildcard is in ("net.dev" of "net.dev.eth*.rx_bytes"); the rest as they are.
std::string_view scope_of(std::string_view name);

// Every field named `prefix` or under it, from the sources under `roots`, unsorted. Reads the
// source files whose layout defines the names (vmstat, meminfo, ...), walks /proc/sys without
// opening its files, and lists mount points and cgroups.
std::vector<Field> find_fields(const Roots& roots, std::string_view prefix);

// A file or directory name as one name component, the way procps sysctl writes /proc/sys
// names: a '.' becomes '/' ("eth0.100" -> "eth0/100"). file_name_of() undoes it.
std::string component_of(std::string_view file_name);
std::string file_name_of(std::string_view component);

// The /proc/sys file or directory a name stands for ("net.ipv4.conf.eth0/100.rp_filter" ->
// "<root>/sys/net/ipv4/conf/eth0.100/rp_filter"), or nothing for a name that cannot be one.
std::optional<std::string> sysctl_path(const std::string& proc_root, std::string_view name);

// Why a /proc/sys name is never read, or nothing when it may be: vm.stat_refresh acts when
// read, the deprecated neigh.*.base_reachable_time and retrans_time log a kernel warning
// (procps sysctl skips them for that), and an interface's IPv6 stable_secret fails with EIO
// until set, and is a secret after (procps sysctl -a skips its EIO).
std::optional<std::string_view> never_read(std::string_view name) noexcept;

// Whether a /proc/sys name is known as text whatever it holds (kernel.hostname "007" is not the
// number 7): every other is a number when it reads as one.
bool known_text(std::string_view name) noexcept;

// The sources that are many files or none, each adding its fields under `prefix` to `out`:
// /proc/sys (sysctl.cpp), /proc/<pid> (pids.cpp), mount points (mounts.cpp), cgroups
// (cgroups.cpp), the kernel clock (timex.cpp), the network links (links.cpp); and
// /proc/net/softnet_stat, /proc/mdstat, /proc/net/stat/nf_conntrack, /proc/net/arp,
// /proc/net/udp and udp6, and /proc/net/ip_vs and ip_vs_stats, one file each but rendered before
// they are read (softnet.cpp, md.cpp, conntrack.cpp, arp.cpp, udp.cpp, ipvs.cpp).
void find_sysctl(const std::string& proc_root, std::string_view prefix, std::vector<Field>& out);
void find_pids(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_mounts(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_cgroups(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// The cgroup whose file a name of find_cgroups() is read from ("cgroup.system/slice.cron/service"
// of "cgroup.system/slice.cron/service.io/stat.254:0.rbytes"; "cgroup", the root's), or nothing
// for another name (cgroups.cpp).
std::optional<std::string_view> cgroup_of(std::string_view name) noexcept;
void find_timex(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// The kernel clock's source, from <sys>/devices/system/clocksource (timex.cpp).
void find_clocksource(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_softnet(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// /proc/net/snmp's ICMP messages by type, net.snmp.IcmpMsg (icmpmsg.cpp).
void find_icmpmsg(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_links(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_md(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_conntrack(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_arp(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
void find_udp(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// IPVS's totals and real servers, /proc/net/ip_vs_stats and /proc/net/ip_vs (ipvs.cpp).
void find_ipvs(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// What udev knows of each disk (model, serial, ...) under the rootfs (disk_info.cpp).
void find_disk_info(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// Each mounted XFS file system's statistics, from <sys>/fs/xfs (xfs.cpp).
void find_xfs(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// Each mounted Btrfs file system's space and commits, from <sys>/fs/btrfs, and its devices'
// sizes and errors, asked of a mount point (btrfs.cpp).
void find_btrfs(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// bcache's cache sets, their backing and cache devices, from <sys>/fs/bcache (bcache.cpp).
void find_bcache(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// SELinux's state under kern.selinux: enabled, and where it is, its modes (selinux.cpp).
void find_selinux(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// ZFS's statistics and its pools' states, I/O and datasets, from <proc>/spl/kstat/zfs (zfs.cpp).
void find_zfs(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// The operating system's os-release(5) under the rootfs (os_release.cpp).
void find_os_release(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// The bonds' interfaces, enslaved and up, from <sys>/class/net (bonding.cpp).
void find_bonding(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// The hardware's sysfs files under "hw": memory controllers' errors (EDAC), thermal zones and
// cooling devices (hardware.cpp), and hardware monitoring chips (hwmon.cpp).
void find_hardware(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// Hardware monitoring chips under "hw.hwmon" (hwmon.cpp).
void find_hwmon(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// InfiniBand and RDMA devices' ports under "hw.infiniband" (infiniband.cpp).
void find_infiniband(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// Fibre Channel ports under "hw.fibrechannel" (fibrechannel.cpp).
void find_fibrechannel(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// Batteries, adapters and other power supplies under "hw.power_supply" (power_supply.cpp).
void find_power_supply(const Roots& roots, std::string_view prefix, std::vector<Field>& out);
// The numbers N of the entries of `dir` named `stem`N ("thermal_zone3"), ascending.
std::vector<unsigned> numbered(const std::string& dir, std::string_view stem);
// Why `name`, under "hw", names nothing on this machine: the hardware it lacks ("this machine
// has no thermal zones or cooling devices in /sys/class/thermal"); nothing when it has some.
std::optional<std::string> missing_hardware(const Roots& roots, std::string_view name);

// Why `name` names nothing on this machine when the one file at a fixed place under the proc
// root that its names come from is not there ("this machine has no /proc/schedstat": a kernel
// built without it); nothing otherwise.
std::optional<std::string> missing_source(const Roots& roots, std::string_view name);

// The paths of the mount points of file systems of `type` ("btrfs") that the machine's
// mountinfo lists (find_mounts()'s), as reachable here: under the root file system given.
std::vector<std::string> mount_points(const Roots& roots, std::string_view type);

// The path a mount point's name component stands for, mountinfo's octal escapes undone
// ("/mnt/my\040disk\056img" -> "/mnt/my disk.img"); and a mount's source likewise.
std::string mount_path(std::string_view escaped);
// Appends `text` to `out` with each of the characters `special` written as an octal escape
// ('.' as "\056"), as mountinfo writes blanks and backslashes; mount_path() undoes it.
void append_octal_escaped(std::string& out, std::string_view text, std::string_view special);

} // namespace opskit::counters
