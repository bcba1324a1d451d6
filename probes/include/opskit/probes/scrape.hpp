// SPDX-License-Identifier: MIT
#pragma once

// What `kstat serve` answers on /metrics: the families (exposition.hpp) of a set of names, with
// one snapshot read per scrape.

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/probes/exposition.hpp"

namespace opskit::counters {

// What `kstat serve` exports when given no names: what node_exporter's default collectors cover,
// every source of the machine as a whole. Of /proc/vmstat, /proc/net/snmp, netstat and snmp6,
// the fields node_exporter's vmstat and netstat collectors keep by default (their --fields
// regexps as globs: some 50 of the 600 counters, the rest gauges already in meminfo or counters
// few dashboards read). Of /proc/sys (a thousand files, few of them worth a series) only the two
// entries node_exporter's conntrack collector reads, and of the tracker's statistics the eight it
// serves; not /proc/<pid>, or the cgroups (a series for each key of memory.stat in each cgroup):
// those are served when named. Of each XFS file system's statistics, the groups node_exporter's
// xfs collector serves, and of each Btrfs file system its btrfs collector's files (with the
// commits of its later versions), a quarter of their names.
inline constexpr std::array<std::string_view, 40> k_serve_defaults = {
    "cpu",
    "kern",
    "vm.stats.@(oom_kill|pgpg|pswp|pg*fault)*",
    "vm.meminfo",
    "net.snmp.*.@(InErrors|InErrs)",
    "net.snmp.Ip.Forwarding",
    "net.snmp.Icmp.@(In|Out)Msgs",
    "net.snmp.Tcp.@(ActiveOpens|InSegs|OutSegs|OutRsts|PassiveOpens|RetransSegs|CurrEstab)",
    "net.snmp.Udp.@(InDatagrams|OutDatagrams|NoPorts|RcvbufErrors|SndbufErrors)",
    "net.netstat.*.@(InErrors|InErrs)",
    "net.netstat.IpExt.@(In|Out)Octets",
    "net.netstat.TcpExt.@(Listen*|Syncookies*|TCPSynRetrans|TCPTimeouts)",
    "net.snmp6.*@(InErrors|InErrs)",
    "net.snmp6.Ip6@(In|Out)Octets",
    "net.snmp6.Icmp6@(In|Out)Msgs",
    "net.snmp6.Udp6@(InDatagrams|OutDatagrams|NoPorts|RcvbufErrors|SndbufErrors)",
    "net.sockstat",
    "net.sockstat6",
    "net.dev",
    "net.softnet",
    "net.link",
    "net.arp",
    "net.bonding",
    "net.udp",
    "net.udp6",
    "net.rpc.nfs",
    "net.rpc.nfsd",
    "net.ipvs",
    "disk",
    "md",
    "fs.mount",
    "xfs.*.@(extent_alloc|abt|blk_map|bmbt|dir|ig|rw|vnodes).*",
    "btrfs.*.@(label|allocation.global_rsv_size|allocation.*.bytes_reserved|"
    "allocation.*.*.*_bytes|commit_stats.@(commits|last_commit_ms|max_commit_ms|total_commit_ms)|"
    "device.*.@(size|unused|*_errs))",
    "net.conntrack.@(found|invalid|ignore|insert|insert_failed|drop|early_drop|search_restart)",
    "net.netfilter.nf_conntrack_count",
    "net.netfilter.nf_conntrack_max",
    "hw",
    "os",
    "zfs",
    "bcache"};

// What the defaults leave out. The interfaces' counters that only /sys/class/net/<if>/statistics
// holds, a file for each counter of each interface, where /proc/net/dev has the sixteen that
// node_exporter exports in one file for all interfaces: reading them would double the scrape.
// And the block devices node_exporter's diskstats collector leaves out by default (its
// --collector.diskstats.device-exclude): loop, RAM and floppy devices, and partitions, whose
// I/O their disk's lines already count. And what its interrupts and softirqs collectors, off by
// default, would serve: /proc/interrupts (a series for each IRQ, the kernel's dearest file to
// read, costlier with each CPU and device queue) and /proc/softirqs (one for each type on each
// CPU); /proc/stat's totals (kstat_intr_total, kstat_softirqs_total) stay. And XFS's count of
// inodes freed, a group's counter node_exporter leaves out.
inline constexpr std::array<std::string_view, 17> k_serve_default_exclusions = {
    "net.dev.*.rx_dropped",
    "net.dev.*.rx_missed_errors",
    "net.dev.*.rx_length_errors",
    "net.dev.*.rx_over_errors",
    "net.dev.*.rx_crc_errors",
    "net.dev.*.rx_frame_errors",
    "net.dev.*.rx_nohandler",
    "net.dev.*.tx_aborted_errors",
    "net.dev.*.tx_carrier_errors",
    "net.dev.*.tx_heartbeat_errors",
    "net.dev.*.tx_window_errors",
    "disk.@(ram|loop|fd)+([0-9]).*",
    "disk.@(h|s|v|xv)d[a-z]+([0-9]).*",
    "disk.nvme+([0-9])n+([0-9])p+([0-9]).*",
    "kern.interrupts.*",
    "kern.softirqs.*",
    "xfs.*.vnodes.free"};

class Scraper {
public:
  using Clock = std::chrono::steady_clock;
  using Body = std::shared_ptr<const std::string>;

  // A set of names to serve, and what leaves some of them out.
  struct Names {
    std::vector<std::string> names;        // names, prefixes and globs, as for read
    std::vector<std::string> exclude = {}; // globs of names to leave out
    bool absent_ok = false;                // names this machine lacks are left out, not an error
    bool transient_ok = false; // so are names that come and go (Namespace::transient()), until
                               // they come
  };

