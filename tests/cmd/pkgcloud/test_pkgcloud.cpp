// SPDX-License-Identifier: MIT
// pkgcloud's commands through the built binary, on packages made by dpkg-deb.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <thread>

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>

#include "../../repo/deb_builder.hpp"
#include <nlohmann/json.hpp>

#include "clients.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/text.hpp"
#include "pattern.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

std::string init_repo(const TempDir& dir) {
  std::string repo = dir / "repo";
  auto init = pkgcloud(repo, {"init", "--generate-key", "Test Repo <repo@example.com>"}, k_epoch);
  REQUIRE(init.exit_status == 0);
  return repo;
}

} // namespace

TEST_CASE("pkgcloud: push records packages, ls lists them, verify finds nothing wrong",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0-1", "amd64"), "xz");
  auto b = dpkg_deb_build(dir.path(), "tool", control("tool", "2:3.0", "all"), "zstd");
  auto push = pkgcloud(repo, {"push", a, b}, k_epoch);
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  CHECK(push.out == "added hello 1.0-1 amd64 -> debian/bookworm main\n"
                    "added tool 2:3.0 all -> debian/bookworm main\n");
  CHECK(fs::exists(repo + "/public/deb/debian/pool/main/t/tool/tool_3.0_all.deb"));

  auto ls = pkgcloud(repo, {"ls", "--json"});
  REQUIRE(ls.exit_status == 0);
  CHECK(ls.out.find("\"name\": \"tool\"") != std::string::npos);
  CHECK(ls.out.find("\"version\": \"2:3.0\"") != std::string::npos);
  // push --json: each package as ls --json shows it, with what was done.
  auto c = dpkg_deb_build(dir.path(), "extra", control("extra", "1.0", "amd64"));
  auto pushed = pkgcloud(repo, {"push", "--json", c, a}, k_epoch);
  REQUIRE(pushed.exit_status == 0);
  auto json = nlohmann::json::parse(pushed.out);
  REQUIRE(json.size() == 2);
  CHECK(json[0]["action"] == "added");
  CHECK(json[0]["file"] == "deb/debian/pool/main/e/extra/extra_1.0_amd64.deb");
  CHECK(json[1]["action"] == "unchanged");
  CHECK(json[1]["name"] == "hello");
  CHECK(json[1]["dist"] == "debian/bookworm");
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);
}

TEST_CASE("pkgcloud: the same package again is a no-op, other content needs --replace",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a}, k_epoch).exit_status == 0);
  auto again = pkgcloud(repo, {"push", a}, k_epoch);
  CHECK(again.out == "unchanged hello 1.0 amd64 -> debian/bookworm main\n");

  fs::create_directories(dir / "other");
  auto changed =
      dpkg_deb_build(dir / "other", "hello", control("hello", "1.0", "amd64") + "Homepage: x\n");
  auto before = snapshot(repo);
  auto refused = pkgcloud(repo, {"push", changed}, k_epoch);
  CHECK(refused.exit_status == 1);
  CHECK(refused.err ==
        "pkgcloud: error: " + changed +
            ": hello 1.0 amd64 is already in debian/bookworm with other content (use --replace)\n");
  CHECK(snapshot(repo) == before);
  auto replaced = pkgcloud(repo, {"push", "--replace", changed}, k_epoch);
  CHECK(replaced.out == "replaced hello 1.0 amd64 -> debian/bookworm main\n");
  CHECK(opskit::read_file(repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages")
            ->find("Homepage: x") != std::string::npos);
}

TEST_CASE("pkgcloud: bad input gets one line naming the file, exit 1, repository untouched",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto good = dpkg_deb_build(dir.path(), "good", control("good", "1.0", "amd64"));
  std::ofstream(dir / "junk.deb") << "this is not a package\n";
  std::string whole = *opskit::read_file(good);
  std::ofstream(dir / "cut.deb") << whole.substr(0, whole.size() - 100);
  std::ofstream(dir / "nameless.deb") << make_deb("Version: 1.0\nArchitecture: all\n");
  std::ofstream(dir / "two\nlines.deb") << "this is not a package either\n";
  auto before = snapshot(repo);
  for (std::string bad : {"junk.deb", "cut.deb", "nameless.deb", "two\nlines.deb"}) {
    auto push = pkgcloud(repo, {"push", good, dir / bad}, k_epoch);
    INFO(bad << ": " << push.err);
    CHECK(push.exit_status == 1);
    // A newline in the name shows as \n: the message stays one line.
    CHECK(push.err.starts_with("pkgcloud: error: " + opskit::printable(dir / bad) + ": "));
    CHECK(std::count(push.err.begin(), push.err.end(), '\n') == 1);
    CHECK(snapshot(repo) == before);
  }
}

