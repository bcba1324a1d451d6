// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "driver_reads.hpp"
#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/probes/counters.hpp"
#include "opskit/text.hpp"
#include "reader.hpp"
#include "sources.hpp"

namespace opskit::counters {

namespace {

// In name order, the first of each name kept.
void sort_unique(std::vector<Field>& fields) {
  sort_by_name(fields);
  auto repeats = std::ranges::unique(
      fields, {}, [](const Field& f) -> const std::string& { return f.info.name; });
  fields.erase(repeats.begin(), repeats.end());
}

// The component of `name` right after `parent` ("vm.stats.pgfault", "vm" -> "stats").
std::string_view child_of(std::string_view parent, std::string_view name) {
  std::string_view rest = parent.empty() ? name : name.substr(parent.size() + 1);
  return rest.substr(0, rest.find('.'));
}

// Where the first wildcard of a glob of names stands ('*', '?', '[', or one of bash's extended
// patterns such as "@(a|b)"), or npos for a plain name or prefix.
std::size_t first_wildcard(std::string_view name) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '*' || c == '?' || c == '[')
      return i;
    if ((c == '@' || c == '+' || c == '!') && i + 1 < name.size() && name[i + 1] == '(')
      return i;
  }
  return std::string_view::npos;
}

// A backslash in a glob is the names' own, as in their escapes (a mount point's '.' is "\056"),
// not fnmatch's escape of the character after it.
bool glob_matches(const std::string& glob, const std::string& name) {
  return ::fnmatch(glob.c_str(), name.c_str(), FNM_EXTMATCH | FNM_NOESCAPE) == 0;
}

// Leaves in `found` what the glob `name` names: the names it matches, and those under it as it
// is written (a name that merely holds a wildcard's character: "net.dev.eth[1]").
void keep_named(std::vector<Field>& found, std::string_view name) {
  std::string pattern(name);
  std::erase_if(found, [&](const Field& f) {
    return !glob_matches(pattern, f.info.name) && !holds(name, f.info.name);
  });
}

// Whether two names, prefixes or globs can name one name: their scopes hold one the other.
bool may_overlap(std::string_view a, std::string_view b) {
  std::string_view sa = scope_of(a), sb = scope_of(b);
  return holds(sa, sb) || holds(sb, sa);
}

} // namespace

