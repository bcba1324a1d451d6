// SPDX-License-Identifier: MIT
// kstat-serve: `kstat serve`, which kstat execs (see serve_exec.hpp).
#include "cli.hpp"
#include "cli_main.hpp"
#include "serve.hpp"

int main(int argc, char** argv) {
  CLI::App app{"", "kstat"};
  opskit::cmd::kstat::Options options;
  opskit::cmd::kstat::define_cli(app, options, "serve");
  return opskit::cmd::run_main("kstat", app, argc, argv,
                               [&] { return opskit::cmd::kstat::run_serve(options); });
}
