// SPDX-License-Identifier: MIT
// The header structure of an rpm (rpm's doc/manual/format.md, LSB 5 "Package File Format").
//
// The signature and the main header share one structure: magic 8e ad e8 01, 4 reserved bytes,
// the entry count and the data size (big-endian 32-bit), then 16-byte index entries {tag, type,
// offset, count} and a data store the offsets point into. Types: 1 CHAR, 2 INT8, 3 INT16,
// 4 INT32, 5 INT64, 6 STRING, 7 BIN, 8 STRING_ARRAY, 9 I18NSTRING (the first string is the C
// locale's).
//
// What is subtle: every offset and count comes from the file, so each entry's values must fit
// in the store when the header is parsed (a count of ten million in a header of a few bytes is
// refused before anything is made of it), each access is bounds-checked, and strings must end
// inside the store.
#include "format/rpm/header.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "opskit/repo/format/rpm/rpm.hpp"
#include "opskit/text.hpp"

namespace opskit::repo::detail {

namespace {

constexpr std::uint32_t k_type_int16 = 3, k_type_int32 = 4, k_type_int64 = 5, k_type_string = 6,
                        k_type_string_array = 8, k_type_i18n = 9;

std::uint32_t be32(std::string_view b, std::size_t at) {
  auto u = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i]));
  };
  return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
}

// The least bytes one value of `type` takes: its width for numbers, its NUL for a string.
std::uint64_t value_bytes(std::uint32_t type) noexcept {
  switch (type) {
  case k_type_int16:
    return 2;
  case k_type_int32:
    return 4;
  case k_type_int64:
    return 8;
  default:
    return 1;
  }
}

} // namespace

Result<RpmHeader> RpmHeader::parse(std::string_view bytes, std::size_t at, std::string_view what) {
  if (bytes.size() < at + 16 || bytes.substr(at, 4) != std::string_view("\x8e\xad\xe8\x01", 4))
    return fail(fmt::format("{}: bad rpm header magic at byte {}", what, at));
  std::uint64_t count = be32(bytes, at + 8), size = be32(bytes, at + 12);
  std::uint64_t total = 16 + count * 16 + size;
  if (total > k_rpm_header_limit)
    return fail(fmt::format("{}: rpm header at byte {} claims {} bytes, past the limit of {} MiB",
                            what, at, total, k_rpm_header_limit >> 20));
  if (at + total > bytes.size())
    return fail(fmt::format("{}: truncated rpm header at byte {}", what, at));
  RpmHeader h;
  h.store_ = bytes.substr(at + 16 + count * 16, size);
  h.size_ = total;
  for (std::uint64_t i = 0; i < count; ++i) {
    std::size_t e = at + 16 + i * 16;
    std::uint32_t tag = be32(bytes, e);
    Entry entry{be32(bytes, e + 4), be32(bytes, e + 8), be32(bytes, e + 12)};
    if (entry.offset > size)
      return fail(
          fmt::format("{}: rpm header entry for tag {} points outside the header", what, tag));
    if (entry.count > k_rpm_values_limit)
      return fail(
          fmt::format("{}: rpm header entry for tag {} holds {} values, past the limit of {}", what,
                      tag, entry.count, k_rpm_values_limit));
    // A count read as given would make as many values: it must fit in what the store holds.
    if (entry.count * value_bytes(entry.type) > size - entry.offset)
      return fail(fmt::format("{}: rpm header entry for tag {} runs past the header", what, tag));
    h.entries_.emplace_back(tag, entry);
  }
  std::sort(h.entries_.begin(), h.entries_.end(),
            [](auto& a, auto& b) { return a.first < b.first; });
  return h;
}

std::vector<std::string> RpmHeader::strings(std::uint32_t tag) const {
  std::vector<std::string> out;
  const Entry* e = find(tag);
  if (!e || (e->type != k_type_string && e->type != k_type_string_array && e->type != k_type_i18n))
    return out;
  std::size_t at = e->offset;
  std::uint32_t n = e->type == k_type_string ? 1 : e->count;
  for (std::uint32_t i = 0; i < n; ++i) {
    auto nul = store_.find('\0', at);
    if (nul == std::string_view::npos)
      return {};
    out.push_back(utf8_or_latin1(store_.substr(at, nul - at)));
    at = nul + 1;
  }
  return out;
}

std::string RpmHeader::string(std::uint32_t tag) const {
  auto all = strings(tag);
  return all.empty() ? std::string() : all.front();
}

std::vector<std::uint64_t> RpmHeader::numbers(std::uint32_t tag) const {
  std::vector<std::uint64_t> out;
  const Entry* e = find(tag);
  if (!e)
    return out;
  std::size_t width = e->type == k_type_int16   ? 2
                      : e->type == k_type_int32 ? 4
                      : e->type == k_type_int64 ? 8
                                                : 0;
  if (width == 0 || e->offset + std::uint64_t(width) * e->count > store_.size())
    return out;
  for (std::uint32_t i = 0; i < e->count; ++i) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < width; ++b)
      v = v << 8 | static_cast<unsigned char>(store_[e->offset + i * width + b]);
    out.push_back(v);
  }
  return out;
}

std::optional<std::uint64_t> RpmHeader::number(std::uint32_t tag) const {
  auto all = numbers(tag);
  return all.empty() ? std::nullopt : std::optional(all.front());
}

const RpmHeader::Entry* RpmHeader::find(std::uint32_t tag) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), tag,
                             [](const auto& e, std::uint32_t t) { return e.first < t; });
  return it != entries_.end() && it->first == tag ? &it->second : nullptr;
}

} // namespace opskit::repo::detail
