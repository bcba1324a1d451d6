// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/repo/index/apt/release.hpp"

using namespace opskit::repo;

TEST_CASE("apt index: Date is RFC 2822 in UTC", "[repo][apt]") {
  CHECK(rfc2822_utc(0) == "Thu, 01 Jan 1970 00:00:00 UTC");
  CHECK(rfc2822_utc(1709251199) == "Thu, 29 Feb 2024 23:59:59 UTC");
}

TEST_CASE("apt release: each index is listed under MD5Sum and SHA256 in path order",
          "[repo][apt]") {
  AptReleaseFields fields{.origin = "Acme",
                          .label = "Acme Tools",
                          .codename = "bookworm",
                          .date = 0,
                          .valid_until = std::nullopt,
                          .architectures = {"arm64", "amd64"},
                          .components = {"main"}};
  std::map<std::string, Digests> indexes{
      {"main/binary-amd64/Packages", {12, "m2", "a2", "b2", "c2"}},
      {"main/binary-amd64/Packages.gz", {3, "m1", "a1", "b1", "c1"}}};
  CHECK(apt_release(fields, indexes) ==
        "Origin: Acme\nLabel: Acme Tools\nSuite: bookworm\nCodename: bookworm\n"
        "Date: Thu, 01 Jan 1970 00:00:00 UTC\nAcquire-By-Hash: yes\n"
        "Architectures: amd64 arm64\nComponents: main\n"
        "MD5Sum:\n"
        " m2               12 main/binary-amd64/Packages\n"
        " m1                3 main/binary-amd64/Packages.gz\n"
        "SHA256:\n"
        " b2               12 main/binary-amd64/Packages\n"
        " b1                3 main/binary-amd64/Packages.gz\n");
}
