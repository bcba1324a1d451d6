// SPDX-License-Identifier: MIT
#pragma once

// A machine's architecture as Debian names it (amd64, arm64) and as rpm does (x86_64,
// aarch64), for init --arch, which takes either. Not installed.

#include <string>
#include <string_view>

#include "opskit/error.hpp"

namespace opskit::repo::detail {

struct Architecture {
  std::string deb, rpm;
};

// `name` in either naming; an error names it and the architectures known.
Result<Architecture> architecture(std::string_view name);

} // namespace opskit::repo::detail
