// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace opskit::cmd::kstat {

// What the command line asked for.
struct Options {};

// Defines kstat's command line on `app`, storing what it parses into `options`.
void define_cli(CLI::App& app, Options& options);

} // namespace opskit::cmd::kstat
