// SPDX-License-Identifier: MIT
#include "cli.hpp"

#include "opskit/version.hpp"

namespace opskit::cmd::kstat {

void define_cli(CLI::App& app, Options& /*options*/) {
  app.description("Read kernel counters by dotted name, sysctl-style.");
  app.set_version_flag("--version", std::string("kstat ") + k_version);
}

} // namespace opskit::cmd::kstat
