// SPDX-License-Identifier: MIT
#pragma once

// The header structure of an rpm, which its signature and main header share: index entries by
// tag over a data store. Not installed.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo::detail {

// One parsed header: its entries by tag over its data store, which it views.
class RpmHeader {
public:
  // The header at byte `at` of `bytes`; `what` names the file in errors. Fails on a wrong
  // magic, a header that claims more than k_rpm_header_limit or runs past `bytes`, or an entry
  // that points outside the store or counts more values than fit in the rest of it.
  static Result<RpmHeader> parse(std::string_view bytes, std::size_t at, std::string_view what);

  // Its size in bytes, from its magic to the end of its store.
  std::size_t size() const noexcept { return size_; }

  // The strings of a STRING, STRING_ARRAY or I18NSTRING tag (the C locale's of an I18NSTRING
  // first), read as UTF-8 or else ISO-8859-1; empty when absent, of another type, or when a
  // string does not end inside the store.
  std::vector<std::string> strings(std::uint32_t tag) const;
  // The first of strings(tag), "" when there is none.
  std::string string(std::uint32_t tag) const;
  // The values of an INT16, INT32 or INT64 tag; empty when absent, of another type, or when
  // they do not fit in the store.
  std::vector<std::uint64_t> numbers(std::uint32_t tag) const;
  // The first of numbers(tag), if any.
  std::optional<std::uint64_t> number(std::uint32_t tag) const;
  // Whether the header has an entry for `tag`, of any type.
  bool has(std::uint32_t tag) const { return find(tag) != nullptr; }

private:
  struct Entry {
    std::uint32_t type, offset, count;
  };
  const Entry* find(std::uint32_t tag) const;

  std::vector<std::pair<std::uint32_t, Entry>> entries_; // sorted by tag
  std::string_view store_;
  std::size_t size_ = 0;
};

} // namespace opskit::repo::detail