std::string_view scope_of(std::string_view name) {
  std::size_t wildcard = first_wildcard(name);
  if (wildcard == std::string_view::npos)
    return name;
  std::size_t dot = name.rfind('.', wildcard);
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

Namespace::Namespace(std::string proc_root, std::string sys_root, std::string rootfs)
    : proc_root_(std::move(proc_root)), sys_root_(std::move(sys_root)), rootfs_(std::move(rootfs)) {
}

Roots Namespace::roots() const {
  return Roots{proc_root_, sys_root_, rootfs_};
}

Result<std::vector<Field>> Namespace::fields(std::string_view prefix, bool absent_ok) const {
  // A glob: what it names under its components before the wildcard's.
  bool glob = first_wildcard(prefix) != std::string_view::npos;
  auto found = find_fields(roots(), scope_of(prefix));
  if (glob)
    keep_named(found, prefix);
  if (found.empty() && !absent_ok)
    return fail(glob ? Error(fmt::format("no name matches '{}'", prefix), ENOENT)
                     : unknown(prefix));
  sort_unique(found);
  return found;
}

namespace {

// The subtrees whose names come and go with what the machine holds.
constexpr std::string_view k_transient[] = {
    "md",   "net.arp",  "net.bonding", "net.conntrack", "net.dev", "net.link", "net.softnet",
    "disk", "fs.mount", "cgroup",      "xfs",           "btrfs",   "zfs",      "bcache"};

// The one of them that holds `name`, or nothing.
std::optional<std::string_view> transient_root(std::string_view name) noexcept {
  for (std::string_view root : k_transient)
    if (holds(root, name))
      return root;
  return std::nullopt;
}

} // namespace

bool Namespace::transient(std::string_view name) noexcept {
  return transient_root(name).has_value();
}

bool Namespace::of_process(std::string_view name) noexcept {
  if (!holds("proc", name) || name.size() <= 5)
    return false;
  std::string_view rest = name.substr(5);
  return all_digits(rest.substr(0, rest.find('.')));
}

namespace {

// The subtree all of a changed file's entries lie in: a subtree of names that come and go, or
// for a cgroup's file (io.stat gained a device) that cgroup, not every cgroup's.
std::optional<std::string_view> changed_root(const Snapshot& snapshot,
                                             const Snapshot::RecordChange& change) {
  std::optional<std::string_view> root;
  for (std::size_t i : change.entries) {
    const std::string& name = snapshot.info(i).name;
    auto mine = transient_root(name);
    if (mine == "cgroup")
      mine = cgroup_of(name);
    if (!mine || (root && *root != *mine))
      return std::nullopt;
    root = mine;
  }
  return root;
}

// Whether each entry's name is <root>.<its record's key>.<...>, as net.dev.eth0.rx_bytes is of
// /proc/net/dev's "eth0:" line: the records that came or went are then subtrees of their own.
bool named_by_key(const Snapshot& snapshot, const Snapshot::RecordChange& change,
                  std::string_view root) {
  if (!change.keyed || change.entries.empty())
    return false;
  for (std::size_t k = 0; k < change.entries.size(); ++k) {
    std::string stem = dotted_name(root, component_of(change.keys[k])) + ".";
    if (!snapshot.info(change.entries[k]).name.starts_with(stem))
      return false;
  }
  return true;
}

// The names a file of `name`'s goes with, when it goes: a process's ("proc.4242"), a cgroup's,
// or those of one mount point, interface or disk ("fs.mount./data", "net.dev.veth1"). Nothing
// for a name in no such subtree.
std::optional<std::string> own_subtree(std::string_view name) {
  std::string_view root = "proc";
  if (!Namespace::of_process(name)) {
    auto transient = transient_root(name);
    if (!transient)
      return std::nullopt;
    if (*transient == "cgroup") {
      auto cgroup = cgroup_of(name);
      return cgroup ? std::optional<std::string>(*cgroup) : std::nullopt;
    }
    root = *transient;
  }
  if (name.size() <= root.size())
    return std::string(root);
  return dotted_name(root, child_of(root, name));
}

void add_once(std::vector<std::string>& subtrees, std::string subtree) {
  if (std::ranges::find(subtrees, subtree) == subtrees.end())
    subtrees.push_back(std::move(subtree));
}

} // namespace

std::optional<std::vector<std::string>> Namespace::record_subtrees(const Snapshot& snapshot) {
  std::vector<std::string> out;
  for (const auto& change : snapshot.record_changes()) {
    auto root = changed_root(snapshot, change);
    if (!root)
      return std::nullopt;
    if (named_by_key(snapshot, change, *root)) { // a cgroup's names are not: its file's are
      for (const auto* keys : {&change.came, &change.went})
        for (const auto& key : *keys)
          add_once(out, dotted_name(*root, component_of(key)));
    } else {
      add_once(out, std::string(*root));
    }
  }
  return out;
}

std::optional<std::vector<std::string>> Namespace::gone_subtrees(const Snapshot& snapshot) {
  std::vector<std::string> out;
  for (std::size_t i : snapshot.failed_anew()) {
    auto subtree = own_subtree(snapshot.info(i).name);
    if (!subtree)
      return std::nullopt;
    add_once(out, std::move(*subtree));
  }
  return out;
}

bool Namespace::from_mounts(std::string_view name) noexcept {
  constexpr std::string_view k_mounted[] = {"fs.mount", "xfs", "btrfs", "zfs.pool"};
  return std::ranges::any_of(k_mounted, [&](std::string_view root) { return related(name, root); });
}

NameChanges::NameChanges(const Namespace& ns, std::span<const std::string> names)
    : cgroups_(ns.watch_cgroups(names)) {
  if (std::ranges::any_of(names, Namespace::from_mounts))
    mounts_ = ns.watch_mounts();
}

NameChanges::Seen NameChanges::happened(const Snapshot& snapshot) {
  Seen seen;
  if (mounts_) {
    auto mounted = mounts_.changed();
    seen.everything = mounted.everything;
    seen.subtrees = std::move(mounted.names);
  }
  if (cgroups_) { // asked even so: emptied
    auto cgroups = cgroups_.changed(seen.everything);
    seen.subtrees.insert(seen.subtrees.end(), std::make_move_iterator(cgroups.begin()),
                         std::make_move_iterator(cgroups.end()));
  }
  if (snapshot.records_changed() && !seen.everything) {
    auto records = Namespace::record_subtrees(snapshot);
    seen.everything = !records;
    for (auto& subtree : records.value_or(std::vector<std::string>{}))
      add_once(seen.subtrees, std::move(subtree));
  }
  return seen;
}

void NameChanges::renew(const Namespace& ns, std::span<const std::string> names) {
  if (!cgroups_)
    return;
  // The old watch goes first: beside the new one it would hold the user's inotify watches
  // twice over, and the new one run out of them (max_user_watches) half-way through the cgroups.
  // What is made or removed in between, the resolve that renews it finds.
  cgroups_ = CgroupWatch();
  cgroups_ = ns.watch_cgroups(names);
}

bool Namespace::has(std::string_view name) const {
  auto found = fields(name, true);
  return found && !found->empty();
}

Error Namespace::unknown(std::string_view name) const {
  if (auto path = sysctl_path(proc_root_, name)) {
    struct stat st {};
    if (::stat(path->c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if ((st.st_mode & 0444) == 0)
        return Error(fmt::format("{}: write-only entry, not read (kstat write sets it)", name),
                     EACCES);
      if (auto why = never_read(name))
        return Error(fmt::format("{}: not read: {}", name, *why), EACCES);
    }
  }
  if (auto root = transient_root(name); root && !has(*root))
    return Error(fmt::format("unknown name '{}': nothing is under {} now", name, *root), ENOENT);
  if (auto lacks =
          holds("hw", name) ? missing_hardware(roots(), name) : missing_source(roots(), name))
    return Error(fmt::format("unknown name '{}': {}", name, *lacks), ENOENT);
  if (name.starts_with("proc.")) {
    std::size_t end = name.find('.', 5);
    if (find_fields(roots(), name.substr(0, end)).empty())
      return Error(fmt::format("unknown name '{}': no such process", name), ENOENT);
  }
  // Suggest a fix for the first component that is not there.
  std::string_view parent = name;
  for (;;) {
    std::size_t dot = parent.rfind('.');
    parent = dot == std::string_view::npos ? std::string_view{} : parent.substr(0, dot);
    auto under = find_fields(roots(), parent);
    if (under.empty() && !parent.empty())
      continue;
    if (under.size() == 1 && under.front().info.name == parent)
      return Error(
          fmt::format("unknown name '{}': {} is a name, with nothing under it", name, parent),
          ENOENT);
    std::set<std::string> children;
    for (const auto& field : under)
      children.emplace(child_of(parent, field.info.name));
    std::vector<std::string> candidates(children.begin(), children.end());
    auto guess = closest_match(child_of(parent, name), candidates);
    if (!guess)
      return Error(fmt::format("unknown name '{}'", name), ENOENT);
    return Error(fmt::format("unknown name '{}': did you mean {}{}{}?", name, parent,
                             parent.empty() ? "" : ".", *guess),
                 ENOENT);
  }
}

Result<std::vector<Info>> Namespace::list(std::string_view prefix) const {
  OPSKIT_TRY_ASSIGN(auto found, fields(prefix));
  std::vector<Info> infos;
  infos.reserve(found.size());
  for (auto& field : found)
    infos.push_back(std::move(field.info));
  return infos;
}

Result<Snapshot> Namespace::snapshot(std::span<const std::string> names, SnapshotFilter filter,
                                     std::chrono::steady_clock::time_point deadline) const {
  Selection one{names, filter};
  return snapshot(std::span<const Selection>(&one, 1), {}, deadline);
}

Result<Snapshot> Namespace::snapshot(std::span<const Selection> selections,
                                     const std::function<bool(const Found&)>& make,
                                     std::chrono::steady_clock::time_point deadline) const {
  detail::ProbeDeadline probes(deadline);
  OPSKIT_TRY_ASSIGN(auto all, found(selections));
  if (make && !make(Found(all)))
    return Snapshot({});
  return Snapshot(std::move(all));
}

Result<Snapshot> Namespace::snapshot_under(std::span<const Selection> selections,
                                           std::string_view prefix) const {
  OPSKIT_TRY_ASSIGN(auto all, found(selections, prefix));
  return Snapshot(std::move(all));
}

std::size_t Namespace::append_under(Snapshot& snapshot, std::span<const Selection> selections,
                                    std::span<const std::string> prefixes,
                                    std::chrono::steady_clock::time_point deadline) const {
  detail::ProbeDeadline probes(deadline);
  std::size_t failed = 0;
  for (const auto& prefix : prefixes) {
    auto under_another = [&](const std::string& other) {
      return other != prefix && holds(other, prefix);
    };
    if (std::ranges::any_of(prefixes, under_another))
      continue;
    if (auto made = snapshot_under(selections, prefix); made && made->size() > 0) {
      failed += made->read(deadline);
      snapshot.append(std::move(*made));
    }
  }
  return failed;
}

Result<std::vector<Field>> Namespace::found(std::span<const Selection> selections,
                                            std::string_view within) const {
  // The fields `name` names, of those under `within` alone where it is given: all of them where
  // the name lies within it, none where the two are apart, and else those under it that the
  // name names.
  auto named = [&](std::string_view name, bool absent_ok) -> Result<std::vector<Field>> {
    if (within.empty())
      return fields(name, absent_ok);
    std::string_view scope = scope_of(name);
    if (holds(within, scope))
      return fields(name, true);
    if (!holds(scope, within))
      return std::vector<Field>{};
    // `within` as it is written, wildcards' characters and all (a cgroup named "job[1]").
    auto under = find_fields(roots(), within);
    sort_unique(under);
    if (first_wildcard(name) != std::string_view::npos)
      keep_named(under, name);
    return under;
  };
  std::vector<Field> all;
  std::vector<std::string_view> given; // the names before, of every selection
  for (const auto& [names, filter] : selections) {
    auto left_out = [&](const std::string& name) {
      if (filter.wanted != nullptr && !filter.wanted(name))
        return true;
      return std::ranges::any_of(filter.leave_out,
                                 [&](const std::string& glob) { return glob_matches(glob, name); });
    };
    for (const auto& name : names) {
      OPSKIT_TRY_ASSIGN(auto found,
                        named(name, filter.absent_ok || (filter.transient_ok &&
                                                         (transient(name) || of_process(name)))));
      given.push_back(name);
      if (all.empty()) { // taken whole, not moved a field at a time: "cgroup" finds 30,000
        all = std::move(found);
        std::erase_if(all, [&](const Field& field) { return left_out(field.info.name); });
        continue;
      }
      if (all.capacity() < all.size() + found.size()) // first, so that the views below hold
        all.reserve(std::max(all.size() + found.size(), 2 * all.capacity()));
      // A name found is unique (fields()); one a name before found is looked up only where the
      // two may name the same (the defaults and "cgroup" do not: no set of 30,000 names).
      std::unordered_set<std::string_view> before;
      auto earlier = std::span(given).first(given.size() - 1);
      if (std::ranges::any_of(earlier, [&](std::string_view b) { return may_overlap(b, name); }))
        for (const auto& field : all)
          before.insert(field.info.name);
      for (auto& field : found)
        if (!left_out(field.info.name) && !before.contains(field.info.name))
          all.push_back(std::move(field));
    }
  }
  return all;
}

Result<std::vector<Field>> Namespace::leaf(std::string_view name) const {
  auto found = fields(name);
  if (!found)
    return fail(found.error());
  if (found->size() == 1 && found->front().info.name == name)
    return found;
  if (first_wildcard(name) != std::string_view::npos)
    return fail(fmt::format("{}: a glob (of {} name{}), not one name", name, found->size(),
                            found->size() == 1 ? "" : "s"),
                EISDIR);
  return fail(fmt::format("{}: a prefix of {} names, not one name", name, found->size()), EISDIR);
}

Result<Handle> Namespace::resolve(std::string_view name) const {
  OPSKIT_TRY_ASSIGN(auto found, leaf(name));
  return Handle(Snapshot(std::move(found)));
}

Result<Snapshot> Namespace::source_snapshot(std::string_view name) const {
  OPSKIT_TRY_ASSIGN(auto leaf, this->leaf(name));
  if (leaf.front().layout.shape == Layout::Shape::whole) // a /proc/sys file is its own source
    return Snapshot(std::move(leaf));
  // The names of one file can sit under two prefixes (/proc/stat feeds cpu.* and kern.*), so
  // look through everything that is not another process.
  std::string_view scope = name.starts_with("proc.") ? name.substr(0, name.find('.', 5)) : "";
  auto all = find_fields(roots(), scope);
  std::erase_if(all, [&](const Field& f) {
    return f.path != leaf.front().path || f.reader != leaf.front().reader;
  });
  sort_unique(all);
  return Snapshot(std::move(all));
}

Result<void> Namespace::writable(std::string_view name) const {
  OPSKIT_TRY(writable_entry(name));
  return {};
}

Result<Namespace::WritableEntry> Namespace::writable_entry(std::string_view name) const {
  auto path = sysctl_path(proc_root_, name);
  struct stat st {};
  if (!path || ::stat(path->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    if (!has(name))
      return fail(unknown(name));
    if (path && S_ISDIR(st.st_mode))
      return fail(fmt::format("{}: a /proc/sys directory, not an entry", name), EISDIR);
    return fail(fmt::format("{}: not a /proc/sys entry, so not writable", name), ENOENT);
  }
  if ((st.st_mode & 0222) == 0)
    return fail(fmt::format("{}: read-only, not writable", name), EACCES);
  return WritableEntry{std::move(*path), (st.st_mode & 0444) != 0};
}

Result<Namespace::Written> Namespace::write(std::string_view name, std::string_view value) const {
  OPSKIT_TRY_ASSIGN(auto entry, writable_entry(name));
  // The value before, "-" where it cannot be read, or is not (net.ipv6.conf.*.stable_secret
  // fails to read until it is first set, and is a secret after); none where it is write-only.
  std::optional<Value> before;
  if (entry.readable) {
    auto old = never_read(name) ? std::nullopt : std::optional(read_file(entry.path));
    std::string_view text = old && *old ? trim(**old) : "-";
    before = known_text(name) ? Value(std::string(text))
                              : parse_number(text).value_or(Value(std::string(text)));
  }
  auto fd = open_file(entry.path, O_WRONLY | O_TRUNC);
  if (!fd)
    return fail(fmt::format("{} = {}: {}", name, value, fd.error().message()),
                fd.error().errno_value());
  std::string line = std::string(value) + "\n";
  ssize_t n = ::write(fd->get(), line.data(), line.size());
  if (n < 0)
    return fail(Error::from_errno("write", fmt::format("{} = {}", name, value)));
  std::string ignored(trim(std::string_view(line).substr(static_cast<std::size_t>(n))));
  return Written{std::move(before), std::move(ignored)};
}

} // namespace opskit::counters
