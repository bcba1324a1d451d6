// SPDX-License-Identifier: MIT
#pragma once

// An rpm's dnf index fragments, as push and index --rebuild record them and a rewrite writes
// them where a record lacks them. Not installed.

#include <cstdint>
#include <string>
#include <string_view>

#include "opskit/error.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"
#include "opskit/repo/index/yum/fragments.hpp"

namespace opskit::repo::ops {

// An rpm's index fragments, for the pool file `file` (only its name counts: the package sits
// at "Packages/<name>" in each dnf repository) of `size` bytes and SHA-256 `sha256`.
Result<YumFragments> rpm_fragments(RpmInfo rpm, std::string_view file, std::uint64_t size,
                                   std::string sha256);

// Writes an rpm record's index fragments from its metadata, size and SHA-256.
Result<void> add_yum_fragments(PackageRecord& r, RpmInfo rpm);

} // namespace opskit::repo::ops
