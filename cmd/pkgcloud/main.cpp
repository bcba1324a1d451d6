// SPDX-License-Identifier: MIT
#include "cli.hpp"

int main(int argc, char** argv) {
  return opskit::cmd::pkgcloud::parse_and_run(argc, argv);
}
