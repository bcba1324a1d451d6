// SPDX-License-Identifier: MIT
//
// The IP Virtual Server (IPVS, the kernel's load balancer; kube-proxy's ipvs mode), as
// node_exporter's ipvs collector serves it:
//
//   net.ipvs.total.{connections,incoming_packets,outgoing_packets,incoming_bytes,outgoing_bytes}
//       /proc/net/ip_vs_stats, its third line's five hexadecimal totals.
//   net.ipvs.backend.<key>.{weight,active,inactive}
//       /proc/net/ip_vs: each real server behind each virtual service, its weight and its active
//       and inactive connections, labelled with the service's protocol, address and port (or
//       firewall mark) and the server's. The key is the protocol and both hexadecimal addresses
//       as the file writes them, so that it is one name component ("TCP_0A000001:0050_...").
//
//     Prot LocalAddress:Port Scheduler Flags
//       -> RemoteAddress:Port Forward Weight ActiveConn InActConn
//     TCP  0A000001:0050 rr
//       -> 0A010005:1F90      Masq    1      3          12
//     FWM  00000010 wlc
//       -> [2001:0db8:0000:0000:0000:0000:0000:0002]:0050      Route   2      0          0
//
// Both files are rendered as keyed lines; services come and go, and with them the lines.

#include <array>
#include <charconv>
#include <iterator>

#include <arpa/inet.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"

namespace opskit::counters {

namespace {

constexpr ColumnSpec k_totals[] = {
    {"connections", Kind::counter, "connections", "Connections the virtual servers took"},
    {"incoming_packets", Kind::counter, "packets", "Packets in to the virtual servers"},
    {"outgoing_packets", Kind::counter, "packets", "Packets out from the virtual servers"},
    {"incoming_bytes", Kind::counter, "bytes", "Bytes in to the virtual servers"},
    {"outgoing_bytes", Kind::counter, "bytes", "Bytes out from the virtual servers"},
};

constexpr ColumnSpec k_backend_columns[] = {
    {"weight", Kind::gauge, "", "The real server's weight in its service's scheduling"},
    {"active", Kind::gauge, "connections", "The real server's established connections"},
    {"inactive", Kind::gauge, "connections", "The real server's other connections"},
};

// An address and port as the file writes them, "0A000001:0050" or "[2001:0db8:...]:0050", as
// text: {"10.0.0.1", "80"}; nothing when it is neither.
std::optional<std::pair<std::string, std::string>> address_of(std::string_view token) {
  std::size_t colon = token.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == token.size())
    return std::nullopt;
  std::string_view address = token.substr(0, colon), port = token.substr(colon + 1);
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (address.size() == 8) {
    auto v4 = static_cast<std::uint32_t>(parse_hex(address));
    std::string dotted =
        fmt::format("{}.{}.{}.{}", v4 >> 24, (v4 >> 16) & 255, (v4 >> 8) & 255, v4 & 255);
    return std::pair{dotted, std::to_string(parse_hex(port))};
  }
  if (address.size() < 3 || address.front() != '[' || address.back() != ']')
    return std::nullopt;
  std::string full(address.substr(1, address.size() - 2));
  in6_addr v6{};
  if (::inet_pton(AF_INET6, full.c_str(), &v6) != 1 ||
      ::inet_ntop(AF_INET6, &v6, text.data(), text.size()) == nullptr)
    return std::nullopt;
  return std::pair{std::string(text.data()), std::to_string(parse_hex(port))};
}

// An address and port as part of a name component: an IPv6 address without its brackets and
// colons ("0A000001:0050", "20010db8000000000000000000000002:0050").
std::string key_part(std::string_view token) {
  std::string out;
  bool bracketed = false;
  for (char c : token) {
    if (c == '[' || c == ']')
      bracketed = c == '[';
    else if (c != ':' || !bracketed)
      out.push_back(c);
  }
  return out;
}

struct Backend {
  std::string key;
  std::vector<std::pair<std::string, std::string>> labels;
  std::array<std::uint64_t, 3> figures; // weight, active, inactive
};

// A decimal figure of the file; nothing for anything else.
std::optional<std::uint64_t> figure(std::optional<std::string_view> token) {
  std::uint64_t n = 0;
  if (!token || token->empty())
    return std::nullopt;
  auto [end, ec] = std::from_chars(token->data(), token->data() + token->size(), n);
  if (ec != std::errc() || end != token->data() + token->size())
    return std::nullopt;
  return n;
}

// The real servers of /proc/net/ip_vs, each under the service it follows.
std::vector<Backend> backends_of(std::string_view raw) {
  std::vector<Backend> out;
  std::string proto, local_key;
  std::vector<std::pair<std::string, std::string>> service;
  for (std::string_view rest = raw; !rest.empty();) {
    Tokens tokens(next_line(rest), {});
    auto first = tokens.next(), second = tokens.next();
    if (!first || !second)
      continue;
    if (*first == "TCP" || *first == "UDP" || *first == "SCTP" || *first == "FWM") {
      proto = *first;
      local_key = key_part(*second);
      service = {{"proto", proto}};
      if (proto == "FWM") { // no address: node_exporter's port 0
        service.emplace_back("local_port", "0");
        service.emplace_back("local_mark", *second);
      } else if (auto local = address_of(*second)) {
        service.emplace_back("local_address", local->first);
        service.emplace_back("local_port", local->second);
      }
      continue;
    }
    auto forward = tokens.next();
    auto weight = figure(tokens.next()), active = figure(tokens.next()),
         inactive = figure(tokens.next());
    auto remote = *first == "->" && !proto.empty() ? address_of(*second) : std::nullopt;
    if (!remote || !forward || !weight || !active || !inactive)
      continue; // the header lines
    Backend b{fmt::format("{}_{}_{}", proto, local_key, key_part(*second)),
              service,
              {*weight, *active, *inactive}};
    b.labels.emplace_back("remote_address", remote->first);
    b.labels.emplace_back("remote_port", remote->second);
    out.push_back(std::move(b));
  }
  return out;
}

// A real server's line of the rendering: its key, weight and connections.
void append_backend(const Backend& b, std::string& out) {
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{} {} {} {}\n"), b.key, b.figures[0],
                 b.figures[1], b.figures[2]);
}

} // namespace

