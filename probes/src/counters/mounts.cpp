// SPDX-License-Identifier: MIT
//
// File system usage by mount point: fs.mount.<mount point>.{size,free,avail,files,files_free,
// readonly}, from statvfs(3) of each mount point that <proc>/self/mountinfo lists (see proc(5)),
// each labelled with the mount's source and type as node_exporter labels them; and
// fs.mount.<mount point>.device_error, 1 when that statvfs failed or did not answer in time. Given
// the machine's root file system as mounted here (Roots::rootfs, in a container), the mount points
// are those <proc>/1/mountinfo lists, the machine's init's, and statvfs(3) is of each under it,
// as node_exporter's --path.rootfs has it.
//
// A mount point is one name component, so that "/" and "/home" are siblings and neither is a
// prefix of the other: the path as mountinfo writes it, leading '/' kept, with each '.' written
// "\056", as mountinfo already writes space, tab, newline and backslash ("\040", "\011",
// "\012", "\134"). "/" is fs.mount./ and "/mnt/my disk.img" is fs.mount./mnt/my\040disk\056img;
// undoing the octal escapes gives the path back.
//
// As node_exporter's filesystem collector does by default, file systems with no storage of
// their own (proc, sysfs, cgroup, devpts, ...) and read-only images that are always full
// (squashfs, iso9660) are left out, and so are mount points in /dev, /proc and /sys, and below
// (not at) /var/lib/docker, /var/lib/containers/storage and /run/credentials: the containers'
// file systems and systemd's credentials of each service. A mount point mounted over is listed
// once: statvfs sees the mount on top.

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include <fcntl.h>
#include <poll.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

constexpr std::string_view k_skipped_types[] = {
    "autofs",     "binfmt_misc", "bpf",      "cgroup",   "cgroup2", "configfs",
    "debugfs",    "devpts",      "devtmpfs", "efivarfs", "fusectl", "hugetlbfs",
    "iso9660",    "mqueue",      "nsfs",     "proc",     "pstore",  "rpc_pipefs",
    "securityfs", "selinuxfs",   "squashfs", "sysfs",    "tracefs"};

constexpr std::string_view k_skipped_trees[] = {"/dev", "/proc", "/sys"};
constexpr std::string_view k_skipped_below[] = {"/var/lib/docker", "/var/lib/containers/storage",
                                                "/run/credentials"};

// File systems whose statvfs(3) answers from memory, never waiting on a server or a daemon: read
// in place. Any other (nfs, cifs, fuse.*, ceph, 9p, and overlay, which asks its upper and lower
// layers, a FUSE or NFS mount among them) is read on a thread with a deadline.
constexpr std::string_view k_local_types[] = {"btrfs", "exfat", "ext2",  "ext3", "ext4",
                                              "f2fs",  "ramfs", "tmpfs", "vfat", "xfs",
                                              "zfs",   "ntfs3", "erofs", "jfs"};

struct Mount {
  std::string_view id, parent; // the mount's ID and its parent's
  std::string_view point;      // escaped, as mountinfo writes it
  std::string_view type;
  std::string_view source; // escaped; "none" where mountinfo has none
};

// A mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER".
// A source given as "" leaves two blanks, one separator to the tokens: TYPE and SUPER alone.
std::optional<Mount> mount_of(const Record& r) {
  if (r.tokens.size() < 4)
    return std::nullopt;
  auto dash = std::find(r.tokens.begin() + 4, r.tokens.end(), "-");
  if (dash == r.tokens.end() || dash + 1 == r.tokens.end())
    return std::nullopt;
  return Mount{r.key, r.tokens[0], r.tokens[3], *(dash + 1),
               r.tokens.end() - dash > 3 ? *(dash + 2) : "none"};
}

// True when `point` is below `tree` ("/sys/kernel" below "/sys"), not `tree` itself.
bool below(std::string_view point, std::string_view tree) noexcept {
  return point.size() > tree.size() && point.starts_with(tree) && point[tree.size()] == '/';
}

bool skipped(const Mount& m) {
  if (std::find(std::begin(k_skipped_types), std::end(k_skipped_types), m.type) !=
      std::end(k_skipped_types))
    return true;
  return std::any_of(
             std::begin(k_skipped_trees), std::end(k_skipped_trees),
             [&](std::string_view tree) { return m.point == tree || below(m.point, tree); }) ||
         std::any_of(std::begin(k_skipped_below), std::end(k_skipped_below),
                     [&](std::string_view tree) { return below(m.point, tree); });
}

