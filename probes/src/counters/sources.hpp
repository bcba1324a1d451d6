// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reader.hpp"

namespace opskit::counters {

// True when `name` is `prefix` or lies under it ("" holds everything): component-wise, so
// "vm.stat" holds neither "vm.stats" nor "vm.stats.pgfault".
bool holds(std::string_view prefix, std::string_view name) noexcept;

// Every field named `prefix` or under it, from the sources under `proc_root`, unsorted. Reads
// the source files whose layout defines the names (vmstat, meminfo, ...) and walks /proc/sys
// without opening its files.
std::vector<Field> find_fields(const std::string& proc_root, std::string_view prefix);

// The /proc/sys file or directory a name stands for ("net.ipv4.conf.eth0/100.rp_filter" ->
// "<root>/sys/net/ipv4/conf/eth0.100/rp_filter"), or nothing for a name that cannot be one.
std::optional<std::string> sysctl_path(const std::string& proc_root, std::string_view name);

// Why a /proc/sys name is never read, or nothing when it may be: vm.stat_refresh acts when
// read, and the deprecated neigh.*.base_reachable_time and retrans_time log a kernel warning
// (procps sysctl skips them for that).
std::optional<std::string_view> never_read(std::string_view name) noexcept;

} // namespace opskit::counters
