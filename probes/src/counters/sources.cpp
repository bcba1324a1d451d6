// SPDX-License-Identifier: MIT
//
// The sources of kstat's namespace, as a table: which prefix each file feeds, how the file is
// laid out (see reader.cpp), and how its records become names. The names are made from the
// files each time, so a kernel's new counters appear without a new kstat.

#include "sources.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <functional>
#include <span>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "metadata.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

double ticks_per_second() {
  static const double hz = [] {
    long t = ::sysconf(_SC_CLK_TCK);
    return t > 0 ? static_cast<double>(t) : 100.0;
  }();
  return hz;
}

// Builds fields of one source, filling in what metadata knows of each name.
class Emitter {
public:
  Emitter(std::string path, Layout layout, std::string_view prefix, std::vector<Field>& out)
      : path_(std::move(path)), layout_(layout), prefix_(prefix), out_(out) {}

  // `pattern` is the name with its variable part as '*' (or the name itself).
  void emit(std::string name, std::string_view pattern, Kind kind, std::string_view unit,
            Locator locator, Convert convert = {}) {
    if (!holds(prefix_, name))
      return;
    Info info{std::move(name), kind, std::string(unit), {}};
    if (const Known* k = known(pattern)) {
      info.kind = k->kind;
      info.unit = k->unit;
      info.description = k->description;
    }
    if (info.kind == Kind::text && !convert.kind_from_value)
      convert.text = true;
    out_.push_back(Field{std::move(info), path_, layout_, std::move(locator), convert});
  }

private:
  std::string path_;
  Layout layout_;
  std::string_view prefix_;
  std::vector<Field>& out_;
};

using Enumerate = void (*)(const Record&, std::string_view base, Emitter&);

// A file at a fixed place and the prefixes its names fall under.
struct SourceSpec {
  std::array<std::string_view, 2> prefixes; // unused slots are empty
  std::string_view file;                    // under the proc root, or under /proc/<pid>
  Layout layout;
  Enumerate enumerate;
  // Names to offer when the file cannot be read (permission), so the failure shows per name.
  std::span<const std::string_view> fallback_keys = {};
};

constexpr Layout k_lines{};

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
             {.divide = ticks_per_second()});
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

void enumerate_table(const Record& r, std::string_view base, Emitter& e) {
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
    e.emit(fmt::format("disk.{}.{}", r.key, k_disk_fields[i]),
           fmt::format("disk.*.{}", k_disk_fields[i]), Kind::counter, "",
           {std::string(r.key), static_cast<int>(i), r.offset});
}

// proc(5): the fields of /proc/<pid>/stat after "pid (comm)".
constexpr std::string_view k_pid_stat_fields[] = {
    "state",       "ppid",        "pgrp",        "session",     "tty_nr",
    "tpgid",       "flags",       "minflt",      "cminflt",     "majflt",
    "cmajflt",     "utime",       "stime",       "cutime",      "cstime",
    "priority",    "nice",        "num_threads", "itrealvalue", "starttime",
    "vsize",       "rss",         "rsslim",      "startcode",   "endcode",
    "startstack",  "kstkesp",     "kstkeip",     "signal",      "blocked",
    "sigignore",   "sigcatch",    "wchan",       "nswap",       "cnswap",
    "exit_signal", "processor",   "rt_priority", "policy",      "delayacct_blkio_ticks",
    "guest_time",  "cguest_time", "start_data",  "end_data",    "start_brk",
    "arg_start",   "arg_end",     "env_start",   "env_end",     "exit_code"};

void enumerate_pid_stat(const Record& r, std::string_view base, Emitter& e) {
  for (std::size_t i = 0; i < std::size(k_pid_stat_fields) && i < r.tokens.size(); ++i) {
    std::string_view field = k_pid_stat_fields[i];
    bool ticks = field.ends_with("time") || field == "delayacct_blkio_ticks";
    Convert how;
    if (ticks)
      how.divide = ticks_per_second();
    e.emit(fmt::format("{}.{}", base, field), fmt::format("proc.*.stat.{}", field), Kind::gauge,
           ticks ? "seconds" : "", {{}, static_cast<int>(i), 0}, how);
  }
}

