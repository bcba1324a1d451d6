// SPDX-License-Identifier: MIT
#pragma once

#include <CLI/CLI.hpp>

namespace opskit::cmd::pkgcloud {

// Defines pkgcloud's command line on `app`.
void define_cli(CLI::App& app);

} // namespace opskit::cmd::pkgcloud
