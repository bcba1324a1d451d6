// SPDX-License-Identifier: MIT
#pragma once

// Reading a Release file back: what a rewrite keeps by hash and what verify checks. Not
// installed.

#include <cstdint>
#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opskit::repo {

// One line of a Release hash list: " <hash> <size> <path>".
struct ReleaseEntry {
  std::uint64_t size = 0;
  std::string hash;
};

// The entries of one hash list ("SHA256", "SHA512") of Release text `release`, by path; none
// when the text or the list is missing or malformed (a malformed line is skipped).
std::map<std::string, ReleaseEntry> release_hashes(std::string_view release,
                                                   std::string_view list_name);

// The Architectures, or the Components, field of Release text `release`, split; none when there
// is none.
std::vector<std::string> release_architectures(std::string_view release);
std::vector<std::string> release_components(std::string_view release);

// The Valid-Until time of Release text `release` (as pkgcloud writes it, "Mon, 07 Dec 2026
// 19:00:00 UTC"); none when it has none, or one in another form.
std::optional<std::time_t> release_valid_until(std::string_view release);

} // namespace opskit::repo
