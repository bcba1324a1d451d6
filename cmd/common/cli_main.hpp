// SPDX-License-Identifier: MIT
#pragma once

// What every tool's main shares: parse with CLI11, map usage errors to exit 2, print
// "<tool>: error: <message>" for failures, catch what should never be thrown, and fail when
// the standard output did not take what was written to it. Included by each tool's cli.cpp
// alone: CLI11 is header-only, and every file that includes it compiles it.

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "exit.hpp"

namespace opskit::cmd {

// What `status` becomes once the standard output is flushed: a failure, told in one line,
// when what was written to it did not all get there (a full disk, a closed descriptor).
inline int flushed(std::string_view tool, int status) {
  std::cout.flush();
  int err = std::fflush(stdout) != 0 ? errno : 0;
  if (err == 0 && !std::ferror(stdout) && std::cout.good())
    return status;
  if (err == 0 && ::fcntl(STDOUT_FILENO, F_GETFD) < 0) // an earlier write's errno is gone
    err = EBADF;
  print_error(tool, fmt::format("write to standard output: {}",
                                err != 0 ? std::strerror(err) : "not all of it was written"));
  return status == k_exit_ok ? k_exit_failure : status;
}

// The first word of `argv` that is neither an option, nor the value of one, nor one of `app`'s
// commands ("reed" of "kstat reed vm"); empty when there is none.
inline std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view word = argv[i];
    if (word == "--")
      return {};
    if (word.starts_with('-')) {
      const CLI::Option* option = app.get_option_no_throw(std::string(word));
      if (option && word.find('=') == std::string_view::npos &&
          option->get_items_expected_min() > 0)
        ++i; // its value
      continue;
    }
    auto commands = app.get_subcommands([&](const CLI::App* c) { return c->check_name(argv[i]); });
    return commands.empty() ? std::string(word) : std::string();
  }
  return {};
}

// A check of an option's value: a whole number from `min` to `max`, in decimal. "-1" (which
// CLI11 would take as 2^64 - 1), "010", "x" and a number past `max` are usage errors naming
// the value:
// "--top: '-1' is not a number of entries (0 or more)".
inline CLI::Validator whole_number(std::string what, std::uint64_t min,
                                   std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [=](std::string& text) {
        std::uint64_t value = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        bool octal = text.size() > 1 && text[0] == '0'; // which CLI11 would read "010" as
        if (ec == std::errc() && end == text.data() + text.size() && !octal && value >= min &&
            value <= max)
          return std::string();
        std::string range = max == std::numeric_limits<std::uint64_t>::max()
                                ? fmt::format("{} or more", min)
                                : fmt::format("{} to {}", min, max);
        return fmt::format("'{}' is not {} ({})", text, what, range);
      },
      "");
}

// The help to point a usage error to: the subcommand's, where one was given.
inline std::string help_hint(std::string_view tool, const CLI::App& app) {
  auto given = app.get_subcommands();
  return given.empty() ? fmt::format("see '{} --help'", tool)
                       : fmt::format("see '{} {} --help'", tool, given.front()->get_name());
}

// Parses argv into `app` and, when that succeeds, returns run(). Help and version exit 0.
template <class Run>
int parse_and_call(std::string_view tool, CLI::App& app, int argc, char** argv, Run run) {
  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
      return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
      return app.exit(e);
    } catch (const CLI::ParseError& e) {
      if (std::string word = unknown_command(app, argc, argv); !word.empty())
        print_error(tool, fmt::format("unknown command '{}' (see '{} --help')", word, tool));
      else
        print_error(tool, fmt::format("{} ({})", e.what(), help_hint(tool, app)));
      return k_exit_usage;
    }
    return run();
  } catch (const std::exception& e) {
    print_error(tool, fmt::format("internal error: {}", e.what()));
    return k_exit_failure;
  }
}

// parse_and_call(), its status once the standard output has all been written.
template <class Run>
int run_main(std::string_view tool, CLI::App& app, int argc, char** argv, Run run) {
  return flushed(tool, parse_and_call(tool, app, argc, argv, run));
}

} // namespace opskit::cmd