TEST_CASE("pkgcloud: a push of many packages puts each in the pool byte for byte, or none",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  // Every other package is past 256 KiB, which push maps rather than reads.
  std::mt19937 gen(7);
  std::vector<std::string> files;
  for (int i = 0; i < 6; ++i)
    files.push_back(
        random_deb(dir.path(), "many" + std::to_string(i), i % 2 ? 600 * 1024 + i : 100 + i, gen));
  std::ofstream(dir / "junk1.deb") << "not a package\n";
  std::ofstream(dir / "junk2.deb") << "not a package either\n";
  auto before = snapshot(repo);
  auto refused = pkgcloud(repo,
                          {"push", files[0], files[1], dir / "junk1.deb", files[2], files[3],
                           dir / "junk2.deb", files[4]},
                          k_epoch);
  CHECK(refused.exit_status == 1);
  CHECK(refused.err.starts_with("pkgcloud: error: " + (dir / "junk1.deb") + ": "));
  CHECK(snapshot(repo) == before);
  // Two packages of one pool file but other content: refused, and no directory made for them
  // stays behind.
  fs::create_directories(dir / "other");
  auto twin = dpkg_deb_build(dir.path(), "twin", control("twin", "1.0", "all"));
  auto other =
      dpkg_deb_build(dir / "other", "twin", control("twin", "1.0", "all") + "Homepage: x\n");
  auto twins = pkgcloud(repo, {"push", "--replace", files[1], twin, other}, k_epoch);
  CHECK(twins.exit_status == 1);
  CHECK(twins.err == "pkgcloud: error: " + other +
                         ": deb/debian/pool/main/t/twin/twin_1.0_all.deb is also the pool file of "
                         "another package of this push, with other content\n");
  CHECK_FALSE(fs::exists(repo + "/public/deb/debian/pool"));
  CHECK(snapshot(repo) == before);

  std::vector<std::string> args{"push"};
  args.insert(args.end(), files.begin(), files.end());
  auto push = pkgcloud(repo, args, k_epoch);
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  for (int i = 0; i < 6; ++i) {
    std::string name = "many" + std::to_string(i);
    INFO(name);
    auto pooled = opskit::read_file(
        fmt::format("{}/public/deb/debian/pool/main/m/{}/{}_1.0_amd64.deb", repo, name, name));
    REQUIRE(pooled);
    CHECK(*pooled == *opskit::read_file(files[i]));
  }
  for (const auto& e : fs::recursive_directory_iterator(repo))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: a package rewritten while it is pushed is refused or published as hashed",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  std::mt19937 gen(11);
  std::vector<std::string> args{"push"};
  for (int i = 0; i < 12; ++i)
    args.push_back(random_deb(dir.path(), "moving" + std::to_string(i), 900 * 1024, gen));
  // A byte of the last package's data changes all the time: between push's reading and its
  // copy, most runs. Whatever the timing, the pool never holds bytes other than those hashed.
  auto before = snapshot(repo);
  std::jthread writer([path = args.back()](std::stop_token stop) {
    opskit::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    for (unsigned char b = 0; !stop.stop_requested(); ++b)
      if (::pwrite(fd.get(), &b, 1, 1 << 19) != 1)
        return;
  });
  auto push = pkgcloud(repo, args, k_epoch);
  writer.request_stop();
  writer.join();
  INFO(push.err);
  if (push.exit_status != 0) {
    CHECK(push.err == "pkgcloud: error: " + args.back() +
                          ": changed while it was being pushed; nothing was added\n");
    CHECK(snapshot(repo) == before);
  }
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out);
  CHECK(verify.exit_status == 0);
}

