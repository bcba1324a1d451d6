// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace opskit {

// The Prometheus text exposition format (version 0.0.4), for one sample per metric.
enum class MetricType { counter, gauge };

// A legal metric name: `prefix` + "_" + `name` with every character outside [a-zA-Z0-9_]
// replaced by '_' ("kstat", "vm.stats.pgfault" -> "kstat_vm_stats_pgfault").
std::string prometheus_name(std::string_view prefix, std::string_view name);

// Appends "# HELP", "# TYPE" and the sample line for one metric. `help` may be empty (no HELP
// line); backslashes and newlines in it are escaped. `value` is the sample as text.
void append_prometheus_metric(std::string& out, std::string_view metric, std::string_view help,
                              MetricType type, std::string_view value);

} // namespace opskit
