// SPDX-License-Identifier: MIT
#include "opskit/error.hpp"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace opskit {

Error Error::from_errno(std::string_view op, std::string_view object, int err) {
  return Error(fmt::format("{} {}: {}", op, object, std::strerror(err)), err);
}

Error Error::from_errno(std::string_view op, std::string_view object) {
  return from_errno(op, object, errno);
}

Error Error::with_context(std::string_view context) const {
  return Error(fmt::format("{}: {}", context, message_), errno_);
}

} // namespace opskit
