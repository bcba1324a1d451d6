// SPDX-License-Identifier: MIT
// Every path of a repository, made and read back in one place (see paths.hpp).
#include "layout/paths.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace opskit::repo::detail {

std::string deb_archive(std::string_view distro) {
  return fmt::format("deb/{}", distro);
}

std::string deb_suite(std::string_view distro, std::string_view codename) {
  return fmt::format("deb/{}/dists/{}", distro, codename);
}

std::string deb_pool_file(std::string_view distro, std::string_view pool_path) {
  return fmt::format("deb/{}/{}", distro, pool_path);
}

std::string rpm_dist_dir(std::string_view dist) {
  return fmt::format("rpm/{}", dist);
}

std::string_view rpm_repository_of(std::string_view arch) {
  return arch == "src" ? k_source_repository : arch;
}

std::string rpm_repository(std::string_view dist, std::string_view repository) {
  return fmt::format("rpm/{}/{}", dist, repository);
}

std::string rpm_package_file(std::string_view dist, std::string_view arch, std::string_view file) {
  return fmt::format("rpm/{}/{}/Packages/{}", dist, rpm_repository_of(arch), file);
}

std::optional<DebPoolFile> parse_deb_pool_file(std::string_view path) {
  if (!path.starts_with("deb/"))
    return std::nullopt;
  path.remove_prefix(4);
  auto slash = path.find('/');
  if (slash == 0 || slash == std::string_view::npos || !path.substr(slash).starts_with("/pool/"))
    return std::nullopt;
  std::string_view filename = path.substr(slash + 1), component = filename.substr(5);
  auto end = component.find('/');
  if (end == 0 || end == std::string_view::npos)
    return std::nullopt;
  return DebPoolFile{path.substr(0, slash), filename, component.substr(0, end)};
}

std::optional<std::string> parse_rpm_package_dist(std::string_view path) {
  // rpm / distro / version / repository / Packages / file
  std::vector<std::string_view> parts;
  for (std::size_t at = 0; at <= path.size();) {
    auto slash = std::min(path.find('/', at), path.size());
    parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  if (parts.size() != 6 || parts[0] != "rpm" || parts[4] != "Packages" ||
      std::any_of(parts.begin(), parts.end(), [](std::string_view p) { return p.empty(); }))
    return std::nullopt;
  return fmt::format("{}/{}", parts[1], parts[2]);
}

Phase phase_of(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  if (name == "InRelease" || name == "repomd.xml")
    return Phase::top_level;
  if (name == "Release" || name == "Release.gpg" || name == "repomd.xml.asc")
    return Phase::signature;
  if (parse_deb_pool_file(path) || parse_rpm_package_dist(path))
    return Phase::package;
  if (path.find("/by-hash/") != std::string_view::npos ||
      path.find("/repodata/") != std::string_view::npos)
    return Phase::content_addressed;
  return Phase::index;
}

} // namespace opskit::repo::detail
