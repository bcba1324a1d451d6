// SPDX-License-Identifier: MIT
#pragma once

// What every operation of a repository works on (ops/*.cpp): its paths, state, settings and
// surroundings, as the Repository facade holds them. Not installed.

#include <optional>
#include <string>

#include "opskit/atomic_file.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/repository.hpp"
#include "opskit/repo/store/keyring.hpp"
#include "opskit/repo/store/state.hpp"

namespace opskit::repo::ops {

// A view of an open repository for the length of one operation.
struct Context {
  const std::string& root;
  const std::string& publication; // root/public; records' pool paths are relative to it
  State& state;
  const RepositoryConfig& config; // read once when opened: a command sees one configuration
  const Environment& env;
};

// The signing key in hand.
struct Signer {
  Keyring keyring;
  std::string fingerprint;
};

// The repository's signing key, or nothing when it has none; SignRequest::required makes that
// an error naming the repository. A gpgme context is one thread's: each thread opens its own.
Result<std::optional<Signer>> open_signer(const Context& ctx, SignRequest request);

// The lock every change to the repository holds, beside its state database; shared by the
// commands that only read it (verify). Says so when it waits for another command.
Result<FileLock> lock_repository(const Context& ctx,
                                 FileLock::Mode mode = FileLock::Mode::exclusive);

} // namespace opskit::repo::ops
