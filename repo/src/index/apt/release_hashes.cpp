// SPDX-License-Identifier: MIT
#include "index/apt/release_hashes.hpp"

#include <charconv>

#include "opskit/repo/format/deb/control.hpp"
#include "opskit/repo/index/apt/release.hpp"
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

namespace {

std::vector<std::string> field_words(std::string_view release, const char* name) {
  auto stanza = parse_stanza(release, "Release");
  const std::string* field = stanza ? stanza->find(name) : nullptr;
  return field ? words(*field) : std::vector<std::string>();
}

} // namespace

std::vector<std::string> release_architectures(std::string_view release) {
  return field_words(release, "Architectures");
}

std::vector<std::string> release_components(std::string_view release) {
  return field_words(release, "Components");
}

std::optional<std::time_t> release_valid_until(std::string_view release) {
  auto stanza = parse_stanza(release, "Release");
  const std::string* field = stanza ? stanza->find("Valid-Until") : nullptr;
  return field ? parse_rfc2822_utc(*field) : std::nullopt;
}

} // namespace opskit::repo
