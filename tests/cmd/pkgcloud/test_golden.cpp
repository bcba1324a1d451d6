// SPDX-License-Identifier: MIT
// The golden repository: a fixed set of generated debs and rpms pushed, replaced, removed and
// indexed with SOURCE_DATE_EPOCH fixed, and the SHA-256 of every file of the publication at
// each step (signatures aside, as the key is made anew each run) against
// tests/data/golden/publication.sha256. It holds pkgcloud's output byte for byte, so that a
// change to the code's shape can show that it changes nothing else. With OPSKIT_GOLDEN_UPDATE
// set, the test writes the file instead; a change of output is then a reviewed diff.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "../../repo/deb_builder.hpp"
#include "../../repo/rpm_builder.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/digest.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

const std::string k_golden = std::string(OPSKIT_TEST_DATA) + "/golden/publication.sha256";

// A deb whose control.tar and data.tar are both compressed as `compression` ("" for none).
std::string deb(const std::string& name, const std::string& version, const std::string& arch,
                const std::string& compression, const std::string& data) {
  std::string suffix = compression.empty() ? "" : "." + compression;
  return make_ar(
      {{"debian-binary", "2.0\n"},
       {"control.tar" + suffix, make_tar("./control", control(name, version, arch), compression)},
       {"data.tar" + suffix, make_tar("./usr/share/doc/" + name + "/README", data, compression)}});
}

// An rpm header of `name`-`version`-1.el9 for `arch` with one file, `extra` tags after the
// common ones (provides, requires, changelog).
std::string rpm(const std::string& name, const std::string& version, const std::string& arch,
                std::vector<RpmTag> extra) {
  std::vector<RpmTag> tags{
      {1000, 6, {name}, {}},
      {1001, 6, {version}, {}},
      {1002, 6, {"1.el9"}, {}},
      {1004, 9, {"Golden package " + name + " <&>"}, {}},
      {1005, 9, {"The golden repository's " + name + ".\nKept byte for byte."}, {}},
      {1006, 4, {}, {1764000000}},
      {1014, 6, {"MIT"}, {}},
      {1022, 6, {arch}, {}},
      {1030, 4, {}, {0100644}},
      {1037, 4, {}, {0}},
      {1047, 8, {name, name + "-virtual"}, {}},
      {1049, 8, {"/bin/sh", "rpmlib(CompressedFileNames)"}, {}},
      {1048, 4, {}, {1 << 9, 16777226}},
      {1050, 8, {"", "3.0.4-1"}, {}},
      {1080, 4, {}, {1763900000}},
      {1081, 8, {"Golden <golden@example.com> - " + version + "-1"}, {}},
      {1082, 8, {"- First & only <entry>"}, {}},
      {1116, 4, {}, {0}},
      {1117, 8, {arch == "src" ? name + ".spec" : "data"}, {}},
      {1118, 8, {arch == "src" ? "" : "/usr/share/" + name + "/"}, {}}};
  tags.insert(tags.end(), extra.begin(), extra.end());
  return make_rpm(tags);
}

std::string write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// InRelease's signed text: what lies between the armor's header and its signature.
std::string cleartext(const std::string& in_release) {
  auto start = in_release.find("\n\n");
  auto end = in_release.find("-----BEGIN PGP SIGNATURE-----");
  REQUIRE(start != std::string::npos);
  REQUIRE(end != std::string::npos);
  return in_release.substr(start + 2, end - start - 2);
}

// "<stage> <sha256> <path>" for every file of the publication, sorted by path; "signature" for
// the files that signatures or the key make.
std::string lines(const std::string& stage, const std::string& repo) {
  std::string out;
  for (const auto& [path, bytes] : snapshot(repo + "/public")) {
    std::string name = fs::path(path).filename().string();
    std::string hash;
    if (name == "Release.gpg" || name == "repomd.xml.asc" || path == "gpg.key" || path == "gpg.gpg")
      hash = "signature";
    else if (name == "InRelease")
      hash = opskit::repo::sha256_hex(cleartext(bytes));
    else
      hash = opskit::repo::sha256_hex(bytes);
    out += stage + " " + hash + " " + path + "\n";
  }
  return out;
}

void pkgcloud_ok(const std::string& repo, const std::vector<std::string>& args) {
  auto done = pkgcloud(repo, args, k_epoch);
  INFO(done.err);
  REQUIRE(done.exit_status == 0);
}

} // namespace

TEST_CASE("pkgcloud: a fixed set of packages makes the same publication, byte for byte",
          "[pkgcloud][golden]") {
  TempDir dir;
  std::string repo = dir / "repo", in = dir / "in";
  fs::create_directories(in);
  std::vector<std::string> debs{
      write(in + "/hello.deb", deb("hello", "1.0-1", "amd64", "gz", "hello\n")),
      write(in + "/epoch.deb", deb("epoch", "2:1.5-2", "amd64", "xz", "epoch\n")),
      write(in + "/tool.deb", deb("tool", "0.9", "all", "zst", "tool\n")),
      write(in + "/plain.deb", deb("plain", "1.0", "amd64", "", "plain\n"))};
  std::vector<std::string> rpms{
      write(in + "/rhello.rpm",
            rpm("rhello", "1.0", "x86_64", {{1044, 6, {"rhello-1.0-1.el9.src.rpm"}, {}}})),
      write(in + "/rcommon.rpm",
            rpm("rcommon", "2.0", "noarch",
                {{1003, 4, {}, {1}}, {1044, 6, {"rcommon-2.0-1.el9.src.rpm"}, {}}})),
      write(in + "/rhello.src.rpm", rpm("rhello", "1.0", "src", {{1106, 4, {}, {1}}}))};
  std::string replacement =
      write(in + "/hello-again.deb", deb("hello", "1.0-1", "amd64", "gz", "hello again\n"));

  pkgcloud_ok(repo, {"init", "--generate-key", "Golden <golden@example.com>"});
  std::vector<std::string> push{"push"};
  push.insert(push.end(), debs.begin(), debs.end());
  pkgcloud_ok(repo, push);
  pkgcloud_ok(repo, {"push", "--dist", "ubuntu/noble", "--component", "contrib", debs[0]});
  push = {"push"};
  push.insert(push.end(), rpms.begin(), rpms.end());
  pkgcloud_ok(repo, push);
  pkgcloud_ok(repo, {"push", "--replace", replacement});
  std::string actual = lines("push", repo);
  pkgcloud_ok(repo, {"rm", "plain"});
  pkgcloud_ok(repo, {"rm", "rcommon"});
  actual += lines("rm", repo);
  pkgcloud_ok(repo, {"index", "--sign"});
  actual += lines("index", repo);
  pkgcloud_ok(repo, {"verify"});

  if (std::getenv("OPSKIT_GOLDEN_UPDATE")) {
    fs::create_directories(fs::path(k_golden).parent_path());
    write(k_golden, actual);
    WARN("wrote " << k_golden);
    return;
  }
  auto expected = opskit::read_file(k_golden);
  REQUIRE(expected);
  CHECK(actual == *expected);
}
