// SPDX-License-Identifier: MIT
// The eBPF backend's maps read into the aggregator, once, after the trace: processes in the
// order they started, then calls by (ABI, number, errno), then paths by (name, errno) and the
// directories that lookups beyond a full map were folded into.
#include <cstring>
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

// Calls `each(key, value)` for every entry of a hash map.
template <class Key, class Value, class Each>
Result<void> for_each_entry(const bpf_map* map, Each each) {
  int fd = bpf_map__fd(map);
  Key key{}, next{};
  Value value{};
  const Key* previous = nullptr;
  while (bpf_map_get_next_key(fd, previous, &next) == 0) {
    if (bpf_map_lookup_elem(fd, &next, &value) == 0)
      each(next, value);
    key = next;
    previous = &key;
  }
  if (errno != ENOENT)
    return fail(Error::from_errno("read eBPF map", bpf_map__name(map)));
  return {};
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

// The calls map holds a value per CPU: one lookup gives them all, to be summed.
Result<void> read_calls(const syscount_bpf& skel, Aggregator& sink) {
  int fd = bpf_map__fd(skel.maps.calls);
  int cpus = libbpf_num_possible_cpus();
  if (cpus <= 0)
    return fail(Error("count the possible CPUs", -cpus));
  std::vector<sc_call_value> values(static_cast<std::size_t>(cpus));
  sc_call_key key{}, next{};
  const sc_call_key* previous = nullptr;
  while (bpf_map_get_next_key(fd, previous, &next) == 0) {
    if (bpf_map_lookup_elem(fd, &next, values.data()) == 0) {
      sc_call_value sum{};
      for (const auto& v : values) {
        sum.calls += v.calls;
        sum.time_ns += v.time_ns;
      }
      sink.add_calls(static_cast<Abi>(next.abi), next.nr, static_cast<int>(next.err), sum.calls,
                     sum.time_ns);
    }
    key = next;
    previous = &key;
  }
  if (errno != ENOENT)
    return fail(Error::from_errno("read eBPF map", bpf_map__name(skel.maps.calls)));
  return {};
}

} // namespace

Result<void> read_counts(const syscount_bpf& skel, Aggregator& sink) {
  read_processes(skel, sink);
  OPSKIT_TRY(read_calls(skel, sink));
  OPSKIT_TRY(
      (for_each_entry<sc_tiny_key, __u64>(skel.maps.tiny_paths, [&](const sc_tiny_key& k, __u64 n) {
        sink.add_lookups(name_of(k.path, sizeof k.path), static_cast<int>(k.err), n);
      })));
  OPSKIT_TRY((for_each_entry<sc_short_key, __u64>(
      skel.maps.short_paths, [&](const sc_short_key& k, __u64 n) {
        sink.add_lookups(name_of(k.path, sizeof k.path), static_cast<int>(k.err), n);
      })));
  std::string cut;
  OPSKIT_TRY(
      (for_each_entry<sc_long_key, __u64>(skel.maps.long_paths, [&](const sc_long_key& k, __u64 n) {
        auto name = name_of(k.path, sizeof k.path);
        if (name.size() < sizeof k.path - 1) {
          sink.add_lookups(name, static_cast<int>(k.err), n);
          return;
        }
        cut.assign(name).append(k_cut); // no NUL within PATH_MAX: kept cut
        sink.add_lookups(cut, static_cast<int>(k.err), n);
      })));
  OPSKIT_TRY(
      (for_each_entry<sc_short_key, __u64>(skel.maps.folded, [&](const sc_short_key& k, __u64 n) {
        sink.add_folded_lookups(name_of(k.path, sizeof k.path), static_cast<int>(k.err), n);
      })));
  return {};
}

} // namespace opskit::trace
