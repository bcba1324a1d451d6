// SPDX-License-Identifier: MIT
#include "cli.hpp"
#include "commands.hpp"
#include "serve_exec.hpp"

int main(int argc, char** argv) {
  using namespace opskit::cmd::kstat;
  std::string_view subcommand = requested_subcommand(argc, argv);
  if (subcommand == "serve")
    return exec_serve(argc, argv);
  return parse_and_run(argc, argv, subcommand, run);
}
