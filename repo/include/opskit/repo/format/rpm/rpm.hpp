// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo {

// Limit on an rpm's signature plus main header, past which it is refused.
inline constexpr std::size_t k_rpm_header_limit = 256u << 20;

// Limit on the values of one header entry (files, dependencies, changelog entries), past
// which an rpm is refused: each value read costs memory many times its bytes in the header.
inline constexpr std::size_t k_rpm_values_limit = 500'000;

// A dependency entry: name, comparison flags ("EQ", "GE", ...; empty when unversioned), the
// version split into epoch, version and release, and whether it is needed before install.
struct RpmDependency {
  std::string name, flags, epoch, version, release;
  bool pre = false;
  bool operator==(const RpmDependency&) const = default;
};

enum class RpmFileType { file, dir, ghost };

struct RpmFile {
  std::string path;
  RpmFileType type = RpmFileType::file;
};

struct RpmChangelog {
  std::string author;
  std::uint64_t date = 0;
  std::string text;
};

// What dnf's metadata needs from a package's headers.
struct RpmInfo {
  std::string name, epoch, version, release, arch; // arch "src" for source packages
  std::string summary, description, url, license, vendor, group, packager, buildhost, sourcerpm;
  std::uint64_t build_time = 0;
  std::uint64_t installed_size = 0, archive_size = 0;
  std::uint64_t header_start = 0, header_end = 0; // byte range of the main header in the file
  std::vector<RpmDependency> provides, requirements, conflicts, obsoletes, recommends, suggests,
      supplements, enhances;
  std::vector<RpmFile> files; // sorted by path
  std::vector<RpmChangelog> changelogs;

  // "[epoch:]version-release" as dnf prints it (no epoch when it is 0 or absent).
  std::string evr() const;
};

// Reads the lead, signature header and main header of an rpm held in memory. `what` names it in
// errors. Fails on: a wrong lead or header magic, a truncated or inconsistent header (entries
// pointing outside the data or holding more values than fit in it or than k_rpm_values_limit,
// strings without their NUL), missing name/version/release/arch, or names with '/', ".." or
// control characters.
Result<RpmInfo> read_rpm(std::string_view bytes, std::string_view what);

// The file name an rpm is stored under: name-version-release.arch.rpm.
std::string rpm_file_name(const RpmInfo& rpm);

// Serialises and restores RpmInfo (JSON) for the repository's database.
std::string rpm_to_json(const RpmInfo& rpm);
Result<RpmInfo> rpm_from_json(std::string_view json);

} // namespace opskit::repo
