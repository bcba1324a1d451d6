// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace opskit::test {

// A header entry to write: tag, type (3 INT16, 4 INT32, 6 STRING, 8 STRING_ARRAY, 9 I18NSTRING) and its
// values, strings or numbers.
struct RpmTag {
  std::uint32_t tag, type;
  std::vector<std::string> strings;
  std::vector<std::uint32_t> numbers;
};

// An rpm header structure of `tags`, in the order given; with a `region` tag (62 for a
// signature header, 63 for a main header) the tags are one region, as rpmbuild writes them.
std::string make_rpm_header(const std::vector<RpmTag>& tags, std::uint32_t region = 0);

// The bytes of an rpm: a lead, an empty signature header, padding, and a main header of
// `tags`, with no payload. Byte for byte the same for the same tags.
std::string make_rpm(const std::vector<RpmTag>& tags);

// The bytes of an rpm laid out as rpmbuild writes them, with no payload: the lead of a binary
// package, a signature header holding the main header's SHA-256 (by `sha256_hex`) and size,
// and a main header of `tags` in an immutable region. rpm -qp and createrepo_c read it.
std::string make_built_rpm(const std::vector<RpmTag>& tags,
                           const std::function<std::string(std::string_view)>& sha256_hex);

} // namespace opskit::test
