// SPDX-License-Identifier: MIT
#pragma once

// One package file read into the record the repository keeps of it: the part both push and
// index --rebuild build, whatever the format. Not installed.

#include <optional>
#include <string_view>

#include "opskit/error.hpp"
#include "opskit/repo/format/deb/deb.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"

namespace opskit::repo {

// A package read: its record with format, name, version, arch, metadata, size and the digests
// its format needs but SHA-256 (which the caller computes two files at a time), and what was
// parsed (one of deb and rpm). The dist, component, file and SHA-256 are the caller's to set.
struct ReadPackage {
  PackageRecord record;
  std::optional<DebInfo> deb;
  std::optional<RpmInfo> rpm;
};

// Reads `bytes`, a package of `format`; errors name `path`.
Result<ReadPackage> read_package(std::string_view bytes, std::string_view path,
                                 PackageFormat format);

} // namespace opskit::repo