TEST_CASE("pkgcloud: eight concurrent pushes lose nothing", "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  std::vector<std::string> debs;
  for (int i = 0; i < 8; ++i)
    debs.push_back(dpkg_deb_build(dir.path(), "pkg" + std::to_string(i),
                                  control("pkg" + std::to_string(i), "1.0", "amd64"), "gzip"));
  std::vector<std::future<Outcome>> runs;
  for (const auto& deb : debs)
    runs.push_back(std::async(std::launch::async, [&repo, deb] {
      return pkgcloud(repo, {"push", deb}, k_epoch);
    }));
  for (auto& r : runs) {
    auto outcome = r.get();
    INFO(outcome.err);
    CHECK(outcome.exit_status == 0);
  }
  std::string packages =
      *opskit::read_file(repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages");
  for (int i = 0; i < 8; ++i)
    CHECK(packages.find("Package: pkg" + std::to_string(i) + "\n") != std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: verify reports a tampered index and damaged or missing pool files",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto b = dpkg_deb_build(dir.path(), "world", control("world", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a, b}, k_epoch).exit_status == 0);
  fs::remove(repo + "/public/deb/debian/pool/main/w/world/world_1.0_amd64.deb");
  std::ofstream(repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages",
                std::ios::app)
      << "X: y\n";
  std::ofstream(repo + "/public/deb/debian/pool/main/h/hello/hello_1.0_amd64.deb", std::ios::app)
      << "junk";
  std::string by_hash = repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/by-hash/SHA256";
  fs::remove_all(by_hash);
  auto verify = pkgcloud(repo, {"verify"});
  CHECK(verify.exit_status == 1);
  CHECK(verify.out.find("deb/debian/dists/bookworm/main/binary-amd64/Packages: size") !=
        std::string::npos);
  // The pool files are hashed in parallel, and reported in the order of the packages.
  auto damaged = verify.out.find("deb/debian/pool/main/h/hello/hello_1.0_amd64.deb: size differs");
  auto missing = verify.out.find("deb/debian/pool/main/w/world/world_1.0_amd64.deb");
  CHECK(damaged != std::string::npos);
  CHECK(missing != std::string::npos);
  CHECK(damaged < missing);
  CHECK(verify.out.find("missing, though Release says Acquire-By-Hash") != std::string::npos);
  auto json = nlohmann::json::parse(pkgcloud(repo, {"verify", "--json"}).out);
  bool gone = false;
  for (const auto& problem : json) {
    gone = gone || (problem["file"] == "deb/debian/pool/main/w/world/world_1.0_amd64.deb" &&
                    problem["what"] == "missing" && problem["found"] == "");
    CHECK(problem.size() == 5); // file, what, expected, found, message: always all five
  }
  CHECK(gone);
}

TEST_CASE("pkgcloud: verify reports a package Packages lists that is not in the pool, or not as "
          "recorded",
          "[pkgcloud]") {
  // Indexes a killed or failed run left ahead of the database and the pool: apt would fetch a
  // file that is not there, or check it against another SHA-256.
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto b = dpkg_deb_build(dir.path(), "world", control("world", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a, b}, k_epoch).exit_status == 0);
  std::string dists = repo + "/public/deb/debian/dists";
  fs::copy(dists, dir / "dists", fs::copy_options::recursive);
  REQUIRE(pkgcloud(repo, {"rm", "world"}, k_epoch).exit_status == 0);
  fs::create_directories(dir / "other");
  auto rebuilt =
      dpkg_deb_build(dir / "other", "hello", control("hello", "1.0", "amd64") + " Rebuilt.\n");
  REQUIRE(pkgcloud(repo, {"push", "--replace", rebuilt}, k_epoch).exit_status == 0);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
  fs::remove_all(dists);
  fs::copy(dir / "dists", dists, fs::copy_options::recursive); // the indexes of before
  auto verify = pkgcloud(repo, {"verify"});
  CHECK(verify.exit_status == 1);
  CHECK(verify.out.find("deb/debian/pool/main/w/world/world_1.0_amd64.deb: listed in "
                        "deb/debian/dists/bookworm/main/binary-amd64/Packages but missing\n") !=
        std::string::npos);
  CHECK(verify.out.find("deb/debian/pool/main/h/hello/hello_1.0_amd64.deb: "
                        "deb/debian/dists/bookworm/main/binary-amd64/Packages gives ") !=
        std::string::npos);
}

TEST_CASE("pkgcloud: a component stays listed, empty, when its last package is removed",
          "[pkgcloud]") {
  // As an architecture does: a client whose sources name the component finds it.
  TempDir dir;
  std::string repo = init_repo(dir);
  auto deb = dpkg_deb_build(dir.path(), "common", control("common", "1.0", "all"));
  REQUIRE(pkgcloud(repo, {"push", "--component", "contrib", deb}, k_epoch).exit_status == 0);
  REQUIRE(pkgcloud(repo, {"rm", "common"}, k_epoch).exit_status == 0);
  std::string suite = repo + "/public/deb/debian/dists/bookworm";
  CHECK(opskit::read_file(suite + "/Release")->find("\nComponents: contrib main\n") !=
        std::string::npos);
  CHECK(opskit::read_file(suite + "/contrib/binary-amd64/Packages")->empty());
  REQUIRE(pkgcloud(repo, {"index"}, k_epoch).exit_status == 0); // the whole suite written anew
  CHECK(opskit::read_file(suite + "/Release")->find("\nComponents: contrib main\n") !=
        std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: index signs again a suite and a dnf repository that rm emptied",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto deb = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  std::string rpm = rpm_set(dir.path(), {"tool"}, "1.0", "noarch", "t").at("tool");
  REQUIRE(pkgcloud(repo, {"push", "--dist", "debian/trixie", deb}, k_epoch).exit_status == 0);
  REQUIRE(pkgcloud(repo, {"push", "--dist", "el/8", rpm}, k_epoch).exit_status == 0);
  REQUIRE(pkgcloud(repo, {"rm", "hello"}, k_epoch).exit_status == 0);
  REQUIRE(pkgcloud(repo, {"rm", "tool"}, k_epoch).exit_status == 0);
  std::string release = repo + "/public/deb/debian/dists/trixie/InRelease",
              repomd = repo + "/public/rpm/el/8/x86_64/repodata/repomd.xml";
  std::string release_before = *opskit::read_file(release),
              repomd_before = *opskit::read_file(repomd);
  auto indexed = pkgcloud(repo, {"index"}, "1764300000"); // days later: a Valid-Until renewed
  INFO(indexed.err);
  REQUIRE(indexed.exit_status == 0);
  CHECK(*opskit::read_file(release) != release_before);
  CHECK(*opskit::read_file(repomd) != repomd_before);
  CHECK(indexed.out.find("deb/debian/dists/trixie") != std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: ls, rm and prune refuse a --dist that is no DISTRO/RELEASE, rm an empty "
          "name, prune a --keep of 0, and push names the component a package is in",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a}, k_epoch).exit_status == 0);
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"ls", "--dist", "debian"},
                                             {"rm", "--dist", "debian", "hello"},
                                             {"prune", "--keep", "1", "--dist", "debian"}}) {
    auto refused = pkgcloud(repo, args);
    CHECK(refused.exit_status == 2);
    CHECK(refused.err.starts_with("pkgcloud: error: --dist: bad dist 'debian': expected "
                                  "DISTRO/RELEASE such as debian/bookworm or el/9"));
  }
  CHECK(pkgcloud(repo, {"ls", "--dist", "debian/bookworm/x"})
            .err.starts_with("pkgcloud: error: --dist: bad dist 'debian/bookworm/x': expected "
                             "DISTRO/RELEASE such as debian/bookworm or el/9"));
  CHECK(pkgcloud(repo, {"push", "--dist", "debian/..", a})
            .err.starts_with("pkgcloud: error: --dist: bad dist 'debian/..': each part must be "
                             "[a-z0-9.+_-], and not . or .."));
  for (std::string spec : {"", "=1.0", "hello="}) {
    auto empty = pkgcloud(repo, {"rm", spec});
    CHECK(empty.exit_status == 2);
    CHECK(empty.err.starts_with("pkgcloud: error: package: '" + spec +
                                "': expected NAME or NAME=VERSION"));
  }
  for (std::string keep : {"0", "010", "-1", "x"}) { // 010: not read as octal 8
    auto none = pkgcloud(repo, {"prune", "--keep", keep});
    CHECK(none.exit_status == 2);
    CHECK(none.err ==
          "pkgcloud: error: --keep: '" + keep +
              "' is not a number of versions (1 or more) (see 'pkgcloud prune --help')\n");
  }
  auto moved = pkgcloud(repo, {"push", "--component", "contrib", a});
  CHECK(moved.exit_status == 1);
  CHECK(moved.err.find("is already in debian/bookworm, in component main (use --replace to move "
                       "it to contrib)") != std::string::npos);
}

