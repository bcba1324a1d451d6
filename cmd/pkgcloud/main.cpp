// SPDX-License-Identifier: MIT
#include "cli.hpp"
#include "cli_main.hpp"

int main(int argc, char** argv) {
  CLI::App app{"", "pkgcloud"};
  opskit::cmd::pkgcloud::Options options;
  opskit::cmd::pkgcloud::define_cli(app, options);
  return opskit::cmd::run_main("pkgcloud", app, argc, argv,
                               [&] { return opskit::cmd::pkgcloud::run(options); });
}
