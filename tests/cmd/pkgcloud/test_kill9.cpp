// SPDX-License-Identifier: MIT
// kill -9 at any moment of push, index --sign, rm and publish. Each command is timed once
// uninterrupted, then killed K times after a delay drawn uniformly from [0, 1.2 x that time];
// after each kill verify passes, the real apt-get and dnf (signatures checked, fresh caches)
// accept the repository over HTTP, and for publish the target, and see the old package set or
// the new one; then the same command run to completion gives the new one.
// K is 2 here; OPSKIT_KILL9_ITERATIONS=50 is the long form, OPSKIT_KILL9_SEED replays a run.
//
// The publish target is nginx's WebDAV, not s3rver: s3rver writes an object in place as its
// body arrives, so a client killed mid-body leaves a torn object there (an empty
// repomd.xml.asc was seen), which S3 never does: its PUT stores a body whole or not at all, as
// nginx does (the body goes to client_body_temp_path and is renamed into place when complete).
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "fixture.hpp"
#include "published.hpp"
#include "servers.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

using Names = std::set<std::string>;

int iterations() {
  const char* n = std::getenv("OPSKIT_KILL9_ITERATIONS");
  return n && *n ? std::atoi(n) : 2;
}

std::uint64_t seed() {
  const char* s = std::getenv("OPSKIT_KILL9_SEED");
  return s && *s ? std::strtoull(s, nullptr, 10) : std::random_device()();
}

// What Published pushed besides the pairs of the tests: three debs and an rpm.
const Names k_published{"alpha", "beta", "gamma", "rhello"};

Names without_published(Names names) {
  for (const auto& n : k_published)
    names.erase(n);
  return names;
}

std::string show(const Names& names) {
  std::string s;
  for (const auto& n : names)
    s += (s.empty() ? "" : " ") + n;
  return "{" + s + "}";
}

// A signed repository of debs and rpms served over HTTP, and the WebDAV target it is published
// to; the random delays of the kills. The names the tests follow are each both a deb and an rpm.
class Kill9 {
public:
  explicit Kill9(const std::string& command)
      : seed_(seed()), random_(seed_), http_(p_.repo + "/public"), nginx_(p_.dir / "nginx") {
    if (iterations() > 2)
      std::cerr << "kill9 " << command << ": seed " << seed_ << ", " << iterations()
                << " iterations\n";
    push_pair("base");
  }

  const Published& p() const { return p_; }
  std::uint64_t seed_used() const { return seed_; }

  // Builds name_1.0_amd64.deb and name-1.0-1.noarch.rpm; their paths.
  std::vector<std::string> pair(const std::string& name) const {
    return {dpkg_deb_build(p_.dir.path(), name, control(name, "1.0", "amd64")),
            rpmbuild(p_.dir.path(), name, "1.0", "noarch", "", "")};
  }
  void push_pair(const std::string& name) {
    p_.push(pair(name));
    expected_.insert(name);
  }
  Names& expected() { return expected_; }

