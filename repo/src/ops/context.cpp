// SPDX-License-Identifier: MIT
#include "ops/context.hpp"

#include <fmt/format.h>

#include "layout/paths.hpp"

namespace opskit::repo::ops {

Result<std::optional<Signer>> open_signer(const Context& ctx, SignRequest request) {
  const std::string& fingerprint = ctx.config.key;
  const std::string& home = ctx.config.keyring;
  if (fingerprint.empty()) {
    if (request == SignRequest::required)
      return fail(
          fmt::format("{}: no signing key configured (init --generate-key or --key)", ctx.root));
    return std::optional<Signer>();
  }
  OPSKIT_TRY_ASSIGN(
      auto keyring,
      Keyring::open(home.empty() ? "" : detail::join_path(ctx.root, home), ctx.env.passphrase));
  return std::optional<Signer>(Signer{std::move(keyring), fingerprint});
}

Result<FileLock> lock_repository(const Context& ctx, FileLock::Mode mode) {
  return FileLock::acquire(detail::lock_file(ctx.root), mode, [&] {
    if (ctx.env.notice)
      ctx.env.notice(fmt::format("waiting for another pkgcloud command on {} to finish", ctx.root));
  });
}

} // namespace opskit::repo::ops
