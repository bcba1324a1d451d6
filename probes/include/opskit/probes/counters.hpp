// SPDX-License-Identifier: MIT
#pragma once

// kstat's namespace: Linux kernel counters under dotted names, built at run time from the files
// that hold them (/proc/sys, /proc/vmstat, /proc/meminfo, /proc/stat, /proc/loadavg,
// /proc/pressure, /proc/softirqs, /proc/interrupts, /proc/net/{snmp,snmp6,netstat,dev},
// /proc/diskstats, /proc/<pid>/{stat,status,io}, /sys/class/net/*/statistics, cgroup v2 files)
// and from statvfs(3) of each mount point.
//
// Resolve once, read many: a Handle keeps its file open and reads one name with one pread at
// offset 0 plus a parse; a Snapshot reads each of its source files once for any number of names.

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"
#include "opskit/probes/value.hpp"

namespace opskit::counters {

// What a name is. For /proc/sys entries the kind follows the value (one number: gauge, else
// text) and is only known once the entry has been read.
struct Info {
  std::string name;
  Kind kind = Kind::text;
  std::string unit;        // "bytes", "pages", "seconds", "ticks", ... or empty
  std::string description; // one line, or empty where none is known
  // What tells the entry's source apart beyond its name, as Prometheus labels: a mount point's
  // device and file system type ({"device", "/dev/vda"}, {"fstype", "ext4"}).
  std::vector<std::pair<std::string, std::string>> labels = {};
};

// The sources that are no file, as Snapshot::source_paths() and a failed read name them: of
// kern.timex, adjtimex(2).
inline constexpr std::string_view k_timex_source = "adjtimex(2)";
// The source of net.link: a dump of the network links over rtnetlink(7).
inline constexpr std::string_view k_links_source = "rtnetlink(7)";

class Snapshot;
class Handle;
class CgroupWatch;
class MountWatch;
struct Field;
struct Roots;

// What Namespace::snapshot() leaves out of the names it is given.
struct SnapshotFilter {
  // Names that match one of these globs (fnmatch(3) with FNM_EXTMATCH, where '*' matches dots
  // too: "net.dev.veth*", "net.dev.@(lo|docker0).*").
  std::span<const std::string> leave_out = {};
  // Where given, names it says false of are left out too.
  bool (*wanted)(std::string_view name) = nullptr;
  // A name or prefix this machine has nothing under (net.snmp6 on a kernel without IPv6),
  // instead of failing.
  bool absent_ok = false;
  // The same for a name in a subtree whose names come and go (Namespace::transient(): an md
  // array, a network interface, a disk), which may have something under it later, and for one
  // of a process that has exited (Namespace::of_process()).
  bool transient_ok = false;
};

// Names and what a snapshot leaves out of them. A snapshot may be made of several, each with a
// filter of its own: serve's defaults, whose exclusions and absent sources are theirs alone,
// beside names given.
struct Selection {
  std::span<const std::string> names;
  SnapshotFilter filter = {};
};

// What Namespace::snapshot() found, before a snapshot is made of it.
class Found {
public:
  std::size_t size() const noexcept;
  // Whether a snapshot made of it would be `snapshot` again: the same names, in any order, each
  // from the same source with the same labels, read the same way.
  bool same_as(const Snapshot& snapshot) const;

private:
  friend class Namespace;
  explicit Found(std::span<const Field> fields) noexcept : fields_(fields) {}
  std::span<const Field> fields_;
};

// The namespace over one /proc tree and one /sys tree. The defaults are the live ones; tests
// point them at copies. The /proc sources (and the mount points of <proc>/self/mountinfo) come
// from the first, the network interfaces' statistics files and cgroups from the second.
// With `rootfs`, the machine's root file system as mounted here (a container's "/host"), the
// mount points are those of <proc>/1/mountinfo, the machine's init's, and their usage is
// statvfs(3) of each under `rootfs`.
// Cheap to make: nothing is read until a name is listed or resolved.
class Namespace {
public:
  explicit Namespace(std::string proc_root = "/proc", std::string sys_root = "/sys",
                     std::string rootfs = {});

