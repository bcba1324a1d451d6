// SPDX-License-Identifier: MIT
#pragma once

#include "cli.hpp"
#include "opskit/probes/counters.hpp"

namespace opskit::cmd::kstat {

// kstat watch: every interval, the rate of each counter and the value of each gauge named in
// `options`, as columns, lines or JSON; the names resolved again when entries come or go.
// Returns kstat's exit status.
int run_watch(const counters::Namespace& ns, const Options& options);

} // namespace opskit::cmd::kstat