void enumerate_pid_status(const Record& r, std::string_view base, Emitter& e) {
  std::string name = fmt::format("{}.{}", base, r.key);
  std::string pattern = fmt::format("proc.*.status.{}", r.key);
  Locator at{std::string(r.key), 0, r.offset};
  if (r.tokens.size() == 2 && r.tokens[1] == "kB")
    e.emit(name, pattern, Kind::gauge, "bytes", at, {.multiply = 1024});
  else if (r.tokens.size() == 1 && parse_number(r.tokens[0]))
    e.emit(name, pattern, Kind::gauge, "", at);
  else
    e.emit(name, pattern, Kind::text, "", {std::string(r.key), -1, r.offset});
}

void enumerate_pid_io(const Record& r, std::string_view base, Emitter& e) {
  std::string name = fmt::format("{}.{}", base, r.key);
  e.emit(name, fmt::format("proc.*.io.{}", r.key), Kind::counter, "",
         {std::string(r.key), 0, r.offset});
}

constexpr std::string_view k_io_keys[] = {
    "rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes", "cancelled_write_bytes"};

const SourceSpec k_global_sources[] = {
    {{"vm.stats"}, "vmstat", k_lines, enumerate_vmstat},
    {{"vm.meminfo"}, "meminfo", k_lines, enumerate_meminfo},
    {{"cpu", "kern"}, "stat", k_lines, enumerate_stat},
    {{"kern.loadavg"}, "loadavg", {.key_token = -1, .separators = "/"}, enumerate_loadavg},
    {{"net.snmp"}, "net/snmp", {.shape = Layout::Shape::table}, enumerate_table},
    {{"net.netstat"}, "net/netstat", {.shape = Layout::Shape::table}, enumerate_table},
    {{"net.snmp6"}, "net/snmp6", k_lines, enumerate_keyed_counters},
    {{"disk"}, "diskstats", {.key_token = 2}, enumerate_diskstats},
};

const SourceSpec k_pid_sources[] = {
    {{"stat"}, "stat", {.key_token = -1, .after_paren = true}, enumerate_pid_stat},
    {{"status"}, "status", k_lines, enumerate_pid_status},
    {{"io"}, "io", k_lines, enumerate_pid_io, k_io_keys},
};

// Does a source under `source_prefix` have names that `prefix` lists or resolves?
bool related(std::string_view prefix, std::string_view source_prefix) noexcept {
  return !source_prefix.empty() && (holds(prefix, source_prefix) || holds(source_prefix, prefix));
}

void read_source(const SourceSpec& spec, const std::string& path, std::string_view base,
                 std::string_view prefix, std::vector<Field>& out) {
  Emitter emitter(path, spec.layout, prefix, out);
  auto text = read_file(path);
  if (!text) {
    for (std::string_view key : spec.fallback_keys)
      spec.enumerate(Record{key, {}, {}, {}, 0}, base, emitter);
    return;
  }
  for_each_record(*text, spec.layout, [&](const Record& r) { spec.enumerate(r, base, emitter); });
}

// /proc/sys: every readable file, as procps sysctl names them.

void walk_sysctl(int dir_fd, dev_t device, const std::string& path, const std::string& name,
                 std::vector<Field>& out) {
  DIR* dir = ::fdopendir(dir_fd);
  if (dir == nullptr) {
    ::close(dir_fd);
    return;
  }
  CPtr<DIR, ::closedir> owner(dir);
  while (const dirent* entry = ::readdir(dir)) {
    std::string_view leaf = entry->d_name;
    if (leaf == "." || leaf == "..")
      continue;
    struct stat st {};
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        st.st_dev != device)
      continue; // gone, or another file system mounted here (binfmt_misc)
    std::string child_name = name.empty() ? "" : name + ".";
    for (char c : leaf)
      child_name.push_back(c == '.' ? '/' : c);
    std::string child_path = path + "/" + std::string(leaf);
    if (S_ISDIR(st.st_mode)) {
      int fd = ::openat(::dirfd(dir), entry->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd >= 0)
        walk_sysctl(fd, device, child_path, child_name, out);
    } else if (S_ISREG(st.st_mode) && (st.st_mode & 0444) != 0 && !never_read(child_name)) {
      Info info{child_name, Kind::text, {}, {}};
      if (const Known* k = known(child_name)) {
        info.unit = k->unit;
        info.description = k->description;
      }
      out.push_back(Field{std::move(info),
                          child_path,
                          {.shape = Layout::Shape::whole},
                          {},
                          {.kind_from_value = true}});
    }
  }
}