  struct Settings {
    std::vector<Names> sets; // each with its own exclusions: serve's defaults, names given
    Clock::duration timeout = std::chrono::seconds(5);           // a scrape's budget for reading
    Clock::duration resolve_interval = std::chrono::seconds(60); // to find new names
    // Appends families of the caller's own to each scrape's body, after kstat's and before
    // OpenMetrics' "# EOF" (kstat serve: its process's CPU, memory and descriptors); none: none.
    std::function<void(std::string& out, TextFormat format)> append_own = {};
    // Told of a source (its path) that starts failing, with why, once the names are found and
    // at each scrape after; and of one that reads again, with nullptr. A source that fails at
    // each scrape is told of once, one whose names are gone (a cgroup removed) not again.
    // None: none.
    std::function<void(const std::string& source, const Error* why)> tell = {};

    // What Namespace::snapshot() takes (they refer to `sets`): each set but what its globs
    // leave out, and but what no family holds (exported()), which a scrape would read only to
    // drop.
    std::vector<Selection> selections() const;
  };

  // Resolves each of `settings.sets` in `ns` but what its exclusions match, and reads them
  // once. Fails as Namespace::snapshot does, and when the exclusions leave nothing.
  static Result<std::unique_ptr<Scraper>> open(Namespace ns, Settings settings);

  // One scrape: reads every source file once (those the timeout leaves unread fail), and
  // returns the families, kstat_scrape_error{source=...} for each source that failed,
  // kstat_time_seconds, kstat_uname_info (uname(2) at the last resolve),
  // kstat_scrape_duration_seconds, and what Settings::append_own appends. Names are resolved
  // again, before the families are rendered, when a source file gains or loses lines (a disk, a
  // CPU, a network interface or an interrupt came or went) or entries fail that did not before
  // (a process exited), when a name given that came and went (Names::transient_ok) has come
  // back, when a file system was mounted or unmounted (where names come from the mount table:
  // Namespace::from_mounts()) or a cgroup was made or removed under the names given
  // (Namespace::watch_cgroups()): where nothing else changed, only the names under those mount
  // points and cgroups, and under the records that came or went (Namespace::record_subtrees():
  // net.dev.veth1 for an interface), are found anew, the rest kept (an XFS, Btrfs or ZFS file
  // system, a CPU, are a resolve); and every resolve interval for what none of that shows (a
  // controller enabled in a cgroup): that one finds the names and, where they are those
  // served, keeps the snapshot, its open files and its families. Safe to call from many
  // threads: a scrape that waited for another's read gets that read's body when the read began
  // after the scrape arrived. A read has the lesser of Settings::timeout and `budget` (what the
  // scraper says it waits) to read in.
  Body scrape(TextFormat format, Clock::duration budget = Clock::duration::max());

  // The names given that come and go (Names::transient_ok) with nothing under them at the last
  // resolve: each is served from the scrape after it comes.
  std::vector<std::string> awaited();

private:
  Scraper(Namespace ns, Settings settings, Snapshot snapshot, NameChanges changes);
  void read(Clock::time_point deadline);
  // Leaves out the names under `subtrees` (gone, or to be found anew) from the snapshot and the
  // families; returns how many of them failed the last read.
  std::size_t leave(std::span<const std::string> subtrees);
  // Resolves the names again; where `keep_if_same`, keeps the snapshot if they are the same.
  // `failures_now` are the snapshot's in the last read, its baseline where the resolve fails.
  // True when it made a snapshot of the names found, and read it.
  bool resolve(Clock::time_point deadline, bool keep_if_same, std::size_t failures_now);
  // Finds the names under `subtrees` (mount points, cgroups, interfaces that came, or went, and
  // processes that exited, erased from the snapshot and the families) anew, and adds them to both;
  // `failures` are the snapshot's in the last read.
  void follow(std::span<const std::string> subtrees, Clock::time_point deadline,
              std::size_t failures);
  std::string render(TextFormat format, Clock::duration took) const;
  void append_time_zone(std::string& out, TextFormat format) const;
  // The names given that come and go (Names::transient_ok) with nothing under them now.
  std::vector<std::string> find_awaited() const;
  // Tells Settings::tell what failed anew since the last time, and what reads again.
  void tell_failures();

  const Namespace ns_;
  const Settings settings_;
  std::mutex mutex_; // guards everything below
  Snapshot snapshot_;
  Exposition exposition_;
  std::string uname_labels_;          // kstat_uname_info's
  std::size_t baseline_failures_ = 0; // failed entries in the first read after resolving
  std::vector<std::string> awaited_;  // find_awaited() at the last resolve, looked for each scrape
  std::vector<std::string> failing_;  // the sources failing when last told, sorted
  NameChanges changes_;               // of the names given: a change is a resolve
  Clock::time_point resolved_at_;
  // A resolve a scrape that ran to its deadline left to the next, which resolves before it
  // reads: whether it keeps the snapshot where the names are the same.
  std::optional<bool> resolve_first_;
  Clock::time_point read_at_;                       // when the last read began
  std::chrono::system_clock::time_point read_time_; // the same, by the system's clock
  std::array<Body, 2> bodies_;                      // of that read, by TextFormat
};

// `kstat serve`'s names when given none (or --defaults): k_serve_defaults without what
// k_serve_default_exclusions matches, and without the sources this machine lacks (no IPv6: no
// net.snmp6).
Scraper::Names serve_defaults();

} // namespace opskit::counters
