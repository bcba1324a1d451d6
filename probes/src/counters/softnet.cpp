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

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

struct SoftnetField {
  std::string_view name;
  int column; // in the file
  Kind kind;
  std::string_view unit;
  std::string_view description;
};

// In the order of the rendered columns.
constexpr SoftnetField k_softnet_fields[] = {
    {"processed", 0, Kind::counter, "packets", "Packets the CPU took off its receive queues"},
    {"dropped", 1, Kind::counter, "packets", "Packets dropped because the CPU's backlog was full"},
    {"time_squeeze", 2, Kind::counter, "events",
     "Receive rounds that ran out of budget or time with packets left"},
    {"received_rps", 9, Kind::counter, "interrupts",
     "Times another CPU woke this one to steer packets (RPS)"},
    {"flow_limit_count", 10, Kind::counter, "packets", "Packets dropped by the per-flow limit"},
    {"backlog_len", 11, Kind::gauge, "packets", "Packets in the CPU's backlog now"},
};
constexpr int k_backlog_columns = 13; // from Linux 5.10: backlog length, then the CPU's number
constexpr int k_cpu_column = 12;

std::uint32_t hex(std::string_view token) noexcept {
  std::uint32_t n = 0;
  std::from_chars(token.data(), token.data() + token.size(), n, 16);
  return n;
}

} // namespace

namespace detail {

std::string_view render_softnet(std::string_view raw, std::string& out) {
  out.clear();
  std::size_t line_number = 0;
  std::string_view rest = raw;
  while (!rest.empty()) {
    std::size_t eol = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    std::array<std::string_view, k_backlog_columns> columns{};
    int count = 0;
    for (std::size_t pos = 0; count < k_backlog_columns;) {
      pos = line.find_first_not_of(' ', pos);
      if (pos == std::string_view::npos)
        break;
      std::size_t end = std::min(line.find(' ', pos), line.size());
      columns[count++] = line.substr(pos, end - pos);
      pos = end;
    }
    if (count <= k_softnet_fields[4].column) // not a line of counters
      continue;
    std::size_t cpu = count >= k_backlog_columns ? hex(columns[k_cpu_column]) : line_number;
    ++line_number;
    auto at = std::back_inserter(out);
    at = fmt::format_to(at, FMT_COMPILE("{}"), cpu);
    for (const auto& f : k_softnet_fields)
      if (f.column < count)
        at = fmt::format_to(at, FMT_COMPILE(" {}"), hex(columns[f.column]));
    out.push_back('\n');
  }
  return out;
}

} // namespace detail

void find_softnet(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "net.softnet"))
    return;
  std::string path = roots.proc + "/net/softnet_stat";
  auto raw = read_file(path);
  if (!raw)
    return;
  std::string text;
  detail::render_softnet(*raw, text);
  Emitter emitter(roots, path, k_lines, prefix, out, Reader::softnet);
  for_each_record(text, k_lines, [&](const Record& r) {
    for (std::size_t i = 0; i < std::size(k_softnet_fields) && i < r.tokens.size(); ++i) {
      const auto& f = k_softnet_fields[i];
      if (Info* info = emitter.emit(fmt::format("net.softnet.{}.{}", r.key, f.name),
                                    fmt::format("net.softnet.*.{}", f.name), f.kind, f.unit,
                                    {std::string(r.key), static_cast<int>(i), r.offset}))
        info->description = f.description;
    }
  });
}

} // namespace opskit::counters
