// SPDX-License-Identifier: MIT
#include "rpm_builder.hpp"

namespace opskit::test {

namespace {

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

} // namespace

std::string make_rpm_header(const std::vector<RpmTag>& tags, std::uint32_t region) {
  std::string index, store;
  for (const auto& t : tags) {
    std::size_t width = t.type == 3 ? 2 : 4;
    if (t.type == 3 || t.type == 4)
      while (store.size() % width)
        store.push_back('\0');
    put32(index, t.tag);
    put32(index, t.type);
    put32(index, static_cast<std::uint32_t>(store.size()));
    put32(index, static_cast<std::uint32_t>(t.strings.empty() ? t.numbers.size() : t.strings.size()));
    for (const auto& s : t.strings)
      store += s + '\0';
    for (auto n : t.numbers)
      if (width == 2) {
        store.push_back(static_cast<char>((n >> 8) & 0xff));
        store.push_back(static_cast<char>(n & 0xff));
      } else
        put32(store, n);
  }
  auto entries = static_cast<std::uint32_t>(tags.size());
  if (region != 0) {
    // The region's entry comes first and points at its trailer, the store's last 16 bytes: an
    // entry whose negative offset spans the index, unaligned (rpm's hdrblobVerifyRegion).
    ++entries;
    std::string entry;
    put32(entry, region);
    put32(entry, 7);
    put32(entry, static_cast<std::uint32_t>(store.size()));
    put32(entry, 16);
    index = entry + index;
    put32(store, region);
    put32(store, 7);
    put32(store, static_cast<std::uint32_t>(-static_cast<std::int64_t>(entries) * 16));
    put32(store, 16);
  }
  std::string out("\x8e\xad\xe8\x01\0\0\0\0", 8);
  put32(out, entries);
  put32(out, static_cast<std::uint32_t>(store.size()));
  return out + index + store;
}

std::string make_rpm(const std::vector<RpmTag>& tags) {
  std::string out("\xed\xab\xee\xdb", 4);
  out.resize(96, '\0');
  out += make_rpm_header({});
  while (out.size() % 8)
    out.push_back('\0');
  return out + make_rpm_header(tags);
}

std::string make_built_rpm(const std::vector<RpmTag>& tags,
                           const std::function<std::string(std::string_view)>& sha256_hex) {
  std::string main = make_rpm_header(tags, 63);
  std::string out("\xed\xab\xee\xdb\x03\x00\x00\x00", 8);
  out.resize(78, '\0');
  out += std::string("\x00\x05", 2);
  out.resize(96, '\0');
  auto size = static_cast<std::uint32_t>(main.size());
  out += make_rpm_header({{273, 6, {sha256_hex(main)}, {}}, {1000, 4, {}, {size}}},
                         62);
  while (out.size() % 8)
    out.push_back('\0');
  return out + main;
}

} // namespace opskit::test
