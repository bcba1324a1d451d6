// SPDX-License-Identifier: MIT
// kstat-serve: `kstat serve`, which kstat execs (see serve_exec.hpp) as
// `kstat-serve [GLOBAL OPTIONS] serve [OPTIONS]`. Run by hand as `kstat-serve [OPTIONS]`, it is
// the same: "serve" goes in after the global options (--proc-root, --sys-root, --rootfs).
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "serve.hpp"

namespace {

// How many arguments the global option at `arg` takes up with its value, or 0 for another.
int global_option(std::string_view arg) {
  for (std::string_view option : {"--proc-root", "--sys-root", "--rootfs"}) {
    if (arg == option)
      return 2;
    if (arg.starts_with(option) && arg.substr(option.size()).starts_with('='))
      return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  using namespace opskit::cmd::kstat;
  std::vector<char*> args(argv, argv + argc);
  std::size_t at = 1;
  while (at < args.size() && global_option(args[at]) > 0)
    at += static_cast<std::size_t>(global_option(args[at]));
  static char serve[] = "serve";
  if (at <= args.size() && (at == args.size() || std::string_view(args[at]) != serve))
    args.insert(args.begin() + static_cast<std::ptrdiff_t>(at), serve);
  return parse_and_run(static_cast<int>(args.size()), args.data(), "serve", run_serve);
}