  // Every readable name equal to `prefix` or under it ("" for all), in name order; or, where
  // `prefix` holds a wildcard, every name that glob matches as SnapshotFilter's globs match
  // ("vm.stats.pg*fault", "net.snmp.Tcp.@(InSegs|OutSegs)"). Of the
  // processes, "" and "proc" hold proc.self only; another is listed by "proc.<pid>". Entries that
  // are write-only, act when read (vm.stat_refresh) or are deprecated and log a kernel warning
  // when read (neigh.*.retrans_time) are never listed. Fails when
  // nothing is there, with a suggestion: "unknown name 'vm.stat': did you mean vm.stats?"
  // (a glob: "no name matches 'vm.stat.*'").
  Result<std::vector<Info>> list(std::string_view prefix) const;

  // A snapshot of every name that each of `names` is, or holds (a prefix stands for its
  // subtree in name order, a glob for the names it matches), in the order given, without
  // repeats, but what `filter` leaves out.
  // Fails on the first unknown name, as list() does. Finding the hardware's names reads its
  // sensors (one whose read fails is left out): with a `deadline`, each read that does not
  // answer by then is taken for one that does, and not waited for.
  Result<Snapshot> snapshot(std::span<const std::string> names, SnapshotFilter filter = {},
                            std::chrono::steady_clock::time_point deadline =
                                std::chrono::steady_clock::time_point::max()) const;
  // The same over each selection in turn, with its own filter; a name two hold is read once.
  // `make`, where given, is told what was found before a snapshot is made of it, and says
  // whether to make one (an empty snapshot where it says no): a caller replacing a snapshot can
  // keep it where the names are the same, and let it go first where they are not (its memory,
  // its files).
  Result<Snapshot> snapshot(std::span<const Selection> selections,
                            const std::function<bool(const Found&)>& make = {},
                            std::chrono::steady_clock::time_point deadline =
                                std::chrono::steady_clock::time_point::max()) const;

  // What snapshot(selections) would hold under `prefix` alone (a cgroup made), each name given
  // looked for there only: none where nothing is there.
  Result<Snapshot> snapshot_under(std::span<const Selection> selections,
                                  std::string_view prefix) const;
  // Appends to `snapshot` what snapshot_under() finds under each of `prefixes` (mount points,
  // cgroups, interfaces that came; one under another of them is found with it), found and each
  // part read once by `deadline`.
  // Returns how many of the entries appended failed that read.
  std::size_t append_under(Snapshot& snapshot, std::span<const Selection> selections,
                           std::span<const std::string> prefixes,
                           std::chrono::steady_clock::time_point deadline =
                               std::chrono::steady_clock::time_point::max()) const;

  // Whether `name` lies in a subtree whose names come and go with what the machine holds: md
  // arrays, ARP entries, conntrack's statistics (its module loaded), network interfaces, disks,
  // mount points, CPUs' softnet figures, cgroups.
  static bool transient(std::string_view name) noexcept;
  // Whether `name` lies under a process's names ("proc.4242.stat.utime"), which go for good when
  // it exits: a pid used again is another process. With SnapshotFilter::transient_ok, one that
  // names no process is left out too.
  static bool of_process(std::string_view name) noexcept;
  // Where the records that came or went in `snapshot`'s last read lie, as names that come and go
  // (transient()), each once: a record's own where each name of its file is <subtree>.<its
  // record's key>.<...> ("net.dev.veth1" for veth1's line of /proc/net/dev), else the file's
  // subtree ("md"), and a cgroup's name for a line of its io.stat. Nothing where a source whose
  // records changed has names elsewhere too (/proc/stat's cpu lines beside kern.*): those are
  // for resolving every name again.
  static std::optional<std::vector<std::string>> record_subtrees(const Snapshot& snapshot);
  // The subtrees of the entries whose files went in `snapshot`'s last read
  // (Snapshot::failed_anew()), each once: a process's ("proc.4242": it exited), or one of a
  // subtree whose names come and go (a mount point's, a cgroup's). Nothing where such an entry
  // lies in no subtree of its own (a hwmon sensor's file): those are for resolving every name
  // again.
  static std::optional<std::vector<std::string>> gone_subtrees(const Snapshot& snapshot);
  // Whether names `name` stands for come from the mount table: mount points (fs.mount) and what
  // a mounted file system has (xfs, btrfs, a ZFS pool's datasets). A mount or an unmount changes
  // them.
  static bool from_mounts(std::string_view name) noexcept;
  // A watch on the mount table the mount points come from (<proc>/self/mountinfo, or
  // <proc>/1/mountinfo under a rootfs), for NameChanges; empty when it cannot be opened.
  MountWatch watch_mounts() const;
  // A watch on the cgroups that names of `names` stand for, for NameChanges. Empty when no name
  // stands for cgroups or there is no cgroup v2 hierarchy.
  CgroupWatch watch_cgroups(std::span<const std::string> names) const;
  // Whether there is a name `name` (a name, a prefix or a glob) names now; no error for none.
  bool has(std::string_view name) const;

