// SPDX-License-Identifier: MIT
// index: every apt suite and dnf repository written anew from state (after a rescan of the
// pool with --rebuild), and the public key.
#include <filesystem>
#include <future>
#include <set>

#include "ops/ops.hpp"
#include "ops/write.hpp"
#include "tree/sweep.hpp"

namespace opskit::repo::ops {

namespace {

namespace fs = std::filesystem;

// The apt suites (distro, codename) and dnf dists ("el/8") published now, with or without
// packages: one emptied by rm is signed again like the others, or its Release would expire.
void add_published(const std::string& publication,
                   std::set<std::pair<std::string, std::string>>& suites,
                   std::set<std::string>& rpm_dists) {
  std::error_code ec;
  for (const auto& distro : fs::directory_iterator(publication + "/deb", ec))
    for (const auto& suite : fs::directory_iterator(distro.path() / "dists", ec))
      if (auto dist = distro.path().filename().string() + "/" + suite.path().filename().string();
          !suite.path().filename().string().starts_with('.') && // not a suite being built
          fs::exists(suite.path() / "Release", ec) && split_dist(dist))
        suites.insert(*split_dist(dist));
  for (const auto& distro : fs::directory_iterator(publication + "/rpm", ec))
    for (const auto& release : fs::directory_iterator(distro.path(), ec))
      for (const auto& arch : fs::directory_iterator(release.path(), ec))
        if (auto dist =
                distro.path().filename().string() + "/" + release.path().filename().string();
            fs::exists(arch.path() / "repodata/repomd.xml", ec) && split_dist(dist)) {
          rpm_dists.insert(dist);
          break;
        }
}

} // namespace

Result<IndexReport> index(const Context& ctx, const IndexOptions& options) {
  OPSKIT_TRY_ASSIGN(auto lock, lock_repository(ctx));
  OPSKIT_TRY_ASSIGN(auto signer, open_signer(ctx, options.sign));
  IndexReport report;
  if (!options.rebuild) // a rebuild's rescan sweeps the publication as it walks it
    tree::remove_stale_temporaries(ctx.publication); // all a killed run left, pool included
  OPSKIT_TRY_ASSIGN(auto txn, ctx.state.begin());
  OPSKIT_TRY_ASSIGN(auto records, ctx.state.packages());
  if (options.rebuild) {
    OPSKIT_TRY_ASSIGN(auto rescanned, rescan_pool(ctx, records));
    report.rescanned = rescanned;
  }
  std::set<std::pair<std::string, std::string>> suites{*split_dist(ctx.config.deb_dist)};
  for (const auto& r : records)
    if (r.format == PackageFormat::deb)
      suites.insert(*split_dist(r.dist));
  std::set<std::string> rpm_dists{ctx.config.rpm_dist};
  for (const auto& r : records)
    if (r.format == PackageFormat::rpm)
      rpm_dists.insert(r.dist);
  add_published(ctx.publication, suites, rpm_dists);
  OPSKIT_TRY(check_room(ctx, {suites, rpm_dists, report.rescanned}));
  if (signer)
    OPSKIT_TRY(write_public_key(ctx, *signer, KeyFiles::always));
  // The apt suites and the dnf repositories have no file in common: they are written side by
  // side, the dnf ones with a signing context of their own (a gpgme context is one thread's).
  OPSKIT_TRY_ASSIGN(auto rpm_signer, open_signer(ctx, options.sign));
  auto rpm_job =
      std::async(std::launch::async, [&] { return write_rpm_dists(ctx, rpm_dists, rpm_signer); });
  auto written = write_deb_suites(ctx, std::move(records), {suites.begin(), suites.end()}, signer);
  auto rpm_written = rpm_job.get();
  if (!written)
    return fail(written.error());
  if (!rpm_written)
    return fail(rpm_written.error());
  OPSKIT_TRY(txn.commit());
  report.indexes = std::move(*written);
  report.indexes.insert(report.indexes.end(), rpm_written->begin(), rpm_written->end());
  report.is_signed = signer.has_value();
  return report;
}

} // namespace opskit::repo::ops
