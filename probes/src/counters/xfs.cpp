// SPDX-License-Identifier: MIT
//
// Each mounted XFS file system's statistics, <sys>/fs/xfs/<device>/stats/stats (the kernel's
// fs/xfs/xfs_stats.c; the groups are described in the XFS wiki's Runtime_Stats page), a line a
// group of counters:
//
//   extent_alloc <extents allocated> <blocks allocated> <extents freed> <blocks freed>
//   rw <write calls> <read calls>                   xfs.<device>.rw.{write_calls,read_calls}
//   abtb2 <lookups> <compares> ... (15)            xfs.<device>.abtb2.{lookups,compares,...}
//
// named xfs.<device>.<group>.<counter>, the device as /sys/fs/xfs names it ("sda1", "dm-0").
// The v2 B-trees' groups (abtb2, bmbt2, rmapbt, ...) share one set of fifteen counters; a group
// this file does not know and that is not of that shape is left out. <sys>/fs/xfs/stats, the
// sum over all file systems, is left out as node_exporter's xfs collector leaves it out: served
// beside the devices it would count each twice in a sum.

#include <span>

#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

struct Counter {
  std::string_view name;
  std::string_view unit;
  std::string_view description;
  Kind kind = Kind::counter;
};

constexpr Counter k_extent_alloc[] = {
    {"extents_allocated", "extents", "Extents the file system allocated"},
    {"blocks_allocated", "blocks", "Blocks the file system allocated"},
    {"extents_freed", "extents", "Extents the file system freed"},
    {"blocks_freed", "blocks", "Blocks the file system freed"},
};
// The allocation and block map B-trees of the first version (abt, bmbt)
constexpr Counter k_btree[] = {
    {"lookups", "lookups", "Lookups in the B-tree"},
    {"compares", "compares", "Compares in the B-tree's lookups"},
    {"records_inserted", "records", "Records inserted into the B-tree"},
    {"records_deleted", "records", "Records deleted from the B-tree"},
};
constexpr Counter k_blk_map[] = {
    {"reads", "calls", "Block mappings for reads"},
    {"writes", "calls", "Block mappings for writes"},
    {"unmaps", "calls", "Block unmappings (deletes)"},
    {"extent_list_insertions", "extents", "Extents inserted into inodes' extent lists"},
    {"extent_list_deletions", "extents", "Extents deleted from inodes' extent lists"},
    {"extent_list_lookups", "lookups", "Lookups in inodes' extent lists"},
    {"extent_list_compares", "compares", "Compares in inodes' extent list lookups"},
};
constexpr Counter k_dir[] = {
    {"lookup", "calls", "Directory lookups that missed the kernel's name cache"},
    {"create", "calls", "Directory entries created"},
    {"remove", "calls", "Directory entries removed"},
    {"getdents", "calls", "Directory reads (getdents)"},
};
constexpr Counter k_trans[] = {
    {"sync", "transactions", "Transactions committed synchronously"},
    {"async", "transactions", "Transactions committed asynchronously"},
    {"empty", "transactions", "Transactions committed that changed nothing"},
};
constexpr Counter k_ig[] = {
    {"attempts", "lookups", "Inode lookups"},
    {"found", "lookups", "Inode lookups that found the inode in the cache"},
    {"recycled", "lookups", "Inode lookups that found the inode being freed and reused it"},
    {"missed", "lookups", "Inode lookups that missed the cache"},
    {"duplicates", "lookups", "Inodes read in that another lookup had already added"},
    {"reclaims", "inodes", "Inodes reclaimed from the cache"},
    {"attribute_changes", "calls", "Inode attribute changes"},
};
constexpr Counter k_log[] = {
    {"writes", "writes", "Log buffers written to the log"},
    {"blocks", "blocks", "512-byte blocks written to the log"},
    {"no_iclogs", "events", "Times no in-core log buffer was free"},
    {"forces", "calls", "Log forces"},
    {"force_sleeps", "calls", "Log forces that waited for the log to be written"},
};
constexpr Counter k_push_ail[] = {
    {"try_logspace", "calls", "Reservations of log space"},
    {"sleep_logspace", "calls", "Reservations of log space that waited for it"},
    {"pushes", "calls", "Pushes of the active item list (AIL)"},
    {"success", "items", "Items of the AIL written"},
    {"pushbuf", "items", "Items of the AIL whose buffer was pushed"},
    {"pinned", "items", "Items of the AIL found pinned"},
    {"locked", "items", "Items of the AIL found locked"},
    {"flushing", "items", "Items of the AIL found being flushed"},
    {"restarts", "calls", "Pushes of the AIL restarted"},
    {"flush", "calls", "Flushes of the AIL"},
};
constexpr Counter k_xstrat[] = {
    {"quick", "calls", "Delayed allocations converted in one extent"},
    {"split", "calls", "Delayed allocations converted in more than one extent"},
};
// The kernel writes the write calls first.
constexpr Counter k_rw[] = {
    {"write_calls", "calls", "write(2) calls to the file system's files"},
    {"read_calls", "calls", "read(2) calls to the file system's files"},
};
constexpr Counter k_attr[] = {
    {"get", "calls", "Extended attributes read"},
    {"set", "calls", "Extended attributes set"},
    {"remove", "calls", "Extended attributes removed"},
    {"list", "calls", "Extended attribute lists read"},
};
constexpr Counter k_icluster[] = {
    {"flushes", "calls", "Inode flushes"},
    {"cluster_flushes", "calls", "Inode cluster flushes"},
    {"cluster_inodes", "inodes", "Inodes flushed with their cluster"},
};
constexpr Counter k_vnodes[] = {
    {"active", "inodes", "Inodes in memory, not on free lists", Kind::gauge},
    {"allocate", "inodes", "Inodes allocated in memory"},
    {"get", "calls", "Inodes taken from the cache"},
    {"hold", "calls", "Holds taken on inodes"},
    {"release", "calls", "Holds released from inodes"},
    {"reclaim", "inodes", "Inodes reclaimed"},
    {"remove", "inodes", "Inodes removed"},
    {"free", "inodes", "Inodes freed"},
};
constexpr Counter k_buf[] = {
    {"get", "calls", "Buffers looked up"},
    {"create", "buffers", "Buffers created"},
    {"get_locked", "calls", "Buffers found in the cache and locked"},
    {"get_locked_waited", "calls", "Buffers found in the cache that waited for their lock"},
    {"busy_locked", "calls", "Buffers found in the cache locked by another, not waited for"},
    {"miss_locked", "calls", "Buffer lookups that missed the cache"},
    {"page_retries", "calls", "Buffer page allocations retried"},
    {"page_found", "calls", "Buffer pages found in the page cache"},
    {"get_read", "calls", "Buffers read from disk"},
};
// The B-trees of the second version (abtb2, abtc2, bmbt2, ibt2, fibt2, rmapbt, refcntbt, ...)
constexpr Counter k_btree2[] = {
    {"lookups", "lookups", "Lookups in the B-tree"},
    {"compares", "compares", "Compares in the B-tree's lookups"},
    {"records_inserted", "records", "Records inserted into the B-tree"},
    {"records_deleted", "records", "Records deleted from the B-tree"},
    {"new_roots", "blocks", "Roots added to the B-tree"},
    {"killed_roots", "blocks", "Roots removed from the B-tree"},
    {"increments", "calls", "Moves of a B-tree cursor to the next record"},
    {"decrements", "calls", "Moves of a B-tree cursor to the previous record"},
    {"left_shifts", "calls", "Records shifted to the left neighbour block"},
    {"right_shifts", "calls", "Records shifted to the right neighbour block"},
    {"splits", "blocks", "Blocks of the B-tree split"},
    {"joins", "blocks", "Blocks of the B-tree joined"},
    {"blocks_allocated", "blocks", "Blocks the B-tree allocated"},
    {"blocks_freed", "blocks", "Blocks the B-tree freed"},
    {"record_moves", "records", "Records moved inside the B-tree's blocks"},
};
constexpr Counter k_qm[] = {
    {"reclaims", "dquots", "Quota records (dquots) reclaimed"},
    {"reclaim_misses", "dquots", "Quota records that could not be reclaimed"},
    {"duplicates", "dquots", "Quota records read in that another lookup had already added"},
    {"cache_misses", "lookups", "Quota record lookups that missed the cache"},
    {"cache_hits", "lookups", "Quota record lookups that found the record in the cache"},
    {"wants", "lookups", "Quota records wanted"},
    {"dquots", "dquots", "Quota records in memory", Kind::gauge},
    {"unused", "dquots", "Quota records in memory, unused", Kind::gauge},
};
constexpr Counter k_xpc[] = {
    {"xstrat_bytes", "bytes", "Bytes of delayed allocations converted"},
    {"write_bytes", "bytes", "Bytes written by write(2) calls"},
    {"read_bytes", "bytes", "Bytes read by read(2) calls"},
};
constexpr Counter k_defer_relog[] = {
    {"count", "items", "Deferred operations logged again to move the log's tail"},
};