  // A handle for one leaf name. Fails for an unknown name, a prefix, or an entry that cannot be
  // opened for reading ("vm.drop_caches: write-only entry").
  Result<Handle> resolve(std::string_view name) const;

  // A snapshot of every name read from the same file as leaf `name` (all of /proc/vmstat for
  // vm.stats.pgfault; the entry alone for a /proc/sys name).
  Result<Snapshot> source_snapshot(std::string_view name) const;

  // What a write did: the value the entry held before (nothing for an entry that is never read:
  // write-only, or acting when read), and the end of the value the kernel left unread (an
  // integer entry takes its first number of "61 70" and leaves " 70"), "" when it took it all.
  struct Written {
    std::optional<Value> before;
    std::string ignored;
  };
  // Whether `name` is a /proc/sys entry that can be written; else why not: read-only, not a
  // /proc/sys entry, or unknown (with a guess at the name meant, as a read gives).
  Result<void> writable(std::string_view name) const;
  // Writes `value` to a /proc/sys entry. Fails as writable() does, and with the kernel's reason
  // when it rejects the value.
  Result<Written> write(std::string_view name, std::string_view value) const;

  const std::string& proc_root() const noexcept { return proc_root_; }
  const std::string& sys_root() const noexcept { return sys_root_; }
  const std::string& rootfs() const noexcept { return rootfs_; }

private:
  Roots roots() const;
  // The fields under `prefix`; none there fails, unless `absent_ok` (then: none).
  Result<std::vector<Field>> fields(std::string_view prefix, bool absent_ok = false) const;
  // The fields of each selection, each name found once, but what the filters leave out; of
  // those under `within` alone where it is given.
  Result<std::vector<Field>> found(std::span<const Selection> selections,
                                   std::string_view within = {}) const;
  Result<std::vector<Field>> leaf(std::string_view name) const; // exactly one field, or an error
  Error unknown(std::string_view name) const;
  // The /proc/sys file of `name` and whether it can be read, where it can be written (writable()).
  struct WritableEntry {
    std::string path;
    bool readable = false;
  };
  Result<WritableEntry> writable_entry(std::string_view name) const;

  std::string proc_root_;
  std::string sys_root_;
  std::string rootfs_;
};

// The cgroups made and removed under some names: an inotify(7) instance watching for
// directories made, removed or moved in each cgroup of the hierarchy under them, and the cgroup
// each watch is on (Namespace::watch_cgroups()). Watches stop at the user's limit
// (fs.inotify.max_user_watches).
class CgroupWatch {
public:
  CgroupWatch() = default;
  explicit operator bool() const noexcept { return static_cast<bool>(fd_); }

  // The cgroups made, removed or moved in or out since made or last asked, by name
  // ("cgroup.system/slice.cron/service"), each once; those made are watched from now on. `lost`
  // is set where the kernel dropped events (its queue overflowed): what changed is not known.
  // Reads what inotify queued, and never waits.
  std::vector<std::string> changed(bool& lost);

private:
  friend class Namespace;
  // Watches the cgroup at `dir`, named `name`, and those under it that the names stand for.
  void watch(const std::string& dir, const std::string& name);

