// SPDX-License-Identifier: MIT
//
// The UDP sockets' queues: net.udp.queues.{tx,rx} and net.udp6.queues.{tx,rx}, the bytes waiting
// in the send and receive queues of all of the namespace's UDP sockets, from /proc/net/udp and
// /proc/net/udp6, as node_exporter's udp_queues collector serves them
// (node_udp_queues{ip="v4",queue="rx"}). A receive queue that grows is a reader falling behind
// (a DNS, syslog or statsd server) before its socket's buffer overflows and
// net.snmp.Udp.RcvbufErrors counts the drops.
//
// The files are a table, a socket a line, its queues the fifth token in hexadecimal:
//
//     sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid ...
//    512: 00000000:0044 00000000:0000 07 00000000:00000000 00:00000000 00000000     0 ...
//
// The reader renders each file as one keyed line, the queues summed over its sockets
// ("queues 0 512\n").

#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace {

constexpr ColumnSpec k_udp_fields[] = {
    {"tx", Kind::gauge, "bytes", "Bytes in the send queues of the UDP sockets"},
    {"rx", Kind::gauge, "bytes", "Bytes in the receive queues of the UDP sockets"},
};

} // namespace

namespace detail {

std::string_view render_udp(std::string_view raw, std::string& out) {
  out.clear();
  std::uint64_t tx = 0, rx = 0;
  for_each_row_token(raw, 4, [&](std::string_view queues) { // a socket's fifth token, "tx:rx"
    if (std::size_t colon = queues.find(':'); colon != std::string_view::npos) {
      tx += parse_hex(queues.substr(0, colon));
      rx += parse_hex(queues.substr(colon + 1));
    }
  });
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("queues {} {}\n"), tx, rx);
  return out;
}

} // namespace detail

void find_udp(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  find_rendered(roots, prefix, "net/udp", Reader::udp, "net.udp", k_udp_fields, out);
  find_rendered(roots, prefix, "net/udp6", Reader::udp, "net.udp6", k_udp_fields, out);
}

} // namespace opskit::counters
