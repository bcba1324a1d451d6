// SPDX-License-Identifier: MIT
#pragma once

#include <expected>
#include <string>
#include <string_view>

namespace opskit {

// An expected failure, worded "what object: why" ("open /srv/r/Release: Permission denied").
// errno_value() keeps the errno it was built from (0 when none), so callers can branch on it.
class Error {
public:
  explicit Error(std::string message, int errno_value = 0)
      : message_(std::move(message)), errno_(errno_value) {}

  // "<op> <object>: <strerror(err)>", e.g. from_errno("open", "/proc/vmstat").
  static Error from_errno(std::string_view op, std::string_view object, int err);
  // Same, with the current errno.
  static Error from_errno(std::string_view op, std::string_view object);

  const std::string& message() const noexcept { return message_; }
  int errno_value() const noexcept { return errno_; }

  // A copy with "<context>: " in front of the message.
  Error with_context(std::string_view context) const;

private:
  std::string message_;
  int errno_;
};

template <class T>
using Result = std::expected<T, Error>;

// Shorthand for the error side of a Result: `return fail("bad value");`.
inline std::unexpected<Error> fail(std::string message, int errno_value = 0) {
  return std::unexpected(Error(std::move(message), errno_value));
}
inline std::unexpected<Error> fail(Error error) {
  return std::unexpected(std::move(error));
}

} // namespace opskit
