// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/index/apt/suite.hpp"

using namespace opskit::repo;

namespace {

PackageRecord record(const std::string& name, const std::string& version, const std::string& arch) {
  PackageRecord r;
  r.dist = "debian/bookworm";
  r.component = "main";
  r.name = name;
  r.version = version;
  r.arch = arch;
  r.file =
      "deb/debian/pool/main/" + name.substr(0, 1) + "/" + name + "/" + name + "_x_" + arch + ".deb";
  r.size = 1234;
  r.md5 = "m";
  r.sha1 = "s1";
  r.sha256 = "s256";
  r.sha512 = "s512";
  r.metadata = "Package: " + name + "\nVersion: " + version + "\nArchitecture: " + arch +
               "\nDescription: d\n .\n x\n";
  return r;
}

AptSuiteInput input() {
  AptSuiteInput in;
  in.codename = "bookworm";
  in.origin = "Acme";
  in.label = "Acme Tools";
  in.architectures = {"amd64"};
  in.components = {"main"};
  in.packages = {record("zed", "1.0", "arm64"), record("tool", "1:1.0", "all"),
                 record("app", "1.10", "amd64"), record("app", "1.9", "amd64")};
  in.date = 1764000000; // Mon, 24 Nov 2025 16:00:00 UTC
  return in;
}

const IndexFile* find(const AptSuiteIndex& index, const std::string& path) {
  for (const auto& f : index.files)
    if (f.path == path)
      return &f;
  return nullptr;
}

} // namespace

TEST_CASE("apt index: Packages stanza is the control text plus Filename, Size and hashes",
          "[repo][apt]") {
  CHECK(packages_stanza(record("app", "1.0", "amd64")) ==
        "Package: app\nVersion: 1.0\nArchitecture: amd64\nDescription: d\n .\n x\n"
        "Filename: pool/main/a/app/app_x_amd64.deb\nSize: 1234\nMD5sum: m\nSHA1: s1\n"
        "SHA256: s256\nSHA512: s512\n");
}

TEST_CASE("apt index: Architecture all packages appear in every binary-<arch>", "[repo][apt]") {
  auto index = build_apt_suite(input());
  REQUIRE(index);
  for (std::string arch : {"amd64", "arm64"}) {
    const IndexFile* packages = find(*index, "main/binary-" + arch + "/Packages");
    REQUIRE(packages);
    CHECK(packages->data.find("Package: tool\nVersion: 1:1.0\n") != std::string::npos);
  }
  CHECK(find(*index, "main/binary-all/Packages") == nullptr);
}

TEST_CASE("apt index: packages are sorted by name and dpkg version order", "[repo][apt]") {
  auto index = build_apt_suite(input());
  REQUIRE(index);
  const std::string& text = find(*index, "main/binary-amd64/Packages")->data;
  auto v19 = text.find("Version: 1.9\n"), v110 = text.find("Version: 1.10\n"),
       tool = text.find("Package: tool");
  CHECK(v19 < v110);
  CHECK(v110 < tool);
  CHECK(text.find("Package: zed") == std::string::npos);
}

TEST_CASE("apt index: Release lists uncompressed and compressed indexes with four hashes",
          "[repo][apt]") {
  auto index = build_apt_suite(input());
  REQUIRE(index);
  const std::string& release = index->release;
  CHECK(release.starts_with("Origin: Acme\nLabel: Acme Tools\nSuite: bookworm\nCodename: bookworm\n"
                            "Date: Mon, 24 Nov 2025 16:00:00 UTC\nAcquire-By-Hash: yes\n"
                            "Architectures: amd64 arm64\nComponents: main\nMD5Sum:\n"));
  const IndexFile* packages = find(*index, "main/binary-amd64/Packages");
  Digests d = digest_all(packages->data);
  CHECK(release.find(" " + d.sha256 + " " + std::string(16 - std::to_string(d.size).size(), ' ') +
                     std::to_string(d.size) + " main/binary-amd64/Packages\n") !=
        std::string::npos);
  for (std::string list : {"\nMD5Sum:\n", "\nSHA1:\n", "\nSHA256:\n", "\nSHA512:\n"})
    CHECK(release.find(list) != std::string::npos);
  CHECK(release.find("main/binary-arm64/Packages.xz\n") != std::string::npos);
  // by-hash copies under both listed strong hashes, written before the indexes themselves
  CHECK(find(*index, "main/binary-amd64/by-hash/SHA256/" + d.sha256));
  CHECK(find(*index, "main/binary-amd64/by-hash/SHA512/" + d.sha512));
  CHECK(index->files.front().path.find("/by-hash/") != std::string::npos);
}

TEST_CASE("apt index: equal input gives byte-equal output, compressed files included",
          "[repo][apt]") {
  auto a = build_apt_suite(input()), b = build_apt_suite(input());
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->release == b->release);
  REQUIRE(a->files.size() == b->files.size());
  for (std::size_t i = 0; i < a->files.size(); ++i)
    CHECK(a->files[i].data == b->files[i].data);
  auto gz = find(*a, "main/binary-amd64/Packages.gz");
  auto plain = gzip_decompress(gz->data, 1 << 20);
  REQUIRE(plain);
  CHECK(*plain == find(*a, "main/binary-amd64/Packages")->data);
}

TEST_CASE("apt index: Valid-Until follows Date when asked for", "[repo][apt]") {
  auto in = input();
  in.valid_until = in.date + 7 * 86400;
  auto index = build_apt_suite(in);
  REQUIRE(index);
  CHECK(index->release.find(
            "Date: Mon, 24 Nov 2025 16:00:00 UTC\nValid-Until: Mon, 01 Dec 2025 16:00:00 UTC\n") !=
        std::string::npos);
}
