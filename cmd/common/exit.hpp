// SPDX-License-Identifier: MIT
#pragma once

// What every tool's code shares without its command line: exit statuses, and errors printed as
// "<tool>: error: <message>".

#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "opskit/text.hpp"

namespace opskit::cmd {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_failure = 1;
inline constexpr int k_exit_usage = 2;

// Writes to the standard error, where a message that cannot be written (stderr closed, or a
// full disk behind it) is lost, not thrown: the command's own work and status go on.
template <class... Args>
void print_stderr(fmt::format_string<Args...> format, Args&&... args) {
  std::string text = fmt::format(format, std::forward<Args>(args)...);
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
}

// One line, whatever the message quotes: a newline in a path or a value shows as \n.
inline void print_error(std::string_view tool, std::string_view message) {
  print_stderr("{}: error: {}\n", tool, printable(message));
}

} // namespace opskit::cmd