  struct Watched {
    std::string dir, name;
  };
  UniqueFd fd_;
  std::vector<std::string> names_;           // the names the cgroups watched are under
  std::unordered_map<int, Watched> watched_; // by watch descriptor
  bool room_ = true;                         // false once the limit of watches is reached
};

// The mount points of a mount table (Namespace::watch_mounts()): the table open, and the mount
// points it listed when last read, as fs.mount lists them, with their file systems.
class MountWatch {
public:
  MountWatch() = default;
  explicit operator bool() const noexcept { return static_cast<bool>(fd_); }

  struct Change {
    // An XFS, Btrfs or ZFS file system was mounted or unmounted, whose names come from
    // elsewhere too (xfs, btrfs, zfs.pool), or the table could not be read again.
    bool everything = false;
    // Else the fs.mount.<point> of each mount point mounted, unmounted, or now another file
    // system's, each once.
    std::vector<std::string> names;
  };
  // What changed since made or last asked: one poll(2), which the kernel answers from a counter
  // and never waits; the table read again where it says the table changed.
  Change changed();

private:
  friend class Namespace;
  UniqueFd fd_;
  std::string path_;
  std::vector<std::string> listed_; // sorted: "<name>\0<type>\0<source>" a mount point
};

// What tells that names came or went where no source file read shows it: a file system mounted
// or unmounted, where names come from the mount table (Namespace::from_mounts()), and a cgroup
// made or removed under the names (Namespace::watch_cgroups()). Made before the names are
// resolved, and renewed before each resolve after, so that nothing that comes between goes
// unseen.
class NameChanges {
public:
  NameChanges(const Namespace& ns, std::span<const std::string> names);

  struct Seen {
    // Names may have changed anywhere: an XFS, Btrfs or ZFS file system was mounted or
    // unmounted, cgroups changed that the watch lost, or records came or went in a file whose
    // names lie elsewhere too.
    bool everything = false;
    // Else the names whose subtrees to find anew, each once: of mount points mounted or
    // unmounted ("fs.mount./data"), of cgroups made or removed
    // ("cgroup.system/slice.cron/service"), and of records that came or went
    // ("net.dev.veth1").
    std::vector<std::string> subtrees;
  };
  // What came or went since made or last asked: a poll(2) of the mount table and a read of the
  // cgroups' inotify queue, where watched, and the records that came or went in `snapshot`'s
  // last read (Namespace::record_subtrees()). Never waits.
  Seen happened(const Snapshot& snapshot);
  // Before the names are resolved again: the cgroups made since are watched too.
  void renew(const Namespace& ns, std::span<const std::string> names);

private:
  MountWatch mounts_;
  CgroupWatch cgroups_;
};

namespace detail {
struct Source;      // one open source file: fd, read buffer, layout
class DriverReader; // reads the sources that ask a driver on a thread of their own
} // namespace detail

// Many names read together: read() reads each source file once, then every value is current.
class Snapshot {
public:
  Snapshot(Snapshot&&) noexcept;
  Snapshot& operator=(Snapshot&&) noexcept;
  ~Snapshot();

  // Reads every source (one pread at offset 0 each) and updates every value. An entry whose
  // source cannot be opened or read, or whose field has gone, gets an error instead of a value.
  // Returns how many entries failed; the others are fine.
  std::size_t read();
  // The same within a time budget: sources not yet read when `deadline` passes are not read,
  // and their entries get the error "not read: the deadline passed". The clock is looked at
  // before the first source and every fourth after it, so up to three sources more may be read
  // past the deadline. One read that blocks in the kernel still takes its time; files are opened
  // without blocking (a FIFO fails at once).
  std::size_t read(std::chrono::steady_clock::time_point deadline);

