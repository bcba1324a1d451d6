// SPDX-License-Identifier: MIT
//
// Software RAID: md.<array>.{disks_required,disks_active,disks_failed,disks_spare,blocks,
// blocks_synced} and the array's state as five flags, md.<array>.{active,inactive,recovering,
// resync,check}, from /proc/mdstat, as node_exporter's mdadm collector serves them: the figures
// the alerts on a degraded array and a failed disk are written against
// (node_md_disks_required - node_md_disks{state="active"} > 0, node_md_disks{state="failed"} > 0).
//
// /proc/mdstat is a stanza an array, not a line:
//
//   md1 : active raid5 sdd1[4](F) sdc1[2] sdb1[1] sda1[0]
//         2930280448 blocks super 1.2 level 5, 512k chunk, algorithm 2 [4/3] [UUU_]
//         bitmap: 0/8 pages [0KB], 65536KB chunk
//         [==>.................]  recovery = 12.6% (123456/976760064) finish=100.1min ...
//
// its state and devices ((F) failed, (S) spare), its size in 1 KiB blocks with "[required/active]"
// where the level has redundancy, and a line while it recovers, resyncs or checks, with the
// blocks done so far. The reader renders each stanza as one keyed line ("md1 4 3 1 0 2930280448
// 123456 0 0 1 0 0"), which is located and converted as a file's lines are. An array without
// redundancy (raid0, linear) requires and has all its devices; an inactive one, none.

#include <cstdint>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

// In the order of the rendered columns.
constexpr ColumnSpec k_md_fields[] = {
    {"disks_required", Kind::gauge, "disks", "Devices the array is made of when whole"},
    {"disks_active", Kind::gauge, "disks", "Devices in the array that are in sync"},
    {"disks_failed", Kind::gauge, "disks", "Devices in the array marked failed"},
    {"disks_spare", Kind::gauge, "disks", "Spare devices of the array"},
    {"blocks", Kind::gauge, "KiB", "Size of the array"},
    {"blocks_synced", Kind::gauge, "KiB",
     "Part of the array in sync: all of it unless it recovers, resyncs, checks or reshapes"},
    {"active", Kind::gauge, "",
     "1 when the array is active and neither recovers, resyncs, checks nor reshapes"},
    {"inactive", Kind::gauge, "", "1 when the array is inactive (not started)"},
    {"recovering", Kind::gauge, "", "1 while the array rebuilds onto a device"},
    {"resync", Kind::gauge, "", "1 while the array resyncs its devices (or waits to)"},
    {"check", Kind::gauge, "", "1 while the array's devices are checked against each other"},
};

// One array's stanza, as it is read.
struct Array {
  std::string_view name;
  bool active = false;
  bool broken = false;    // a member of a raid0 or linear array gone: neither active nor not
  bool redundant = false; // a "[required/active]" figure was given
  std::uint64_t devices = 0, failed = 0, spare = 0, required = 0, in_sync = 0;
  std::uint64_t blocks = 0, synced = 0;
  enum class Activity : std::uint8_t { none, recovering, resync, check, reshape } activity = {};
};

bool is_digits(std::string_view s) noexcept {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::uint64_t number(std::string_view s) noexcept {
  std::uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9' || n > (UINT64_MAX - 9) / 10)
      return n;
    n = n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return n;
}

// "md1 : active raid5 sdd1[4](F) sdc1[2] ...": the state and the devices.
void read_header(std::string_view line, Array& a) {
  Tokens tokens(line, {});
  for (int index = 0; auto token = tokens.next(); ++index) {
    if (index == 0)
      a.name = *token;
    else if (index == 2) {
      a.active = *token == "active";
      a.broken = *token == "broken";
    } else if (index > 2 && token->find('[') != std::string_view::npos) {
      ++a.devices;
      a.failed += token->find("(F)") != std::string_view::npos ? 1 : 0;
      a.spare += token->find("(S)") != std::string_view::npos ? 1 : 0;
    }
  }
}

// "2930280448 blocks ... [4/3] [UUU_]": the size, and the devices required and in sync.
void read_blocks(std::string_view line, Array& a) {
  Tokens tokens(line, {});
  for (bool first = true; auto next = tokens.next(); first = false) {
    std::string_view token = *next;
    if (first && is_digits(token))
      a.blocks = number(token);
    std::size_t slash = token.find('/');
    if (token.size() >= 5 && token.front() == '[' && token.back() == ']' &&
        slash != std::string_view::npos && is_digits(token.substr(1, slash - 1)) &&
        is_digits(token.substr(slash + 1, token.size() - slash - 2))) {
      a.redundant = true;
      a.required = number(token.substr(1, slash - 1));
      a.in_sync = number(token.substr(slash + 1, token.size() - slash - 2));
    }
  }
}

// "[==>...]  recovery = 12.6% (123456/976760064) ...", or "resync=DELAYED": what the array does
// and how far it is (none of it yet, when it waits).
void read_progress(std::string_view line, Array& a) {
  using Activity = Array::Activity;
  if (line.find("recovery") != std::string_view::npos)
    a.activity = Activity::recovering;
  else if (line.find("check") != std::string_view::npos)
    a.activity = Activity::check;
  else if (line.find("resync") != std::string_view::npos)
    a.activity = Activity::resync;
  else if (line.find("reshape") != std::string_view::npos) // no state of its own: none is 1
    a.activity = Activity::reshape;
  else
    return;
  std::size_t open = line.find('('), slash = line.find('/', open);
  if (open != std::string_view::npos && slash != std::string_view::npos)
    a.synced = number(line.substr(open + 1, slash - open - 1));
}

void render(const Array& a, std::string& out) {
  if (a.name.empty())
    return;
  std::uint64_t required = a.redundant ? a.required : a.devices;
  std::uint64_t in_sync = a.redundant ? a.in_sync : a.devices;
  if (!a.active && !a.broken)
    required = in_sync = 0;
  using Activity = Array::Activity;
  bool busy = a.active && a.activity != Activity::none;
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} {} {} {} {} {} {} {} {} {} {} {}\n"),
                 a.name, required, in_sync, a.failed, a.spare, a.blocks, busy ? a.synced : a.blocks,
                 a.active && !busy ? 1 : 0, a.active || a.broken ? 0 : 1,
                 busy && a.activity == Activity::recovering ? 1 : 0,
                 busy && a.activity == Activity::resync ? 1 : 0,
                 busy && a.activity == Activity::check ? 1 : 0);
}

} // namespace

namespace detail {

std::string_view render_mdstat(std::string_view raw, std::string& out) {
  out.clear();
  Array array;
  bool blocks_read = false;
  for (std::string_view rest = raw; !rest.empty();) {
    std::string_view line = next_line(rest);
    bool indented = !line.empty() && (line.front() == ' ' || line.front() == '\t');
    if (!indented) {
      render(array, out);
      array = Array();
      blocks_read = false;
      if (line.starts_with("md") && line.find(" : ") != std::string_view::npos)
        read_header(line, array);
    } else if (!array.name.empty() && !blocks_read) {
      read_blocks(line, array);
      blocks_read = true;
    } else if (!array.name.empty()) {
      read_progress(line, array);
    }
  }
  render(array, out);
  return out;
}

} // namespace detail

void find_md(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  find_rendered(roots, prefix, "mdstat", Reader::mdstat, "md", k_md_fields, out);
}

} // namespace opskit::counters