  std::vector<std::string> argv(std::vector<std::string> args) const {
    std::vector<std::string> argv{"env", "HOME=" + p_.home, tool("pkgcloud"), "--repo", p_.repo};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  std::vector<std::string> publish_args() const {
    std::vector<std::string> args{"publish"};
    auto to = nginx_.to("/cdn/");
    args.insert(args.end(), to.begin(), to.end());
    return args;
  }
  // Runs the command to completion, which must succeed; how long it took, in milliseconds.
  int timed(const std::vector<std::string>& args) const {
    auto start = std::chrono::steady_clock::now();
    auto done = run(argv(args));
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    INFO(done.err);
    REQUIRE(done.exit_status == 0);
    return static_cast<int>(ms);
  }
  // A delay drawn uniformly from [0, 1.2 x `measured`].
  int delay(int measured) {
    return std::uniform_int_distribution<int>(0, measured * 6 / 5)(random_);
  }

  // The names the repository records, but Published's.
  Names recorded() const {
    auto ls = pkgcloud(p_.repo, {"ls", "--json"});
    REQUIRE(ls.exit_status == 0);
    Names names;
    for (const auto& r : nlohmann::json::parse(ls.out))
      names.insert(r["name"].get<std::string>());
    return without_published(names);
  }
  void require_verified() const {
    auto verified = pkgcloud(p_.repo, {"verify"});
    INFO(verified.out << verified.err);
    REQUIRE(verified.exit_status == 0);
  }
  // No temporary a killed run left (".<name>.tmp-<pid>", ".repodata.next-<pid>") is in the
  // publication: the command run to completion after it swept them.
  void require_swept() const {
    for (const auto& [path, bytes] : p_.files()) {
      INFO(path);
      CHECK(path.find(".tmp-") == std::string::npos);
      CHECK(path.find(".next-") == std::string::npos);
    }
  }
  // What apt-get and dnf see of the repository served at `base`: each `before` or `after`.
  // With Moment::signatures_sent, dnf may also refuse a new repomd.xml.asc beside the old
  // repomd.xml, the one moment of a publish that no store can make atomic (pkgcloud(1)); then
  // the target must hold exactly that, and the call returns true.
  enum class Moment { any, signatures_sent };
  bool require_seen(const std::string& base, const Names& before, const Names& after,
                    Moment allowed = Moment::any) {
    INFO("before " << show(before) << ", after " << show(after));
    Names apt = without_published(seen_by_apt(base));
    INFO("apt-get sees " << show(apt));
    REQUIRE((apt == before || apt == after));
    std::string refused;
    auto dnf = seen_by_dnf(base, refused);
    if (!dnf && allowed == Moment::signatures_sent &&
        refused.find("Bad GPG signature") != std::string::npos && signatures_sent(base))
      return true;
    INFO(refused);
    REQUIRE(dnf);
    dnf = without_published(*dnf);
    INFO("dnf sees " << show(*dnf));
    REQUIRE((*dnf == before || *dnf == after));
    return false;
  }
  std::string local() const { return http_.url(); }
  std::string target() const { return nginx_.url() + "/cdn"; }

private:
  // Fresh lists each time: the servers' Last-Modified has one-second resolution.
  Names seen_by_apt(const std::string& base) {
    std::string dir = p_.dir / ("apt-" + std::to_string(++clients_));
    IsolatedApt apt(dir, "deb [signed-by=" + p_.key + "] " + base + "/deb/debian bookworm main");
    auto update = apt({"update"});
    INFO(update.out << update.err);
    REQUIRE(update.exit_status == 0);
    REQUIRE(update.err.find("E:") == std::string::npos);
    Names names;
    // the lists as apt keeps them (compressed, as this machine's apt is set to)
    for (const auto& e : fs::directory_iterator(dir + "/lists")) {
      if (e.path().filename().string().find("_Packages") == std::string::npos)
        continue;
      auto list = run({"/usr/lib/apt/apt-helper", "cat-file", e.path()});
      REQUIRE(list.exit_status == 0);
      std::istringstream in(list.out);
      for (std::string line; std::getline(in, line);)
        if (line.starts_with("Package: "))
          names.insert(line.substr(9));
    }
    fs::remove_all(dir);
    return names;
  }
  // What dnf sees; nothing when it refuses the repository (`refused` says why).
  std::optional<Names> seen_by_dnf(const std::string& base, std::string& refused) {
    std::string dir = p_.dir / ("dnf-" + std::to_string(++clients_));
    std::optional<Names> names;
    {
      IsolatedDnf dnf(dir);
      dnf.add_repo("pkgcloud", base + "/rpm/el/9/x86_64", p_.repo + "/public/gpg.key", true);
      auto query = dnf({"repoquery", "--qf", "%{name}", "--all"});
      refused = query.out + query.err;
      if (query.exit_status == 0) {
        names.emplace();
        std::istringstream lines(query.out);
        for (std::string line; std::getline(lines, line);)
          names->insert(line);
      }
    }
    fs::remove_all(dir);
    return names;
  }
  // True when `base` holds the publication's repomd.xml.asc beside another repomd.xml.
  bool signatures_sent(const std::string& base) const {
    std::string repodata = "/rpm/el/9/x86_64/repodata/repomd.xml";
    auto local = p_.files();
    return fetch(base + repodata + ".asc") == local.at(repodata.substr(1) + ".asc") &&
           fetch(base + repodata) != local.at(repodata.substr(1));
  }

  std::uint64_t seed_;
  std::mt19937_64 random_;
  Published p_;
  HttpServer http_;
  Nginx nginx_;
  Names expected_;
  int clients_ = 0;
};

} // namespace

