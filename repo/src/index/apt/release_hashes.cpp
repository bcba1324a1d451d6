// SPDX-License-Identifier: MIT
#include "index/apt/release_hashes.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "opskit/repo/format/deb/control.hpp"
#include "opskit/text.hpp"

namespace opskit::repo {

std::map<std::string, ReleaseEntry> release_hashes(std::string_view release,
                                                   std::string_view list_name) {
  std::map<std::string, ReleaseEntry> out;
  auto stanza = parse_stanza(release, "Release");
  if (!stanza)
    return out;
  const std::string* list = stanza->find(list_name);
  if (!list)
    return out;
  std::string_view rest = *list;
  while (!rest.empty()) {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    auto parts = words(line);
    if (parts.size() != 3)
      continue;
    ReleaseEntry entry{0, parts[0]};
    const std::string& size = parts[1];
    auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), entry.size);
    if (ec == std::errc() && end == size.data() + size.size())
      out[parts[2]] = std::move(entry);
  }
  return out;
}

std::vector<std::string> release_architectures(std::string_view release) {
  auto stanza = parse_stanza(release, "Release");
  const std::string* field = stanza ? stanza->find("Architectures") : nullptr;
  return field ? words(*field) : std::vector<std::string>();
}

std::optional<std::time_t> release_valid_until(std::string_view release) {
  static constexpr std::string_view k_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  auto stanza = parse_stanza(release, "Release");
  const std::string* field = stanza ? stanza->find("Valid-Until") : nullptr;
  if (!field)
    return std::nullopt;
  std::tm tm{};
  char day[4] = {}, month[4] = {}, zone[4] = {};
  if (std::sscanf(field->c_str(), "%3s, %d %3s %d %d:%d:%d %3s", day, &tm.tm_mday, month,
                  &tm.tm_year, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, zone) != 8 ||
      std::string_view(zone) != "UTC")
    return std::nullopt;
  auto at = std::find(std::begin(k_months), std::end(k_months), std::string_view(month));
  if (at == std::end(k_months))
    return std::nullopt;
  tm.tm_mon = static_cast<int>(at - std::begin(k_months));
  tm.tm_year -= 1900;
  return ::timegm(&tm);
}

} // namespace opskit::repo
