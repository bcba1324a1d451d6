// SPDX-License-Identifier: MIT
#pragma once

// Which package format a file's bytes are in, told by content, as dpkg and rpm tell them: an ar
// archive's magic for a deb, the rpm lead's for an rpm. Not installed.

#include <optional>
#include <string_view>

#include "opskit/repo/format/record.hpp"

namespace opskit::repo {

// The format of `bytes`, or nothing when they are neither a deb nor an rpm.
std::optional<PackageFormat> detect_format(std::string_view bytes) noexcept;

} // namespace opskit::repo
