// SPDX-License-Identifier: MIT
//
// cgroup v2 statistics of every cgroup: cpu.stat, memory.stat, io.stat, memory.current and
// pids.current (see the kernel's Documentation/admin-guide/cgroup-v2.rst).
//
// The hierarchy is the cgroup2 file system at <sys>/fs/cgroup, or at <sys>/fs/cgroup/unified
// where systemd's hybrid layout mounts the v1 controllers at /sys/fs/cgroup.
//
// A name is the file's path below the hierarchy written the way sysctl writes /proc/sys paths:
// each '/' becomes '.', and each '.' inside a directory or file name becomes '/'. No component
// then holds a '.' and no file name a '/', so the mapping is one to one and a name gives its
// path back: <hierarchy>/system.slice/ssh.service/memory.current is
// cgroup.system/slice.ssh/service.memory/current, and the root cgroup's cpu.stat field
// usage_usec is cgroup.cpu/stat.usage_usec. A key inside a flat-keyed file (cpu.stat,
// memory.stat) is one more component; io.stat's device (MAJ:MIN) and field are two more.
// Values keep the kernel's units: microseconds in cpu.stat, bytes for memory.

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <dirent.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/handle.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

std::string pattern_of(std::string_view base, std::string_view rest) {
  std::string_view file = base.substr(base.rfind('.') + 1); // "cpu/stat" of "cgroup.x.cpu/stat"
  std::string pattern = "cgroup.*.";
  pattern.append(file);
  return rest.empty() ? pattern : dotted_name(pattern, rest);
}

// A key holds a '.' where the kernel groups fields ("core_sched.force_idle_usec"): the name
// writes it '/', as it does a file name's.
void enumerate_cpu_stat(const Record& r, std::string_view base, Emitter& e) {
  bool usec = r.key.ends_with("_usec");
  std::string key = component_of(r.key);
  e.emit(dotted_name(base, key), pattern_of(base, key), Kind::counter, usec ? "microseconds" : "",
         {std::string(r.key), 0, r.offset});
}

// memory.stat holds sizes in bytes and, from "pgfault" on, event counts.
bool is_memory_event(std::string_view key) noexcept {
  for (std::string_view events : {"pg", "workingset_", "thp_", "zswpin", "zswpout", "zswpwb",
                                  "swpin", "swpout", "pswpin", "pswpout", "numa_", "hugetlb_"})
    if (key.starts_with(events))
      return true;
  return false;
}

void enumerate_memory_stat(const Record& r, std::string_view base, Emitter& e) {
  bool event = is_memory_event(r.key);
  std::string key = component_of(r.key);
  e.emit(dotted_name(base, key), pattern_of(base, key), event ? Kind::counter : Kind::gauge,
         event ? "events" : "bytes", {std::string(r.key), 0, r.offset});
}

// An io.stat field's kind and unit. Beside the counts of every cgroup, the io.latency
// controller adds its levels (avg_lat in microseconds, win in milliseconds; and its depth,
// which is no entry: "max" whenever it does not throttle, a number while it does) and io.cost
// its vrate (a percentage) and microseconds spent (cost.usage, cost.wait, cost.indebt,
// cost.indelay).
std::pair<Kind, std::string_view> io_stat_field(std::string_view field) noexcept {
  if (field.ends_with("bytes"))
    return {Kind::counter, "bytes"};
  if (field.ends_with("ios"))
    return {Kind::counter, "requests"};
  if (field.starts_with("cost/"))
    return field == "cost/vrate" ? std::pair{Kind::gauge, "percent"}
                                 : std::pair{Kind::counter, "microseconds"};
  if (field == "avg_lat")
    return {Kind::gauge, "microseconds"};
  if (field == "win")
    return {Kind::gauge, "milliseconds"};
  return {Kind::gauge, ""};
}

