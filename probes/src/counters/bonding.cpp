// SPDX-License-Identifier: MIT
//
// Bonded interfaces: net.bonding.<master>.{slaves,active}, the interfaces enslaved to each bond
// and those of them whose link is up (MII status), as node_exporter's bonding collector counts
// them (node_bonding_slaves, node_bonding_active). Fewer active than enslaved is a bond running
// degraded: its redundancy is gone while traffic still flows, which nothing else shows.
//
// The bonding driver lists the bonds in <sys>/class/net/bonding_masters, each bond's interfaces
// in <bond>/bonding/slaves, and each interface's link in
// <bond>/lower_<iface>/bonding_slave/mii_status ("up", "down", "going back", ...; slave_<iface>
// on kernels before 4.11). The reader reads them all and renders one keyed line a bond, in
// the order of their names ("bond0 2 1\n"). A bond that comes or goes changes the lines, which
// a snapshot notices; an interface that is added or removed changes only the figures.

#include <algorithm>
#include <cerrno>
#include <iterator>

#include <fcntl.h>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "emitter.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::counters {

namespace {

constexpr ColumnSpec k_bonding_fields[] = {
    {"slaves", Kind::gauge, "interfaces", "Interfaces enslaved to the bond"},
    {"active", Kind::gauge, "interfaces", "Interfaces of the bond whose link is up (MII status)"},
};

// The words of `text`, split at blanks and newlines.
std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  Tokens tokens(text, "\n");
  while (auto word = tokens.next())
    out.push_back(*word);
  return out;
}

// An interface's link as its bond sees it ("up"), the newer place first.
Result<std::string> mii_status(std::string_view net, std::string_view bond,
                               std::string_view iface) {
  auto status = read_file(fmt::format("{}/{}/lower_{}/bonding_slave/mii_status", net, bond, iface));
  if (!status && status.error().errno_value() == ENOENT)
    status = read_file(fmt::format("{}/{}/slave_{}/bonding_slave/mii_status", net, bond, iface));
  return status;
}

} // namespace

namespace detail {

bool read_bonding(Source& source) {
  if (!source.fd) {
    auto opened = open_file(source.path, O_RDONLY | O_NONBLOCK);
    if (!opened) {
      source.read_error = opened.error();
      return false;
    }
    source.fd = std::move(*opened);
  }
  if (source.raw.empty())
    source.raw.resize(256);
  auto masters = pread_whole(source.fd.get(), source.raw, source.path);
  if (!masters) {
    source.read_error = masters.error();
    return false;
  }
  std::string_view net = std::string_view(source.path).substr(0, source.path.rfind('/'));
  auto bonds = words(*masters);
  std::ranges::sort(bonds);
  source.buffer.clear();
  for (std::string_view bond : bonds) {
    auto slaves = read_file(fmt::format("{}/{}/bonding/slaves", net, bond));
    if (!slaves) {
      source.read_error = slaves.error();
      return false;
    }
    auto ifaces = words(*slaves);
    std::size_t active = 0;
    for (std::string_view iface : ifaces) {
      auto status = mii_status(net, bond, iface);
      if (!status) {
        source.read_error = status.error();
        return false;
      }
      active += trim(*status) == "up" ? 1 : 0;
    }
    fmt::format_to(std::back_inserter(source.buffer), FMT_COMPILE("{} {} {}\n"), bond,
                   ifaces.size(), active);
  }
  source.text = source.buffer;
  return true;
}

} // namespace detail

void find_bonding(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  if (!related(prefix, "net.bonding"))
    return;
  detail::Source bonds;
  bonds.path = roots.sys + "/class/net/bonding_masters";
  bonds.reader = Reader::bonding;
  if (!bonds.read())
    return;
  Emitter emitter(roots, bonds.path, k_lines, prefix, out, Reader::bonding);
  emit_columns(bonds.text, "net.bonding", k_bonding_fields, emitter);
}

} // namespace opskit::counters
