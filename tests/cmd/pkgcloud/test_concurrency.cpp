// SPDX-License-Identifier: MIT
// pkgcloud run many times at once on one repository: pushes of debs and rpms, indexes and a
// publish to WebDAV (nginx), all started together; then what the real apt-get and dnf read.
#include <catch2/catch.hpp>

#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "opskit/file.hpp"
#include "published.hpp"
#include "servers.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

// apt-get update and dnf makecache from `url`, a publication of `p`, pass, and apt-get and
// dnf find each of `debs` and `rpms` there to install.
void clients_take(const Published& p, const std::string& url, const std::string& work,
                  const std::vector<std::string>& debs, const std::vector<std::string>& rpms) {
  IsolatedApt apt(work + "/apt",
                  "deb [signed-by=" + p.key + "] " + url + "/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  std::vector<std::string> install{"install", "--simulate"};
  install.insert(install.end(), debs.begin(), debs.end());
  auto simulated = apt(install);
  INFO(simulated.out << simulated.err);
  CHECK(simulated.exit_status == 0);
  for (const auto& deb : debs)
    CHECK(simulated.out.find("Inst " + deb + " ") != std::string::npos);
  IsolatedDnf dnf(work + "/dnf");
  dnf.add_repo("pkgcloud", url + "/rpm/el/9/x86_64", p.repo + "/public/gpg.key", true);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  REQUIRE(cache.exit_status == 0);
  std::string names = dnf.all("%{name}");
  for (const auto& rpm : rpms)
    CHECK(names.find(rpm + "\n") != std::string::npos);
}

// How many processes wait, within 60 s, for a lock on the file `path`: a blocked flock is a
// "->" line of /proc/locks naming the file's inode. Returns as soon as `count` do.
int lock_waiters(const std::string& path, int count) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return 0;
  const std::string inode = ":" + std::to_string(st.st_ino) + " ";
  int waiting = 0;
  for (int i = 0; i < 3000 && waiting < count; ++i) {
    if (i > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::string locks = opskit::read_file("/proc/locks").value_or("");
    waiting = 0;
    for (std::size_t at = 0; at < locks.size();) {
      std::size_t end = std::min(locks.find('\n', at), locks.size());
      std::string_view line(locks.data() + at, end - at);
      waiting +=
          line.find("->") != std::string_view::npos && line.find(inode) != std::string_view::npos;
      at = end + 1;
    }
  }
  return waiting;
}

} // namespace

TEST_CASE("pkgcloud: 16 concurrent pushes of debs and rpms, two indexes and a publish lose "
          "nothing, and the target ends equal to the publication",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  std::vector<std::string> to = nginx.to("/repo/");
  std::vector<std::string> debs, rpms, packages;
  for (int i = 0; i < 8; ++i) {
    debs.push_back("deb" + std::to_string(i));
    rpms.push_back("rpm" + std::to_string(i));
    packages.push_back(
        dpkg_deb_build(p.dir.path(), debs.back(), control(debs.back(), "1.0-1", "amd64"), "gzip"));
  }
  for (const auto& [name, file] : rpm_set(p.dir.path(), rpms, "1.0", "x86_64", "c"))
    packages.push_back(file);

  std::vector<std::future<Outcome>> runs;
  auto start = [&](std::vector<std::string> args) {
    runs.push_back(
        std::async(std::launch::async, [&p, args] { return pkgcloud_env(p.repo, p.home, args); }));
  };
  for (std::size_t i = 0; i < packages.size(); ++i) {
    start({"push", packages[i]});
    if (i == 4 || i == 11)
      start({"index", "--sign"});
    if (i == 8) {
      std::vector<std::string> publish{"publish"};
      publish.insert(publish.end(), to.begin(), to.end());
      start(publish);
    }
  }
  for (auto& r : runs) {
    auto outcome = r.get();
    INFO(outcome.out << outcome.err);
    CHECK(outcome.exit_status == 0);
  }
  auto verify = pkgcloud(p.repo, {"verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);

  // Whatever the concurrent publish caught, the clients take it.
  clients_take(p, nginx.url() + "/repo", p.dir / "caught", {"alpha"}, {"rhello"});

  // The first --delete keeps what the target's previous metadata names; the second deletes it.
  to.push_back("--delete");
  p.publish(to);
  p.publish(to);
  // (snapshot leaves out the manifest, as it does .pkgcloud/)
  CHECK(fs::exists(p.dir / "nginx/www/repo/.pkgcloud-manifest.json"));
  CHECK(snapshot(p.dir / "nginx/www/repo") == p.files());
  clients_take(p, nginx.url() + "/repo", p.dir / "final", debs, rpms);
}

TEST_CASE("pkgcloud: a command that waits for another's lock says so, and verify shares it with "
          "another reader",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}, k_epoch).exit_status == 0);
  auto deb = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"));
  int lock = ::open((repo + "/.pkgcloud/lock").c_str(), O_RDWR | O_CLOEXEC);
  REQUIRE(lock >= 0);

  REQUIRE(::flock(lock, LOCK_SH) == 0); // another verify, say
  auto verify = std::async(std::launch::async, [&] { return pkgcloud(repo, {"verify"}); });
  REQUIRE(verify.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  auto verified = verify.get();
  CHECK(verified.exit_status == 0);
  CHECK(verified.err.empty());

  REQUIRE(::flock(lock, LOCK_EX) == 0); // another push, say
  auto push = std::async(std::launch::async, [&] { return pkgcloud(repo, {"push", deb}); });
  CHECK(lock_waiters(repo + "/.pkgcloud/lock", 1) == 1);
  ::close(lock);
  auto pushed = push.get();
  CHECK(pushed.exit_status == 0);
  CHECK(pushed.err == "pkgcloud: waiting for another pkgcloud command on " + repo + " to finish\n");
}

TEST_CASE("pkgcloud: of two inits at once one makes the repository, the other finds it made",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  fs::create_directories(repo + "/.pkgcloud");
  int lock = ::open((repo + "/.pkgcloud/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  REQUIRE(lock >= 0);
  REQUIRE(::flock(lock, LOCK_EX) == 0); // both wait, past their first look for a database
  auto first = std::async(std::launch::async, [&] { return pkgcloud(repo, {"init"}); });
  auto second = std::async(std::launch::async, [&] {
    return pkgcloud(repo, {"init", "--arch", "arm64"});
  });
  CHECK(lock_waiters(repo + "/.pkgcloud/lock", 2) == 2);
  ::close(lock);
  auto a = first.get(), b = second.get();
  CHECK(a.exit_status + b.exit_status == 1);
  CHECK((a.err + b.err).find("already a repository") != std::string::npos);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}
