// SPDX-License-Identifier: MIT
// init: a new repository, its key first, so that a failure leaves nothing half-made but
// .pkgcloud/; then its settings, then empty signed indexes for the default dists.
#include <algorithm>
#include <cerrno>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "layout/architectures.hpp"
#include "layout/paths.hpp"
#include "ops/config.hpp"
#include "ops/ops.hpp"
#include "ops/write.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"

namespace opskit::repo::ops {

using detail::join_path;

namespace {

constexpr const char* k_repo_keyring = ".pkgcloud/gnupg";

// A new ed25519 key in `root`'s own keyring, or the one of `user_id` there already; returns its
// fingerprint.
Result<std::string> generate_key(const std::string& root, const std::string& user_id,
                                 const Environment& env) {
  std::string home = join_path(root, k_repo_keyring);
  OPSKIT_TRY(make_directories(home));
  ::chmod(home.c_str(), 0700);
  // gpg picks the digest from these preferences: SHA-512 first, never SHA-1.
  OPSKIT_TRY(write_file_atomic(join_path(home, "gpg.conf"),
                               "personal-digest-preferences SHA512 SHA384 SHA256\n"
                               "cert-digest-algo SHA512\n"
                               "default-preference-list SHA512 SHA384 SHA256 AES256 AES192 "
                               "AES ZLIB BZIP2 ZIP Uncompressed\n"));
  OPSKIT_TRY_ASSIGN(auto keyring, Keyring::open(home, env.passphrase));
  // The repository's own key of that user id, kept where its database was lost: used again, as
  // its clients trust it, rather than a new one made.
  auto kept = keyring.find_secret_key("=" + user_id); // that user id exactly
  if (kept || kept.error().errno_value() != ENOENT)
    return kept; // or why the key there cannot be used: a new key would lose the clients' trust
  return keyring.generate_key(user_id);
}

Result<RepositoryConfig> config_of(const InitOptions& options) {
  RepositoryConfig config;
  config.architectures.clear();
  config.rpm_architectures.clear();
  for (const auto& name : options.architectures) {
    OPSKIT_TRY_ASSIGN(auto arch, detail::architecture(name));
    if (std::find(config.architectures.begin(), config.architectures.end(), arch.deb) ==
        config.architectures.end()) {
      config.architectures.push_back(std::move(arch.deb));
      config.rpm_architectures.push_back(std::move(arch.rpm));
    }
  }
  if (config.architectures.empty())
    return fail("--arch: no architecture");
  // Each is a field of every Release file and the name of the dnf repository: one line, or it
  // would write fields of its own.
  for (auto [option, text] : {std::pair{"--origin", &options.origin}, {"--label", &options.label}})
    if (text->empty() || std::any_of(text->begin(), text->end(),
                                     [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
      return fail(fmt::format("{} '{}': not one line of text", option, printable(*text)));
  config.origin = options.origin;
  config.label = options.label;
  config.deb_dist = options.deb_dist;
  config.rpm_dist = options.rpm_dist;
  config.component = options.component;
  config.valid_for_days = options.valid_for_days;
  return config;
}

} // namespace

Result<Created> create(const std::string& root, const InitOptions& options,
                       const Environment& env) {
  for (const auto& dist : {options.deb_dist, options.rpm_dist})
    OPSKIT_TRY(split_dist(dist));
  if (options.generate_key && trim(*options.generate_key).empty())
    return fail("init: a key's user id cannot be blank");
  OPSKIT_TRY_ASSIGN(RepositoryConfig config, config_of(options));
  std::string state = detail::state_dir(root);
  auto made_already = [&]() -> Result<void> {
    if (::access(join_path(state, "state.db").c_str(), F_OK) == 0)
      return fail(fmt::format("init {}: already a repository", root));
    return {};
  };
  OPSKIT_TRY(made_already());
  for (const auto& dir : {state, detail::publication_dir(root)})
    OPSKIT_TRY(make_directories(dir));
  OPSKIT_TRY_ASSIGN(auto lock, FileLock::acquire(detail::lock_file(root)));
  OPSKIT_TRY(made_already()); // by an init that held the lock first
  if (options.generate_key) {
    config.keyring = k_repo_keyring;
    OPSKIT_TRY_ASSIGN(config.key, generate_key(root, *options.generate_key, env));
  } else if (options.key) {
    OPSKIT_TRY_ASSIGN(auto keyring, Keyring::open("", env.passphrase));
    OPSKIT_TRY_ASSIGN(config.key, keyring.find_secret_key(*options.key));
  }
  // Made whole beside its name and renamed to it: a killed init leaves no database without
  // settings, which init would take for a repository and push for one without a key.
  std::string path = join_path(state, "state.db"), made = path + ".new";
  State::remove(made);
  {
    OPSKIT_TRY_ASSIGN(auto db, State::open(made, State::Create::yes));
    OPSKIT_TRY_ASSIGN(auto txn, db.begin());
    OPSKIT_TRY(save_config(db, config));
    OPSKIT_TRY(txn.commit());
  } // closed: its log is checkpointed into it and removed
  if (::rename(made.c_str(), path.c_str()) != 0)
    return fail(Error::from_errno("rename", made));
  OPSKIT_TRY_ASSIGN(auto db, State::open(path, State::Create::no));
  return Created{std::move(lock), std::move(db), std::move(config)};
}

Result<void> publish_empty(const Context& ctx, const InitOptions& options) {
  OPSKIT_TRY_ASSIGN(auto signer, open_signer(ctx, SignRequest::if_key));
  if (signer)
    OPSKIT_TRY(write_public_key(ctx, *signer, KeyFiles::always));
  OPSKIT_TRY_ASSIGN(auto suite, split_dist(options.deb_dist));
  OPSKIT_TRY(write_deb_suites(ctx, {}, {suite}, signer));
  OPSKIT_TRY(write_rpm_dists(ctx, {options.rpm_dist}, signer));
  return {};
}

} // namespace opskit::repo::ops