bool is_octal(char c) noexcept {
  return c >= '0' && c <= '7';
}

// fs.mount.<mount point>: the name a mount point's fields are under, for fs.mount and for the
// MountWatch that tells which came or went.
std::string mount_name(std::string_view escaped) {
  std::string name = "fs.mount.";
  append_octal_escaped(name, escaped, ".");
  return name;
}

// A mount point's fields, in the order of their names (natural_less()).
struct Usage {
  std::string_view field, unit, pattern;
  Convert convert = {};
};
constexpr Usage k_usage[] = {
    {"avail", "bytes", "fs.mount.*.avail"},
    {"device_error", "", "fs.mount.*.device_error", {.read_failed = true}},
    {"files", "files", "fs.mount.*.files"},
    {"files_free", "files", "fs.mount.*.files_free"},
    {"free", "bytes", "fs.mount.*.free"},
    {"readonly", "", "fs.mount.*.readonly"},
    {"size", "bytes", "fs.mount.*.size"},
};

// The fields of mount point `m`, named under `stem` ("fs.mount./data."). `under`: where the
// mount points' paths lie here ("" in place, "/host" in a container).
void emit_mount(const Roots& roots, std::string_view under, std::string_view stem, const Mount& m,
                std::string_view prefix, std::vector<Field>& out) {
  bool local = std::find(std::begin(k_local_types), std::end(k_local_types), m.type) !=
               std::end(k_local_types);
  Emitter emitter(roots, std::string(under) + mount_path(m.point), k_fixed_lines, prefix, out,
                  local ? Reader::statfs_local : Reader::statfs);
  const std::vector<std::pair<std::string, std::string>> labels = {{"device", mount_path(m.source)},
                                                                   {"fstype", std::string(m.type)}};
  std::string name(stem);
  for (const auto& usage : k_usage) {
    name.resize(stem.size());
    name += usage.field;
    if (Info* info = emitter.emit(name, usage.pattern, Kind::gauge, usage.unit,
                                  {std::string(usage.field), 0, 0}, usage.convert))
      info->labels = labels;
  }
}

} // namespace

void append_octal_escaped(std::string& out, std::string_view text, std::string_view special) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t plain = std::min(text.find_first_of(special, at), text.size());
    out.append(text, at, plain - at); // the run of characters up to the next special one
    if (plain < text.size())
      fmt::format_to(std::back_inserter(out), FMT_COMPILE("\\{:03o}"),
                     static_cast<unsigned char>(text[plain]));
    at = plain + 1;
  }
}

std::string mount_path(std::string_view escaped) {
  std::string path;
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] == '\\' && i + 3 < escaped.size() && is_octal(escaped[i + 1]) &&
        is_octal(escaped[i + 2]) && is_octal(escaped[i + 3])) {
      path.push_back(static_cast<char>((escaped[i + 1] - '0') * 64 + (escaped[i + 2] - '0') * 8 +
                                       (escaped[i + 3] - '0')));
      i += 3;
    } else {
      path.push_back(escaped[i]);
    }
  }
  return path;
}

namespace {

// The machine's mountinfo: this process's, or its init's under a root file system given.
std::string mountinfo_path(const Roots& roots) {
  return roots.proc + (roots.rootfs.empty() ? "/self/mountinfo" : "/1/mountinfo");
}

Result<std::string> read_mountinfo(const Roots& roots) {
  return read_file(mountinfo_path(roots));
}

// Where the mount points' paths lie here: "" in place, "/host" in a container ("/host" and
// "/home" make "/host/home").
std::string_view under_rootfs(const Roots& roots) {
  std::string_view under = roots.rootfs;
  if (under.ends_with('/'))
    under.remove_suffix(1);
  return under;
}

} // namespace

std::vector<std::string> mount_points(const Roots& roots, std::string_view type) {
  std::vector<std::string> out;
  auto text = read_mountinfo(roots);
  if (!text)
    return out;
  for_each_record(*text, Layout{}, [&](const Record& r) {
    if (auto mount = mount_of(r); mount && mount->type == type)
      out.push_back(std::string(under_rootfs(roots)) + mount_path(mount->point));
  });
  return out;
}

