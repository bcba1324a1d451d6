// SPDX-License-Identifier: MIT
#include "serve_exec.hpp"

#include <climits>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "exit.hpp"
#include "opskit/error.hpp"

namespace opskit::cmd::kstat {

int exec_serve(int, char** argv) {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    print_error("kstat", Error::from_errno("readlink", "/proc/self/exe").message());
    return k_exit_failure;
  }
  std::string path(self, static_cast<std::size_t>(n));
  path = path.substr(0, path.rfind('/') + 1) + "kstat-serve";
  ::execv(path.c_str(), argv);
  print_error("kstat", fmt::format("serve needs kstat-serve beside kstat: {}",
                                   Error::from_errno("exec", path).message()));
  return k_exit_failure;
}

} // namespace opskit::cmd::kstat