// "254:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0": with '=' a separator the tokens
// alternate between a field's name and its value. A value that is not a number is no entry.
void enumerate_io_stat(const Record& r, std::string_view base, Emitter& e) {
  std::string device = dotted_name(base, r.key);
  for (std::size_t i = 0; i + 1 < r.tokens.size(); i += 2) {
    if (r.tokens[i] == "depth" || !convert(r.tokens[i + 1], {}))
      continue;
    std::string field = component_of(r.tokens[i]);
    auto [kind, unit] = io_stat_field(field);
    e.emit(dotted_name(device, field), pattern_of(base, "*." + field), kind, unit,
           {std::string(r.key), static_cast<int>(i + 1), r.offset});
  }
}

void enumerate_current(const Record&, std::string_view base, Emitter& e) {
  bool memory = base.ends_with("memory/current");
  e.emit(std::string(base), pattern_of(base, ""), Kind::gauge, memory ? "bytes" : "tasks", {});
}

const SourceSpec k_cgroup_files[] = {
    {{"cpu/stat"}, "cpu.stat", {}, enumerate_cpu_stat},
    {{"memory/stat"}, "memory.stat", {}, enumerate_memory_stat},
    {{"io/stat"}, "io.stat", {.separators = "="}, enumerate_io_stat},
    {{"memory/current"}, "memory.current", k_one_value, enumerate_current},
    {{"pids/current"}, "pids.current", k_one_value, enumerate_current},
};

std::optional<std::string> hierarchy(const std::string& sys_root) {
  for (const char* place : {"/fs/cgroup", "/fs/cgroup/unified"}) {
    std::string dir = sys_root + place;
    if (::access((dir + "/cgroup.controllers").c_str(), F_OK) == 0)
      return dir;
  }
  return std::nullopt;
}

// The directories in `dir`: a cgroup's children.
std::vector<std::string> children(const std::string& dir) {
  std::vector<std::string> out;
  CPtr<DIR, ::closedir> handle(::opendir(dir.c_str()));
  if (!handle)
    return out;
  while (const dirent* entry = ::readdir(handle.get())) {
    std::string_view child = entry->d_name;
    if (entry->d_type == DT_DIR && child != "." && child != "..")
      out.emplace_back(child);
  }
  return out;
}

// The name of the cgroup whose directory `child` is in the cgroup named `name`.
std::string child_name(std::string_view name, std::string_view child) {
  return dotted_name(name, component_of(child));
}

// Calls `visit(dir, name)` for the cgroup at `dir`, named `name`, and for each below it.
template <typename Visit>
void for_each_cgroup(const std::string& dir, const std::string& name, Visit&& visit) {
  if (!visit(dir, name))
    return;
  for (const auto& child : children(dir))
    for_each_cgroup(dir + "/" + child, child_name(name, child), visit);
}

// The fields of the cgroup at `dir`, named `name`, and of the cgroups below it, in name order:
// its files and its children in the order of their components, each file's fields sorted, so
// that the namespace finds a hierarchy's tens of thousands of names sorted (sort_unique()).
void walk(const Roots& roots, const std::string& dir, const std::string& name,
          std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, name))
    return;
  struct Part {
    std::string key; // the name's component and the dot after it: what names below start with
    const SourceSpec* file = nullptr;
    std::string child; // or the child's directory
  };
  std::vector<Part> parts;
  for (const auto& spec : k_cgroup_files)
    parts.push_back({fmt::format("{}.", spec.prefixes[0]), &spec, {}});
  for (auto& child : children(dir))
    parts.push_back({component_of(child) + ".", nullptr, std::move(child)});
  std::ranges::sort(parts, natural_less, &Part::key);
  for (const auto& part : parts) {
    if (part.file == nullptr) {
      walk(roots, dir + "/" + part.child, child_name(name, part.child), prefix, out);
      continue;
    }
    std::string base = dotted_name(name, part.file->prefixes[0]);
    if (!related(prefix, base))
      continue;
    std::size_t first = out.size();
    Emitter emitter(roots, fmt::format("{}/{}", dir, part.file->file), part.file->layout, prefix,
                    out);
    read_source(*part.file, base, emitter);
    sort_by_name(std::span(out).subspan(first));
  }
}

