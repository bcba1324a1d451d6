// SPDX-License-Identifier: MIT
#include "ops/write.hpp"

#include <utility>

#include "layout/paths.hpp"
#include "opskit/atomic_file.hpp"

namespace opskit::repo::ops {

using detail::join_path;

Result<void> write_public_key(const Context& ctx, Signer& signer) {
  OPSKIT_TRY_ASSIGN(auto armored, signer.keyring.export_key(signer.fingerprint, Armor::yes));
  OPSKIT_TRY_ASSIGN(auto binary, signer.keyring.export_key(signer.fingerprint, Armor::no));
  StagedFiles files;
  for (auto [name, data] : {std::pair{"gpg.key", &armored}, std::pair{"gpg.gpg", &binary}})
    OPSKIT_TRY(files.stage(join_path(ctx.publication, name), *data));
  return files.commit();
}

void Touched::add(const PackageRecord& record) {
  if (record.format == PackageFormat::deb)
    suites.insert(*split_dist(record.dist));
  else
    rpm_dists.insert(record.dist);
}

Result<void> rewrite(const Context& ctx, const Touched& touched) {
  if (touched.suites.empty() && touched.rpm_dists.empty())
    return {};
  OPSKIT_TRY_ASSIGN(auto signer, open_signer(ctx, SignRequest::if_key));
  if (!touched.suites.empty()) {
    OPSKIT_TRY_ASSIGN(auto records, ctx.state.packages(PackageFormat::deb));
    OPSKIT_TRY(
        write_deb_suites(ctx, records, {touched.suites.begin(), touched.suites.end()}, signer));
  }
  if (!touched.rpm_dists.empty())
    OPSKIT_TRY(write_rpm_dists(ctx, touched.rpm_dists, signer, Reuse::previous));
  return {};
}

} // namespace opskit::repo::ops
