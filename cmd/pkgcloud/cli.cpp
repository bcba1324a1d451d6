// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include "opskit/version.hpp"

namespace opskit::cmd::pkgcloud {

void define_cli(CLI::App& app, Options& /*options*/) {
  app.description("Keep signed apt and dnf package repositories: push .deb and .rpm files, "
                  "build and sign the indexes, publish them.");
  app.set_version_flag("--version", std::string("pkgcloud ") + k_version);
}

} // namespace opskit::cmd::pkgcloud
