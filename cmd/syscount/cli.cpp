// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include "opskit/version.hpp"

namespace opskit::cmd::syscount {

void define_cli(CLI::App& app, Options& /*options*/) {
  app.description("Run a command and count the system calls it makes, above all the "
                  "stat family, by path and by result.");
  app.set_version_flag("--version", std::string("syscount ") + k_version);
}

} // namespace opskit::cmd::syscount
