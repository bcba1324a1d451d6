// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "index/yum/packages.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/index/yum/repomd.hpp"

using namespace opskit::repo;
using opskit::test::numbered;
using opskit::test::package;
using opskit::test::uncompressed;

TEST_CASE("yum index: the locations read back from primary are each package's href and size",
          "[repo][rpm]") {
  auto packages = numbered(3);
  packages[1].location = "Packages/a&b.rpm";
  packages[2].size = 1234567;
  auto index = build_yum_repo(packages, 1764000000);
  REQUIRE(index);
  auto locations = parse_primary_locations(uncompressed(*index, "primary"));
  REQUIRE(locations);
  REQUIRE(locations->size() == 3);
  CHECK((*locations)[0].href == packages[0].location);
  CHECK((*locations)[1].href == "Packages/a&b.rpm");
  CHECK((*locations)[2].size == 1234567);
  // Only <package> elements count, and a document that breaks off is an error.
  auto other = parse_primary_locations(
      "<metadata><package><location href=\"a.rpm\"/><size package=\"1\"/></package>"
      "<other><location href=\"b.rpm\"/></other></metadata>");
  REQUIRE(other);
  REQUIRE(other->size() == 1);
  CHECK((*other)[0].href == "a.rpm");
  CHECK((*other)[0].size == 1);
  CHECK(!parse_primary_locations("<metadata><package><location href=\"a.rpm\"/>"));
}

TEST_CASE("yum index: repomd names each file by its SHA-256 with both checksums and sizes",
          "[repo][rpm]") {
  auto index = build_yum_repo({package("a", "", "1.0")}, 1764000000);
  REQUIRE(index);
  auto entries = parse_repomd(index->repomd);
  REQUIRE(entries);
  REQUIRE(entries->size() == 3);
  for (const auto& e : *entries) {
    const IndexFile* file = nullptr;
    for (const auto& f : index->files)
      if (f.path == e.location)
        file = &f;
    REQUIRE(file);
    CHECK(e.location == "repodata/" + sha256_hex(file->data) + "-" + e.type + ".xml.gz");
    CHECK(e.checksum == sha256_hex(file->data));
    CHECK(e.size == file->data.size());
    std::string open = *gzip_decompress(file->data, 1 << 20);
    CHECK(index->repomd.find("<open-checksum type=\"sha256\">" + sha256_hex(open) +
                             "</open-checksum>") != std::string::npos);
  }
  CHECK(index->repomd.find("<timestamp>1764000000</timestamp>") != std::string::npos);
}
