// SPDX-License-Identifier: MIT
// The Repository facade: it opens a repository (or makes one) and hands each operation
// (ops/<name>.cpp) a Context of what it holds.
//
// Layout (also in pkgcloud(1); every path is made in layout/paths.hpp):
//   .pkgcloud/state.db   every package's identity, checksums and metadata (SQLite)
//   .pkgcloud/lock       flock'ed by every command that changes the repository
//   .pkgcloud/gnupg/     the signing keyring made by `init --generate-key`
//   public/              the publication, what clients read, and nothing else:
//     deb/<distro>/pool/<component>/<prefix>/<source>/<name>_<version>_<arch>.deb
//     deb/<distro>/dists/<codename>/{InRelease,Release,Release.gpg,<component>/binary-<arch>/...}
//     rpm/<distro>/<version>/<arch>/{Packages/*.rpm,repodata/...}
//     gpg.key, gpg.gpg   the public key, armored and binary (for apt's signed-by)
// Nothing private sits inside public/, so serving or uploading it can leak no secret.
// Each deb distro is an apt archive of its own (the URL a sources entry names), as Debian and
// Ubuntu are, so equal codenames of two distros cannot collide and a lost database can be
// rebuilt from the tree: the path names the distro and the Packages files name the suite.
//
// Order of work in every change: read and validate all input; take the lock and a transaction;
// record; write pool files; build every affected index and sign it in memory; stage it all to
// temporary files; rename indexes, then Release, Release.gpg and InRelease last; commit the
// transaction. A failure before the renames leaves the published indexes and the state as they
// were; a pool file written by then is new and unreferenced.
#include "opskit/repo/repository.hpp"

#include <algorithm>
#include <tuple>

#include <unistd.h>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "ops/config.hpp"
#include "ops/ops.hpp"
#include "opskit/repo/format/version.hpp"
#include "tree/migrate.hpp"

namespace opskit::repo {

using detail::join_path;
using detail::publication_dir;

Result<Repository> Repository::init(const std::string& root, const InitOptions& options,
                                    Environment env) {
  OPSKIT_TRY_ASSIGN(auto created, ops::create(root, options, env));
  Repository repo(root, std::move(created.state), std::move(created.config), std::move(env));
  if (auto published = ops::publish_empty(repo.context(), options); !published) {
    // Its first signed indexes could not be written (a key that needs its passphrase, a full
    // disk): no repository, and init may be run again.
    { State closed = std::move(repo.state_); }
    State::remove(join_path(detail::state_dir(root), "state.db"));
    return fail(published.error());
  }
  return repo;
}

Result<Repository> Repository::open(const std::string& root, Environment env) {
  std::string db = join_path(detail::state_dir(root), "state.db");
  if (::access(db.c_str(), F_OK) != 0)
    return fail(
        fmt::format("{}: not a pkgcloud repository (no {}; run 'pkgcloud init')", root, db));
  OPSKIT_TRY_ASSIGN(auto moved, detail::settle_layout(root));
  if (moved == detail::Moved::publication && env.notice)
    env.notice(fmt::format("moved the publication of {} into {}, away from its state and "
                           "signing key: serve or upload {} from now on",
                           root, publication_dir(root), publication_dir(root)));
  OPSKIT_TRY_ASSIGN(auto state, State::open(db, State::Create::no));
  OPSKIT_TRY_ASSIGN(auto config, ops::load_config(state));
  return Repository(root, std::move(state), std::move(config), std::move(env));
}

Repository::Repository(std::string root, State state, RepositoryConfig config, Environment env)
    : root_(std::move(root)), public_(publication_dir(root_)), state_(std::move(state)),
      config_(std::move(config)), env_(std::move(env)) {}

ops::Context Repository::context() {
  return {root_, public_, state_, config_, env_};
}

Result<std::vector<PushedPackage>> Repository::push(const std::vector<std::string>& files,
                                                    const PushOptions& options) {
  return ops::push(context(), files, options);
}

Result<IndexReport> Repository::index(const IndexOptions& options) {
  return ops::index(context(), options);
}

namespace {

// A --dist that is no DISTRO/RELEASE is one line, not a selection of nothing.
Result<void> check_dist(const std::optional<std::string>& dist) {
  if (dist)
    OPSKIT_TRY(split_dist(*dist));
  return {};
}

} // namespace

Result<std::vector<PackageRecord>> Repository::remove(const RemoveFilter& filter) {
  OPSKIT_TRY(check_dist(filter.dist));
  return ops::remove(context(), filter);
}

Result<std::vector<PackageRecord>> Repository::prune(std::size_t keep,
                                                     const std::optional<std::string>& dist) {
  OPSKIT_TRY(check_dist(dist));
  return ops::prune(context(), keep, dist);
}

Result<bool> Repository::holds(const std::string& dist) const {
  OPSKIT_TRY_ASSIGN(bool debs, state_.holds(PackageFormat::deb, dist));
  return debs ? Result<bool>(true) : state_.holds(PackageFormat::rpm, dist);
}

Result<std::vector<PackageRecord>> Repository::list(const std::optional<std::string>& dist) const {
  OPSKIT_TRY(check_dist(dist));
  OPSKIT_TRY_ASSIGN(auto records, state_.listing(dist));
  // A package's versions in the order of its format (1.2 before 1.10, 1.0~rc1 before 1.0),
  // not of their text.
  std::ranges::stable_sort(records, [](const PackageRecord& a, const PackageRecord& b) {
    if (std::tie(a.format, a.dist, a.name) != std::tie(b.format, b.dist, b.name))
      return std::tie(a.format, a.dist, a.name) < std::tie(b.format, b.dist, b.name);
    int by_version = a.format == PackageFormat::deb ? compare_deb_versions(a.version, b.version)
                                                    : compare_rpm_versions(a.version, b.version);
    return by_version != 0 ? by_version < 0 : a.arch < b.arch;
  });
  return records;
}

Result<std::vector<Problem>> Repository::verify() {
  return ops::verify(context());
}

Result<std::string> Repository::export_key(Armor armor) {
  OPSKIT_TRY_ASSIGN(auto signer, ops::open_signer(context(), SignRequest::required));
  return signer->keyring.export_key(signer->fingerprint, armor);
}

Result<PublishReport> Repository::publish(const PublishOptions& options) {
  return ops::publish(context(), options);
}

Result<std::vector<Problem>> Repository::verify_remote(const PublishTarget& target) {
  return ops::verify_remote(context(), target);
}

Result<void> Repository::save_target(const std::string& name, const PublishTarget& target) {
  return ops::save_target(context(), name, target);
}

Result<PublishTarget> Repository::saved_target(const std::string& name) {
  return ops::saved_target(context(), name);
}

Result<Sources> Repository::sources(const std::string& url) const {
  return ops::sources(state_, config_, url);
}

} // namespace opskit::repo
