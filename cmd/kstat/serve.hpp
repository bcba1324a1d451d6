// SPDX-License-Identifier: MIT
#pragma once

#include "cli.hpp"

namespace opskit::cmd::kstat {

// `kstat serve`: answers /metrics until SIGTERM or SIGINT, then returns 0. Returns 1 with one
// error line when the names do not resolve or the address cannot be listened on.
int run_serve(const Options& options);

} // namespace opskit::cmd::kstat
