// SPDX-License-Identifier: MIT
#pragma once

// The manifest a target keeps of what was published to it (path -> SHA-256 and size), so
// that the next publish sends only what changed without listing the target. Not installed.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "opskit/error.hpp"

namespace opskit::repo::publish {

// The manifest's object, and the lock's, at the root of the target.
inline constexpr const char* k_manifest = ".pkgcloud-manifest.json";
inline constexpr const char* k_lock = ".pkgcloud-lock.json";

struct ManifestEntry {
  std::string sha256;
  std::uint64_t size = 0;
  // No longer published, and kept on the target for one more publish: the metadata it had
  // just before, which a client may have read a moment ago, may name it.
  bool superseded = false;
  // The same bytes, whether still published or not.
  bool operator==(const ManifestEntry& o) const { return sha256 == o.sha256 && size == o.size; }
};
using Manifest = std::map<std::string, ManifestEntry, std::less<>>;

std::string manifest_json(const Manifest& manifest);
// The error says what is wrong with it, for a manifest that another tool or a damaged
// upload left.
Result<Manifest> parse_manifest(std::string_view json);

} // namespace opskit::repo::publish
