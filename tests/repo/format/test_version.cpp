// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/repo/format/version.hpp"

using opskit::repo::compare_deb_versions;
using opskit::repo::compare_rpm_versions;

TEST_CASE("deb version: the epoch wins over everything after it", "[repo][version]") {
  CHECK(compare_deb_versions("1:0.9", "2.0") > 0);
  CHECK(compare_deb_versions("0:2.0", "2.0") == 0);
}

TEST_CASE("deb version: tilde sorts before the end, digits by value", "[repo][version]") {
  CHECK(compare_deb_versions("1.0~rc1", "1.0") < 0);
  CHECK(compare_deb_versions("1.0~rc1", "1.0~rc2") < 0);
  CHECK(compare_deb_versions("1.10", "1.9") > 0);
  CHECK(compare_deb_versions("1.0-2", "1.0-10") < 0);
  CHECK(compare_deb_versions("1.0a", "1.0+") < 0); // letters before other characters
  CHECK(compare_deb_versions("1.0", "1.0-0") == 0);
}

TEST_CASE("rpm version: rpmvercmp orders numbers, letters, tilde and caret", "[repo][version]") {
  CHECK(compare_rpm_versions("1.10-1", "1.9-1") > 0);
  CHECK(compare_rpm_versions("1.0~rc1-1", "1.0-1") < 0);
  CHECK(compare_rpm_versions("1.0^git1-1", "1.0-1") > 0);
  CHECK(compare_rpm_versions("1.0^git1-1", "1.0.1-1") < 0);
  CHECK(compare_rpm_versions("1.0a", "1.0.1") < 0); // a number beats letters
  CHECK(compare_rpm_versions("2:1.0-1", "1:9.0-1") > 0);
  CHECK(compare_rpm_versions("0:1.0-1", "1.0-1") == 0);
  CHECK(compare_rpm_versions("1.0-1.el9", "1.0-1.el9") == 0);
}
