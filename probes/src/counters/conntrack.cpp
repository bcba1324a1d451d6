// SPDX-License-Identifier: MIT
//
// The connection tracker's statistics: net.conntrack.<counter>, summed over the CPUs, from
// /proc/net/stat/nf_conntrack, which node_exporter's conntrack collector serves
// (node_nf_conntrack_stat_insert_failed, _drop, _early_drop, ...). A drop is a packet lost
// because the table was full; insert_failed, a connection that lost a race to be entered.
//
// The file names its columns on its first line ("entries clashres found new invalid ...", as the
// kernel version has them) and gives a line of 8-digit hexadecimal per CPU. The reader renders
// it as a keyed line a column, its sum over the CPUs in decimal ("found 12\n..."), located and
// converted as /proc/vmstat's lines are. "entries", the table's size, is the same on every line:
// it is taken once, and is the gauge /proc/sys's net.netfilter.nf_conntrack_count also gives.

#include <iterator>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

constexpr std::string_view k_entries = "entries";

// What the counters that matter most count; the others are named by the file alone.
constexpr std::pair<std::string_view, std::string_view> k_described[] = {
    {"found", "Lookups that found a tracked connection"},
    {"invalid", "Packets that could not be tracked"},
    {"ignore", "Packets already tracked or left untracked"},
    {"insert", "Connections entered into the table"},
    {"insert_failed", "Connections that could not be entered (a race lost, or a clash)"},
    {"drop", "Packets dropped because the table was full"},
    {"early_drop", "Connections dropped early to make room in a full table"},
    {"search_restart", "Lookups restarted because the table changed under them"},
};

std::string description_of(std::string_view counter) {
  for (auto [name, description] : k_described)
    if (name == counter)
      return std::string(description);
  return fmt::format("Conntrack's {} events, all CPUs", counter);
}

} // namespace

namespace detail {

std::string_view render_conntrack(std::string_view raw, std::string& out) {
  out.clear();
  std::string_view rest = raw;
  std::vector<std::string_view> names;
  for (Tokens header(next_line(rest), {}); auto name = header.next();)
    names.push_back(*name);
  std::vector<std::uint64_t> sums(names.size());
  while (!rest.empty()) {
    Tokens values(next_line(rest), {});
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto value = values.next();
      if (!value)
        break;
      std::uint64_t n = parse_hex(*value);
      sums[i] = names[i] == k_entries ? n : sums[i] + n;
    }
  }
  auto at = std::back_inserter(out);
  for (std::size_t i = 0; i < names.size(); ++i)
    at = fmt::format_to(at, FMT_COMPILE("{} {}\n"), names[i], sums[i]);
  return out;
}

} // namespace detail

void find_conntrack(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "net.conntrack"))
    return;
  std::string path = roots.proc + "/net/stat/nf_conntrack";
  auto text = read_rendered(path, Reader::conntrack);
  if (!text)
    return;
  Emitter emitter(roots, path, k_fixed_lines, prefix, out, Reader::conntrack);
  for_each_record(*text, k_lines, [&](const Record& r) {
    bool entries = r.key == k_entries;
    std::string name = fmt::format("net.conntrack.{}", r.key);
    if (Info* info = emitter.emit(name, name, entries ? Kind::gauge : Kind::counter,
                                  entries ? "connections" : "", {std::string(r.key), 0, r.offset}))
      info->description = entries ? "Connections in the conntrack table" : description_of(r.key);
  });
}

} // namespace opskit::counters