TEST_CASE("pkgcloud: a suite whose Release listed SHA512 keeps those copies one generation",
          "[pkgcloud]") {
  // Release lists MD5Sum and SHA256 alone; a Release of before listed SHA512 too, and a client
  // holding one fetches by-hash/SHA512/ while the next generation is published.
  TempDir dir;
  std::string repo = init_repo(dir);
  auto deb = [&](const std::string& name) {
    return dpkg_deb_build(dir.path(), name, control(name, "1.0", "amd64"));
  };
  REQUIRE(pkgcloud(repo, {"push", deb("hello")}, k_epoch).exit_status == 0);
  std::string suite = repo + "/public/deb/debian/dists/bookworm";
  std::string release = *opskit::read_file(suite + "/Release");
  CHECK(release.find("\nMD5Sum:\n") != std::string::npos);
  CHECK(release.find("\nSHA256:\n") != std::string::npos);
  CHECK(release.find("\nSHA1:") == std::string::npos);
  CHECK(release.find("\nSHA512:") == std::string::npos);
  CHECK_FALSE(fs::exists(suite + "/main/binary-amd64/by-hash/SHA512"));

  std::string old_copy = suite + "/main/binary-amd64/by-hash/SHA512/" + std::string(128, 'e');
  fs::create_directories(fs::path(old_copy).parent_path());
  std::ofstream(old_copy) << *opskit::read_file(suite + "/main/binary-amd64/Packages");
  std::ofstream(suite + "/Release", std::ios::app)
      << "SHA512:\n " << std::string(128, 'e') << " 1 main/binary-amd64/Packages\n";
  REQUIRE(pkgcloud(repo, {"push", deb("world")}, k_epoch).exit_status == 0);
  CHECK(fs::exists(old_copy));
  REQUIRE(pkgcloud(repo, {"push", deb("third")}, k_epoch).exit_status == 0);
  CHECK_FALSE(fs::exists(old_copy));
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: push, replace and rm change the suite's last Packages by the packages they "
          "change, and write what index writes",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto deb = [&](const std::string& name, const std::string& arch, const std::string& extra = "") {
    std::string where = dir / (name + std::to_string(extra.size()));
    fs::create_directories(where);
    return dpkg_deb_build(where, name, control(name, "1.0", arch) + extra);
  };
  std::string suite = repo + "/public/deb/debian/dists/bookworm";
  std::string packages = suite + "/main/binary-amd64/Packages";
  // What the state says the last rewrite wrote, and what it has seen change since.
  auto tracked = [&] {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open((repo + "/.pkgcloud/state.db").c_str(), &db) == SQLITE_OK);
    std::string out;
    sqlite3_exec(
        db, "SELECT path, sha256 FROM apt_texts UNION ALL SELECT name, arch FROM apt_changed",
        [](void* into, int, char** row, char**) {
          *static_cast<std::string*>(into) += std::string(row[0]) + " " + row[1] + "\n";
          return 0;
        },
        &out, nullptr);
    sqlite3_close(db);
    return out;
  };
  REQUIRE(
      pkgcloud(repo, {"push", deb("hello", "amd64"), deb("tool", "all")}, k_epoch).exit_status ==
      0);
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"push", deb("alpha", "amd64"), deb("zulu", "amd64")},
           {"push", "--replace", deb("hello", "amd64", "Homepage: x\n")},
           {"rm", "tool"},
           {"push", "--component", "contrib", deb("other", "amd64")},
           {"push", deb("middle", "all")}}) {
    auto run = pkgcloud(repo, args, k_epoch);
    INFO(args.front() << " " << args.back() << ": " << run.err);
    REQUIRE(run.exit_status == 0);
    std::string expected;
    for (const char* path : {"contrib/binary-amd64/Packages", "main/binary-amd64/Packages"})
      if (auto bytes = opskit::read_file(suite + "/" + path))
        expected += fmt::format("{} {}\n", path, opskit::repo::sha256_hex(*bytes));
    CHECK(tracked() == expected);
  }
  auto text = *opskit::read_file(packages);
  CHECK(text.find("Homepage: x") != std::string::npos);
  CHECK(text.find("Package: tool\n") == std::string::npos);
  CHECK(text.find("Package: alpha\n") < text.find("Package: hello\n"));
  CHECK(text.find("Package: middle\n") < text.find("Package: zulu\n"));

  auto files = [&] {
    std::map<std::string, std::string> out;
    for (const char* name :
         {"Release", "main/binary-amd64/Packages", "main/binary-amd64/Packages.gz",
          "main/binary-amd64/Packages.xz", "contrib/binary-amd64/Packages"})
      out[name] = *opskit::read_file(suite + "/" + name);
    return out;
  };
  auto spliced = files();
  REQUIRE(pkgcloud(repo, {"index"}, k_epoch).exit_status == 0);
  CHECK(files() == spliced);

  // A Packages file that is not the one the state knows is not spliced into: the next push
  // writes the suite from its records.
  std::ofstream(packages, std::ios::app) << "\nPackage: forged\nVersion: 1\nArchitecture: amd64\n";
  REQUIRE(pkgcloud(repo, {"push", deb("last", "amd64")}, k_epoch).exit_status == 0);
  text = *opskit::read_file(packages);
  CHECK(text.find("forged") == std::string::npos);
  CHECK(text.find("Package: last\n") != std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: index output is byte-identical for equal state and SOURCE_DATE_EPOCH",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a}, k_epoch).exit_status == 0);
  std::string release = repo + "/public/deb/debian/dists/bookworm/Release";
  std::string first = *opskit::read_file(release);
  REQUIRE(pkgcloud(repo, {"index"}, k_epoch).exit_status == 0);
  CHECK(*opskit::read_file(release) == first);
  CHECK(first.find("Date: Mon, 24 Nov 2025 16:00:00 UTC\n") != std::string::npos);
}

TEST_CASE("pkgcloud: index --rebuild recovers a repository whose database was lost", "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", "--component", "contrib", a}, k_epoch).exit_status == 0);
  std::string packages = repo + "/public/deb/debian/dists/bookworm/contrib/binary-amd64/Packages";
  std::string before = *opskit::read_file(packages);
  fs::remove(repo + "/.pkgcloud/state.db");
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto rebuilt = pkgcloud(repo, {"index", "--rebuild"}, k_epoch);
  INFO(rebuilt.err);
  REQUIRE(rebuilt.exit_status == 0);
  CHECK(rebuilt.out.starts_with("rescanned 1 package from the pool\n"));
  CHECK(*opskit::read_file(packages) == before);
}