namespace {

// Calls `f` with each mount point of mountinfo's `text` that fs.mount lists, in the table's
// order, each once: the mount on top of any others there, which statvfs(3) sees, and whose file
// system and device label it. The top one is no other's parent there; mountinfo lists it last
// unless mounts were moved (mount --move) onto the point.
template <class F>
void for_each_listed(std::string_view text, F&& f) {
  std::vector<Mount> mounts; // the first at each point, in the table's order
  std::map<std::string_view, std::size_t> at;
  std::vector<Mount> others; // the rest at points with more than one
  for_each_record(text, Layout{}, [&](const Record& r) {
    auto mount = mount_of(r);
    if (!mount)
      return;
    if (auto [it, first] = at.try_emplace(mount->point, mounts.size()); first)
      mounts.push_back(*mount);
    else
      others.push_back(*mount);
  });
  // Each (point, parent) of the mounts at a point with more than one: a mount there whose ID is
  // one of them has another on top of it.
  std::set<std::pair<std::string_view, std::string_view>> parents;
  for (const Mount& m : others) {
    parents.emplace(m.point, m.parent);
    const Mount& first = mounts[at[m.point]];
    parents.emplace(first.point, first.parent);
  }
  for (const Mount& m : others)
    if (!parents.contains({m.point, m.id}))
      mounts[at[m.point]] = m;
  for (const Mount& mount : mounts)
    if (!skipped(mount))
      f(mount);
}

// What a MountWatch keeps of mountinfo's `text`: a line a mount point, sorted.
std::vector<std::string> listed_mounts(std::string_view text) {
  std::vector<std::string> out;
  for_each_listed(text, [&](const Mount& m) {
    out.push_back(mount_name(m.point));
    out.back().append(1, '\0').append(m.type).append(1, '\0').append(m.source);
  });
  std::ranges::sort(out);
  return out;
}

// The kernel marks a mount table's descriptor when the table changes, and clears the mark when
// poll(2) reports it (proc_mounts's mounts_poll()).
bool mounts_changed(int fd) noexcept {
  pollfd table{fd, POLLPRI, 0};
  return ::poll(&table, 1, 0) > 0 && (table.revents & (POLLPRI | POLLERR)) != 0;
}

} // namespace

MountWatch Namespace::watch_mounts() const {
  MountWatch watch;
  watch.path_ = mountinfo_path(roots());
  // Opened before it is read: a change between the two is told at the first look.
  watch.fd_ = UniqueFd(::open(watch.path_.c_str(), O_RDONLY | O_CLOEXEC));
  if (auto text = read_file(watch.path_); text && watch.fd_)
    watch.listed_ = listed_mounts(*text);
  return watch;
}

MountWatch::Change MountWatch::changed() {
  Change change;
  if (!fd_ || !mounts_changed(fd_.get()))
    return change;
  auto text = read_file(path_);
  if (!text) {
    change.everything = true;
    return change;
  }
  auto now = listed_mounts(*text);
  std::vector<std::string> differ;
  std::ranges::set_symmetric_difference(listed_, now, std::back_inserter(differ));
  listed_ = std::move(now);
  for (std::string_view line : differ) {
    std::string_view name = line.substr(0, line.find('\0'));
    std::string_view type = line.substr(name.size() + 1);
    type = type.substr(0, type.find('\0'));
    // Their names come from /sys and /proc too, not from the mount point's alone.
    if (type == "xfs" || type == "btrfs" || type == "zfs")
      change.everything = true;
    if (std::ranges::find(change.names, name) == change.names.end())
      change.names.emplace_back(name);
  }
  if (change.everything)
    change.names.clear();
  return change;
}

void find_mounts(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "fs.mount"))
    return;
  auto text = read_mountinfo(roots);
  if (!text)
    return;
  struct Listed {
    std::string stem; // fs.mount.<mount point>.
    Mount mount;
  };
  std::vector<Listed> listed;
  for_each_listed(*text, [&](const Mount& m) {
    Listed point{mount_name(m.point) + ".", m};
    if (related(prefix, std::string_view(point.stem).substr(0, point.stem.size() - 1)))
      listed.push_back(std::move(point));
  });
  // In the order of their names, each field's after its stem's '.': the names come sorted, and
  // sort_by_name() finds them so ("/a-b." before "/a.", as "/a-b.avail" before "/a.avail").
  std::ranges::sort(listed, natural_less, &Listed::stem);
  out.reserve(out.size() + listed.size() * std::size(k_usage));
  std::string_view under = under_rootfs(roots);
  for (const auto& [stem, mount] : listed)
    emit_mount(roots, under, stem, mount, prefix, out);
}

} // namespace opskit::counters
