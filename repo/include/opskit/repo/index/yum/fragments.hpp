// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>

#include "opskit/error.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"

namespace opskit::repo {

// One package of a dnf repository: its headers, where it sits below the repository directory
// ("Packages/x.rpm"), its size and SHA-256 (the pkgid).
struct YumPackage {
  RpmInfo rpm;
  std::string location;
  std::uint64_t size = 0;
  std::string sha256;
};

// A package's <package> elements of primary.xml, filelists.xml and other.xml, escaped.
struct YumFragments {
  std::string primary, filelists, other;
};
// Writes the three fragments of `package`; fails when libxml2 cannot write one.
Result<YumFragments> yum_fragments(const YumPackage& package);

} // namespace opskit::repo
