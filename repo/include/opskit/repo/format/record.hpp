// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opskit::repo {

enum class PackageFormat { deb, rpm };

// One package as the repository knows it. `file` is relative to the publication
// (layout/paths.hpp).
// `metadata` is the deb control paragraph as written, or the rpm's parsed header as JSON.
struct PackageRecord {
  std::int64_t id = 0;
  PackageFormat format = PackageFormat::deb;
  std::string dist;      // "debian/bookworm", "el/9"
  std::string component; // "main" for deb; empty for rpm
  std::string name, version, arch;
  std::string file;
  std::uint64_t size = 0;
  std::string md5, sha1, sha256, sha512;
  std::string metadata;
  // rpm only: the package's <package> elements of primary, filelists and other.xml, written
  // once at push so that indexing pastes them (see index/yum/build.hpp); empty for deb.
  std::string xml_primary, xml_filelists, xml_other;

  bool operator==(const PackageRecord&) const = default;
};

std::string_view format_name(PackageFormat format) noexcept;

} // namespace opskit::repo