void find_sysctl(const std::string& proc_root, std::string_view prefix, std::vector<Field>& out) {
  auto path = prefix.empty() ? std::optional(proc_root + "/sys") : sysctl_path(proc_root, prefix);
  if (!path)
    return;
  struct stat root {};
  if (::stat((proc_root + "/sys").c_str(), &root) != 0)
    return;
  int fd = ::open(path->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    walk_sysctl(fd, root.st_dev, *path, std::string(prefix), out);
    return;
  }
  if (errno != ENOTDIR)
    return;
  struct stat st {};
  if (::stat(path->c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0444) != 0 &&
      !never_read(prefix)) {
    Info info{std::string(prefix), Kind::text, {}, {}};
    if (const Known* k = known(prefix)) {
      info.unit = k->unit;
      info.description = k->description;
    }
    out.push_back(Field{
        std::move(info), *path, {.shape = Layout::Shape::whole}, {}, {.kind_from_value = true}});
  }
}

bool is_pid(std::string_view s) noexcept {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void find_pid(const std::string& proc_root, std::string_view pid, std::string_view prefix,
              std::vector<Field>& out) {
  struct stat st {};
  if (::stat(fmt::format("{}/{}/stat", proc_root, pid).c_str(), &st) != 0)
    return; // no such process (or no "self" in a copied tree)
  for (const auto& spec : k_pid_sources) {
    std::string base = fmt::format("proc.{}.{}", pid, spec.prefixes[0]);
    if (related(prefix, base))
      read_source(spec, fmt::format("{}/{}/{}", proc_root, pid, spec.file), base, prefix, out);
  }
}

// A prefix that names no process ("", "proc") holds proc.self only: like sysctl -a, a listing
// of everything does not walk every process; a pid is asked for by name.
void find_pids(const std::string& proc_root, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "proc"))
    return;
  std::string_view rest = prefix.size() > 5 ? prefix.substr(5) : "self";
  std::string_view pid = rest.substr(0, rest.find('.'));
  if (pid == "self" || is_pid(pid))
    find_pid(proc_root, pid, prefix, out);
}

} // namespace

bool holds(std::string_view prefix, std::string_view name) noexcept {
  return prefix.empty() || name == prefix ||
         (name.size() > prefix.size() && name.starts_with(prefix) && name[prefix.size()] == '.');
}

std::optional<std::string_view> never_read(std::string_view name) noexcept {
  if (name == "vm.stat_refresh")
    return "reading it acts";
  if (name.starts_with("net.ipv") && name.find(".neigh.") != std::string_view::npos &&
      (name.ends_with(".base_reachable_time") || name.ends_with(".retrans_time")))
    return "deprecated, reading it logs a kernel warning (read the _ms entry)";
  return std::nullopt;
}

std::optional<std::string> sysctl_path(const std::string& proc_root, std::string_view name) {
  std::string path = proc_root + "/sys";
  for (std::size_t start = 0;;) {
    std::size_t end = name.find('.', start);
    std::string_view component =
        name.substr(start, end == std::string_view::npos ? end : end - start);
    std::string file(component);
    std::replace(file.begin(), file.end(), '/', '.');
    if (file.empty() || file == "." || file == "..")
      return std::nullopt;
    path.append("/").append(file);
    if (end == std::string_view::npos)
      return path;
    start = end + 1;
  }
}

std::vector<Field> find_fields(const std::string& proc_root, std::string_view prefix) {
  std::vector<Field> out;
  for (const auto& spec : k_global_sources) {
    bool wanted = std::any_of(spec.prefixes.begin(), spec.prefixes.end(),
                              [&](std::string_view p) { return related(prefix, p); });
    if (wanted)
      read_source(spec, fmt::format("{}/{}", proc_root, spec.file), spec.prefixes[0], prefix, out);
  }
  find_sysctl(proc_root, prefix, out);
  find_pids(proc_root, prefix, out);
  return out;
}

} // namespace opskit::counters
