// SPDX-License-Identifier: MIT
#pragma once

// The repository's operations, one a file (ops/<name>.cpp), each over an open repository's
// Context; Repository (repository.hpp) is the facade that holds what they share. Not installed.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ops/context.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/repository.hpp"

namespace opskit::repo::ops {

// init: checks the dists, makes the directories, the key (generated or found) and the database
// with `config` saved; fails when `root` holds a repository already.
struct Created {
  FileLock lock; // held until the empty indexes are written
  State state;
  RepositoryConfig config;
};
Result<Created> create(const std::string& root, const InitOptions& options, const Environment& env);
// Writes the empty signed indexes and the public key of a repository just created.
Result<void> publish_empty(const Context& ctx, const InitOptions& options);

// push, index, rm, prune and verify, as Repository's members of the same names say.
Result<std::vector<PushedPackage>> push(const Context& ctx, const std::vector<std::string>& files,
                                        const PushOptions& options);
Result<IndexReport> index(const Context& ctx, const IndexOptions& options);
Result<std::vector<PackageRecord>> remove(const Context& ctx, const RemoveFilter& filter);
Result<std::vector<PackageRecord>> prune(const Context& ctx, std::size_t keep,
                                         const std::optional<std::string>& dist);
Result<std::vector<Problem>> verify(const Context& ctx);
Result<Sources> sources(const State& state, const RepositoryConfig& config, const std::string& url);

// publish, verify_remote, save_target and saved_target, as Repository's members of the same
// names say.
Result<PublishReport> publish(const Context& ctx, const PublishOptions& options);
Result<std::vector<Problem>> verify_remote(const Context& ctx, const PublishTarget& target);
Result<void> save_target(const Context& ctx, const std::string& name, const PublishTarget& target);
Result<PublishTarget> saved_target(const Context& ctx, const std::string& name);

// Reads every package in the pool and records those that differ from `records` (every
// package in state), which it then brings up to date; returns how many it found.
Result<std::size_t> rescan_pool(const Context& ctx, std::vector<PackageRecord>& records);

} // namespace opskit::repo::ops
