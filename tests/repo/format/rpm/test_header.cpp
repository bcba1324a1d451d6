// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "format/rpm/header.hpp"
#include "rpm_builder.hpp"

using opskit::repo::detail::RpmHeader;
using opskit::test::make_rpm_header;

namespace {

// The header's data size, as its bytes 12 to 15 give it, made smaller by `by` bytes.
void shrink_store(std::string& header, std::uint8_t by) {
  header.resize(header.size() - by);
  header[15] = static_cast<char>(static_cast<std::uint8_t>(header[15]) - by);
}

} // namespace

TEST_CASE("rpm header: values are read by tag and type, whatever the entries' order",
          "[repo][rpm]") {
  std::string bytes = "xyz" + make_rpm_header({{1030, 4, {}, {0100644, 040755}},
                                               {1004, 9, {"C summary", "de summary"}, {}},
                                               {1000, 6, {"hello"}, {}},
                                               {1047, 8, {"a", "b"}, {}}});
  auto h = RpmHeader::parse(bytes, 3, "x.rpm");
  REQUIRE(h);
  CHECK(h->size() == bytes.size() - 3);
  CHECK(h->string(1000) == "hello");
  CHECK(h->string(1004) == "C summary");
  CHECK(h->strings(1047) == std::vector<std::string>{"a", "b"});
  CHECK(h->numbers(1030) == std::vector<std::uint64_t>{0100644, 040755});
  CHECK(h->number(1030) == 0100644u);
  // Absent tags and tags of another type read as nothing.
  CHECK(h->has(1047));
  CHECK(!h->has(1001));
  CHECK(h->string(1001).empty());
  CHECK(!h->number(1001));
  CHECK(h->strings(1030).empty());
  CHECK(h->numbers(1000).empty());
}

TEST_CASE("rpm header: a string running past the store reads as none", "[repo][rpm]") {
  std::string strings = make_rpm_header({{1000, 6, {"hello"}, {}}});
  shrink_store(strings, 1); // the NUL after "hello"
  auto h = RpmHeader::parse(strings, 0, "x.rpm");
  REQUIRE(h);
  CHECK(h->has(1000));
  CHECK(h->strings(1000).empty());
}

TEST_CASE("rpm header: an entry counting more values than the store or the limit holds is "
          "refused",
          "[repo][rpm]") {
  std::string numbers = make_rpm_header({{1030, 4, {}, {1, 2}}});
  shrink_store(numbers, 4); // the second number
  CHECK(RpmHeader::parse(numbers, 0, "x.rpm").error().message() ==
        "x.rpm: rpm header entry for tag 1030 runs past the header");
  // Ten million file names claimed in a store of two bytes: each string needs its NUL.
  std::string names = make_rpm_header({{1117, 8, {"a"}, {}}});
  names[16 + 12] = '\x00';
  names[16 + 13] = '\x98';
  names[16 + 14] = '\x96';
  names[16 + 15] = '\x80';
  CHECK(RpmHeader::parse(names, 0, "x.rpm").error().message() ==
        "x.rpm: rpm header entry for tag 1117 holds 10000000 values, past the limit of 500000");
  std::string two = make_rpm_header({{1117, 8, {"a", "b"}, {}}});
  two[16 + 15] = '\x05'; // five strings in the four bytes "a\0b\0"
  CHECK(RpmHeader::parse(two, 0, "x.rpm").error().message() ==
        "x.rpm: rpm header entry for tag 1117 runs past the header");
}

TEST_CASE("rpm header: a wrong magic or an entry pointing outside the store is refused",
          "[repo][rpm]") {
  std::string bytes = make_rpm_header({{1000, 6, {"hello"}, {}}});
  CHECK(RpmHeader::parse("x" + bytes, 0, "x.rpm").error().message() ==
        "x.rpm: bad rpm header magic at byte 0");
  bytes[16 + 8] = '\x7f'; // the entry's offset
  CHECK(RpmHeader::parse(bytes, 0, "x.rpm").error().message() ==
        "x.rpm: rpm header entry for tag 1000 points outside the header");
}
