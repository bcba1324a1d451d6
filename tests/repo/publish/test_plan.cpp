// SPDX-License-Identifier: MIT
// A publication against a target's manifest: what is sent, kept and deleted.
#include <catch2/catch.hpp>

#include <filesystem>

#include "publish/manifest.hpp"
#include "publish/snapshot.hpp"
#include "temp_dir.hpp"

using namespace opskit::repo;
using namespace opskit::repo::publish;
using opskit::test::make_file;

namespace {

std::vector<std::string> paths(const Plan& p) {
  std::vector<std::string> out;
  for (const auto* f : p.upload)
    out.push_back(f->path);
  return out;
}

} // namespace

TEST_CASE("publish plan: everything without a manifest, by phase, and only changes with one",
          "[publish]") {
  opskit::test::TempDir dir;
  std::string pub = dir / "public";
  make_file(pub + "/deb/debian/dists/bookworm/InRelease", "signed");
  make_file(pub + "/deb/debian/dists/bookworm/main/binary-amd64/Packages", "index");
  make_file(pub + "/deb/debian/pool/main/h/hello/hello_1_amd64.deb", "deb");
  make_file(pub + "/gpg.key", "key");
  make_file(pub + "/deb/debian/dists/bookworm/.InRelease.tmp-42", "a killed run's");
  make_file(pub + "/rpm/el/9/x86_64/.repodata.next-42/repomd.xml", "a killed run's");

  PackageRecord pool;
  pool.file = "deb/debian/pool/main/h/hello/hello_1_amd64.deb";
  pool.size = 3;
  pool.sha256 = std::string(64, 'f'); // the record's digests are trusted where the size agrees
  pool.md5 = std::string(32, 'e');
  auto s = snapshot(pub, {pool});
  REQUIRE(s);
  CHECK(s->manifest.size() == 4);
  CHECK(s->manifest.at(pool.file).sha256 == pool.sha256);
  CHECK(s->md5.at(pool.file) == pool.md5);
  CHECK(s->manifest.at("gpg.key").sha256 ==
        "2c70e12b7a0646f92279f427c7b38e7334d8e5389cff167a1dc30e73f826b683");

  auto all = plan(*s, std::nullopt, DeleteStale::no);
  CHECK(paths(all) ==
        std::vector<std::string>{pool.file, "deb/debian/dists/bookworm/main/binary-amd64/Packages",
                                 "gpg.key", "deb/debian/dists/bookworm/InRelease"});
  Manifest previous = s->manifest;
  previous["deb/debian/dists/bookworm/InRelease"].sha256 = std::string(64, '0');
  previous["deb/debian/pool/main/o/old/old_1_amd64.deb"] = {std::string(64, '1'), 10};
  const std::string old = "deb/debian/pool/main/o/old/old_1_amd64.deb";
  auto some = plan(*s, previous, DeleteStale::no);
  CHECK(paths(some) == std::vector<std::string>{"deb/debian/dists/bookworm/InRelease"});
  CHECK(some.unchanged == 3);
  CHECK(some.stale.empty());
  REQUIRE(some.next.contains(old)); // still there, and superseded
  CHECK(some.next.at(old).superseded);
  // Deleted only a publish after the one that superseded it, and listed until it is gone.
  auto keeping = plan(*s, previous, DeleteStale::yes);
  CHECK(keeping.stale.empty());
  CHECK(keeping.next.at(old).superseded);
  auto deleting = plan(*s, keeping.next, DeleteStale::yes);
  CHECK(deleting.stale == std::vector<std::string>{old});
  CHECK(deleting.next.contains(old));
  // A superseded file the publication has again may be gone from the target: it is sent.
  Manifest gone = s->manifest;
  gone.at("gpg.key").superseded = true;
  auto again = plan(*s, gone, DeleteStale::yes);
  CHECK(paths(again) == std::vector<std::string>{"gpg.key"});
  CHECK_FALSE(again.next.at("gpg.key").superseded);
}

TEST_CASE("publish snapshot: an rpm's SHA-256 comes from its record, which has no MD5, and the "
          "file is not read again",
          "[publish]") {
  opskit::test::TempDir dir;
  std::string pub = dir / "public";
  PackageRecord rpm;
  rpm.file = "rpm/el/9/x86_64/Packages/h/hello-1-1.x86_64.rpm";
  make_file(pub + "/" + rpm.file, "rpm");
  rpm.size = 3;
  rpm.sha256 = std::string(64, 'f'); // not the file's: read, it would give another
  auto s = snapshot(pub, {rpm});
  REQUIRE(s);
  CHECK(s->manifest.at(rpm.file).sha256 == rpm.sha256);
  CHECK_FALSE(s->md5.contains(rpm.file)); // md5_each reads it if it is sent
}

TEST_CASE("publish manifest: written and read back, and another tool's object is refused",
          "[publish]") {
  Manifest m{{"a/b", {std::string(64, 'a'), 12}}, {"c", {std::string(64, 'b'), 0}}};
  auto back = parse_manifest(manifest_json(m));
  REQUIRE(back);
  CHECK(*back == m);
  CHECK(parse_manifest("<xml/>").error().message() == "not JSON");
  CHECK_FALSE(parse_manifest(R"({"manifest": 2, "files": {}})"));
  CHECK_FALSE(parse_manifest(R"({"manifest": 1, "files": {"a": {"sha256": "xyz", "size": 1}}})"));
  CHECK_FALSE(parse_manifest(R"({"manifest": 1, "files": {"a": {"sha256": 5}}})"));
}