TEST_CASE("kill9: after kill -9 at any moment of a push, verify passes, apt-get and dnf see the "
          "old packages or the new, and the push again lands them",
          "[pkgcloud][kill9][server]") {
  Kill9 k("push");
  INFO("OPSKIT_KILL9_SEED=" << k.seed_used());
  auto first = k.pair("measured");
  int measured = k.timed({"push", first[0], first[1]});
  k.expected().insert("measured");
  for (int i = 0; i < iterations(); ++i) {
    std::string name = "new" + std::to_string(i);
    auto files = k.pair(name);
    int ms = k.delay(measured);
    INFO("iteration " << i << ": killed after " << ms << " ms of " << measured);
    kill_after(k.argv({"push", files[0], files[1]}), ms);
    Names before = k.expected(), after = before;
    after.insert(name);
    k.require_verified();
    k.require_seen(k.local(), before, after);
    k.timed({"push", files[0], files[1]});
    k.require_swept();
    k.expected() = after;
    CHECK(k.recorded() == after);
  }
  k.require_verified();
  k.require_seen(k.local(), k.expected(), k.expected());
}

TEST_CASE("kill9: after kill -9 at any moment of an index --sign, verify passes and apt-get and "
          "dnf accept the repository",
          "[pkgcloud][kill9][server]") {
  Kill9 k("index");
  INFO("OPSKIT_KILL9_SEED=" << k.seed_used());
  int measured = k.timed({"index", "--sign"});
  for (int i = 0; i < iterations(); ++i) {
    int ms = k.delay(measured);
    INFO("iteration " << i << ": killed after " << ms << " ms of " << measured);
    kill_after(k.argv({"index", "--sign"}), ms);
    k.require_verified();
    k.require_seen(k.local(), k.expected(), k.expected());
    k.timed({"index", "--sign"});
    k.require_swept();
  }
  k.require_verified();
}

TEST_CASE("kill9: after kill -9 at any moment of an rm, verify passes, apt-get and dnf see the "
          "package or not, and the rm again removes it",
          "[pkgcloud][kill9][server]") {
  Kill9 k("rm");
  INFO("OPSKIT_KILL9_SEED=" << k.seed_used());
  std::vector<std::string> files;
  for (int i = 0; i <= iterations(); ++i)
    for (auto& f : k.pair("old" + std::to_string(i)))
      files.push_back(std::move(f));
  files.insert(files.begin(), "push");
  REQUIRE(pkgcloud(k.p().repo, files).exit_status == 0);
  for (int i = 1; i <= iterations(); ++i)
    k.expected().insert("old" + std::to_string(i));
  int measured = k.timed({"rm", "old0"});
  for (int i = 1; i <= iterations(); ++i) {
    std::string name = "old" + std::to_string(i);
    int ms = k.delay(measured);
    INFO("iteration " << i << ": killed after " << ms << " ms of " << measured);
    kill_after(k.argv({"rm", name}), ms);
    Names before = k.expected(), after = before;
    after.erase(name);
    k.require_verified();
    k.require_seen(k.local(), before, after);
    // again: it removes what is left, or says there is nothing left to remove
    auto again = run(k.argv({"rm", name}));
    INFO(again.err);
    k.require_swept();
    if (k.recorded().contains(name))
      FAIL("rm again left " << name);
    CHECK(
        (again.exit_status == 0 || again.err == "pkgcloud: error: rm: no package " + name + "\n"));
    k.expected() = after;
  }
  k.require_verified();
  k.require_seen(k.local(), k.expected(), k.expected());
}

TEST_CASE("kill9: after kill -9 at any moment of a publish, apt-get and dnf see the target's old "
          "packages or the new, and the next publish takes over the dead publisher's lock",
          "[pkgcloud][kill9][publish][server]") {
  require_nginx();
  Kill9 k("publish");
  INFO("OPSKIT_KILL9_SEED=" << k.seed_used());
  k.timed(k.publish_args());
  k.push_pair("measured");
  int measured = k.timed(k.publish_args());
  int between = 0; // kills that left the new dnf signature beside the old repomd.xml
  for (int i = 0; i < iterations(); ++i) {
    std::string name = "new" + std::to_string(i);
    Names before = k.expected();
    k.push_pair(name);
    int ms = k.delay(measured);
    INFO("iteration " << i << ": killed after " << ms << " ms of " << measured);
    kill_after(k.argv(k.publish_args()), ms);
    k.require_verified();
    between += k.require_seen(k.target(), before, k.expected(), Kill9::Moment::signatures_sent);
    k.timed(k.publish_args()); // at once: the dead publisher's lock is no obstacle
    k.require_swept();
    auto args = k.publish_args();
    args.push_back("--verify-remote");
    auto verified = run(k.argv(args));
    INFO(verified.out << verified.err);
    CHECK(verified.exit_status == 0);
  }
  k.require_seen(k.target(), k.expected(), k.expected());
  if (iterations() > 2)
    std::cerr << "kill9 publish: " << between << " of " << iterations()
              << " kills left the new dnf signature beside the old repomd.xml\n";
}