namespace detail {

std::string_view render_ipvs_stats(std::string_view raw, std::string& out) {
  out.clear();
  std::string_view rest = raw;
  next_line(rest); // the two header lines
  next_line(rest);
  Tokens totals(next_line(rest), {});
  out.append("total");
  for (std::size_t i = 0; i < std::size(k_totals); ++i)
    if (auto token = totals.next())
      fmt::format_to(std::back_inserter(out), FMT_COMPILE(" {}"), parse_hex(*token));
  out.push_back('\n');
  return out;
}

std::string_view render_ipvs(std::string_view raw, std::string& out) {
  out.clear();
  for (const auto& b : backends_of(raw))
    append_backend(b, out);
  return out;
}

} // namespace detail

void find_ipvs(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  find_rendered(roots, prefix, "net/ip_vs_stats", Reader::ipvs_stats, "net.ipvs", k_totals, out);
  if (!related(prefix, "net.ipvs.backend"))
    return;
  std::string path = roots.proc + "/net/ip_vs";
  auto raw = read_file(path);
  if (!raw)
    return;
  Emitter emitter(roots, path, Layout{.end = detail::end_of(Reader::ipvs)}, prefix, out,
                  Reader::ipvs);
  std::string text; // the rendering, for each real server's line in it
  for (const auto& b : backends_of(*raw)) {
    std::size_t offset = text.size();
    append_backend(b, text);
    for (std::size_t i = 0; i < std::size(k_backend_columns); ++i) {
      const auto& column = k_backend_columns[i];
      if (Info* info = emitter.emit(fmt::format("net.ipvs.backend.{}.{}", b.key, column.name),
                                    fmt::format("net.ipvs.backend.*.{}", column.name), column.kind,
                                    column.unit, {b.key, static_cast<int>(i), offset})) {
        info->description = column.description;
        info->labels = b.labels;
      }
    }
  }
}

} // namespace opskit::counters
