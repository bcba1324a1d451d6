// SPDX-License-Identifier: MIT
// The repository's operations through the library: what index, verify and sources return.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "deb_builder.hpp"
#include "opskit/repo/repository.hpp"
#include "temp_dir.hpp"

using namespace opskit::repo;
using opskit::test::make_deb;
using opskit::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string deb_control(const std::string& name, const std::string& version) {
  return "Package: " + name + "\nVersion: " + version +
         "\nArchitecture: amd64\nMaintainer: T <t@example.com>\nDescription: test\n";
}

// An unsigned repository in `dir` holding hello 1.0 and world 2.0.
Repository make_repository(const TempDir& dir) {
  Environment env;
  env.now = 1764000000;
  auto repo = Repository::init(dir / "repo", InitOptions{}, env);
  REQUIRE(repo);
  std::vector<std::string> files;
  for (auto [name, version] : {std::pair{"hello", "1.0"}, std::pair{"world", "2.0"}}) {
    std::string path = dir / (std::string(name) + ".deb");
    std::ofstream(path, std::ios::binary) << make_deb(deb_control(name, version));
    files.push_back(path);
  }
  auto pushed = repo->push(files, {});
  REQUIRE(pushed);
  REQUIRE(pushed->size() == 2);
  return std::move(*repo);
}

} // namespace

TEST_CASE("ops: index returns each index written with its packages and files", "[repo][ops]") {
  TempDir dir;
  Repository repo = make_repository(dir);
  auto report = repo.index({});
  REQUIRE(report);
  CHECK_FALSE(report->is_signed);
  REQUIRE(report->indexes.size() == 2); // the apt suite, then the default dnf repository
  const WrittenIndex& apt = report->indexes[0];
  CHECK(apt.format == PackageFormat::deb);
  CHECK(apt.dir == "deb/debian/dists/bookworm");
  CHECK(apt.packages == 2);
  // Top-level files last, and every file listed is on disk.
  REQUIRE_FALSE(apt.files.empty());
  CHECK(apt.files.back() == "Release");
  for (const auto& file : apt.files)
    CHECK(fs::exists(repo.publication() + "/" + apt.dir + "/" + file));
  const WrittenIndex& yum = report->indexes[1];
  CHECK(yum.format == PackageFormat::rpm);
  CHECK(yum.dir == "rpm/el/9/x86_64");
  CHECK(yum.packages == 0);
  REQUIRE_FALSE(yum.files.empty());
  CHECK(yum.files.back() == "repodata/repomd.xml");
}

TEST_CASE("ops: verify returns a record per problem, naming the file and what is wrong",
          "[repo][ops]") {
  TempDir dir;
  Repository repo = make_repository(dir);
  auto sound = repo.verify();
  REQUIRE(sound);
  CHECK(sound->empty());
  std::string pool = "deb/debian/pool/main/w/world/world_2.0_amd64.deb";
  std::ofstream(repo.publication() + "/" + pool, std::ios::app) << "junk";
  std::string packages = "deb/debian/dists/bookworm/main/binary-amd64/Packages";
  std::ofstream(repo.publication() + "/" + packages, std::ios::app) << "X: y\n";
  auto problems = repo.verify();
  REQUIRE(problems);
  auto of = [&](const std::string& file) {
    return std::find_if(problems->begin(), problems->end(),
                        [&](const Problem& p) { return p.file == file; });
  };
  auto damaged = of(pool);
  REQUIRE(damaged != problems->end());
  CHECK(damaged->what == "size");
  CHECK(damaged->message == pool + ": size differs from the recorded world 2.0");
  CHECK(std::stoul(damaged->found) > std::stoul(damaged->expected));
  auto index = of(packages);
  REQUIRE(index != problems->end());
  CHECK(index->what == "size");
  CHECK(std::stoul(index->found) == std::stoul(index->expected) + 5);
}

TEST_CASE("ops: sources returns each apt archive and dnf dist at the URL", "[repo][ops]") {
  TempDir dir;
  Repository repo = make_repository(dir);
  auto sources = repo.sources("https://repo.example.com/x/");
  REQUIRE(sources);
  CHECK(sources->name == "pkgcloud");
  CHECK(sources->gpg_url == "https://repo.example.com/x/gpg.gpg");
  REQUIRE(sources->apt.size() == 1);
  CHECK(sources->apt[0].uri == "https://repo.example.com/x/deb/debian");
  CHECK(sources->apt[0].suite == "bookworm");
  CHECK(sources->apt[0].components == std::vector<std::string>{"main"});
  REQUIRE(sources->dnf.size() == 1);
  CHECK(sources->dnf[0].baseurl == "https://repo.example.com/x/rpm/el/9/$basearch");
}
