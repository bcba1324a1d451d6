// SPDX-License-Identifier: MIT
// The parts a large file goes to S3 in: within S3's 10,000 parts, whatever the file's size.
#include <catch2/catch.hpp>

#include "publish/s3.hpp"

using opskit::repo::publish::part_size;

TEST_CASE("publish parts: 16 MiB parts, larger past 10,000 of them, in whole MiB", "[publish]") {
  constexpr std::uint64_t mib = 1ull << 20, gib = 1ull << 30;
  CHECK(part_size(65 * mib) == 16 * mib);
  CHECK(part_size(10000 * 16 * mib) == 16 * mib);
  CHECK(part_size(10000 * 16 * mib + 1) == 17 * mib);
  for (std::uint64_t size : {157 * gib, 1024 * gib, 5 * 1024 * gib}) {
    std::uint64_t part = part_size(size);
    CHECK(part % mib == 0);
    CHECK((size + part - 1) / part <= 10000);
    CHECK(part <= 5 * gib); // S3's largest part
  }
}
