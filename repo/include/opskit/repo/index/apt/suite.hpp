// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/index/apt/release.hpp"
#include "opskit/repo/index/index_file.hpp"

namespace opskit::repo {

// One stanza of a Packages file, and the identity it is sorted by.
struct AptStanza {
  std::string_view name, version, arch;
  std::string_view text; // its lines, each ending in "\n"; no blank line
};

// What one apt suite (dists/<codename>) is made of.
struct AptSuiteInput {
  std::string codename;
  std::string origin, label;
  std::vector<std::string> architectures; // at least one; "all" packages go into each
  std::vector<std::string> components;    // components to list even when empty
  std::vector<PackageRecord> packages;    // deb records of this suite, any order
  // Instead of `packages`, when not empty: the stanzas of each Packages file of the suite, by
  // its directory ("main/binary-amd64"), in order; the suite's components and architectures
  // are those these directories name, which must hold those named above.
  std::map<std::string, std::vector<AptStanza>> stanzas;
  std::time_t date = 0;
  std::optional<std::time_t> valid_until;
  // Reads an index of the suite as last published, by its path in the suite
  // ("main/binary-amd64/Packages.gz"), or gives nothing: the runs of stanzas that did not
  // change are copied from it instead of compressed again. May be empty.
  std::function<std::optional<std::string>(const std::string& path)> previous;
};

// The suite's indexes and its Release file. `files` hold every Packages, Packages.gz and
// Packages.xz; `by_hash` the by-hash/SHA256/<hash> copies of each, naming the file whose
// bytes they are: the copies are published first, then the indexes. `release` is the Release
// text.
struct AptSuiteIndex {
  struct Copy {
    std::string path;
    std::size_t of; // into files
  };
  std::vector<IndexFile> files;
  std::vector<Copy> by_hash;
  std::string release;
};

// Appends the Packages stanza of one record to `out`: its control fields in their order, then
// Filename (below the distro directory), Size, MD5sum, SHA1 (when recorded), SHA256 and SHA512
// (when recorded).
void append_packages_stanza(std::string& out, const PackageRecord& record);

// Whether the stanza of a package ends a run of a Packages file (see suite.cpp).
bool apt_run_ends(std::string_view name, std::string_view version, std::string_view arch);
inline bool apt_run_ends(const PackageRecord& r) {
  return apt_run_ends(r.name, r.version, r.arch);
}

// Whether the package (name, version, arch) comes before (other_name, ...) in a Packages file:
// by name, dpkg version order and arch (and the version's text, where dpkg finds two equal).
bool apt_before(std::string_view name, std::string_view version, std::string_view arch,
                std::string_view other_name, std::string_view other_version,
                std::string_view other_arch) noexcept;

// The stanzas of a Packages text as build_apt_suite writes it, in order; nothing when one lacks
// Package, Version or Architecture.
std::optional<std::vector<AptStanza>> packages_stanzas(std::string_view text);
// The value of the field `name` (any case) of `stanza`, a line of its own; "" when it has none.
std::string_view stanza_field(const AptStanza& stanza, std::string_view name);

// Builds the suite's metadata, deterministic for equal input: packages sorted by name, version
// (dpkg order) and arch; architectures and components sorted; Packages.gz and Packages.xz made of
// one gzip member and one xz block per run of stanzas, whatever `previous` gives. Fails when the
// suite has no architecture but "all", or when compressing an index fails.
Result<AptSuiteIndex> build_apt_suite(const AptSuiteInput& input);

} // namespace opskit::repo
