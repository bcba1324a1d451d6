// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace opskit::cmd::kstat {

// Defines kstat's command line on `app`.
void define_cli(CLI::App& app);

} // namespace opskit::cmd::kstat