  std::size_t size() const noexcept { return infos_.size(); }
  const Info& info(std::size_t i) const noexcept { return infos_[i]; }
  // Whether entry i is read as entry j of `other` is: from the same file, summed over as many
  // columns (an interrupt's, over the CPUs online), so that a value of one follows the other's.
  bool reads_as(std::size_t i, const Snapshot& other, std::size_t j) const noexcept;
  // The value from the last read(); meaningless while error(i) is set or before the first read.
  const Value& value(std::size_t i) const noexcept { return values_[i]; }
  // Why entry i failed in the last read(), or nullptr; the entry's name is the caller's to add.
  const Error* error(std::size_t i) const noexcept { return errors_[i].get(); }
  // How many distinct files one read() reads, and which ("/proc/vmstat"; a mount point for
  // the statvfs(3) of fs.mount; k_timex_source, k_links_source for the calls), in the order read.
  std::size_t source_count() const noexcept { return sources_.size(); }
  std::vector<std::string> source_paths() const;
  // The source files that failed in the last read(), each with why, in the order first used.
  std::vector<std::pair<std::string, Error>> source_errors() const;
  // The hardware's files (those a driver answers: hwmon sensors, thermal zones, ...) that read
  // well in the last read(), sorted.
  std::vector<std::string> answered_by_drivers() const;
  // The entries whose source failed in the last read() and read well in the one before: a
  // process that exited, a mount point that stopped answering.
  std::vector<std::size_t> failed_anew() const;
  // Whether a source file had more or fewer lines in the last read than in the one before (a
  // disk, a CPU, a network interface, an interrupt came or went): names resolved again would
  // differ.
  bool records_changed() const noexcept;
  // Of each such source: the entries read from it, the record key each reads, and where its
  // records are keyed lines (/proc/net/dev's interfaces), the keys of the records of figures
  // that came (none of its entries reads them: left out by the names given, or new) and went
  // (entries read them, the file has them no more).
  struct RecordChange {
    std::vector<std::size_t> entries;
    std::vector<std::string_view> keys; // of each entry
    bool keyed = false;
    std::vector<std::string> came, went;
  };
  std::vector<RecordChange> record_changes() const;

  // Leaves out each entry under one of `prefixes` (mount points, cgroups, net.dev), and the
  // sources only they read; `moved_to` gets, for each entry before, its index now, or k_erased.
  // Returns how many of those left out had failed the last read.
  static constexpr std::size_t k_erased = static_cast<std::size_t>(-1);
  std::size_t erase_under(std::span<const std::string> prefixes,
                          std::vector<std::size_t>& moved_to);
  // Takes `more`'s entries after these, with their last read, and its sources but those these
  // read already (the same file, reader): an interface followed reads /proc/net/dev with the
  // others.
  void append(Snapshot&& more);

private:
  friend class Namespace;
  friend class Found;
  Snapshot(std::vector<Field> fields);
  bool update(std::size_t i); // entry i from its source's last read; false (and error(i)) if not
  struct Record;
  void find_records();                // the records_ among slots_, and which slots are plain counts
  std::size_t update(Record& record); // its entries, as update() each; how many failed
  bool gone(std::size_t i);           // entry i's field is no longer in its source: false
  bool fail(std::size_t i, Error why);     // entry i failed the read: false
  void note_lines(detail::Source& source); // whether its lines changed

  struct Slot; // where entry i is found: its source and field locator
  std::vector<std::unique_ptr<detail::Source>> sources_;
  std::vector<Slot> slots_;
  std::vector<Record> records_; // runs of slots that are columns of one record, in slot order
  std::vector<Info> infos_;
  std::vector<Value> values_;
  // Why each entry failed the last read, or null: a pointer, 8 bytes an entry where an Error is
  // 48, as every scrape looks at every entry's and few ever fail.
  std::vector<std::unique_ptr<Error>> errors_;
  // Reads the sources that ask a driver (Reader::driver) when there is a deadline.
  std::unique_ptr<detail::DriverReader> driver_reader_;
};

// One resolved leaf: an open file descriptor and a field locator. read() is one pread at offset
// 0 of a buffer sized to the file, plus a parse that starts where the field was last found.
class Handle {
public:
  Handle(Handle&&) noexcept;
  Handle& operator=(Handle&&) noexcept;
  ~Handle();

  // The current value, or why it cannot be read (the field is gone, the read failed), the
  // name first ("vm.stats.pgfault: no longer in /proc/vmstat").
  Result<Value> read();
  const Info& info() const noexcept;

private:
  friend class Namespace;
  explicit Handle(Snapshot snapshot);
  Snapshot snapshot_; // of exactly one entry
};

} // namespace opskit::counters
