// SPDX-License-Identifier: MIT
// pkgcloud out of space: a repository on a small tmpfs of the test's own, filled to within a
// little of full, and a WebDAV target (nginx) whose files and request bodies are on one. Each
// command fails in one line saying what is full, leaves everything as it was, and succeeds
// once there is room.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "published.hpp"
#include "servers.hpp"
#include "skip.hpp"
#include "tmpfs.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t k_disk = 16 << 20;
constexpr std::size_t k_kib = 1024;

// The files below `dir` that a run writes under a temporary name and renames or removes.
std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.find(".tmp-") != std::string::npos || name.starts_with(".repodata.next-"))
      found.push_back(e.path().string());
  }
  return found;
}

// A failure of pkgcloud as a user must see one on a full disk.
void check_out_of_space(const Outcome& o) {
  INFO(o.out << o.err);
  CHECK(o.exit_status == 1);
  CHECK(o.err.starts_with("pkgcloud: error: "));
  CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
  CHECK(o.err.find("No space left on device") != std::string::npos);
}

// Runs `args` on `repo` with `disk` full but for `left` bytes: it succeeds, or fails as
// check_out_of_space says, having changed nothing. Returns whether it succeeded.
bool run_short_of_space(Tmpfs& disk, const std::string& repo, std::size_t left,
                        const std::vector<std::string>& args) {
  auto before = snapshot(repo);
  disk.fill(left);
  auto outcome = pkgcloud(repo, args, k_epoch);
  disk.unfill();
  INFO(args[0] << " with " << left / k_kib << " KiB free: " << outcome.err);
  CHECK(temporaries(repo).empty());
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);
  if (outcome.exit_status == 0)
    return true;
  check_out_of_space(outcome);
  CHECK(snapshot(repo) == before);
  return false;
}

} // namespace

TEST_CASE("pkgcloud: on a full disk push and index --sign fail in one line saying so, change "
          "nothing, and succeed once there is room",
          "[pkgcloud][root]") {
  TempDir dir;
  Tmpfs disk(dir / "disk", k_disk);
  if (!disk.mounted())
    OPSKIT_SKIP(disk.why());
  std::string repo = disk / "repo";
  REQUIRE(
      pkgcloud(repo, {"init", "--generate-key", "Full <full@example.com>"}, k_epoch).exit_status ==
      0);
  std::mt19937 gen(5);
  std::vector<std::string> debs;
  for (int i = 0; i < 2; ++i)
    debs.push_back(random_deb(dir.path(), "big" + std::to_string(i), 160 * k_kib, gen));
  std::string rpm = rpm_set(dir.path(), {"small"}, "1.0", "noarch", "s").at("small");
  std::vector<std::string> push{"push", debs[0], debs[1], rpm};

  // With little room the state database cannot be opened, with more the first package or
  // the second cannot be copied, then the apt or the dnf indexes cannot be written; a push
  // of all that fails adds none.
  bool pushed = false;
  for (std::size_t left : {4, 24, 64, 120, 200, 280, 340, 360, 380, 400, 420, 440, 480, 640})
    if (!pushed)
      pushed = run_short_of_space(disk, repo, left * k_kib, push);
  CHECK(pushed);
  auto listed = pkgcloud(repo, {"ls"});
  CHECK(listed.out.find("big0") != std::string::npos);
  CHECK(listed.out.find("big1") != std::string::npos);
  CHECK(listed.out.find("small") != std::string::npos);

  bool indexed = false;
  for (std::size_t left : {4, 16, 32, 48, 64, 96, 128, 192, 256})
    if (!indexed)
      indexed = run_short_of_space(disk, repo, left * k_kib, {"index", "--sign"});
  CHECK(indexed);
}

TEST_CASE("pkgcloud: on a full disk a push of an rpm of 6,000 files fails before any index is "
          "placed",
          "[pkgcloud][root]") {
  // Its metadata (the file list, 400 KiB) goes into the database and its log, the dnf text kept
  // under .pkgcloud/ and the indexes: more than the room kept for a record of a few KiB.
  TempDir dir;
  Tmpfs disk(dir / "disk", k_disk);
  if (!disk.mounted())
    OPSKIT_SKIP(disk.why());
  std::string spec = dir / "many.spec";
  std::ofstream(spec) << "Name: many\nVersion: 1.0\nRelease: 1\nSummary: many\nLicense: MIT\n"
                         "BuildArch: noarch\n%description\nmany\n%install\n"
                         "mkdir -p %{buildroot}/usr/share/many\n"
                         "for i in $(seq 6000); do echo $i > "
                         "%{buildroot}/usr/share/many/a-file-of-a-longer-name-$i; done\n"
                         "%files\n/usr/share/many\n";
  auto built = run({"rpmbuild", "-bb", "--define", "_topdir " + (dir / "top"), "--define",
                    "__spec_install_post %{nil}", spec}); // no scripts over each file: 4x faster
  REQUIRE(built.exit_status == 0);
  std::string rpm = dir / "top/RPMS/noarch/many-1.0-1.noarch.rpm";
  std::string repo = disk / "repo";
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto deb = dpkg_deb_build(dir.path(), "small", control("small", "1.0", "amd64"));
  bool pushed = false;
  for (std::size_t left : {1400, 2000, 2600, 3200, 4400, 6000})
    if (!pushed)
      pushed = run_short_of_space(disk, repo, left * k_kib, {"push", rpm, deb});
  CHECK(pushed);
}

TEST_CASE("publish: to a WebDAV server out of space fails in one line, leaves the target as it "
          "was, and succeeds once there is room",
          "[pkgcloud][publish][server][root]") {
  require_nginx();
  Published p;
  // The server's files and the request bodies it buffers, on a disk of their own.
  Tmpfs disk(p.dir / "dav", k_disk);
  if (!disk.mounted())
    OPSKIT_SKIP(disk.why());
  Nginx nginx(disk / "nginx");
  std::vector<std::string> to = nginx.to("/repo/");
  p.publish(to);
  std::mt19937 gen(9);
  p.push({random_deb(p.dir.path(), "large", 512 * k_kib, gen)});

  std::string www = disk / "nginx/www/repo";
  auto before = snapshot(www);
  disk.fill(4 * k_kib);
  std::vector<std::string> args{"publish"};
  args.insert(args.end(), to.begin(), to.end());
  auto refused = pkgcloud_env(p.repo, p.home, args);
  disk.unfill();
  INFO(refused.err);
  CHECK(refused.exit_status == 1);
  CHECK(refused.err.starts_with("pkgcloud: error: publish to " + nginx.url() + "/repo/: "));
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK(snapshot(www) == before);
  CHECK(fs::is_empty(disk / "nginx/tmp"));
  CHECK_FALSE(fs::exists(www + "/.pkgcloud-lock.json"));

  p.publish(to);
  auto published = snapshot(www);
  for (const auto& [path, bytes] : p.files()) {
    INFO(path);
    CHECK(published[path] == bytes);
  }
}
