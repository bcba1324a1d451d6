// SPDX-License-Identifier: MIT
#include "cli.hpp"
#include "cli_main.hpp"

int main(int argc, char** argv) {
  CLI::App app{"", "syscount"};
  opskit::cmd::syscount::Options options;
  opskit::cmd::syscount::define_cli(app, options);
  argc = opskit::cmd::syscount::take_command(argc, argv, options);
  return opskit::cmd::run_main("syscount", app, argc, argv,
                               [&] { return opskit::cmd::syscount::run(options); });
}