struct Group {
  std::string_view key;
  std::span<const Counter> counters;
};
constexpr Group k_groups[] = {
    {"extent_alloc", k_extent_alloc},
    {"abt", k_btree},
    {"blk_map", k_blk_map},
    {"bmbt", k_btree},
    {"dir", k_dir},
    {"trans", k_trans},
    {"ig", k_ig},
    {"log", k_log},
    {"push_ail", k_push_ail},
    {"xstrat", k_xstrat},
    {"rw", k_rw},
    {"attr", k_attr},
    {"icluster", k_icluster},
    {"vnodes", k_vnodes},
    {"buf", k_buf},
    {"qm", k_qm},
    {"xpc", k_xpc},
    {"defer_relog", k_defer_relog},
};

std::span<const Counter> counters_of(const Record& r) {
  for (const auto& group : k_groups)
    if (r.key == group.key)
      return group.counters;
  if (r.tokens.size() == std::size(k_btree2))
    return k_btree2;
  return {};
}

void enumerate_xfs(const Record& r, std::string_view base, Emitter& e) {
  auto counters = counters_of(r);
  for (std::size_t i = 0; i < counters.size() && i < r.tokens.size(); ++i) {
    const Counter& c = counters[i];
    std::string name = fmt::format("{}.{}.{}", base, r.key, c.name);
    if (Info* info = e.emit(name, fmt::format("xfs.*.{}.{}", r.key, c.name), c.kind, c.unit,
                            {std::string(r.key), static_cast<int>(i), r.offset}))
      info->description = c.description;
  }
}

} // namespace

void find_xfs(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "xfs"))
    return;
  static constexpr SourceSpec k_stats{{"xfs"}, "stats/stats", k_fixed_lines, enumerate_xfs};
  std::string xfs = roots.sys + "/fs/xfs";
  for (const auto& device : list_directory(xfs).value_or(std::vector<std::string>())) {
    if (device == "stats")
      continue; // the sum over all file systems
    std::string base = fmt::format("xfs.{}", component_of(device));
    if (!related(prefix, base))
      continue;
    Emitter emitter(roots, fmt::format("{}/{}/{}", xfs, device, k_stats.file), k_stats.layout,
                    prefix, out);
    read_source(k_stats, base, emitter);
  }
}

} // namespace opskit::counters
