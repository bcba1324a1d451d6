// SPDX-License-Identifier: MIT
#include "ops/config.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "opskit/text.hpp"

namespace opskit::repo {

namespace ops {

bool dist_part_ok(std::string_view part) {
  if (part.empty() || part == "." || part == "..")
    return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' ||
           c == '_';
  });
}

// The config table's keys, each with the field it fills.
Result<RepositoryConfig> load_config(const State& state) {
  RepositoryConfig c;
  std::pair<const char*, std::string*> texts[] = {{"origin", &c.origin},
                                                  {"label", &c.label},
                                                  {"deb_dist", &c.deb_dist},
                                                  {"rpm_dist", &c.rpm_dist},
                                                  {"component", &c.component},
                                                  {"keyring", &c.keyring},
                                                  {"key", &c.key}};
  for (auto [key, field] : texts) {
    OPSKIT_TRY_ASSIGN(auto value, state.config(key));
    if (value)
      *field = std::move(*value);
  }
  for (auto [key, field] : {std::pair{"architectures", &c.architectures},
                            std::pair{"rpm_architectures", &c.rpm_architectures}}) {
    OPSKIT_TRY_ASSIGN(auto value, state.config(key));
    if (value)
      *field = words(*value);
  }
  OPSKIT_TRY_ASSIGN(auto days, state.config("valid_for_days"));
  if (days)
    c.valid_for_days = static_cast<unsigned>(std::strtoul(days->c_str(), nullptr, 10));
  return c;
}

Result<void> save_config(State& state, const RepositoryConfig& c) {
  std::vector<std::pair<std::string, std::string>> entries{
      {"origin", c.origin},
      {"label", c.label},
      {"deb_dist", c.deb_dist},
      {"rpm_dist", c.rpm_dist},
      {"component", c.component},
      {"architectures", fmt::format("{}", fmt::join(c.architectures, " "))},
      {"rpm_architectures", fmt::format("{}", fmt::join(c.rpm_architectures, " "))},
      {"keyring", c.keyring},
      {"key", c.key},
      {"valid_for_days", std::to_string(c.valid_for_days)}};
  for (const auto& [key, value] : entries)
    OPSKIT_TRY(state.set_config(key, value));
  return {};
}

// A dist serves one format: the repository's default dist of the other format, or one that
// already holds packages of it, would make an apt archive named like a dnf release (or the
// other way round) that no client of either looks for.
Result<void> check_dist_format(const Context& ctx, const PackageRecord& r, std::string_view input) {
  bool deb = r.format == PackageFormat::deb;
  PackageFormat other = deb ? PackageFormat::rpm : PackageFormat::deb;
  OPSKIT_TRY_ASSIGN(auto holds, ctx.state.holds(other, r.dist));
  if (!holds && r.dist != (deb ? ctx.config.rpm_dist : ctx.config.deb_dist))
    return {};
  return fail(fmt::format("{}: {} {} {}; push {} with --dist DISTRO/RELEASE such as {}", input,
                          r.dist, holds ? "holds" : "is the repository's default dist for",
                          deb ? "rpms" : "debs", deb ? "debs" : "rpms",
                          deb ? "debian/bookworm" : "el/9"));
}

} // namespace ops

Result<std::pair<std::string, std::string>> split_dist(const std::string& dist) {
  auto slash = dist.find('/');
  if (slash == std::string::npos || dist.find('/', slash + 1) != std::string::npos)
    return fail(fmt::format(
        "bad dist '{}': expected DISTRO/RELEASE such as debian/bookworm or el/9", dist));
  std::string distro = dist.substr(0, slash), release = dist.substr(slash + 1);
  if (!ops::dist_part_ok(distro) || !ops::dist_part_ok(release))
    return fail(fmt::format("bad dist '{}': each part must be [a-z0-9.+_-], and not . or ..", dist));
  return std::pair{distro, release};
}

} // namespace opskit::repo
