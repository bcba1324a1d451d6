// SPDX-License-Identifier: MIT
#pragma once

// What every tool's main shares: parse with CLI11, map usage errors to exit 2, print
// "<tool>: error: <message>" for failures, and catch what should never be thrown. Included by
// each tool's cli.cpp alone: CLI11 is header-only, and every file that includes it compiles it.

#include <exception>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "exit.hpp"

namespace opskit::cmd {

// Parses argv into `app` and, when that succeeds, returns run(). Help and version exit 0.
template <class Run>
int run_main(std::string_view tool, CLI::App& app, int argc, char** argv, Run run) {
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
      print_error(tool, fmt::format("{} (see '{} --help')", e.what(), tool));
      return k_exit_usage;
    }
    return run();
  } catch (const std::exception& e) {
    print_error(tool, fmt::format("internal error: {}", e.what()));
    return k_exit_failure;
  }
}

} // namespace opskit::cmd
