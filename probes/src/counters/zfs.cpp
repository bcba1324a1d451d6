// SPDX-License-Identifier: MIT
//
// ZFS's statistics, from the kstats the zfs module writes under <proc>/spl/kstat/zfs, as
// node_exporter's zfs collector serves them:
//
//   zfs.<stem>.<name>         the module's statistics, one file each: arcstats (zfs.arc),
//                             abdstats, dbufstats, dmu_tx, dnodestats, fm, vdev_cache_stats,
//                             vdev_mirror_stats, xuio_stats, zfetchstats, zil
//   zfs.pool.<pool>.state.<state>
//                             1 for the pool's state (online, degraded, faulted, offline,
//                             removed, unavail, suspended), 0 for the others: <pool>/state
//   zfs.pool.<pool>.io.<name> the pool's I/O (nread, nwritten, reads, writes, wtime, ...):
//                             <pool>/io, which ZFS wrote before 0.8
//   zfs.pool.<pool>.dataset.<dataset>.<name>
//                             each mounted dataset's reads and writes: <pool>/objset-0x<id>
//
// A statistics file is named ("named kstat"): a line of the kstat's own figures, a header
// "name type data", then a line a statistic, its name, its data type and its value:
//
//   13 1 0x01 123 33456 4356431258 1003287153246
//   name                            type data
//   hits                            4    8772612
//
// Numbers (types 1 to 6: 32- and 64-bit, signed and not) are read; text (type 7, an objset's
// dataset_name) names the dataset. The pool's and dataset's names are written as mount points'
// are (a '.' or a blank as an octal escape, "\056"), so a '.' in them does not split the name.
//
// ZFS does not say which statistics count and which are levels: served untyped, under
// node_exporter's names (kstat_zfs_arc_hits), as node_exporter serves them. kstat's own kind of
// each, what `kstat watch` shows a rate of, is a reading of its name (sizes, limits and counts
// of things held are gauges).

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <iterator>
#include <utility>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

struct StatsFile {
  std::string_view file;
  std::string_view stem; // zfs.<stem>, node_exporter's zfs_<stem>
};

constexpr StatsFile k_stats_files[] = {
    {"abdstats", "abd"},
    {"arcstats", "arc"},
    {"dbufstats", "dbuf"},
    {"dmu_tx", "dmu_tx"},
    {"dnodestats", "dnode"},
    {"fm", "fm"},
    {"vdev_cache_stats", "vdev_cache"},
    {"vdev_mirror_stats", "vdev_mirror"},
    {"xuio_stats", "xuio"},
    {"zfetchstats", "zfetch"},
    {"zil", "zil"},
};

constexpr std::string_view k_states[] = {"online",  "degraded", "faulted",  "offline",
                                         "removed", "unavail",  "suspended"};

// The ARC's levels whose names say nothing of it.
constexpr std::string_view k_arc_levels[] = {"c",
                                             "p",
                                             "pd",
                                             "pm",
                                             "meta",
                                             "hash_elements",
                                             "hash_chains",
                                             "arc_no_grow",
                                             "arc_tempreserve",
                                             "arc_loaned_bytes",
                                             "arc_meta_used",
                                             "arc_need_free",
                                             "arc_sys_free",
                                             "cached_only_in_progress",
                                             "l2_log_blk_count"};

bool ends_with_any(std::string_view name, std::initializer_list<std::string_view> ends) {
  return std::ranges::any_of(ends, [&](std::string_view end) { return name.ends_with(end); });
}

bool contains_any(std::string_view name, std::initializer_list<std::string_view> parts) {
  return std::ranges::any_of(
      parts, [&](std::string_view part) { return name.find(part) != std::string_view::npos; });
}

// Whether statistic `name` of the file `stem` is a level, by its name: the ARC's sizes, limits,
// maxima and minima and the memory it sees; the dbuf cache's and abd's all but their events.
Kind kind_of(std::string_view stem, std::string_view name) {
  bool level = false;
  if (stem == "arc")
    level = std::ranges::find(k_arc_levels, name) != std::end(k_arc_levels) ||
            ends_with_any(name, {"size", "_data", "_metadata", "_max", "_min", "_limit"}) ||
            (name.starts_with("memory_") && name.ends_with("_bytes"));
  else if (stem == "dbuf")
    level = !contains_any(name, {"hits", "misses", "collisions", "race", "evicts", "overflow"});
  else if (stem == "abd")
    level = !contains_any(name, {"multi_", "retry"});
  return level ? Kind::gauge : Kind::counter;
}

// A pool's or dataset's name as a name component: '.', blanks and '\' as octal escapes.
std::string component_of_zfs(std::string_view name) {
  std::string component;
  append_octal_escaped(component, name, ". \t\n\\");
  return component;
}

// Whether a named kstat's record is a numeric statistic: "hits 4 8772612" (the header lines
// are not: their first token is a number, or "name").
bool is_statistic(const Record& r) {
  return !r.key.empty() && std::isalpha(static_cast<unsigned char>(r.key.front())) != 0 &&
         r.tokens.size() >= 2 && r.tokens[0].size() == 1 && r.tokens[0][0] >= '1' &&
         r.tokens[0][0] <= '6';
}

