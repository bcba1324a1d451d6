// SPDX-License-Identifier: MIT
#pragma once

// A repository's settings in its database's config table, and the rules for the names of
// dists and components. Not installed.

#include <string_view>

#include "ops/context.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/repository.hpp"
#include "opskit/repo/store/state.hpp"

namespace opskit::repo::ops {

// A part of a dist ("debian", "bookworm") or a component: [a-z0-9.+_-]+, not "." or "..".
bool dist_part_ok(std::string_view part);

// The settings init saved; fails on a database that cannot be read.
Result<RepositoryConfig> load_config(const State& state);
Result<void> save_config(State& state, const RepositoryConfig& config);

// Refuses a package for a dist of the other format (`input` names it in the error).
Result<void> check_dist_format(const Context& ctx, const PackageRecord& r, std::string_view input);

} // namespace opskit::repo::ops
