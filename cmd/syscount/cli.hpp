// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace opskit::cmd::syscount {

// Defines syscount's command line on `app`.
void define_cli(CLI::App& app);

} // namespace opskit::cmd::syscount