TEST_CASE("pkgcloud: a signed repository whose database was lost is recovered with the key its "
          "clients trust",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  std::vector<std::string> init{"init", "--generate-key", "Recover <recover@example.com>"};
  REQUIRE(pkgcloud(repo, init, k_epoch).exit_status == 0);
  std::string key = *opskit::read_file(repo + "/public/gpg.gpg");
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a}, k_epoch).exit_status == 0);
  fs::remove(repo + "/.pkgcloud/state.db");
  REQUIRE(pkgcloud(repo, init, k_epoch).exit_status == 0); // as the man page says
  REQUIRE(pkgcloud(repo, {"index", "--rebuild"}, k_epoch).exit_status == 0);
  CHECK(*opskit::read_file(repo + "/public/gpg.gpg") == key);
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);
}

TEST_CASE("pkgcloud: index --rebuild records a deb of two suites in both, and in no component "
          "its Release no longer lists",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto b = dpkg_deb_build(dir.path(), "common", control("common", "1.0", "all"));
  for (const char* dist : {"debian/trixie", "debian/sid"}) {
    REQUIRE(pkgcloud(repo, {"push", "--dist", dist, a}, k_epoch).exit_status == 0);
    REQUIRE(pkgcloud(repo, {"push", "--dist", dist, "--component", "contrib", b}, k_epoch)
                .exit_status == 0);
  }
  // Its component's Packages stays behind in trixie, listed by no Release.
  REQUIRE(pkgcloud(repo, {"rm", "--dist", "debian/trixie", "common"}, k_epoch).exit_status == 0);
  auto before = pkgcloud(repo, {"ls"}).out;
  fs::remove(repo + "/.pkgcloud/state.db");
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto rebuilt = pkgcloud(repo, {"index", "--rebuild"}, k_epoch);
  INFO(rebuilt.err);
  REQUIRE(rebuilt.exit_status == 0);
  CHECK(pkgcloud(repo, {"ls"}).out == before);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: index --rebuild records a pool file replaced by hand and keeps the rest",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto b = dpkg_deb_build(dir.path(), "world", control("world", "2.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a, b}, k_epoch).exit_status == 0);
  fs::create_directories(dir / "other");
  auto changed = dpkg_deb_build(dir / "other", "hello",
                                control("hello", "1.0", "amd64") + " Rebuilt by hand.\n");
  fs::copy_file(changed, repo + "/public/deb/debian/pool/main/h/hello/hello_1.0_amd64.deb",
                fs::copy_options::overwrite_existing);
  auto rebuilt = pkgcloud(repo, {"index", "--rebuild"}, k_epoch);
  INFO(rebuilt.err);
  REQUIRE(rebuilt.exit_status == 0);
  CHECK(rebuilt.out.starts_with("rescanned 2 packages from the pool\n"));
  std::string packages =
      *opskit::read_file(repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages");
  CHECK(packages.find(" Rebuilt by hand.\n") != std::string::npos);
  CHECK(packages.find("Size: " + std::to_string(fs::file_size(changed)) + "\n") !=
        std::string::npos);
  CHECK(packages.find("Package: world\nVersion: 2.0\n") != std::string::npos);
  auto ls = pkgcloud(repo, {"ls"}, k_epoch);
  CHECK(ls.out.find("hello") != std::string::npos);
  CHECK(ls.out.find("world") != std::string::npos);
}

TEST_CASE("pkgcloud: a command on a directory without a repository says how to make one",
          "[pkgcloud]") {
  TempDir dir;
  auto ls = pkgcloud(dir.path(), {"ls"});
  CHECK(ls.exit_status == 1);
  CHECK(ls.err.find("not a pkgcloud repository") != std::string::npos);
  CHECK(ls.err.find("pkgcloud init") != std::string::npos);
  // init says what an unsigned repository means, and refuses a blank user id before it makes
  // anything.
  auto unsigned_init = pkgcloud(dir / "unsigned", {"init"});
  CHECK(unsigned_init.exit_status == 0);
  CHECK(unsigned_init.err.find("is unsigned, which apt and dnf take only with their signature "
                               "checks off") != std::string::npos);
  auto blank = pkgcloud(dir / "blank", {"init", "--generate-key", " "});
  CHECK(blank.exit_status == 2);
  CHECK(blank.err.starts_with("pkgcloud: error: --generate-key: a user id, such as 'Example "
                              "Repo <repo@example.com>', is needed"));
  CHECK_FALSE(fs::exists(dir / "blank"));
  auto passphrase = pkgcloud(dir / "unsigned", {"--passphrase-file", dir / "none", "ls"});
  CHECK(passphrase.exit_status == 1);
  CHECK(passphrase.err == "pkgcloud: error: --passphrase-file: open " + (dir / "none") +
                              ": No such file or directory\n");
  // push --json and --publish would print two documents: publish --json prints its own.
  CHECK(pkgcloud(dir / "unsigned", {"push", "--json", "--publish", "cdn", "x.deb"}).exit_status ==
        2);
}

