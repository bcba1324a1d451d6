// SPDX-License-Identifier: MIT
#pragma once

// Where a repository keeps its parts. Not installed.

#include <string>

#include "opskit/error.hpp"

namespace opskit::repo::detail {

// State, lock, keyring and the dnf index texts: private, never served or uploaded.
inline constexpr const char* k_state_dir = ".pkgcloud";
// The publication, what clients read: deb/, rpm/, gpg.key and gpg.gpg. Records name their
// pool files relative to it.
inline constexpr const char* k_publication_dir = "public";

inline std::string state_dir(const std::string& root) {
  return root + "/" + k_state_dir;
}
inline std::string publication_dir(const std::string& root) {
  return root + "/" + k_publication_dir;
}

enum class Moved { nothing, publication };

// Brings the repository at `root` to the current layout. Repositories made before the
// publication had a directory of its own kept it at the top, beside .pkgcloud/; this moves it
// into public/ so that a kill at any moment leaves one layout or the other, whole, and the next
// call finishes what a killed one left. Takes the repository's lock when there is work; costs
// two system calls when there is none. Fails with the path and the reason when a file cannot
// be linked, renamed or removed.
Result<Moved> settle_layout(const std::string& root);

} // namespace opskit::repo::detail
