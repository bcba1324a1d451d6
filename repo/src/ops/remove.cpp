// SPDX-License-Identifier: MIT
// rm and prune: records removed and their indexes rewritten in one transaction; pool files go
// only after the indexes that named them are replaced (and committed).
#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include <unistd.h>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "ops/ops.hpp"
#include "ops/write.hpp"
#include "opskit/repo/format/deb/deb.hpp"
#include "opskit/repo/format/version.hpp"
#include "opskit/text.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::ops {

using detail::join_path;

namespace {

Result<void> remove_records(const Context& ctx, const std::vector<PackageRecord>& doomed) {
  OPSKIT_TRY_ASSIGN(auto txn, ctx.state.begin());
  Touched touched;
  for (const auto& r : doomed) {
    OPSKIT_TRY(ctx.state.remove(r.id));
    touched.add(r, Touched::Text::freed);
  }
  OPSKIT_TRY(rewrite(ctx, touched));
  OPSKIT_TRY(txn.commit());
  // Pool files go only after the indexes that named them are replaced (and committed).
  std::error_code ec;
  for (const auto& r : doomed) {
    auto refs = ctx.state.references(r.file);
    if (!refs || *refs > 0)
      continue;
    ::unlink(join_path(ctx.publication, r.file).c_str());
    if (r.format == PackageFormat::rpm && r.arch == "noarch") // and its links in each arch
      for (const auto& arch :
           fs::directory_iterator(join_path(ctx.publication, detail::rpm_dist_dir(r.dist)), ec))
        fs::remove(arch.path() / "Packages" / fs::path(r.file).filename(), ec);
  }
  return {};
}

// Whether `asked` names the version of `r` as dpkg or rpm would: an epoch of 0 given or not
// (0:1.0-1 is 1.0-1), and for an rpm, without its release, any release of that version.
bool is_version(const PackageRecord& r, std::string_view asked) {
  if (r.format == PackageFormat::deb)
    return compare_deb_versions(r.version, asked) == 0;
  std::string_view version = r.version;
  std::string_view asked_version = asked.substr(asked.find(':') + 1);
  if (asked_version.find('-') == std::string_view::npos)
    version = version.substr(0, version.rfind('-'));
  return compare_rpm_versions(version, asked) == 0;
}

} // namespace

Result<std::vector<PackageRecord>> remove(const Context& ctx, const RemoveFilter& filter) {
  OPSKIT_TRY_ASSIGN(auto lock, lock_repository(ctx));
  OPSKIT_TRY_ASSIGN(auto records, ctx.state.packages());
  std::vector<PackageRecord> doomed;
  for (auto& r : records) {
    if (r.name != filter.name || (filter.dist && r.dist != *filter.dist) ||
        (filter.arch && r.arch != *filter.arch))
      continue;
    if (filter.version && !is_version(r, *filter.version))
      continue;
    doomed.push_back(std::move(r));
  }
  if (doomed.empty())
    return fail(fmt::format("rm: no package {}{}{}{}{}{}", filter.name, filter.version ? "=" : "",
                            filter.version.value_or(""), filter.dist ? " in " : "",
                            filter.dist.value_or(""), filter.arch ? " for " + *filter.arch : ""));
  OPSKIT_TRY(remove_records(ctx, doomed));
  return doomed;
}

Result<std::vector<PackageRecord>> prune(const Context& ctx, std::size_t keep,
                                         const std::optional<std::string>& dist) {
  OPSKIT_TRY_ASSIGN(auto lock, lock_repository(ctx));
  OPSKIT_TRY_ASSIGN(auto records, ctx.state.packages());
  std::map<std::tuple<PackageFormat, std::string, std::string, std::string>,
           std::vector<PackageRecord>>
      groups;
  for (auto& r : records)
    if (!dist || r.dist == *dist)
      groups[{r.format, r.dist, r.name, r.arch}].push_back(std::move(r));
  std::vector<PackageRecord> doomed;
  for (auto& [key, versions] : groups) {
    std::sort(versions.begin(), versions.end(), [](const PackageRecord& a, const PackageRecord& b) {
      int c = a.format == PackageFormat::deb ? compare_deb_versions(a.version, b.version)
                                             : compare_rpm_versions(a.version, b.version);
      return c > 0; // newest first
    });
    for (std::size_t i = keep; i < versions.size(); ++i)
      doomed.push_back(std::move(versions[i]));
  }
  if (!doomed.empty())
    OPSKIT_TRY(remove_records(ctx, doomed));
  return doomed;
}

} // namespace opskit::repo::ops