TEST_CASE("pkgcloud: an init killed while it made its database leaves none, and runs again",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  fs::create_directories(repo + "/.pkgcloud");
  std::ofstream(repo + "/.pkgcloud/state.db.new") << "half a database"; // where it is made
  std::ofstream(repo + "/.pkgcloud/state.db.new-wal") << "and its log";
  auto killed = pkgcloud(repo, {"ls"});
  CHECK(killed.exit_status == 1);
  CHECK(killed.err.find("not a pkgcloud repository") != std::string::npos);
  auto init = pkgcloud(repo, {"init", "--generate-key", "Again <again@example.com>"}, k_epoch);
  INFO(init.err);
  REQUIRE(init.exit_status == 0);
  CHECK(fs::exists(repo + "/.pkgcloud/state.db"));
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/state.db.new"));
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/state.db.new-wal"));
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: init takes --origin and --label as one line each into every Release",
          "[pkgcloud]") {
  TempDir dir;
  auto injected = pkgcloud(dir / "r", {"init", "--label", "a\nSuite: evil"});
  CHECK(injected.exit_status == 1);
  CHECK(injected.err == "pkgcloud: error: --label 'a\\nSuite: evil': not one line of text\n");
  CHECK_FALSE(std::filesystem::exists(dir / "r"));
  REQUIRE(
      pkgcloud(dir / "r", {"init", "--origin", "Example Corp", "--label", "Tools"}).exit_status ==
      0);
  auto deb = dpkg_deb_build(dir.path(), "alpha", control("alpha", "1.0-1", "amd64"));
  REQUIRE(pkgcloud(dir / "r", {"push", deb}).exit_status == 0);
  auto release = opskit::read_file(dir / "r/public/deb/debian/dists/bookworm/Release");
  REQUIRE(release);
  CHECK(release->starts_with("Origin: Example Corp\nLabel: Tools\n"));
}

TEST_CASE("pkgcloud: a passphrase-protected key signs with the passphrase and fails without it",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  std::ofstream(dir / "pass") << "correct horse\n";
  auto init = pkgcloud(
      repo, {"--passphrase-file", dir / "pass", "init", "--generate-key", "P <p@example.com>"},
      k_epoch);
  INFO(init.err);
  REQUIRE(init.exit_status == 0);
  // The agent caches passphrases; forget them so the next run must supply one.
  run({"gpgconf", "--homedir", repo + "/.pkgcloud/gnupg", "--kill", "gpg-agent"});
  std::string in_release = repo + "/public/deb/debian/dists/bookworm/InRelease";
  std::string before = *opskit::read_file(in_release);
  auto unsigned_run = pkgcloud(repo, {"index"}, "1764000100");
  CHECK(unsigned_run.exit_status == 1);
  CHECK(unsigned_run.err.find("sign deb/debian/dists/bookworm/InRelease") != std::string::npos);
  CHECK(*opskit::read_file(in_release) == before); // nothing unsigned was published
  auto signed_run = pkgcloud(repo, {"--passphrase-file", dir / "pass", "index"}, "1764000100");
  INFO(signed_run.err);
  CHECK(signed_run.exit_status == 0);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: a push --replace whose indexes cannot be signed leaves the pool file as it "
          "was",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  std::ofstream(dir / "pass") << "correct horse\n";
  REQUIRE(pkgcloud(repo, {"--passphrase-file", dir / "pass", "init", "--generate-key",
                          "P <p@example.com>"})
              .exit_status == 0);
  auto first = dpkg_deb_build(dir / "one", "hello", control("hello", "1.0-1", "amd64"), "xz");
  auto second = dpkg_deb_build(dir / "two", "hello",
                               control("hello", "1.0-1", "amd64") + "X-Build: 2\n", "xz");
  REQUIRE(pkgcloud(repo, {"--passphrase-file", dir / "pass", "push", first}).exit_status == 0);
  std::string pool = repo + "/public/deb/debian/pool/main/h/hello/hello_1.0-1_amd64.deb";
  std::string before = *opskit::read_file(pool);
  run({"gpgconf", "--homedir", repo + "/.pkgcloud/gnupg", "--kill", "gpg-agent"});
  auto replaced = pkgcloud(repo, {"push", "--replace", second}); // no passphrase: cannot sign
  CHECK(replaced.exit_status == 1);
  CHECK(*opskit::read_file(pool) == before);
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);
}

