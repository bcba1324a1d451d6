// SPDX-License-Identifier: MIT
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

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

// Propagation of a failed Result to the caller, which returns a Result too:
//   OPSKIT_TRY(file.commit());                        // a Result<void>, or any Result
//   OPSKIT_TRY_ASSIGN(auto bytes, read_file(path));   // declares `bytes` as the value
//   OPSKIT_TRY_ASSIGN(config_, load_config(state));   // or assigns an existing one
// `expr` is evaluated once; on failure its Error is returned as it is. OPSKIT_TRY_ASSIGN is
// two statements: give it a line of its own, not an unbraced if's body.
#define OPSKIT_TRY(expr)                                                                           \
  do {                                                                                             \
    if (auto&& opskit_try_ = (expr); !opskit_try_)                                                 \
      return ::opskit::fail(std::forward<decltype(opskit_try_)>(opskit_try_).error());             \
  } while (false)

#define OPSKIT_TRY_ASSIGN(target, expr)                                                            \
  OPSKIT_TRY_ASSIGN_AT_(OPSKIT_TRY_NAME_(opskit_try_, __LINE__), target, expr)
#define OPSKIT_TRY_NAME_(a, b) OPSKIT_TRY_CAT_(a, b)
#define OPSKIT_TRY_CAT_(a, b) a##b
#define OPSKIT_TRY_ASSIGN_AT_(result, target, expr)                                                \
  auto result = (expr);                                                                            \
  if (!result)                                                                                     \
    return ::opskit::fail(std::move(result).error());                                              \
  target = std::move(*result)
