// SPDX-License-Identifier: MIT
#include "cli.hpp"
#include "cli_main.hpp"

int main(int argc, char** argv) {
  CLI::App app{"", "kstat"};
  opskit::cmd::kstat::Options options;
  opskit::cmd::kstat::define_cli(app, options);
  return opskit::cmd::run_main("kstat", app, argc, argv, [&] {
    std::fputs(app.help().c_str(), stderr);
    return opskit::cmd::k_exit_usage;
  });
}
