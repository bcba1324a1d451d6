// SPDX-License-Identifier: MIT
// The truth test for deb: the real apt-get, isolated from the system's apt state, with date and
// expiry checks forced on, updating from and downloading out of a pkgcloud repository served
// over HTTP on 127.0.0.1, with the repository's exported key as the only trusted one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/index/apt/suite.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

struct SignedRepo {
  TempDir dir;
  std::string repo = dir / "repo";
  std::string key = dir / "key.gpg";
};

// A signed repository holding an amd64 package (xz), an "all" package with an epoch (gzip) and
// a zstd-compressed package, its key exported as apt's signed-by keyring. The "all" package's
// control file carries Filename and SHA512 fields of its own, as hand-made ones do: apt would
// fetch the wrong file, or fail its hash, if the index kept them.
void make_repository(SignedRepo& s) {
  auto init = pkgcloud(s.repo, {"init", "--generate-key", "Apt Test <apt@example.com>"});
  REQUIRE(init.exit_status == 0);
  auto a = dpkg_deb_build(s.dir.path(), "hello", control("hello", "1.0-1", "amd64"), "xz");
  auto b =
      dpkg_deb_build(s.dir.path(), "common",
                     control("common", "1:2.0-3", "all") +
                         "Filename: pool/elsewhere.deb\nSHA512: " + std::string(128, '0') + "\n",
                     "gzip");
  auto c = dpkg_deb_build(s.dir.path(), "zesty", control("zesty", "0.1", "amd64"), "zstd");
  auto push = pkgcloud(s.repo, {"push", a, b, c});
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  auto key = pkgcloud(s.repo, {"export-key"});
  REQUIRE(key.exit_status == 0);
  std::ofstream(s.key, std::ios::binary) << key.out;
}

} // namespace

TEST_CASE("apt: apt-get update and install --download-only from a signed repository",
          "[pkgcloud][apt][server]") {
  if (!have_program("apt-get") || !have_program("python3"))
    FAIL("apt-get and python3 are needed (scripts/dev installs them)");
  SignedRepo s;
  make_repository(s);
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt",
                  "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  CHECK(update.err.find("W:") == std::string::npos); // no warnings either
  auto install = apt({"install", "-y", "--download-only", "hello", "common", "zesty"});
  INFO(install.out << install.err);
  REQUIRE(install.exit_status == 0);
  std::string archives = s.dir / "apt/cache/archives";
  CHECK(fs::exists(archives + "/hello_1.0-1_amd64.deb"));
  CHECK(fs::exists(archives + "/common_1%3a2.0-3_all.deb"));
  CHECK(fs::exists(archives + "/zesty_0.1_amd64.deb"));
  auto policy = apt({"install", "-s", "common"});
  CHECK(policy.out.find("common (1:2.0-3") != std::string::npos);
}

