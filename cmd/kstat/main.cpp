// SPDX-License-Identifier: MIT
#include "cli.hpp"
#include "cli_main.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"", "kstat"};
  opskit::cmd::kstat::Options options;
  opskit::cmd::kstat::define_cli(app, options,
                                 opskit::cmd::kstat::requested_subcommand(argc, argv));
  return opskit::cmd::run_main("kstat", app, argc, argv,
                               [&] { return opskit::cmd::kstat::run(options); });
}
