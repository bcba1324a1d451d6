// SPDX-License-Identifier: MIT
#include "rpm_builder.hpp"

namespace opskit::test {

namespace {

void put32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}

} // namespace

std::string make_rpm_header(const std::vector<RpmTag>& tags) {
  std::string index, store;
  for (const auto& t : tags) {
    if (t.type == 4)
      while (store.size() % 4)
        store.push_back('\0');
    put32(index, t.tag);
    put32(index, t.type);
    put32(index, static_cast<std::uint32_t>(store.size()));
    put32(index, static_cast<std::uint32_t>(t.type == 4 ? t.numbers.size() : t.strings.size()));
    for (const auto& s : t.strings)
      store += s + '\0';
    for (auto n : t.numbers)
      put32(store, n);
  }
  std::string out("\x8e\xad\xe8\x01\0\0\0\0", 8);
  put32(out, static_cast<std::uint32_t>(tags.size()));
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

} // namespace opskit::test
