// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <ctime>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo {

// One <data> entry of repomd.xml.
struct RepomdEntry {
  std::string type, location, checksum, open_checksum;
  std::uint64_t size = 0, open_size = 0;
};

// The <data> entries of a repomd.xml; an error when it is not well-formed XML.
Result<std::vector<RepomdEntry>> parse_repomd(std::string_view text);

// The text of a repomd.xml listing `entries` in their order, with `date` as its revision and
// every timestamp; fails when libxml2 cannot write it.
Result<std::string> write_repomd(std::span<const RepomdEntry> entries, std::time_t date);

// Where primary.xml says each package is (relative to the repository directory), and its size.
struct YumLocation {
  std::string href;
  std::uint64_t size = 0;
};
// The location of each <package> of a primary.xml, in document order; an error when it is not
// well-formed XML or larger than 2 GiB.
Result<std::vector<YumLocation>> parse_primary_locations(std::string_view text);

} // namespace opskit::repo
