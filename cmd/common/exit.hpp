// SPDX-License-Identifier: MIT
#pragma once

// What every tool's code shares without its command line: exit statuses, and errors printed as
// "<tool>: error: <message>".

#include <cstdio>
#include <string_view>

#include <fmt/format.h>

#include "opskit/text.hpp"

namespace opskit::cmd {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_failure = 1;
inline constexpr int k_exit_usage = 2;

// One line, whatever the message quotes: a newline in a path or a value shows as \n.
inline void print_error(std::string_view tool, std::string_view message) {
  fmt::print(stderr, "{}: error: {}\n", tool, printable(message));
}

} // namespace opskit::cmd