TEST_CASE("pkgcloud: prune --keep keeps the newest versions by dpkg order, epochs included",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  std::vector<std::string> args{"push"};
  for (std::string version : {"1.9", "1.10", "1:0.1", "1.10~rc1"}) {
    std::string sub = dir / ("v" + std::to_string(args.size()));
    fs::create_directories(sub);
    args.push_back(dpkg_deb_build(sub, "tool", control("tool", version, "amd64")));
  }
  REQUIRE(pkgcloud(repo, args, k_epoch).exit_status == 0);
  // ls lists them in the same order, oldest first.
  std::vector<std::string> listed;
  for (const auto& p : nlohmann::json::parse(pkgcloud(repo, {"ls", "--json"}).out))
    listed.push_back(p["version"]);
  CHECK(listed == std::vector<std::string>{"1.9", "1.10~rc1", "1.10", "1:0.1"});
  auto prune = pkgcloud(repo, {"prune", "--keep", "2"}, k_epoch);
  INFO(prune.err);
  REQUIRE(prune.exit_status == 0);
  CHECK(prune.out == "removed tool 1.10~rc1 amd64 from debian/bookworm\n"
                     "removed tool 1.9 amd64 from debian/bookworm\n");
  auto pruned = pkgcloud(repo, {"prune", "--keep", "1", "--json"}, k_epoch);
  auto json = nlohmann::json::parse(pruned.out);
  REQUIRE(json.size() == 1);
  CHECK(json[0]["version"] == "1.10");
  std::string packages =
      *opskit::read_file(repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages");
  CHECK(packages.find("Version: 1:0.1\n") != std::string::npos);
  CHECK(packages.find("Version: 1.10\n") == std::string::npos);
  CHECK(packages.find("Version: 1.9\n") == std::string::npos);
  CHECK_FALSE(fs::exists(repo + "/public/deb/debian/pool/main/t/tool/tool_1.9_amd64.deb"));
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: rm removes a package from index and pool, and says when nothing matches",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto b = dpkg_deb_build(dir.path(), "other", control("other", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a, b}, k_epoch).exit_status == 0);
  auto rm = pkgcloud(repo, {"rm", "hello=1.0"}, k_epoch);
  CHECK(rm.out == "removed hello 1.0 amd64 from debian/bookworm\n");
  std::string packages =
      *opskit::read_file(repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages");
  CHECK(packages.find("Package: hello") == std::string::npos);
  CHECK(packages.find("Package: other") != std::string::npos);
  CHECK_FALSE(fs::exists(repo + "/public/deb/debian/pool/main/h/hello/hello_1.0_amd64.deb"));
  auto again = pkgcloud(repo, {"rm", "hello"}, k_epoch);
  CHECK(again.exit_status == 1);
  CHECK(again.err == "pkgcloud: error: rm: no package hello\n");
  // A version as dpkg and rpm compare them: an epoch of 0 written or not, and an rpm's
  // version without its release naming every release of it.
  CHECK(pkgcloud(repo, {"rm", "other=0:1.0"}, k_epoch).out ==
        "removed other 1.0 amd64 from debian/bookworm\n");
  auto rpm = rpmbuild(dir.path(), "rtool", "2.0", "x86_64", "", "");
  REQUIRE(pkgcloud(repo, {"push", "--dist", "el/9", rpm}, k_epoch).exit_status == 0);
  auto removed = pkgcloud(repo, {"rm", "--json", "rtool=0:2.0"}, k_epoch);
  auto json = nlohmann::json::parse(removed.out);
  REQUIRE(json.size() == 1);
  CHECK(json[0]["name"] == "rtool");
  CHECK(json[0]["version"] == "2.0-1");
  CHECK(json[0]["format"] == "rpm");
  CHECK(json[0]["dist"] == "el/9");
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: an architecture a package brought stays listed with the all packages "
          "after the last package of it is removed",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto arm = dpkg_deb_build(dir.path(), "armtool", control("armtool", "1.0", "arm64"));
  auto all = dpkg_deb_build(dir.path(), "docs", control("docs", "1.0", "all"));
  REQUIRE(pkgcloud(repo, {"push", arm, all}, k_epoch).exit_status == 0);
  REQUIRE(pkgcloud(repo, {"rm", "armtool"}, k_epoch).exit_status == 0);
  std::string suite = repo + "/public/deb/debian/dists/bookworm/";
  auto release = opskit::read_file(suite + "Release");
  REQUIRE(release);
  CHECK(release->find("Architectures: amd64 arm64\n") != std::string::npos);
  auto packages = opskit::read_file(suite + "main/binary-arm64/Packages");
  REQUIRE(packages);
  CHECK(packages->find("Package: docs") != std::string::npos);
  CHECK(packages->find("Package: armtool") == std::string::npos);
  // An index from scratch lists it too.
  REQUIRE(pkgcloud(repo, {"index"}, k_epoch).exit_status == 0);
  CHECK(opskit::read_file(suite + "Release")->find("Architectures: amd64 arm64\n") !=
        std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: a progress bar is drawn on a terminal and never into a pipe", "[pkgcloud]") {
  if (!have_program("script"))
    FAIL("script(1) from bsdutils is needed");
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto b = dpkg_deb_build(dir.path(), "other", control("other", "1.0", "amd64"));
  auto piped = pkgcloud(repo, {"push", a}, k_epoch);
  CHECK(piped.err.empty());
  std::string command = tool("pkgcloud") + " --repo " + repo + " push " + b;
  auto on_tty = run({"script", "-qec", command, "/dev/null"});
  INFO(on_tty.out);
  CHECK(on_tty.exit_status == 0);
  CHECK(on_tty.out.find("] 2/2") != std::string::npos);
  CHECK(on_tty.out.find("added other 1.0 amd64") != std::string::npos);
}

TEST_CASE("pkgcloud: ls --dist shows one dist's packages", "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  auto first = pkgcloud(repo, {"push", "--dist", "ubuntu/noble", a}, k_epoch);
  REQUIRE(first.exit_status == 0);
  // A dist new with a push is told, in case it is a typo; one that holds packages is not.
  CHECK(first.err == "pkgcloud: ubuntu/noble held no packages before this push: clients need a "
                     "sources entry for it (pkgcloud sources prints them)\n");
  auto b = dpkg_deb_build(dir.path(), "other", control("other", "1.0", "amd64"));
  CHECK(pkgcloud(repo, {"push", "--dist", "ubuntu/noble", b}, k_epoch).err.empty());
  REQUIRE(pkgcloud(repo, {"rm", "other"}, k_epoch).exit_status == 0);
  REQUIRE(pkgcloud(repo, {"push", a}, k_epoch).exit_status == 0);
  CHECK(fs::exists(repo + "/public/deb/ubuntu/dists/noble/InRelease"));
  auto none = pkgcloud(repo, {"ls", "--dist", "ubuntu/jammy"});
  CHECK(none.exit_status == 0);
  CHECK(none.err == "pkgcloud: ubuntu/jammy holds no packages\n");
  auto ls = pkgcloud(repo, {"ls", "--dist", "ubuntu/noble"});
  CHECK(ls.out == "NAME   VERSION  ARCH   FORMAT  DIST          COMPONENT  SIZE\n"
                  "hello  1.0      amd64  deb     ubuntu/noble  main       " +
                      fmt::format("{:>4}", fs::file_size(a)) + "\n");
  CHECK(pkgcloud(repo, {"ls"}).out.find("debian/bookworm") != std::string::npos);
  // --json carries the documented fields, the pool file and SHA-256 among them
  auto json = pkgcloud(repo, {"ls", "--json", "--dist", "ubuntu/noble"});
  REQUIRE(json.exit_status == 0);
  CHECK(json.out.find("\"file\": \"deb/ubuntu/pool/main/h/hello/hello_1.0_amd64.deb\"") !=
        std::string::npos);
  CHECK(json.out.find("\"sha256\": \"" + run({"sha256sum", a}).out.substr(0, 64) + "\"") !=
        std::string::npos);
  CHECK(json.out.find("debian/bookworm") == std::string::npos);
}

TEST_CASE("pkgcloud: init --key signs with a key of $GNUPGHOME and refuses one it lacks",
          "[pkgcloud]") {
  TempDir dir;
  std::string home = dir / "gnupg";
  fs::create_directories(home);
  fs::permissions(home, fs::perms::owner_all);
  auto made =
      run({"gpg", "--homedir", home, "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
           "--quick-gen-key", "User Key <user@example.com>", "ed25519", "sign", "never"});
  REQUIRE(made.exit_status == 0);
  auto listing = run({"gpg", "--homedir", home, "--with-colons", "--list-secret-keys"});
  // "fpr:::::::::<fingerprint>:" follows the "sec:" line
  auto match = re::search(listing.out, "\nfpr:+([0-9A-F]{40}):");
  REQUIRE(match);
  std::string fpr = (*match)[1];

  std::string repo = dir / "repo";
  auto missing = run({"env", "GNUPGHOME=" + home, tool("pkgcloud"), "--repo", repo, "init", "--key",
                      std::string(40, 'A')});
  CHECK(missing.exit_status == 1);
  CHECK(missing.err ==
        "pkgcloud: error: secret key " + std::string(40, 'A') + ": not in the keyring\n");

  auto init =
      run({"env", "GNUPGHOME=" + home, tool("pkgcloud"), "--repo", repo, "init", "--key", fpr});
  INFO(init.err);
  REQUIRE(init.exit_status == 0);
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/gnupg"));
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(
      run({"env", "GNUPGHOME=" + home, tool("pkgcloud"), "--repo", repo, "push", a}).exit_status ==
      0);
  auto verify = run({"env", "GNUPGHOME=" + home, tool("pkgcloud"), "--repo", repo, "verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);
  auto exported =
      run({"env", "GNUPGHOME=" + home, tool("pkgcloud"), "--repo", repo, "export-key", "--armor"});
  CHECK(exported.out.starts_with("-----BEGIN PGP PUBLIC KEY BLOCK-----"));
  CHECK(*opskit::read_file(repo + "/public/gpg.key") == exported.out);
}

TEST_CASE("pkgcloud: temporary files a killed run left in the metadata are swept by the next",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  std::string stale =
      repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/.Packages.tmp-999999";
  std::string stale_rpm = repo + "/public/rpm/el/9/x86_64/repodata/.repomd.xml.tmp-999999";
  std::ofstream(stale) << "half written";
  std::ofstream(stale_rpm) << "half written";
  REQUIRE(pkgcloud(repo, {"index"}, k_epoch).exit_status == 0);
  CHECK_FALSE(fs::exists(stale));
  CHECK_FALSE(fs::exists(stale_rpm));
}

TEST_CASE("pkgcloud: a pool copy a killed push left half made is swept by the next push, and by "
          "index",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  // As a push killed while copying leaves it: the directory noted, then the copy begun.
  std::string pool = repo + "/public/deb/debian/pool/main/o/other";
  fs::create_directories(pool);
  std::ofstream(repo + "/.pkgcloud/staging") << "deb/debian/pool/main/o/other\n";
  std::ofstream(pool + "/.other_1.0_amd64.deb.tmp-999999") << "half copied";
  auto deb = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", deb}, k_epoch).exit_status == 0);
  CHECK_FALSE(fs::exists(pool + "/.other_1.0_amd64.deb.tmp-999999"));
  CHECK(opskit::read_file(repo + "/.pkgcloud/staging")->empty());
  CHECK(fs::exists(repo + "/public/deb/debian/pool/main/h/hello/hello_1.0_amd64.deb"));

  // One no note names (a power cut can lose one): index sweeps the whole publication.
  std::ofstream(pool + "/.other_1.0_amd64.deb.tmp-999999") << "half copied";
  REQUIRE(pkgcloud(repo, {"index"}, k_epoch).exit_status == 0);
  CHECK_FALSE(fs::exists(pool + "/.other_1.0_amd64.deb.tmp-999999"));
}

TEST_CASE("pkgcloud: index --json and verify --json report files and problems for programs",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = init_repo(dir);
  auto a = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  REQUIRE(pkgcloud(repo, {"push", a}, k_epoch).exit_status == 0);
  auto index = pkgcloud(repo, {"index", "--json"}, k_epoch);
  REQUIRE(index.exit_status == 0);
  auto report = nlohmann::json::parse(index.out);
  CHECK(report["signed"] == true);
  REQUIRE(report["indexes"].size() == 2);
  const auto& suite = report["indexes"][0];
  CHECK(suite["format"] == "deb");
  CHECK(suite["dir"] == "deb/debian/dists/bookworm");
  CHECK(suite["packages"] == 1);
  auto files = suite["files"].get<std::vector<std::string>>();
  REQUIRE(files.size() >= 3);
  CHECK(files[files.size() - 3] == "Release"); // then its signatures, InRelease last
  CHECK(files.back() == "InRelease");
  CHECK(report["indexes"][1]["dir"] == "rpm/el/9/x86_64");

  auto sound = pkgcloud(repo, {"verify", "--json"});
  CHECK(sound.exit_status == 0);
  CHECK(nlohmann::json::parse(sound.out) == nlohmann::json::array());
  std::string pool = "deb/debian/pool/main/h/hello/hello_1.0_amd64.deb";
  std::ofstream(repo + "/public/" + pool, std::ios::app) << "junk";
  auto verify = pkgcloud(repo, {"verify", "--json"});
  CHECK(verify.exit_status == 1);
  auto problems = nlohmann::json::parse(verify.out);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0]["file"] == pool);
  CHECK(problems[0]["what"] == "size");
  CHECK(std::stoul(problems[0]["found"].get<std::string>()) ==
        std::stoul(problems[0]["expected"].get<std::string>()) + 4);
  CHECK(problems[0]["message"].get<std::string>().starts_with(pool + ": size differs"));
}
