// SPDX-License-Identifier: MIT
#include "opskit/probes/trace/aggregate.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "opskit/probes/trace/syscalls.hpp"

namespace opskit::trace {

namespace {

constexpr std::size_t k_max_suffixes = 10'000;
constexpr std::string_view k_others = "(others)";

enum TableId : std::uint64_t { k_paths = 0, k_folded = 1 };

std::uint64_t extra_key(std::uint64_t table, std::uint32_t index, int err) {
  return table << 48 | std::uint64_t{index} << 16 | static_cast<std::uint16_t>(err);
}

void sort_errnos(std::vector<ErrnoCount>& errnos) {
  std::sort(errnos.begin(), errnos.end(), [](const ErrnoCount& a, const ErrnoCount& b) {
    return a.count != b.count ? a.count > b.count : a.err < b.err;
  });
}

// The `limit` entries of `table` with the largest `count(value)`, ties by key.
template <class Value, class Count>
std::vector<const typename StringTable<Value>::Entry*> top_entries(const StringTable<Value>& table,
                                                                   std::size_t limit, Count count) {
  std::vector<const typename StringTable<Value>::Entry*> order;
  order.reserve(table.size());
  for (const auto& entry : table.entries())
    order.push_back(&entry);
  auto n = std::min(limit, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                    [&](const auto* a, const auto* b) {
                      auto ca = count(a->value), cb = count(b->value);
                      return ca != cb ? ca > cb : a->key_view() < b->key_view();
                    });
  order.resize(n);
  return order;
}

std::vector<NameCount> top_counts(const StringTable<std::uint64_t>& table, std::size_t limit) {
  std::vector<NameCount> out;
  for (const auto* e : top_entries(table, limit, [](std::uint64_t v) { return v; }))
    out.push_back({std::string(e->key_view()), e->value});
  return out;
}

} // namespace

std::string_view directory_of(std::string_view path) noexcept {
  while (path.size() > 1 && path.back() == '/')
    path.remove_suffix(1);
  auto slash = path.rfind('/');
  if (slash == std::string_view::npos)
    return ".";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

std::string_view suffix_of(std::string_view path) noexcept {
  auto slash = path.rfind('/');
  auto name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  auto dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || name.size() - dot < 2 || name.size() - dot > 9)
    return {};
  return name.substr(dot);
}

Aggregator::ProcessCounts& Aggregator::process(pid_t pid) {
  if (auto it = live_.find(pid); it != live_.end())
    return processes_[it->second];
  process_started(pid, "?");
  return processes_[live_.at(pid)];
}

void Aggregator::process_started(pid_t pid, std::string_view comm) {
  if (processes_.size() >= limits_.max_processes && !processes_.empty()) {
    // Past the limit every new process shares one entry, kept last.
    if (processes_.back().pid != 0 || processes_.back().comm != k_others)
      processes_.push_back({0, std::string(k_others), 0, 0});
    live_[pid] = processes_.size() - 1;
    return;
  }
  processes_.push_back({pid, std::string(comm), 0, 0});
  live_[pid] = processes_.size() - 1;
}

void Aggregator::process_renamed(pid_t pid, std::string_view comm) {
  auto& p = process(pid);
  if (p.pid != 0)
    p.comm = comm;
}

void Aggregator::count_path(StringTable<PathCounts>& table, std::uint32_t table_id,
                            PathCounts& counts, int err, std::uint64_t count) {
  if (counts.calls == 0)
    counts.index = static_cast<std::uint32_t>(table.size() - 1);
  counts.calls += count;
  if (err == 0)
    return;
  counts.errors += count;
  if (counts.first_err == 0)
    counts.first_err = static_cast<std::uint16_t>(err);
  else if (counts.first_err != err)
    extra_errnos_[extra_key(table_id, counts.index, err)] += count;
}

void Aggregator::count_folded(std::string_view dir, int err, std::uint64_t count) {
  folded_lookups_ += count;
  auto* counts = folded_.find_or_insert(dir, max_dirs());
  if (counts == nullptr) // even the directories are too many: fold into the root
    counts = folded_.find_or_insert("/", std::numeric_limits<std::size_t>::max());
  count_path(folded_, k_folded, *counts, err, count);
}

void Aggregator::count_failure(std::string_view path, std::uint64_t count) {
  if (auto* n = failed_dirs_.find_or_insert(directory_of(path), max_dirs()))
    *n += count;
  if (auto suffix = suffix_of(path); !suffix.empty())
    if (auto* n = failed_suffixes_.find_or_insert(suffix, k_max_suffixes))
      *n += count;
}

void Aggregator::add_calls(Abi abi, int nr, int err, std::uint64_t calls, std::uint64_t time_ns) {
  if (nr < 0 || nr >= k_max_syscall_nr)
    return;
  auto& table = syscalls_[static_cast<std::size_t>(abi)];
  if (table.size() <= static_cast<std::size_t>(nr))
    table.resize(static_cast<std::size_t>(nr) + 1);
  auto& s = table[static_cast<std::size_t>(nr)];
  s.calls += calls;
  s.time_ns += time_ns;
  if (err == 0)
    return;
  s.errors += calls;
  auto it = std::find_if(s.errnos.begin(), s.errnos.end(),
                         [err](const auto& p) { return p.first == err; });
  if (it == s.errnos.end())
    s.errnos.emplace_back(err, calls);
  else
    it->second += calls;
}

void Aggregator::add_lookups(std::string_view path, int err, std::uint64_t count) {
  path_lookups_ += count;
  if (auto* counts = paths_.find_or_insert(path, limits_.max_paths))
    count_path(paths_, k_paths, *counts, err, count);
  else
    count_folded(directory_of(path), err, count);
  if (err != 0)
    count_failure(path, count);
}

void Aggregator::add_folded_lookups(std::string_view dir, int err, std::uint64_t count) {
  path_lookups_ += count;
  count_folded(dir, err, count);
  if (err != 0)
    if (auto* n = failed_dirs_.find_or_insert(dir, max_dirs()))
      *n += count;
}

void Aggregator::add_process_calls(pid_t pid, std::uint64_t calls, std::uint64_t errors) {
  auto& p = process(pid);
  p.calls += calls;
  p.errors += errors;
}

void Aggregator::record(const SyscallEvent& event) {
  if (event.nr < 0 || event.nr >= k_max_syscall_nr)
    return;
  int err = is_error(event.result) ? static_cast<int>(-event.result) : 0;
  add_calls(event.abi, event.nr, err, 1, event.duration_ns);
  add_process_calls(event.pid, 1, err != 0);
  if (!event.path.empty())
    add_lookups(event.path, err, 1);
}

void Aggregator::add_syscalls(TraceSummary& out) const {
  std::map<int, std::uint64_t> results;
  for (std::size_t a = 0; a < k_abi_count; ++a) {
    auto abi = static_cast<Abi>(a);
    for (std::size_t nr = 0; nr < syscalls_[a].size(); ++nr) {
      const auto& s = syscalls_[a][nr];
      if (s.calls == 0)
        continue;
      SyscallSummary row{
          syscall_name(abi, static_cast<int>(nr)), static_cast<int>(nr), abi, s.calls, s.errors, {},
          static_cast<double>(s.time_ns) / 1e9};
      for (const auto& [err, count] : s.errnos) {
        row.errnos.push_back({err, count});
        results[err] += count;
      }
      sort_errnos(row.errnos);
      out.calls += s.calls;
      out.errors += s.errors;
      out.time_s += row.time_s;
      out.syscalls.push_back(std::move(row));
    }
  }
  std::sort(out.syscalls.begin(), out.syscalls.end(), [](const auto& a, const auto& b) {
    if (a.calls != b.calls)
      return a.calls > b.calls;
    return a.name != b.name ? a.name < b.name : a.abi < b.abi;
  });
  for (const auto& [err, count] : results)
    out.results.push_back({err, count});
  sort_errnos(out.results);
}

TraceSummary Aggregator::summary(std::size_t max_listed) const {
  TraceSummary out;
  add_syscalls(out);

  // Paths: the top of the exact ones and of the folded directories, merged.
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<ErrnoCount>> extras;
  for (const auto& [key, count] : extra_errnos_)
    extras[{key >> 48, static_cast<std::uint32_t>(key >> 16)}].push_back(
        {static_cast<int>(key & 0xffff), count});
  auto add_paths = [&](const StringTable<PathCounts>& table, std::uint64_t table_id, bool folded) {
    for (const auto* e :
         top_entries(table, max_listed, [](const PathCounts& c) { return c.calls; })) {
      PathSummary row{std::string(e->key_view()), e->value.calls, e->value.errors, {}, folded};
      if (folded)
        row.path += row.path == "/" ? "*" : "/*";
      std::uint64_t rest = e->value.errors;
      if (auto it = extras.find({table_id, e->value.index}); it != extras.end()) {
        for (const auto& extra : it->second) {
          row.errnos.push_back(extra);
          rest -= extra.count;
        }
      }
      if (rest > 0)
        row.errnos.push_back({e->value.first_err, rest});
      sort_errnos(row.errnos);
      out.paths.push_back(std::move(row));
    }
  };
  add_paths(paths_, k_paths, false);
  add_paths(folded_, k_folded, true);
  std::stable_sort(out.paths.begin(), out.paths.end(), [](const auto& a, const auto& b) {
    return a.calls != b.calls ? a.calls > b.calls : a.path < b.path;
  });
  if (out.paths.size() > max_listed)
    out.paths.resize(max_listed);

  out.failed_dirs = top_counts(failed_dirs_, max_listed);
  out.failed_suffixes = top_counts(failed_suffixes_, max_listed);
  for (const auto& p : processes_)
    out.processes.push_back({p.pid, p.comm, p.calls, p.errors});
  out.path_lookups = path_lookups_;
  out.folded_lookups = folded_lookups_;
  return out;
}

} // namespace opskit::trace
