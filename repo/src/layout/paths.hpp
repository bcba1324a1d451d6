// SPDX-License-Identifier: MIT
#pragma once

// Where a repository keeps its parts: every path, made here and parsed back here. Index
// writers, the store and the tree all name paths through it; it depends on nothing of theirs.
// Not installed.

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

namespace opskit::repo::detail {

// State, lock, keyring and the dnf index texts: private, never served or uploaded.
inline constexpr const char* k_state_dir = ".pkgcloud";
// The publication, what clients read: deb/, rpm/, gpg.key and gpg.gpg. Records name their
// pool files relative to it.
inline constexpr const char* k_publication_dir = "public";

// Whether `path` has a ".." component (which tar and so dpkg refuse to unpack).
inline bool climbs_out(std::string_view path) noexcept {
  for (std::size_t at = 0; at <= path.size();) {
    std::size_t end = std::min(path.find('/', at), path.size());
    if (path.substr(at, end - at) == "..")
      return true;
    at = end + 1;
  }
  return false;
}

// `root`/`rel`.
inline std::string join_path(const std::string& root, std::string_view rel) {
  return root + "/" + std::string(rel);
}

inline std::string state_dir(const std::string& root) {
  return root + "/" + k_state_dir;
}
// The file every command that changes the repository holds locked.
inline std::string lock_file(const std::string& root) {
  return state_dir(root) + "/lock";
}
// The pool directories a push is staging copies in (see tree::PoolJournal).
inline std::string pool_journal(const std::string& root) {
  return state_dir(root) + "/staging";
}
inline std::string publication_dir(const std::string& root) {
  return root + "/" + k_publication_dir;
}

// Paths inside the publication, each relative to it. Each deb distro is an apt archive of its
// own, deb/<distro>/, with its suites in dists/ and its packages in pool/; each rpm dist
// ("el/9") has a dnf repository per architecture, rpm/<dist>/<arch>/, and SRPMS/ for source
// packages, each with its packages in Packages/ and its metadata in repodata/.
inline constexpr std::string_view k_source_repository = "SRPMS";

// deb/<distro>: the apt archive a sources entry names.
std::string deb_archive(std::string_view distro);
// deb/<distro>/dists/<codename>
std::string deb_suite(std::string_view distro, std::string_view codename);
// deb/<distro>/<pool_path>, where pool_path is "pool/<component>/..." (deb_pool_path).
std::string deb_pool_file(std::string_view distro, std::string_view pool_path);
// rpm/<dist>: the dnf repositories of a dist.
std::string rpm_dist_dir(std::string_view dist);
// The repository an rpm of `arch` is filed in: its arch's, or SRPMS for a source package.
std::string_view rpm_repository_of(std::string_view arch);
// rpm/<dist>/<repository>
std::string rpm_repository(std::string_view dist, std::string_view repository);
// rpm/<dist>/<repository of arch>/Packages/<file>
std::string rpm_package_file(std::string_view dist, std::string_view arch, std::string_view file);

// A deb pool file's path read back: its distro, and its path inside the apt archive (the
// Packages Filename, "pool/<component>/...") with the component it names; views into the path
// parsed, which every Packages stanza is written from.
struct DebPoolFile {
  std::string_view distro, filename, component;
  bool operator==(const DebPoolFile&) const = default;
};
// Nothing when `path` is not deb/<distro>/pool/<component>/<file...>.
std::optional<DebPoolFile> parse_deb_pool_file(std::string_view path);
// The dist ("el/9") of rpm/<distro>/<version>/<repository>/Packages/<file>; nothing for any
// other path.
std::optional<std::string> parse_rpm_package_dist(std::string_view path);

// When a file of the publication may be put in place, so that a client fetching at any moment
// finds every file that what it fetched names: packages first, then content-addressed copies
// (by-hash/, repodata/<sha256>-*.xml.gz), then the indexes (and the public key), then the
// signatures and Release that InRelease and repomd.xml stand beside, and those two last. The
// local writer keeps this order; a remote target takes it from here.
enum class Phase { package, content_addressed, index, signature, top_level };

// The phase of `path`, relative to the publication; Phase::index for a file of no known kind.
Phase phase_of(std::string_view path);

} // namespace opskit::repo::detail
