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
