// SPDX-License-Identifier: MIT
// sources: what a client needs to use the repository served at a URL: each apt archive with
// its suites and components, each dnf dist, and the public key's URLs.
#include <map>
#include <set>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "ops/ops.hpp"

namespace opskit::repo::ops {

namespace {

// The label as a file name: lower case letters, digits and '-'.
std::string file_name_of(const std::string& label) {
  std::string name;
  for (char c : label)
    name.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c
                   : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a')
                                            : '-');
  return name;
}

} // namespace

Result<Sources> sources(const State& state, const RepositoryConfig& config,
                        const std::string& url) {
  OPSKIT_TRY_ASSIGN(auto records, state.packages());
  std::string base = url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  // dist -> components (deb), and rpm dists.
  std::map<std::string, std::set<std::string>> deb;
  std::set<std::string> rpm{config.rpm_dist};
  deb[config.deb_dist].insert(config.component);
  for (const auto& r : records) {
    if (r.format == PackageFormat::deb)
      deb[r.dist].insert(r.component);
    else
      rpm.insert(r.dist);
  }
  Sources out;
  out.name = file_name_of(config.label);
  out.label = config.label;
  out.key_url = base + "/gpg.key";
  out.gpg_url = base + "/gpg.gpg";
  out.is_signed = !config.key.empty();
  for (const auto& [dist, components] : deb) {
    auto [distro, codename] = *split_dist(dist);
    out.apt.push_back({fmt::format("{}/{}", base, detail::deb_archive(distro)),
                       codename,
                       {components.begin(), components.end()}});
  }
  for (const auto& dist : rpm) {
    auto [distro, version] = *split_dist(dist);
    out.dnf.push_back(
        {distro, version, fmt::format("{}/{}/$basearch", base, detail::rpm_dist_dir(dist))});
  }
  return out;
}

} // namespace opskit::repo::ops
