// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli.hpp"
#include "opskit/probes/counters.hpp"

namespace opskit::cmd::kstat {

// Exit statuses (see kstat(1)).
inline constexpr int k_exit_partial = 3; // printed what it could; some entries could not be read

// The snapshot of `names`, found by `found_by`; where some are unknown, as sysctl does, of the
// others, each unknown one told in a line and counted in `unknown`, and the names known left
// in `known` when given. None, its reason told, when no snapshot can be made.
std::optional<counters::Snapshot> known_names(const counters::Namespace& ns,
                                              std::span<const std::string> names,
                                              std::chrono::steady_clock::time_point found_by,
                                              std::size_t& unknown,
                                              std::vector<std::string>* known = nullptr);

// Runs the subcommand `options.command` and returns kstat's exit status. Prints results on
// stdout and one "kstat: error: ..." line per problem on stderr.
int run(const Options& options);

} // namespace opskit::cmd::kstat
