// SPDX-License-Identifier: MIT
#include "cli.hpp"
#include "cli_main.hpp"
#include "commands.hpp"
#include "serve_exec.hpp"

int main(int argc, char** argv) {
  std::string_view subcommand = opskit::cmd::kstat::requested_subcommand(argc, argv);
  if (subcommand == "serve")
    return opskit::cmd::kstat::exec_serve(argc, argv);
  CLI::App app{"", "kstat"};
  opskit::cmd::kstat::Options options;
  opskit::cmd::kstat::define_cli(app, options, subcommand);
  return opskit::cmd::run_main("kstat", app, argc, argv,
                               [&] { return opskit::cmd::kstat::run(options); });
}
