// SPDX-License-Identifier: MIT
//
// bcache's cache sets, from <sys>/fs/bcache/<uuid>/ (the kernel's drivers/md/bcache/sysfs.c), as
// node_exporter's bcache collector serves them:
//
//   bcache.<uuid>.{average_key_size,btree_cache_size,cache_available_percent,congested,
//                  root_usage_percent,tree_depth}
//   bcache.<uuid>.internal.{active_journal_entries,btree_nodes,btree_read_average_duration_us,
//                           cache_read_races}
//   bcache.<uuid>.stats_total.<counter>      the set's hits, misses, bypassed bytes, ...
//   bcache.<uuid>.bdev<N>.dirty_data         each backing device's dirty data,
//   bcache.<uuid>.bdev<N>.writeback_rate_debug.{rate,dirty,target,proportional,integral,change}
//                                            its writeback controller,
//   bcache.<uuid>.bdev<N>.stats_total.<counter>  and its hits, misses, bypassed bytes, ...
//   bcache.<uuid>.cache<N>.{io_errors,metadata_written,written}
//                                            each cache device's errors and bytes written
//
// The set's bdev<N> and cache<N> are links to its devices' bcache directories. Sizes are written
// for people ("3.5M": Convert::human). The cache devices' priority_stats, which node_exporter
// reads only when asked to (reading it walks every bucket of the cache), are left out.

#include <unistd.h>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

constexpr Convert k_human{.human = true};

constexpr HwFile k_set_files[] = {
    {"average_key_size", Kind::gauge, "sectors", "Average data per key in the B-tree", k_one_value,
     k_human},
    {"btree_cache_size", Kind::gauge, "bytes", "Memory the B-tree cache uses", k_one_value,
     k_human},
    {"cache_available_percent", Kind::gauge, "percent",
     "Share of the cache without dirty data, usable for writeback", k_one_value, k_human},
    {"congested", Kind::gauge, "", "How congested the cache is (0: not)", k_one_value, k_human},
    {"root_usage_percent", Kind::gauge, "percent",
     "Share of the B-tree's root node in use (the tree deepens when it fills)", k_one_value,
     k_human},
    {"tree_depth", Kind::gauge, "", "Depth of the B-tree", k_one_value, k_human},
};
constexpr HwFile k_internal_files[] = {
    {"active_journal_entries", Kind::gauge, "", "Journal entries newer than the index", k_one_value,
     k_human},
    {"btree_nodes", Kind::gauge, "", "Nodes of the B-tree", k_one_value, k_human},
    {"btree_read_average_duration_us", Kind::gauge, "microseconds",
     "Average time a B-tree node read took", k_one_value, k_human},
    {"cache_read_races", Kind::counter, "",
     "Reads from the cache whose bucket was reused while they ran", k_one_value, k_human},
};
constexpr HwFile k_period_files[] = {
    {"bypassed", Kind::counter, "bytes", "Bytes of I/O, reads and writes, that bypassed the cache",
     k_one_value, k_human},
    {"cache_hits", Kind::counter, "", "Hits, counted an I/O at a time", k_one_value, k_human},
    {"cache_misses", Kind::counter, "", "Misses, counted an I/O at a time", k_one_value, k_human},
    {"cache_bypass_hits", Kind::counter, "", "Hits of I/O meant to bypass the cache", k_one_value,
     k_human},
    {"cache_bypass_misses", Kind::counter, "", "Misses of I/O meant to bypass the cache",
     k_one_value, k_human},
    {"cache_miss_collisions", Kind::counter, "",
     "Insertions after a miss that raced a write of the same data", k_one_value, k_human},
    {"cache_readaheads", Kind::counter, "", "Readaheads", k_one_value, k_human},
};
constexpr HwFile k_backing_files[] = {
    {"dirty_data", Kind::gauge, "bytes", "Dirty data of the backing device in the cache",
     k_one_value, k_human},
};
constexpr HwFile k_cache_files[] = {
    {"io_errors", Kind::gauge, "", "Errors of the cache device, decayed by io_error_halflife",
     k_one_value, k_human},
    {"metadata_written", Kind::counter, "bytes",
     "Bytes of other than data written to the cache device (B-tree, journal, ...)", k_one_value,
     k_human},
    {"written", Kind::counter, "bytes", "Bytes of data written to the cache device", k_one_value,
     k_human},
};

// writeback_rate_debug's lines ("rate:\t\t1.1M/sec"): the writeback controller's state.
struct DebugLine {
  std::string_view key;
  std::string_view unit;
  std::string_view description;
};
constexpr DebugLine k_writeback_lines[] = {
    {"rate", "bytes", "Rate of writeback from the cache to the backing device, a second"},
    {"dirty", "bytes", "Dirty data of the backing device in the cache"},
    {"target", "bytes", "Dirty data the writeback controller aims for"},
    {"proportional", "bytes", "The controller's proportional term, part of the rate"},
    {"integral", "bytes", "The controller's integral term, part of the rate"},
    {"change", "bytes", "The rate's last change, a second"},
};

void find_backing(const Roots& roots, std::string_view prefix, const std::string& dir,
                  const std::string& base, std::vector<Field>& out) {
  emit_files(roots, prefix, dir, base, "bcache.*.bdev*", k_backing_files, {}, out);
  emit_files(roots, prefix, dir + "/stats_total", base + ".stats_total",
             "bcache.*.bdev*.stats_total", k_period_files, {}, out);
  std::string debug = base + ".writeback_rate_debug";
  std::string path = dir + "/writeback_rate_debug";
  if (!related(prefix, debug) || ::access(path.c_str(), R_OK) != 0)
    return;
  Emitter emitter(roots, path, k_fixed_lines, prefix, out);
  for (const auto& line : k_writeback_lines)
    if (Info* info = emitter.emit(fmt::format("{}.{}", debug, line.key),
                                  fmt::format("bcache.*.bdev*.writeback_rate_debug.{}", line.key),
                                  Kind::gauge, line.unit, {std::string(line.key), 0, 0}, k_human))
      info->description = line.description;
}

void find_set(const Roots& roots, std::string_view prefix, const std::string& dir,
              std::string_view uuid, std::vector<Field>& out) {
  std::string base = fmt::format("bcache.{}", uuid);
  if (!related(prefix, base))
    return;
  emit_files(roots, prefix, dir, base, "bcache.*", k_set_files, {}, out);
  emit_files(roots, prefix, dir + "/internal", base + ".internal", "bcache.*.internal",
             k_internal_files, {}, out);
  emit_files(roots, prefix, dir + "/stats_total", base + ".stats_total", "bcache.*.stats_total",
             k_period_files, {}, out);
  for (unsigned n : numbered(dir, "bdev"))
    find_backing(roots, prefix, fmt::format("{}/bdev{}", dir, n), fmt::format("{}.bdev{}", base, n),
                 out);
  for (unsigned n : numbered(dir, "cache"))
    emit_files(roots, prefix, fmt::format("{}/cache{}", dir, n), fmt::format("{}.cache{}", base, n),
               "bcache.*.cache*", k_cache_files, {}, out);
}

} // namespace

void find_bcache(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "bcache"))
    return;
  std::string sets = roots.sys + "/fs/bcache";
  for (const auto& entry : list_directory(sets).value_or(std::vector<std::string>()))
    if (entry.find('-') != std::string::npos) // a set's UUID, not register or pendings_cleanup
      find_set(roots, prefix, fmt::format("{}/{}", sets, entry), entry, out);
}

} // namespace opskit::counters
