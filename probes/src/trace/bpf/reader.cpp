// SPDX-License-Identifier: MIT
// The eBPF backend's maps read into the aggregator, once, after the trace: processes in the
// order they started, then calls by (ABI, number, errno), then paths by (name, errno) and the
// directories that lookups beyond a full map were folded into.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.hpp"
#include "counts.h"
#include "syscount.skel.h"

namespace opskit::trace {

namespace {

constexpr std::string_view k_cut = "..."; // marks a name cut at PATH_MAX, as ptrace does

// What one batch of a map's entries may take: keys and values, some 64 KiB.
constexpr std::size_t k_batch_bytes = 64 << 10;

// Calls `each(key, values)` for every entry of a hash map, `values_per_key` values each (one, or
// one per CPU for a per-CPU map). The entries are read a batch at a time: one system call for
// hundreds of entries, where reading them one by one takes two an entry (the next key, then its
// value), 5 µs an entry here, half a second for 100,000 paths.
template <class Key, class Value, class Each>
Result<void> for_each_entry(const bpf_map* map, std::size_t values_per_key, Each each) {
  int fd = bpf_map__fd(map);
  auto batch =
      std::max<std::size_t>(16, k_batch_bytes / (sizeof(Key) + values_per_key * sizeof(Value)));
  std::vector<Key> keys;
  std::vector<Value> values;
  __u32 cursor = 0, next = 0;
  __u32* from = nullptr; // the first batch starts at the first bucket
  for (;;) {
    keys.resize(batch);
    values.resize(batch * values_per_key);
    auto count = static_cast<__u32>(batch);
    int rc = bpf_map_lookup_batch(fd, from, &next, keys.data(), values.data(), &count, nullptr);
    int error = rc == 0 ? 0 : errno;
    for (std::size_t i = 0; i < count; ++i)
      each(keys[i], std::span<const Value>(values).subspan(i * values_per_key, values_per_key));
    if (error == ENOENT) // the last batch
      return {};
    if (error == ENOSPC && count == 0) { // one bucket holds more entries than a batch
      batch *= 2;
      continue;
    }
    if (error != 0)
      return fail(Error::from_errno("read eBPF map", bpf_map__name(map), error));
    cursor = next;
    from = &cursor;
  }
}

std::string_view name_of(const char* path, std::size_t size) {
  return {path, ::strnlen(path, size)};
}

void read_processes(const syscount_bpf& skel, Aggregator& sink) {
  int fd = bpf_map__fd(skel.maps.processes);
  auto slots = bpf_map__max_entries(skel.maps.processes);
  auto started = std::min<__u64>(skel.bss->next_process, slots);
  for (__u32 i = 0; i < started; ++i) {
    sc_process p{};
    if (bpf_map_lookup_elem(fd, &i, &p) != 0)
      continue;
    auto pid = static_cast<pid_t>(p.tgid);
    sink.process_started(pid, i + 1 == slots ? "(others)" : name_of(p.comm, sizeof p.comm));
    sink.add_process_calls(pid, p.calls, p.errors);
  }
}

// The calls map holds a value per CPU, to be summed.
Result<void> read_calls(const syscount_bpf& skel, Aggregator& sink) {
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0)
    return fail(Error("count the possible CPUs", -cpus));
  return for_each_entry<sc_call_key, sc_call_value>(
      skel.maps.calls, static_cast<std::size_t>(cpus),
      [&](const sc_call_key& key, std::span<const sc_call_value> per_cpu) {
        sc_call_value sum{};
        for (const auto& v : per_cpu) {
          sum.calls += v.calls;
          sum.time_ns += v.time_ns;
        }
        sink.add_calls(static_cast<Abi>(key.abi), key.nr, static_cast<int>(key.err), sum.calls,
                       sum.time_ns);
      });
}

} // namespace

Result<void> read_counts(const syscount_bpf& skel, Aggregator& sink) {
  read_processes(skel, sink);
  OPSKIT_TRY(read_calls(skel, sink));
  OPSKIT_TRY((for_each_entry<sc_tiny_key, __u64>(
      skel.maps.tiny_paths, 1, [&](const sc_tiny_key& k, auto n) {
        sink.add_lookups(name_of(k.path, sizeof k.path), static_cast<int>(k.err), n[0]);
      })));
  OPSKIT_TRY((for_each_entry<sc_short_key, __u64>(
      skel.maps.short_paths, 1, [&](const sc_short_key& k, auto n) {
        sink.add_lookups(name_of(k.path, sizeof k.path), static_cast<int>(k.err), n[0]);
      })));
  std::string cut;
  OPSKIT_TRY((for_each_entry<sc_long_key, __u64>(
      skel.maps.long_paths, 1, [&](const sc_long_key& k, auto n) {
        auto name = name_of(k.path, sizeof k.path);
        if (name.size() < sizeof k.path - 1) {
          sink.add_lookups(name, static_cast<int>(k.err), n[0]);
          return;
        }
        cut.assign(name).append(k_cut); // no NUL within PATH_MAX: kept cut
        sink.add_lookups(cut, static_cast<int>(k.err), n[0]);
      })));
  OPSKIT_TRY(
      (for_each_entry<sc_short_key, __u64>(skel.maps.folded, 1, [&](const sc_short_key& k, auto n) {
        sink.add_folded_lookups(name_of(k.path, sizeof k.path), static_cast<int>(k.err), n[0]);
      })));
  return {};
}

} // namespace opskit::trace
