// SPDX-License-Identifier: MIT
//
// The neighbours of IPv4: net.arp.<iface>.entries, the entries of the ARP table on each
// interface, from /proc/net/arp, as node_exporter's arp collector counts them (node_arp_entries,
// every entry, complete or not). A table that grows to gc_thresh3 drops neighbours ("neighbour
// table overflow"), which a host with many peers on one segment is watched for.
//
// The file is a table, an entry a line, under a header:
//
//   IP address       HW type     Flags       HW address            Mask     Device
//   192.0.2.1        0x1         0x2         02:fc:00:00:00:05     *        eth0
//
// The reader renders it as one keyed line an interface, its count ("eth0 1\n"), the interfaces
// in the order of their names: the kernel lists entries in its hash's order, which moves as
// entries come and go. An interface that gains its first entry or loses its last changes the
// count of lines, which a snapshot notices.

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

constexpr ColumnSpec k_arp_fields[] = {
    {"entries", Kind::gauge, "entries", "Entries of the ARP table on the interface"},
};

} // namespace

namespace detail {

std::string_view render_arp(std::string_view raw, std::string& out) {
  out.clear();
  // Each interface and its entries, in the table's order, then its names'.
  using Count = std::pair<std::string_view, std::uint64_t>;
  std::vector<Count> counts;
  for_each_row_token(raw, 5, [&](std::string_view device) { // an entry's sixth token
    auto known = std::ranges::find(counts, device, &Count::first);
    if (known != counts.end())
      ++known->second;
    else
      counts.emplace_back(device, 1);
  });
  std::ranges::sort(counts);
  auto at = std::back_inserter(out);
  for (const auto& [device, count] : counts)
    at = fmt::format_to(at, FMT_COMPILE("{} {}\n"), device, count);
  return out;
}

} // namespace detail

void find_arp(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  find_rendered(roots, prefix, "net/arp", Reader::arp, "net.arp", k_arp_fields, out);
}

} // namespace opskit::counters
