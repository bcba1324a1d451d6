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

#include <algorithm>
#include <charconv>
#include <iterator>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

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

// The whitespace-separated tokens of `line`.
std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> tokens;
  for (std::size_t pos = 0;;) {
    pos = line.find_first_not_of(" \t", pos);
    if (pos == std::string_view::npos)
      return tokens;
    std::size_t end = std::min(line.find_first_of(" \t", pos), line.size());
    tokens.push_back(line.substr(pos, end - pos));
    pos = end;
  }
}

} // namespace

namespace detail {

std::string_view render_conntrack(std::string_view raw, std::string& out) {
  out.clear();
  std::size_t eol = std::min(raw.find('\n'), raw.size());
  auto names = tokens_of(raw.substr(0, eol));
  std::vector<std::uint64_t> sums(names.size());
  for (std::string_view rest = raw.substr(std::min(eol + 1, raw.size())); !rest.empty();) {
    eol = std::min(rest.find('\n'), rest.size());
    auto values = tokens_of(rest.substr(0, eol));
    rest.remove_prefix(std::min(eol + 1, rest.size()));
    for (std::size_t i = 0; i < values.size() && i < names.size(); ++i) {
      std::uint64_t n = 0;
      std::from_chars(values[i].data(), values[i].data() + values[i].size(), n, 16);
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
  auto raw = read_file(path);
  if (!raw)
    return;
  std::string text;
  detail::render_conntrack(*raw, text);
  Emitter emitter(roots, path, k_fixed_lines, prefix, out, Reader::conntrack);
  for_each_record(text, k_lines, [&](const Record& r) {
    bool entries = r.key == k_entries;
    std::string name = fmt::format("net.conntrack.{}", r.key);
    if (Info* info = emitter.emit(name, name, entries ? Kind::gauge : Kind::counter,
                                  entries ? "connections" : "", {std::string(r.key), 0, r.offset}))
      info->description = entries ? "Connections in the conntrack table" : description_of(r.key);
  });
}

} // namespace opskit::counters
