// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "opskit/repo/codec/digest.hpp"

namespace opskit::repo {

// What an apt suite's Release file says of the suite itself.
struct AptReleaseFields {
  std::string origin, label, codename;
  std::time_t date = 0;
  std::optional<std::time_t> valid_until;
  std::set<std::string> architectures, components;
};

// The digests a Release lists of each index, as Debian's own archive does: SHA256, which apt
// requires and fetches by-hash copies by, and MD5Sum for older tools. SHA1 and SHA512 would add
// nothing a client checks and cost most of a push's hashing.
inline constexpr Hash k_release_hashes = Hash::md5 | Hash::sha256;

// The Release text: Origin, Label, Suite and Codename (both the codename), Date, Valid-Until
// when given, "Acquire-By-Hash: yes", Architectures and Components, then under MD5Sum and
// SHA256 " <hash> <size> <path>" for each of `indexes` (its path below dists/<suite>/ and its
// digests), in path order.
std::string apt_release(const AptReleaseFields& fields,
                        const std::map<std::string, Digests>& indexes);

// RFC 2822 date in UTC as apt wants it: "Sat, 30 Nov 2026 05:52:41 UTC".
std::string rfc2822_utc(std::time_t t);
// A time as rfc2822_utc() writes it read back; none for any other form.
std::optional<std::time_t> parse_rfc2822_utc(std::string_view text);

} // namespace opskit::repo
