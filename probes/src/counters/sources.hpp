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

// Names under /proc/sys that are never read: they act when read.
bool acts_when_read(std::string_view name) noexcept;

} // namespace opskit::counters
