// SPDX-License-Identifier: MIT
//
// net.snmp.IcmpMsg.{InType<N>,OutType<N>}: ICMP messages received and sent by type, from the
// IcmpMsg lines of /proc/net/snmp. The kernel writes only the types counted so far, sixteen to
// a pair of lines (names, then values), and none at all before the first: a type's first
// message moves the columns of those after it, and a seventeenth adds a pair. Their reader
// renders the pairs as a line per type ("InType3 40"), found by name as any keyed line is, and
// a type that comes adds a line, which a snapshot notices (Layout::fixed_lines is false). The
// rest of the file, whose columns the kernel fixes, is read as a table (sources.cpp).

#include <string>

#include <fmt/format.h>

#include "emitter.hpp"

namespace opskit::counters {

namespace detail {

std::string_view render_icmpmsg(std::string_view raw, std::string& out) {
  constexpr std::string_view k_key = "IcmpMsg:";
  out.clear();
  std::string_view names;
  for (std::string_view rest = raw; !rest.empty();) {
    std::string_view line = next_line(rest);
    if (!line.starts_with(k_key))
      continue;
    if (names.empty()) {
      names = line.substr(k_key.size());
      continue;
    }
    Tokens name(names, {}), value(line.substr(k_key.size()), {});
    for (auto n = name.next(), v = value.next(); n && v; n = name.next(), v = value.next())
      out.append(*n).append(" ").append(*v).push_back('\n');
    names = {};
  }
  return out;
}

} // namespace detail

void find_icmpmsg(const Roots& roots, std::string_view prefix, std::vector<Field>& out) {
  constexpr std::string_view k_base = "net.snmp.IcmpMsg";
  if (!related(prefix, k_base))
    return;
  std::string path = roots.proc + "/net/snmp";
  auto text = read_rendered(path, Reader::icmpmsg);
  if (!text)
    return;
  Emitter emitter(roots, path, k_lines, prefix, out, Reader::icmpmsg);
  for_each_record(*text, k_lines, [&](const Record& r) {
    std::string name = fmt::format("{}.{}", k_base, r.key);
    emitter.emit(name, name, Kind::counter, "messages", {std::string(r.key), 0, r.offset});
  });
}

} // namespace opskit::counters