TEST_CASE("apt: an arm64 machine installs from a repository of packages of all architectures "
          "that init --arch made for it",
          "[pkgcloud][apt][server]") {
  SignedRepo s;
  REQUIRE(pkgcloud(s.repo, {"init", "--generate-key", "Apt Test <apt@example.com>", "--arch",
                            "amd64, aarch64"}) // a list as people write one
              .exit_status == 0);
  auto common = dpkg_deb_build(s.dir.path(), "common", control("common", "2.0-3", "all"), "xz");
  REQUIRE(pkgcloud(s.repo, {"push", common}).exit_status == 0);
  std::ofstream(s.key, std::ios::binary) << pkgcloud(s.repo, {"export-key"}).out;
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt",
                  "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
  // An arm64 machine with nothing installed (this one's packages are amd64).
  std::string status = s.dir / "status";
  std::ofstream{status};
  auto arm64 = [&](std::vector<std::string> args) {
    args.insert(args.begin(),
                {"-o", "APT::Architecture=arm64", "-o", "Dir::State::status=" + status});
    return apt(args);
  };
  auto update = arm64({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  CHECK(update.err.find("W:") == std::string::npos); // not "doesn't support architecture"
  auto install = arm64({"install", "-y", "--download-only", "common"});
  INFO(install.out << install.err);
  CHECK(install.exit_status == 0);
  CHECK(fs::exists(s.dir / "apt/cache/archives/common_2.0-3_all.deb"));
}

TEST_CASE("apt: Packages of many runs, a push rewriting one, is read by apt-get update from xz "
          "and from gzip",
          "[pkgcloud][apt][server]") {
  SignedRepo s;
  REQUIRE(pkgcloud(s.repo, {"init", "--generate-key", "Apt Test <apt@example.com>"}).exit_status ==
          0);
  // Names that end runs, so that a few packages make several runs.
  std::vector<std::string> debs, names;
  for (int i = 0, ends = 0; names.size() < 12; ++i) {
    opskit::repo::PackageRecord r;
    r.name = "r" + std::to_string(i);
    r.version = "1.0-1";
    r.arch = "amd64";
    bool end = opskit::repo::apt_run_ends(r);
    if (end ? ends == 5 : names.size() - static_cast<std::size_t>(ends) == 7)
      continue;
    ends += end;
    names.push_back(r.name);
    debs.push_back(s.dir / (r.name + ".deb"));
    std::ofstream(debs.back(), std::ios::binary) << make_deb(control(r.name, "1.0-1", "amd64"));
  }
  std::vector<std::string> push{"push"};
  push.insert(push.end(), debs.begin(), debs.end() - 1);
  REQUIRE(pkgcloud(s.repo, push).exit_status == 0);
  std::string dir = s.repo + "/public/deb/debian/dists/bookworm/main/binary-amd64";
  auto before = *opskit::read_file(dir + "/Packages.xz");
  REQUIRE(opskit::repo::xz_blocks(before).size() >= 4);
  REQUIRE(pkgcloud(s.repo, {"push", debs.back()}).exit_status == 0);
  auto after_gz = *opskit::read_file(dir + "/Packages.gz");
  auto after_xz = *opskit::read_file(dir + "/Packages.xz");
  auto old_blocks = opskit::repo::xz_blocks(before), blocks = opskit::repo::xz_blocks(after_xz);
  REQUIRE(blocks.size() >= old_blocks.size());
  std::size_t kept = 0;
  for (const auto& b : blocks)
    for (const auto& o : old_blocks)
      kept += b.bytes == o.bytes;
  CHECK(kept >= old_blocks.size() - 1); // the push rewrote the run it went into, at most
  CHECK(opskit::repo::keyed_gzip_members(after_gz).size() == blocks.size());
  REQUIRE(pkgcloud(s.repo, {"verify"}).exit_status == 0);

  auto key = pkgcloud(s.repo, {"export-key"});
  std::ofstream(s.key, std::ios::binary) << key.out;
  HttpServer server(s.repo + "/public");
  for (const char* type : {"xz", "gz"}) {
    IsolatedApt apt(s.dir / (std::string("apt-") + type),
                    "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
    auto update =
        apt({"-o", std::string("Acquire::CompressionTypes::Order::=") + type, "-o",
             std::string("Acquire::CompressionTypes::") + (type[0] == 'x' ? "gz" : "xz") + "=false",
             "update"});
    INFO(type << ": " << update.out << update.err);
    REQUIRE(update.exit_status == 0);
    CHECK(update.out.find(std::string("Packages [")) != std::string::npos);
    for (const auto& name : names) {
      auto show = apt({"install", "-s", name});
      INFO(name << ": " << show.out << show.err);
      CHECK(show.out.find("Inst " + name + " (1.0-1") != std::string::npos);
    }
  }
}

TEST_CASE("apt: a tampered Packages file is rejected by apt-get update",
          "[pkgcloud][apt][server]") {
  SignedRepo s;
  make_repository(s);
  std::string dir = s.repo + "/public/deb/debian/dists/bookworm/main/binary-amd64";
  // Tamper with every copy apt could fetch: the plain, compressed and by-hash files.
  std::string evil = *opskit::read_file(dir + "/Packages") +
                     "\nPackage: evil\nVersion: 6.6.6\n"
                     "Architecture: amd64\nFilename: x\nSize: 1\n";
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file())
      std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << evil;
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt",
                  "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  CHECK(update.exit_status != 0);
  CHECK(apt({"install", "-s", "evil"}).exit_status != 0);
}

TEST_CASE("apt: a repository signed by another key is rejected with NO_PUBKEY",
          "[pkgcloud][apt][server]") {
  SignedRepo s;
  make_repository(s);
  SignedRepo other;
  REQUIRE(
      pkgcloud(other.repo, {"init", "--generate-key", "Other <other@example.com>"}).exit_status ==
      0);
  auto key = pkgcloud(other.repo, {"export-key"});
  std::ofstream(other.key, std::ios::binary) << key.out;
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt", "deb [signed-by=" + other.key + "] " + server.url() +
                                     "/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  CHECK(update.exit_status != 0);
  CHECK(update.err.find("NO_PUBKEY") != std::string::npos);
}

TEST_CASE("apt: a Release dated in the future is refused when date checks are on",
          "[pkgcloud][apt][server]") {
  SignedRepo s;
  REQUIRE(pkgcloud(s.repo, {"init", "--generate-key", "Apt Test <apt@example.com>"}).exit_status ==
          0);
  auto key = pkgcloud(s.repo, {"export-key"});
  std::ofstream(s.key, std::ios::binary) << key.out;
  // Two days ahead of now: apt must call it "not valid yet" (this proves the isolation forces
  // Check-Date on, which this machine's own apt configuration turns off).
  auto later = std::to_string(std::time(nullptr) + 2 * 86400);
  REQUIRE(pkgcloud(s.repo, {"index"}, later).exit_status == 0);
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt",
                  "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  CHECK(update.err.find("not valid yet") != std::string::npos);
}

namespace {

// Starts argv, lets it run for `ms` milliseconds, then kills it with SIGKILL and reaps it.
} // namespace

TEST_CASE("apt: after kill -9 at any moment of a push, apt-get still accepts the repository",
          "[pkgcloud][apt][server]") {
  SignedRepo s;
  make_repository(s);
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt",
                  "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
  std::vector<std::string> debs;
  for (int i = 0; i < 8; ++i)
    debs.push_back(dpkg_deb_build(s.dir.path(), "late" + std::to_string(i),
                                  control("late" + std::to_string(i), "1.0", "amd64")));
  for (int i = 0; i < 8; ++i) {
    // Spread the kills over a push's life: parsing, pool copy, indexing, signing, renaming.
    kill_after({tool("pkgcloud"), "--repo", s.repo, "push", debs[i]}, 4 + 13 * i);
    auto update = apt({"update"});
    INFO("killed after " << 4 + 13 * i << " ms\n" << update.out << update.err);
    REQUIRE(update.exit_status == 0);
    CHECK(update.err.find("E:") == std::string::npos);
    CHECK(apt({"install", "-s", "hello"}).exit_status == 0);
  }
  // and the repository takes the same pushes afterwards, whole
  std::vector<std::string> args{"push"};
  args.insert(args.end(), debs.begin(), debs.end());
  auto push = pkgcloud(s.repo, args);
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  // Fresh lists: the HTTP server's Last-Modified has one-second resolution, so within the same
  // second as the last update apt would be told "304 Not Modified" and keep what it has.
  fs::remove_all(s.dir / "apt/lists");
  fs::create_directories(s.dir / "apt/lists/partial");
  CHECK(apt({"update"}).exit_status == 0);
  CHECK(apt({"install", "-s", "late7"}).exit_status == 0);
}

TEST_CASE("apt: a Release past its Valid-Until is refused as expired", "[pkgcloud][apt][server]") {
  SignedRepo s;
  auto three_days_ago = std::to_string(std::time(nullptr) - 3 * 86400);
  REQUIRE(pkgcloud(s.repo,
                   {"init", "--valid-for", "1", "--generate-key", "Apt Test <apt@example.com>"},
                   three_days_ago)
              .exit_status == 0);
  std::ofstream(s.key, std::ios::binary) << pkgcloud(s.repo, {"export-key"}).out;
  CHECK(opskit::read_file(s.repo + "/public/deb/debian/dists/bookworm/Release")
            ->find("\nValid-Until: ") != std::string::npos);
  HttpServer server(s.repo + "/public");
  IsolatedApt apt(s.dir / "apt",
                  "deb [signed-by=" + s.key + "] " + server.url() + "/deb/debian bookworm main");
  auto expired = apt({"update"});
  INFO(expired.out << expired.err);
  CHECK(expired.err.find("is expired") != std::string::npos);
  // verify, which checks the repository as clients see it, says so too.
  auto verified = pkgcloud(s.repo, {"verify"});
  CHECK(verified.exit_status == 1);
  CHECK(verified.out.find("deb/debian/dists/bookworm/Release: expired ") != std::string::npos);
  REQUIRE(pkgcloud(s.repo, {"index"}).exit_status == 0); // re-signed now: valid again
  CHECK(pkgcloud(s.repo, {"verify"}).exit_status == 0);
  auto fresh = apt({"update"});
  INFO(fresh.out << fresh.err);
  CHECK(fresh.exit_status == 0);
  CHECK(fresh.err.find("expired") == std::string::npos);
}
