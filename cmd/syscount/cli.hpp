// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <sys/types.h>

#include "opskit/probes/trace/engine.hpp"
#include "opskit/probes/trace/syscalls.hpp"

namespace CLI {
class App;
}

namespace opskit::cmd::syscount {

// What the command line asked for.
struct Options {
  trace::SyscallClass cls = trace::SyscallClass::stats; // the subcommand
  std::vector<std::string> command;                     // the command after `--`
  pid_t pid = 0;                                        // -p: attach instead
  bool per_process = false;
  std::size_t top = 20; // 0: no limit
  std::size_t max_paths = 100'000;
  std::string output; // -o: report file instead of stderr
  bool json = false;
  bool no_idle_poll = false; // let idle CPUs halt while tracing
  trace::Backend backend = trace::Backend::automatic;
};

// Defines syscount's command line on `app`, storing what it parses into `options`.
void define_cli(CLI::App& app, Options& options);

// Takes the command from argv, verbatim: the words after the first `--`, or, as strace takes
// them, from the first word after the subcommand that is neither an option nor an option's
// value (`syscount stats ls -l`). Returns how many words are left before it for the parser:
// CLI11 would read a word in brackets, such as the `[ -e /x ]` of `sh -c '[ -e /x ]'`, as a
// list and split it, and take the command's options for syscount's.
int take_command(const CLI::App& app, int argc, char** argv, Options& options);

// Runs what `options` asks for and returns syscount's exit status: the traced command's.
int run(const Options& options);

// syscount's main: parses argv and runs what it asks for; a usage error is one line and exit
// status 2.
int parse_and_run(int argc, char** argv);

} // namespace opskit::cmd::syscount
