// SPDX-License-Identifier: MIT
// kstat-serve: `kstat serve`, which kstat execs (see serve_exec.hpp).
#include "cli.hpp"
#include "serve.hpp"

int main(int argc, char** argv) {
  using namespace opskit::cmd::kstat;
  return parse_and_run(argc, argv, "serve", run_serve);
}
