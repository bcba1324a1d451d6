// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "index/yum/packages.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/index/yum/fragments.hpp"

using namespace opskit::repo;
using opskit::test::package;
using opskit::test::uncompressed;

TEST_CASE("yum index: primary carries the package count, epoch=\"0\" and escaped text",
          "[repo][rpm]") {
  auto index = build_yum_repo({package("b", "", "1.0"), package("a", "2", "1.0")}, 1764000000);
  REQUIRE(index);
  std::string primary = uncompressed(*index, "primary");
  CHECK(primary.find("packages=\"2\"") != std::string::npos);
  CHECK(primary.find("<version epoch=\"0\" ver=\"1.0\" rel=\"1\"/>") != std::string::npos);
  CHECK(primary.find("<version epoch=\"2\" ver=\"1.0\" rel=\"1\"/>") != std::string::npos);
  CHECK(primary.find("<summary>a &lt;b&gt; &amp; &quot;c&quot;</summary>") != std::string::npos);
  CHECK(primary.find("<rpm:entry name=\"/bin/sh\" pre=\"1\"/>") != std::string::npos);
  CHECK(primary.find("<name>a</name>") < primary.find("<name>b</name>"));
  // primary lists /etc files only; filelists lists every file with its type
  CHECK(primary.find("/usr/share/x") == std::string::npos);
  CHECK(uncompressed(*index, "filelists").find("<file type=\"dir\">/usr/share/x</file>") !=
        std::string::npos);
}

TEST_CASE("yum index: characters XML forbids are left out of a package's text", "[repo][rpm]") {
  auto p = package("a", "", "1.0");
  // U+FFFE and U+FFFF, valid UTF-8 that XML 1.0 forbids, beside a control character and text
  // that stays: one of them made dnf refuse the whole primary.xml.
  p.rpm.summary = "x\xEF\xBF\xBEy\xEF\xBF\xBFz\x01 \xC3\xA9\xEF\xBF\xBD";
  auto index = build_yum_repo({p}, 1764000000);
  REQUIRE(index);
  CHECK(uncompressed(*index, "primary").find("<summary>xyz \xC3\xA9\xEF\xBF\xBD</summary>") !=
        std::string::npos);
}

TEST_CASE("yum index: other.xml holds the newest ten changelog entries oldest first, as "
          "createrepo_c writes them",
          "[repo][rpm]") {
  auto p = package("a", "", "1.0");
  for (int i = 12; i >= 1; --i) // as rpm keeps them: newest first
    p.rpm.changelogs.push_back(
        {"Dev <dev@example.com>", 1700000000u + i * 86400u, "- change " + std::to_string(i)});
  auto index = build_yum_repo({p}, 1764000000);
  REQUIRE(index);
  std::string other = uncompressed(*index, "other");
  CHECK(other.find("- change 2<") == std::string::npos);
  auto third = other.find("- change 3<"), last = other.find("- change 12<");
  CHECK(third != std::string::npos);
  CHECK(third < other.find("- change 4<"));
  CHECK(last != std::string::npos);
  CHECK(other.find("<changelog", last) == std::string::npos); // the newest is the last
}
