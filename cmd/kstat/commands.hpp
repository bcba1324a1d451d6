// SPDX-License-Identifier: MIT
#pragma once

#include "cli.hpp"

namespace opskit::cmd::kstat {

// Exit statuses (see kstat(1)).
inline constexpr int k_exit_partial = 3; // printed what it could; some entries could not be read

// Runs the subcommand `options.command` and returns kstat's exit status. Prints results on
// stdout and one "kstat: error: ..." line per problem on stderr.
int run(const Options& options);

} // namespace opskit::cmd::kstat
