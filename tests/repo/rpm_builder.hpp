// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opskit::test {

// A header entry to write: tag, type (4 INT32, 6 STRING, 8 STRING_ARRAY, 9 I18NSTRING) and its
// values, strings or numbers.
struct RpmTag {
  std::uint32_t tag, type;
  std::vector<std::string> strings;
  std::vector<std::uint32_t> numbers;
};

// An rpm header structure of `tags`, in the order given.
std::string make_rpm_header(const std::vector<RpmTag>& tags);

// The bytes of an rpm: a lead, an empty signature header, padding, and a main header of
// `tags`, with no payload. Byte for byte the same for the same tags.
std::string make_rpm(const std::vector<RpmTag>& tags);

} // namespace opskit::test
