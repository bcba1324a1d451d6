// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/repo/compress.hpp"
#include "opskit/repo/digest.hpp"
#include "opskit/repo/yum_index.hpp"

using namespace opskit::repo;

namespace {

YumPackage package(const std::string& name, const std::string& epoch, const std::string& version) {
  YumPackage p;
  p.rpm.name = name;
  p.rpm.epoch = epoch;
  p.rpm.version = version;
  p.rpm.release = "1";
  p.rpm.arch = "noarch";
  p.rpm.summary = "a <b> & \"c\"";
  p.rpm.files = {{"/etc/x.conf", RpmFileType::file}, {"/usr/share/x", RpmFileType::dir}};
  p.rpm.requires_ = {{"/bin/sh", "", "", "", "", true}};
  p.location = "Packages/" + name + ".rpm";
  p.size = 100;
  p.sha256 = std::string(64, 'a');
  return p;
}

std::string uncompressed(const YumIndex& index, const std::string& type) {
  for (const auto& f : index.files)
    if (f.path.ends_with("-" + type + ".xml.gz"))
      return *gzip_decompress(f.data, 1 << 20);
  return {};
}

} // namespace

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

TEST_CASE("yum index: equal input gives byte-equal metadata", "[repo][rpm]") {
  auto a = build_yum_repo({package("a", "", "1.0")}, 5),
       b = build_yum_repo({package("a", "", "1.0")}, 5);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->repomd == b->repomd);
}
