// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>

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
  std::string stanza = "before\n";
  append_packages_stanza(stanza, record("app", "1.0", "amd64"));
  CHECK(stanza ==
        "before\nPackage: app\nVersion: 1.0\nArchitecture: amd64\nDescription: d\n .\n x\n"
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

TEST_CASE("apt index: Release lists uncompressed and compressed indexes under MD5Sum and SHA256",
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
  for (std::string list : {"\nMD5Sum:\n", "\nSHA256:\n"})
    CHECK(release.find(list) != std::string::npos);
  for (std::string list : {"\nSHA1:\n", "\nSHA512:\n"})
    CHECK(release.find(list) == std::string::npos);
  CHECK(release.find("main/binary-arm64/Packages.xz\n") != std::string::npos);
  // by-hash copies of Packages under the strongest listed hash, which apt fetches them by
  auto copy_of = [&](const std::string& path) -> const IndexFile* {
    for (const auto& copy : index->by_hash)
      if (copy.path == path)
        return &index->files.at(copy.of);
    return nullptr;
  };
  CHECK(copy_of("main/binary-amd64/by-hash/SHA256/" + d.sha256) == packages);
  CHECK(index->by_hash.size() == index->files.size());
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

namespace {

// `count` amd64 packages, with names chosen so that `ends` of them end a run.
std::vector<PackageRecord> many(std::size_t count, std::size_t ends) {
  std::vector<PackageRecord> out;
  std::size_t ending = 0;
  for (int i = 0; out.size() < count; ++i) {
    auto r = record("p" + std::to_string(i), "1.0-1", "amd64");
    bool end = apt_run_ends(r);
    if (end ? ending < ends : out.size() - ending < count - ends) {
      ending += end;
      out.push_back(std::move(r));
    }
  }
  return out;
}

const IndexFile& file(const AptSuiteIndex& index, const std::string& path) {
  const IndexFile* f = find(index, path);
  REQUIRE(f);
  return *f;
}

} // namespace

TEST_CASE("apt index: Packages.gz and Packages.xz hold one member and one block a run, each "
          "reading as Packages",
          "[repo][apt]") {
  auto in = input();
  in.packages = many(40, 4);
  auto index = build_apt_suite(in);
  REQUIRE(index);
  const auto& text = file(*index, "main/binary-amd64/Packages").data;
  const auto& gz = file(*index, "main/binary-amd64/Packages.gz").data;
  const auto& xz = file(*index, "main/binary-amd64/Packages.xz").data;
  auto members = keyed_gzip_members(gz);
  auto blocks = xz_blocks(xz);
  // 4 runs end at a package; a fifth holds those after the last of them, if any.
  auto last = std::max_element(in.packages.begin(), in.packages.end(),
                               [](const auto& a, const auto& b) { return a.name < b.name; });
  std::size_t runs = apt_run_ends(*last) ? 4 : 5;
  CHECK(members.size() == runs);
  CHECK(blocks.size() == runs);
  CHECK(gzip_decompress(gz, 1 << 20) == text);
  std::size_t total = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    CHECK(members[i].isize == blocks[i].uncompressed);
    total += blocks[i].uncompressed;
  }
  CHECK(total == text.size());
}

TEST_CASE("apt index: a rewrite copies the runs it would compress again from the previous "
          "files, and writes what a rewrite from nothing writes",
          "[repo][apt]") {
  auto in = input();
  in.packages = many(40, 4);
  auto before = build_apt_suite(in);
  REQUIRE(before);
  // The previous Packages.gz with every member compressed at level 1: bytes of its own, so that
  // copied members can be told from members made anew.
  std::string level1;
  for (const auto& m : keyed_gzip_members(file(*before, "main/binary-amd64/Packages.gz").data)) {
    auto text = gzip_decompress(m.bytes, 1 << 20);
    REQUIRE(text);
    auto member = gzip_keyed_member(*text, m.key, 1);
    REQUIRE(member);
    level1 += *member;
  }
  std::string old_xz = file(*before, "main/binary-amd64/Packages.xz").data;
  in.previous = [&](const std::string& path) -> std::optional<std::string> {
    if (path == "main/binary-amd64/Packages.gz")
      return level1;
    if (path == "main/binary-amd64/Packages.xz")
      return old_xz;
    return std::nullopt;
  };
  in.packages.push_back(record("p0a", "1.0-1", "amd64")); // into the first run
  REQUIRE_FALSE(apt_run_ends(in.packages.back()));
  auto after = build_apt_suite(in);
  REQUIRE(after);
  auto copied = keyed_gzip_members(level1);
  auto members = keyed_gzip_members(file(*after, "main/binary-amd64/Packages.gz").data);
  REQUIRE(members.size() == copied.size());
  std::size_t same = 0;
  for (std::size_t i = 0; i < members.size(); ++i)
    same += members[i].bytes == copied[i].bytes;
  CHECK(same == members.size() - 1); // every run but the one the package went into
  auto old_blocks = xz_blocks(old_xz);
  auto blocks = xz_blocks(file(*after, "main/binary-amd64/Packages.xz").data);
  REQUIRE(blocks.size() == old_blocks.size());
  CHECK(blocks[0].bytes != old_blocks[0].bytes);
  for (std::size_t i = 1; i < blocks.size(); ++i)
    CHECK(blocks[i].bytes == old_blocks[i].bytes);

  // What is published reads the same as a rewrite from nothing: Packages and its xz are equal
  // byte for byte, Packages.gz decompresses to the same text.
  in.previous = nullptr;
  auto fresh = build_apt_suite(in);
  REQUIRE(fresh);
  CHECK(file(*after, "main/binary-amd64/Packages").data ==
        file(*fresh, "main/binary-amd64/Packages").data);
  CHECK(file(*after, "main/binary-amd64/Packages.xz").data ==
        file(*fresh, "main/binary-amd64/Packages.xz").data);
  CHECK(gzip_decompress(file(*after, "main/binary-amd64/Packages.gz").data, 1 << 20) ==
        file(*fresh, "main/binary-amd64/Packages").data);
}

TEST_CASE("apt index: previous files that do not pair up are not copied from", "[repo][apt]") {
  auto in = input();
  in.packages = many(20, 2);
  auto before = build_apt_suite(in);
  REQUIRE(before);
  std::string gz = file(*before, "main/binary-amd64/Packages.gz").data;
  in.previous = [&](const std::string& path) -> std::optional<std::string> {
    if (path.ends_with(".gz"))
      return gz;
    return std::string("not xz"); // no blocks to pair the members with
  };
  auto after = build_apt_suite(in);
  REQUIRE(after);
  in.previous = nullptr;
  auto fresh = build_apt_suite(in);
  REQUIRE(fresh);
  for (std::size_t i = 0; i < fresh->files.size(); ++i)
    CHECK(after->files[i].data == fresh->files[i].data);
}

TEST_CASE("apt index: a Packages text reads back as its stanzas, each with its identity",
          "[repo][apt]") {
  auto built = build_apt_suite(input());
  REQUIRE(built);
  const std::string& text = find(*built, "main/binary-amd64/Packages")->data;
  auto stanzas = packages_stanzas(text);
  REQUIRE(stanzas);
  REQUIRE(stanzas->size() == 3); // app 1.9, app 1.10, tool (all); zed is arm64's
  CHECK(stanzas->at(0).name == "app");
  CHECK(stanzas->at(0).version == "1.9");
  CHECK(stanzas->at(1).version == "1.10");
  CHECK(stanzas->at(2).name == "tool");
  CHECK(stanzas->at(2).version == "1:1.0");
  CHECK(stanzas->at(2).arch == "all");
  std::string joined;
  for (const auto& s : *stanzas)
    joined += (joined.empty() ? "" : "\n") + std::string(s.text);
  CHECK(joined == text);
  // Field names in any case, as dpkg reads them; a field whose name only starts alike is not it.
  auto odd = packages_stanzas("package: a\nPackage-Type: udeb\nVERSION: 1\narchitecture: amd64\n");
  REQUIRE(odd);
  CHECK(odd->at(0).name == "a");
  CHECK(odd->at(0).version == "1");
  CHECK_FALSE(packages_stanzas("Package: a\nVersion: 1\n"));
  CHECK(packages_stanzas("")->empty());
}

TEST_CASE("apt index: a suite given as its stanzas is the suite its records make, byte for byte",
          "[repo][apt]") {
  auto in = input();
  in.architectures = {"amd64", "arm64"};
  in.packages = many(40, 3);
  in.packages.push_back(record("tool", "1:1.0", "all"));
  auto from_records = build_apt_suite(in);
  REQUIRE(from_records);
  AptSuiteInput given = in;
  given.packages.clear();
  for (const char* dir : {"main/binary-amd64", "main/binary-arm64"}) {
    auto stanzas = packages_stanzas(find(*from_records, std::string(dir) + "/Packages")->data);
    REQUIRE(stanzas);
    given.stanzas[dir] = *stanzas;
  }
  auto from_stanzas = build_apt_suite(given);
  REQUIRE(from_stanzas);
  CHECK(from_stanzas->release == from_records->release);
  REQUIRE(from_stanzas->files.size() == from_records->files.size());
  for (std::size_t i = 0; i < from_records->files.size(); ++i) {
    CHECK(from_stanzas->files[i].path == from_records->files[i].path);
    CHECK(from_stanzas->files[i].data == from_records->files[i].data);
  }
}

TEST_CASE("apt index: versions dpkg finds equal are ordered by their text", "[repo][apt]") {
  CHECK(apt_before("a", "1.0", "amd64", "a", "1.0-0", "amd64"));
  CHECK_FALSE(apt_before("a", "1.0-0", "amd64", "a", "1.0", "amd64"));
  CHECK(apt_before("a", "1.9", "amd64", "a", "1.10", "amd64"));
  CHECK(apt_before("a", "1.0", "amd64", "a", "1.0", "arm64"));
  CHECK(apt_before("a", "9", "arm64", "b", "1", "amd64"));
}
