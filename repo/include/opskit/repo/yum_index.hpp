// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/apt_index.hpp"
#include "opskit/repo/rpm.hpp"

namespace opskit::repo {

// One package of a dnf repository: its headers, where it sits below the repository directory
// ("Packages/x.rpm"), its size and SHA-256 (the pkgid).
struct YumPackage {
  RpmInfo rpm;
  std::string location;
  std::uint64_t size = 0;
  std::string sha256;
};

// A dnf repository's metadata: `files` are repodata/<sha256>-{primary,filelists,other}.xml.gz
// (paths relative to the repository directory), `repomd` is repodata/repomd.xml's text.
struct YumIndex {
  std::vector<IndexFile> files;
  std::string repomd;
};

// One <data> entry of repomd.xml.
struct RepomdEntry {
  std::string type, location, checksum;
  std::uint64_t size = 0;
};

// The <data> entries of a repomd.xml; an error when it is not well-formed XML.
Result<std::vector<RepomdEntry>> parse_repomd(std::string_view text);

// Where primary.xml says each package is (relative to the repository directory), and its size.
struct YumLocation {
  std::string href;
  std::uint64_t size = 0;
};
Result<std::vector<YumLocation>> parse_primary_locations(std::string_view text);

// A package's <package> elements of primary.xml, filelists.xml and other.xml, escaped.
struct YumFragments {
  std::string primary, filelists, other;
};
Result<YumFragments> yum_fragments(const YumPackage& package);

// A package as the index writer sorts and pastes it: name, "epoch:version-release", arch, and
// its fragments, viewed: they must outlive the build_yum_repo call.
struct YumFragmentViews {
  std::string_view primary, filelists, other;
};
struct YumEntry {
  std::string name, evr, arch;
  YumFragmentViews xml;
};

// The compressed primary, filelists and other files a repository had before a change (any may
// be empty), whose unchanged parts a rewrite copies instead of compressing them again.
struct YumPrevious {
  std::string primary, filelists, other;
};

// Builds the metadata, deterministic for equal input (packages sorted by name, rpm version
// order and arch; `date` as every timestamp). Equal input gives equal bytes with or without
// `previous`; it only saves work.
Result<YumIndex> build_yum_repo(std::vector<YumEntry> entries, std::time_t date,
                                const YumPrevious& previous = {});
Result<YumIndex> build_yum_repo(std::vector<YumPackage> packages, std::time_t date,
                                const YumPrevious& previous = {});

} // namespace opskit::repo
