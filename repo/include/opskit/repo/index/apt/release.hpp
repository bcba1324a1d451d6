// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "opskit/repo/codec/digest.hpp"

namespace opskit::repo {

// What an apt suite's Release file says of the suite itself.
struct AptReleaseFields {
  std::string origin, label, codename;
  std::time_t date = 0;
  std::optional<std::time_t> valid_until;
  std::set<std::string> architectures, components;
};

// The Release text: Origin, Label, Suite and Codename (both the codename), Date, Valid-Until
// when given, "Acquire-By-Hash: yes", Architectures and Components, then under MD5Sum, SHA1,
// SHA256 and SHA512 " <hash> <size> <path>" for each of `indexes` (its path below
// dists/<suite>/ and its digests), in path order.
std::string apt_release(const AptReleaseFields& fields,
                        const std::map<std::string, Digests>& indexes);

// RFC 2822 date in UTC as apt wants it: "Sat, 30 Nov 2026 05:52:41 UTC".
std::string rfc2822_utc(std::time_t t);

} // namespace opskit::repo