// The numeric statistics of a named kstat's `text`, each <base>.<key> of pattern
// <pattern>.<key>, its kind and description what `what(key)` says.
template <class What>
void emit_statistics(std::string_view text, std::string_view base, std::string_view pattern,
                     Emitter& e, What what) {
  for_each_record(text, k_fixed_lines, [&](const Record& r) {
    if (!is_statistic(r))
      return;
    auto [kind, description] = what(r.key);
    if (Info* info = e.emit(fmt::format("{}.{}", base, component_of(r.key)),
                            fmt::format("{}.{}", pattern, r.key), kind, "",
                            {std::string(r.key), 1, r.offset}))
      info->description = std::move(description);
  });
}

// The rendered <pool>/io: "nread 1884160" a line.
void enumerate_io(const Record& r, std::string_view base, Emitter& e) {
  bool time = r.key.ends_with("time") || r.key.ends_with("update");
  bool queue = r.key == "wcnt" || r.key == "rcnt";
  std::string name = fmt::format("{}.{}", base, component_of(r.key));
  if (Info* info = e.emit(std::move(name), fmt::format("zfs.pool.*.io.{}", r.key),
                          queue || r.key.ends_with("update") ? Kind::gauge : Kind::counter,
                          time ? "nanoseconds" : (r.key.starts_with("n") ? "bytes" : ""),
                          {std::string(r.key), 0, r.offset}))
    info->description = fmt::format("The pool's {} (io)", r.key);
}

// The dataset an objset file's `text` counts for: its dataset_name; empty when it has none.
std::string dataset_of(std::string_view text) {
  std::string dataset;
  for_each_record(text, k_lines, [&](const Record& r) {
    if (r.key == "dataset_name" && !r.tokens.empty() && r.tokens[0] == "7")
      dataset = std::string(trim(r.rest.substr(1)));
  });
  return dataset;
}

void find_pool(const Roots& roots, std::string_view prefix, const std::string& dir,
               std::string_view pool, std::vector<Field>& out) {
  std::string base = fmt::format("zfs.pool.{}", component_of_zfs(pool));
  if (!related(prefix, base))
    return;
  if (related(prefix, base + ".state") && ::access((dir + "/state").c_str(), R_OK) == 0) {
    Emitter emitter(roots, dir + "/state", k_fixed_lines, prefix, out, Reader::zfs_state);
    for (std::string_view state : k_states)
      if (Info* info = emitter.emit(fmt::format("{}.state.{}", base, state),
                                    fmt::format("zfs.pool.*.state.{}", state), Kind::gauge, "",
                                    {std::string(state), 0, 0}))
        info->description = fmt::format("1 when the pool is {}, else 0", state);
  }
  if (related(prefix, base + ".io"))
    if (auto io = read_rendered(dir + "/io", Reader::zfs_io)) {
      Emitter emitter(roots, dir + "/io", k_fixed_lines, prefix, out, Reader::zfs_io);
      std::string io_base = base + ".io";
      for_each_record(*io, k_lines, [&](const Record& r) { enumerate_io(r, io_base, emitter); });
    }
  if (!related(prefix, base + ".dataset"))
    return;
  for (const auto& entry : list_directory(dir).value_or(std::vector<std::string>())) {
    if (!entry.starts_with("objset-"))
      continue;
    std::string path = fmt::format("{}/{}", dir, entry);
    auto text = read_file(path);
    std::string dataset = text ? dataset_of(*text) : std::string();
    if (dataset.empty())
      continue;
    std::string dataset_base = fmt::format("{}.dataset.{}", base, component_of_zfs(dataset));
    if (!related(prefix, dataset_base))
      continue;
    Emitter emitter(roots, path, k_fixed_lines, prefix, out);
    emit_statistics(*text, dataset_base, "zfs.pool.*.dataset.*", emitter, [](std::string_view key) {
      return std::pair{Kind::counter, fmt::format("The dataset's {} (objset)", key)};
    });
  }
}

} // namespace

namespace detail {

std::string_view render_zfs_state(std::string_view raw, std::string& out) {
  out.clear();
  std::string_view state = trim(next_line(raw));
  for (std::string_view s : k_states)
    out.append(s).append(iequals(s, state) ? " 1\n" : " 0\n");
  return out;
}

std::string_view render_zfs_io(std::string_view raw, std::string& out) {
  out.clear();
  std::string_view names;
  while (!raw.empty()) {
    std::string_view line = next_line(raw);
    if (Tokens(line, {}).next() == std::string_view("nread")) {
      names = line;
      break;
    }
  }
  Tokens name(names, {}), value(next_line(raw), {});
  for (auto n = name.next(), v = value.next(); n && v; n = name.next(), v = value.next())
    if (all_digits(*v))
      out.append(*n).append(" ").append(*v).push_back('\n');
  return out;
}

} // namespace detail

void find_zfs(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "zfs"))
    return;
  std::string dir = roots.proc + "/spl/kstat/zfs";
  for (const auto& [file, stem] : k_stats_files) {
    std::string base = fmt::format("zfs.{}", stem);
    if (!related(prefix, base))
      continue;
    std::string path = fmt::format("{}/{}", dir, file);
    auto text = read_file(path);
    if (!text)
      continue;
    Emitter emitter(roots, path, k_fixed_lines, prefix, out);
    emit_statistics(*text, base, base, emitter, [&](std::string_view key) {
      return std::pair{kind_of(stem, key), fmt::format("ZFS's {} ({})", key, file)};
    });
  }
  if (!related(prefix, "zfs.pool"))
    return;
  for (const auto& entry : list_directory(dir).value_or(std::vector<std::string>())) {
    std::string pool_dir = fmt::format("{}/{}", dir, entry);
    struct stat st {};
    if (::stat(pool_dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      find_pool(roots, prefix, pool_dir, entry, out);
  }
}

} // namespace opskit::counters
