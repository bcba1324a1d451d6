// SPDX-License-Identifier: MIT
//
// The network stack's receive work on each CPU: net.softnet.<cpu>.{processed,dropped,
// time_squeeze,received_rps,flow_limit_count,backlog_len}, from /proc/net/softnet_stat, which
// node_exporter's softnet collector serves. A drop there is a packet lost before any socket saw
// it (the CPU's backlog was full: net.core.netdev_max_backlog); a squeeze, a receive round that
// ran out of budget or time with packets left (net.core.netdev_budget*).
//
// The file has a line per online CPU of 8-digit hexadecimal columns and no key: processed,
// dropped, time_squeeze, six zeros (fields long gone), received_rps, flow_limit_count, and since
// Linux 5.10 the backlog's length and the CPU's number; later kernels append more. The reader
// renders it as keyed decimal lines ("1 5755325 0 3 0 0 0": the CPU, then the six), which are
// located and converted as any file's lines are. Before 5.10 a line's CPU is its place in the
// file, right while no CPU is offline; a CPU going offline or coming back changes the lines,
// which a snapshot notices (Layout::fixed_lines is false).

#include <array>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

// In the order of the rendered columns.
constexpr ColumnSpec k_softnet_fields[] = {
    {"processed", Kind::counter, "packets", "Packets the CPU took off its receive queues"},
    {"dropped", Kind::counter, "packets", "Packets dropped because the CPU's backlog was full"},
    {"time_squeeze", Kind::counter, "events",
     "Receive rounds that ran out of budget or time with packets left"},
    {"received_rps", Kind::counter, "interrupts",
     "Times another CPU woke this one to steer packets (RPS)"},
    {"flow_limit_count", Kind::counter, "packets", "Packets dropped by the per-flow limit"},
    {"backlog_len", Kind::gauge, "packets", "Packets in the CPU's backlog now"},
};
// Where each is in the file.
constexpr int k_file_columns[std::size(k_softnet_fields)] = {0, 1, 2, 9, 10, 11};
constexpr int k_backlog_columns = 13; // from Linux 5.10: backlog length, then the CPU's number
constexpr int k_cpu_column = 12;

} // namespace

namespace detail {

std::string_view render_softnet(std::string_view raw, std::string& out) {
  out.clear();
  std::size_t line_number = 0;
  for (std::string_view rest = raw; !rest.empty();) {
    Tokens tokens(next_line(rest), {});
    std::array<std::string_view, k_backlog_columns> columns{};
    int count = 0;
    while (count < k_backlog_columns)
      if (auto token = tokens.next())
        columns[count++] = *token;
      else
        break;
    if (count <= k_file_columns[2]) // not a line of counters; before 3.11, ten columns
      continue;
    std::size_t cpu = count >= k_backlog_columns ? parse_hex(columns[k_cpu_column]) : line_number;
    ++line_number;
    auto at = std::back_inserter(out);
    at = fmt::format_to(at, FMT_COMPILE("{}"), cpu);
    for (int column : k_file_columns)
      if (column < count)
        at = fmt::format_to(at, FMT_COMPILE(" {}"), parse_hex(columns[column]));
    out.push_back('\n');
  }
  return out;
}

} // namespace detail

void find_softnet(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  find_rendered(roots, prefix, "net/softnet_stat", Reader::softnet, "net.softnet", k_softnet_fields,
                out);
}

} // namespace opskit::counters