// Whether a name of `names` (a glob by its scope) may stand for names of `cgroup`.
bool any_related(std::span<const std::string> names, std::string_view cgroup) {
  return std::ranges::any_of(
      names, [&](const std::string& name) { return related(scope_of(name), cgroup); });
}

} // namespace

std::optional<std::string_view> cgroup_of(std::string_view name) noexcept {
  if (!holds("cgroup", name))
    return std::nullopt;
  // The file's component, the last one that is a file's: no key holds a '/', and a cgroup's
  // directory named like a file ("io.stat") comes before it.
  for (std::size_t end = name.size(); end > 0;) {
    std::size_t dot = name.rfind('.', end - 1);
    if (dot == std::string_view::npos)
      break;
    std::string_view component = name.substr(dot + 1, end - dot - 1);
    for (const auto& spec : k_cgroup_files)
      if (component == spec.prefixes[0])
        return name.substr(0, dot);
    end = dot;
  }
  return std::nullopt;
}

void find_cgroups(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "cgroup"))
    return;
  if (auto dir = hierarchy(roots.sys))
    walk(roots, *dir, "cgroup", prefix, out);
}

// A cgroup comes with mkdir(2) and goes with rmdir(2), each an event in its parent's directory;
// the files in it come with it, and those a controller brings (written to the parent's
// cgroup.subtree_control) without one: found at the next resolve interval.
CgroupWatch Namespace::watch_cgroups(std::span<const std::string> names) const {
  CgroupWatch watch;
  auto dir = any_related(names, "cgroup") ? hierarchy(sys_root_) : std::nullopt;
  if (!dir)
    return watch;
  watch.fd_ = UniqueFd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!watch.fd_)
    return watch;
  watch.names_.assign(names.begin(), names.end());
  watch.watch(*dir, "cgroup");
  return watch;
}

void CgroupWatch::watch(const std::string& dir, const std::string& name) {
  constexpr std::uint32_t k_events =
      IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR;
  for_each_cgroup(dir, name, [&](const std::string& at, const std::string& cgroup) {
    if (!room_ || !any_related(names_, cgroup))
      return false;
    int wd = ::inotify_add_watch(fd_.get(), at.c_str(), k_events);
    if (wd >= 0)
      watched_.insert_or_assign(wd, Watched{at, cgroup});
    room_ = wd >= 0 || errno != ENOSPC;
    return room_;
  });
}

std::vector<std::string> CgroupWatch::changed(bool& lost) {
  std::vector<std::string> out;
  alignas(inotify_event) char events[4096];
  for (ssize_t size; (size = ::read(fd_.get(), events, sizeof events)) > 0;) {
    for (ssize_t at = 0; at < size;) {
      inotify_event event;
      std::memcpy(&event, events + at, sizeof event);
      // The name, padded with NULs to `len` bytes; none (IN_IGNORED, IN_Q_OVERFLOW): no bytes.
      const char* name_at = events + at + sizeof event;
      std::string_view child(name_at, ::strnlen(name_at, event.len));
      at += static_cast<ssize_t>(sizeof event + event.len);
      lost = lost || (event.mask & IN_Q_OVERFLOW) != 0;
      if ((event.mask & IN_IGNORED) != 0) { // the watch's directory went
        watched_.erase(event.wd);
        continue;
      }
      auto parent = watched_.find(event.wd);
      if ((event.mask & IN_ISDIR) == 0 || child.empty() || parent == watched_.end())
        continue;
      std::string name = child_name(parent->second.name, child);
      std::string dir = parent->second.dir + "/" + std::string(child);
      if ((event.mask & (IN_CREATE | IN_MOVED_TO)) != 0)
        watch(dir, name); // may move the map's entries: `parent` is not used after
      if (std::ranges::find(out, name) == out.end())
        out.push_back(std::move(name));
    }
  }
  return out;
}

} // namespace opskit::counters
