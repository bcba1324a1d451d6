// SPDX-License-Identifier: MIT
// pkgcloud publish against real servers on 127.0.0.1: s3rver (the npm package) for S3, and
// nginx with its dav module for WebDAV, which then serves the published repository to the real
// apt-get and dnf.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "opskit/file.hpp"
#include "published.hpp"
#include "servers.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

std::set<std::string> uploaded_paths(const nlohmann::json& report) {
  std::set<std::string> paths;
  for (const auto& f : report["uploaded"])
    paths.insert(f["path"].get<std::string>());
  return paths;
}

// Writes `body` to the object at `url` of s3rver, as another publisher would.
void put_object(const std::string& url, const std::string& body) {
  auto put = run({"curl", "-sf", "-X", "PUT", "--data-binary", body, "-H",
                  "x-amz-content-sha256: UNSIGNED-PAYLOAD", "--aws-sigv4", "aws:amz:us-east-1:s3",
                  "--user", "S3RVER:S3RVER", url});
  REQUIRE(put.exit_status == 0);
}

} // namespace

TEST_CASE("publish: to S3, every file the first time, nothing the second, and the bucket "
          "holds the publication byte for byte",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  std::vector<std::string> to{"--to", s3_target("repo"), "--endpoint", s3.url(), "--path-style"};

  auto first = p.publish(to);
  auto files = p.files();
  CHECK_FALSE(first["had_manifest"].get<bool>());
  CHECK(first["uploaded"].size() == files.size());
  for (const auto& [path, bytes] : files) {
    auto object = fetch(s3.url() + "/" + k_bucket + "/repo/" + path);
    INFO(path);
    REQUIRE(object);
    CHECK(*object == bytes);
  }
  // Top-level files last, pool files first, in the order reported.
  std::vector<std::string> order;
  for (const auto& f : first["uploaded"])
    order.push_back(f["path"].get<std::string>());
  auto at = [&](const std::string& suffix) {
    return std::find_if(order.begin(), order.end(),
                        [&](const std::string& s) { return s.ends_with(suffix); }) -
           order.begin();
  };
  CHECK(order.front().find("/pool/") != std::string::npos);
  CHECK(at("/InRelease") >= static_cast<long>(order.size()) - 2);
  CHECK(at("/repomd.xml") >= static_cast<long>(order.size()) - 2);
  CHECK(at("/repomd.xml.asc") < at("/repomd.xml"));
  CHECK(at("/Release") < at("/InRelease"));

  std::vector<std::string> check{"publish", "--verify-remote"};
  check.insert(check.end(), to.begin(), to.end());
  auto verified = pkgcloud_env(p.repo, p.home, check);
  INFO(verified.err);
  CHECK(verified.exit_status == 0);
  CHECK(verified.out == "ok\n");
  auto second = p.publish(to);
  CHECK(second["had_manifest"].get<bool>());
  CHECK(second["uploaded"].empty());
  CHECK(second["unchanged"] == files.size());
  CHECK(second["requests"] == nlohmann::json{{"GET", 1}}); // the manifest: no listing
}

TEST_CASE("publish: after one more deb, only its pool file, the suite's indexes and top-level "
          "files and the manifest are sent, without a listing",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  std::vector<std::string> to{"--to", s3_target(""), "--endpoint", s3.url(), "--path-style"};
  p.publish(to);
  auto deb = dpkg_deb_build(p.dir.path(), "delta", control("delta", "2.0-1", "amd64"), "xz");
  REQUIRE(pkgcloud(p.repo, {"push", deb}).exit_status == 0);

  auto report = p.publish(to);
  auto sent = uploaded_paths(report);
  CHECK(sent.contains("deb/debian/pool/main/d/delta/delta_2.0-1_amd64.deb"));
  CHECK(sent.contains("deb/debian/dists/bookworm/InRelease"));
  for (const auto& path : sent) {
    INFO(path);
    CHECK((path.starts_with("deb/debian/dists/bookworm/") ||
           path == "deb/debian/pool/main/d/delta/delta_2.0-1_amd64.deb"));
  }
  // GETs of the manifest (before and under the lock) and of the lock (before and after writing
  // it); PUTs of the files, the lock and the manifest; the lock's DELETE. No LIST.
  CHECK(report["requests"]["GET"] == 4);
  CHECK(report["requests"]["PUT"] == sent.size() + 2);
  CHECK(report["requests"]["DELETE"] == 1);
  CHECK(fetch(s3.url() + "/" + k_bucket + "/deb/debian/pool/main/d/delta/delta_2.0-1_amd64.deb"));
}

TEST_CASE("publish: packages over 64 MiB go to S3 in parts, each request signed as botocore "
          "signs it, completed together, and arrive whole, and under a higher threshold in one PUT",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  S3Proxy proxy(s3.url(), p.dir / "proxy.log",
                {"--check-sigv4", std::string(k_key_id) + ":" + k_secret + ":us-east-1"});
  for (std::string name : {"big", "huge"}) {
    std::string src = p.dir / name;
    fs::create_directories(src + "/DEBIAN");
    fs::create_directories(src + "/usr/share/" + name);
    std::ofstream(src + "/DEBIAN/control") << control(name, "1.0-1", "amd64");
    REQUIRE(
        run({"sh", "-c", "head -c 68000000 /dev/urandom > " + src + "/usr/share/" + name + "/data"})
            .exit_status == 0);
    std::string deb = p.dir / (name + "_1.0-1_amd64.deb");
    REQUIRE(run({"dpkg-deb", "-Znone", "--root-owner-group", "--build", src, deb}).exit_status ==
            0);
    REQUIRE(pkgcloud(p.repo, {"push", deb}).exit_status == 0);
  }

  auto report = p.publish({"--to", s3_target("big"), "--endpoint", proxy.url(), "--path-style"});
  // For each: one POST to begin, 5 parts of 16 MiB at most, one POST to complete.
  CHECK(report["requests"]["POST"] == 4);
  CHECK(report["requests"]["PUT"] == p.files().size() - 2 + 2 * 5 + 2);
  // Both uploads are begun and sent before either is completed.
  std::vector<std::string> posts;
  for (const auto& r : proxy.requests()) {
    INFO(r.dump());
    CHECK(r["signature_ok"] == true);
    CHECK(r["payload_ok"] == true);
    if (r["method"] == "POST")
      posts.push_back(r["path"].get<std::string>().find("uploadId") != std::string::npos
                          ? "complete"
                          : "begin");
  }
  CHECK(posts == std::vector<std::string>{"begin", "begin", "complete", "complete"});
  // Each completion names its parts by the ETags S3 answered, quoted as S3 wants them.
  std::size_t named = 0;
  for (const auto& r : proxy.requests())
    for (const auto& etag : r.value("etags", nlohmann::json::array())) {
      ++named;
      CHECK(std::regex_match(etag.get<std::string>(), std::regex("\"[0-9a-f]{32}\"")));
    }
  CHECK(named == 2 * 5);
  for (std::string name : {"big", "huge"}) {
    std::string path =
        "deb/debian/pool/main/" + name.substr(0, 1) + "/" + name + "/" + name + "_1.0-1_amd64.deb";
    auto object = fetch(s3.url() + "/" + k_bucket + "/big/" + path);
    REQUIRE(object);
    CHECK(*object == p.files().at(path));
  }

  // With a threshold above their size, as for a store that assembles parts slowly, each goes
  // in one PUT; out of S3's bounds, the threshold is refused in one line before any request.
  auto whole = p.publish({"--to", s3_target("whole"), "--endpoint", proxy.url(), "--path-style",
                          "--multipart-threshold", "100MiB"});
  CHECK_FALSE(whole["requests"].contains("POST"));
  CHECK(whole["requests"]["PUT"] == p.files().size() + 2);
  auto object =
      fetch(s3.url() + "/" + k_bucket + "/whole/deb/debian/pool/main/h/huge/huge_1.0-1_amd64.deb");
  REQUIRE(object);
  CHECK(*object == p.files().at("deb/debian/pool/main/h/huge/huge_1.0-1_amd64.deb"));
  std::size_t requests = proxy.requests().size();
  auto small = pkgcloud(p.repo, {"publish", "--to", s3_target("small"), "--endpoint", proxy.url(),
                                 "--path-style", "--multipart-threshold", "1MiB"});
  CHECK(small.exit_status == 2); // a mistake of the command line
  CHECK(small.err == "pkgcloud: error: --multipart-threshold: 1048576 bytes: S3 takes from 5 MiB "
                     "(5242880) to 5 GiB (5368709120) (see 'pkgcloud publish --help')\n");
  CHECK(proxy.requests().size() == requests);
}

TEST_CASE("publish: --dry-run lists what it would send and sends nothing, and a name that is not "
          "UTF-8 stops it before it sends",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  auto out = pkgcloud_env(
      p.repo, p.home,
      {"publish", "--to", s3_target("x"), "--endpoint", s3.url(), "--path-style", "--dry-run"});
  INFO(out.err);
  REQUIRE(out.exit_status == 0);
  CHECK(out.out.find("send deb/debian/dists/bookworm/InRelease (") != std::string::npos);
  CHECK(out.out.find("would publish to s3://pkgcloud-test/x: ") != std::string::npos);
  CHECK_FALSE(fetch(s3.url() + "/" + k_bucket + "/x/.pkgcloud-manifest.json"));
  CHECK_FALSE(fetch(s3.url() + "/" + k_bucket + "/x/deb/debian/dists/bookworm/InRelease"));

  // A file whose name S3 cannot take as a key (not UTF-8) stops publish before it sends anything.
  std::ofstream(p.repo + "/public/notes-caf\xe9.txt") << "notes\n";
  auto latin1 = pkgcloud_env(
      p.repo, p.home,
      {"publish", "--to", s3_target("x"), "--endpoint", s3.url(), "--path-style", "--json"});
  CHECK(latin1.exit_status == 1);
  CHECK(latin1.err.find("public/notes-caf\\xe9.txt: the name is not UTF-8") != std::string::npos);
  CHECK(std::count(latin1.err.begin(), latin1.err.end(), '\n') == 1);
  CHECK_FALSE(fetch(s3.url() + "/" + k_bucket + "/x/deb/debian/dists/bookworm/InRelease"));
}

TEST_CASE("publish: --delete removes what the publication no longer has, and only with it",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  std::vector<std::string> to{"--to", s3_target("r"), "--endpoint", s3.url(), "--path-style"};
  p.publish(to);
  std::string gone =
      s3.url() + "/" + k_bucket + "/r/deb/debian/pool/main/b/beta/beta_1.0-1_amd64.deb";
  REQUIRE(fetch(gone));
  REQUIRE(pkgcloud(p.repo, {"rm", "beta"}).exit_status == 0);
  auto kept = p.publish(to);
  CHECK(kept["deleted"].empty());
  CHECK(fetch(gone));
  to.push_back("--delete");
  auto deleted = p.publish(to);
  CHECK_FALSE(fetch(gone));
  // Besides the package, only by-hash copies older than the previous generation go: the
  // publication keeps the generation before the current one, and so does the target.
  auto files = p.files();
  std::set<std::string> removed;
  for (const auto& path : deleted["deleted"])
    removed.insert(path.get<std::string>());
  CHECK(removed.contains("deb/debian/pool/main/b/beta/beta_1.0-1_amd64.deb"));
  for (const auto& path : removed) {
    INFO(path);
    CHECK_FALSE(files.contains(path));
    CHECK(
        (path.find("/by-hash/") != std::string::npos || path.find("/pool/") != std::string::npos));
  }
  for (const auto& [path, bytes] : files)
    if (path.find("/by-hash/") != std::string::npos)
      CHECK(fetch(s3.url() + "/" + k_bucket + "/r/" + path) == bytes);
}

TEST_CASE("publish: --delete keeps for one more publish what the target's previous metadata "
          "names, listed until it is gone",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  std::vector<std::string> to{"--to",   s3_target("g"), "--endpoint",
                              s3.url(), "--path-style", "--delete"};
  p.publish(to);
  std::string beta = "deb/debian/pool/main/b/beta/beta_1.0-1_amd64.deb";
  std::string root = s3.url() + "/" + k_bucket + "/g/";
  // The target's InRelease names beta, and by-hash files of Packages that hold it.
  auto old_release = fetch(root + "deb/debian/dists/bookworm/InRelease");
  REQUIRE(old_release);
  std::vector<std::string> by_hash;
  for (const auto& [path, bytes] : p.files())
    if (path.find("/by-hash/") != std::string::npos)
      by_hash.push_back(path);
  REQUIRE_FALSE(by_hash.empty());
  // Two rewrites before the next publish: the publication no longer has the first's files.
  REQUIRE(pkgcloud(p.repo, {"rm", "beta"}).exit_status == 0);
  p.push({dpkg_deb_build(p.dir.path(), "delta", control("delta", "1.0-1", "amd64"))});
  auto first = p.publish(to);
  CHECK(first["deleted"].empty()); // a client holding the old InRelease still finds them
  CHECK(fetch(root + beta));
  for (const auto& path : by_hash) {
    INFO(path);
    CHECK(fetch(root + path));
  }
  auto manifest = nlohmann::json::parse(*fetch(root + ".pkgcloud-manifest.json"));
  CHECK(manifest["files"][beta]["superseded"] == true);
  auto second = p.publish(to);
  std::set<std::string> deleted;
  for (const auto& path : second["deleted"])
    deleted.insert(path.get<std::string>());
  CHECK(deleted.contains(beta));
  CHECK_FALSE(fetch(root + beta));
  manifest = nlohmann::json::parse(*fetch(root + ".pkgcloud-manifest.json"));
  CHECK_FALSE(manifest["files"].contains(beta)); // listed until gone, and no longer
  CHECK(p.publish(to)["deleted"].empty());
}

TEST_CASE("publish: a target held by another publisher's lock is refused, one that expired is "
          "taken",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  std::string lock = s3.url() + "/" + k_bucket + "/l/.pkgcloud-lock.json";
  auto put_lock = [&](long expires) {
    std::string body =
        R"({"owner":"builder-7 pid 42","token":"abc","expires":)" + std::to_string(expires) + "}";
    put_object(lock, body);
  };
  put_lock(std::time(nullptr) + 3600);
  std::vector<std::string> args{"publish",    "--to",   s3_target("l"),
                                "--endpoint", s3.url(), "--path-style"};
  auto refused = pkgcloud_env(p.repo, p.home, args);
  CHECK(refused.exit_status == 1);
  CHECK(refused.err.find("being published by builder-7 pid 42") != std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK_FALSE(fetch(s3.url() + "/" + k_bucket + "/l/.pkgcloud-manifest.json"));

  // Taken on the condition that it is still the expired one: If-Match of its ETag, as read.
  put_lock(std::time(nullptr) - 1);
  S3Proxy proxy(s3.url(), p.dir / "proxy.log", {});
  args[4] = proxy.url();
  auto taken = pkgcloud_env(p.repo, p.home, args);
  INFO(taken.err);
  CHECK(taken.exit_status == 0);
  std::vector<std::string> conditions;
  for (const auto& r : proxy.requests())
    if (r.contains("if_match"))
      conditions.push_back(r["if_match"]);
  REQUIRE(conditions.size() == 1);
  CHECK(std::regex_match(conditions[0], std::regex("\"[0-9a-f]{32}\"")));
  CHECK(fetch(s3.url() + "/" + k_bucket + "/l/.pkgcloud-manifest.json"));
  CHECK_FALSE(fetch(lock)); // released
}

TEST_CASE("publish: a lock left by a publisher of this machine that is no longer running is "
          "taken at once, one of a process still running is not",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  std::string lock = s3.url() + "/" + k_bucket + "/l/.pkgcloud-lock.json";
  std::string boot_id = opskit::read_file("/proc/sys/kernel/random/boot_id")->substr(0, 36);
  std::string pid_namespace = fs::read_symlink("/proc/self/ns/pid");
  auto put_lock = [&](int pid, const std::string& started) {
    std::string body = R"({"owner":"here pid )" + std::to_string(pid) +
                       R"(","token":"abc","expires":)" + std::to_string(std::time(nullptr) + 3600) +
                       R"(,"boot_id":")" + boot_id + R"(","pid_namespace":")" + pid_namespace +
                       R"(","pid":)" + std::to_string(pid) + R"(,"started":)" + started + "}";
    put_object(lock, body);
  };
  std::vector<std::string> args{"publish",    "--to",   s3_target("l"),
                                "--endpoint", s3.url(), "--path-style"};
  // this test's own process, named with its start time: alive
  std::string stat = *opskit::read_file("/proc/self/stat");
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string started;
  for (int i = 3; i <= 22; ++i)
    fields >> started;
  put_lock(::getpid(), started);
  auto refused = pkgcloud_env(p.repo, p.home, args);
  CHECK(refused.exit_status == 1);
  CHECK(refused.err.find("being published by here pid " + std::to_string(::getpid())) !=
        std::string::npos);

  pid_t gone = spawn_quiet({"true"});
  ::waitpid(gone, nullptr, 0);
  put_lock(gone, "1");
  auto taken = pkgcloud_env(p.repo, p.home, args);
  INFO(taken.err);
  CHECK(taken.exit_status == 0);
  CHECK(taken.err.find("taking over the lock of here pid " + std::to_string(gone) +
                       ", which is no longer running") != std::string::npos);
  CHECK(fetch(s3.url() + "/" + k_bucket + "/l/.pkgcloud-manifest.json"));
  CHECK_FALSE(fetch(lock));
}

TEST_CASE("publish: a failure is one line naming the target and why, and no secret is printed",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  auto missing = pkgcloud_env(
      p.repo, p.home,
      {"publish", "--to", "s3://no-such-bucket/x", "--endpoint", s3.url(), "--path-style"});
  CHECK(missing.exit_status == 1);
  CHECK(missing.err.find("publish to s3://no-such-bucket/x") != std::string::npos);
  CHECK(missing.err.find("HTTP 404") != std::string::npos);
  CHECK(std::count(missing.err.begin(), missing.err.end(), '\n') == 1);

  ClosedPort closed;
  auto down = pkgcloud_env(p.repo, p.home,
                           {"publish", "--to", s3_target("x"), "--endpoint",
                            "http://127.0.0.1:" + std::to_string(closed.port()), "--path-style"});
  INFO(down.err);
  CHECK(down.exit_status == 1);
  CHECK(down.err.find("127.0.0.1") != std::string::npos);
  for (const auto* o : {&missing, &down}) {
    CHECK(o->out.find(k_secret) == std::string::npos);
    CHECK(o->err.find(k_secret) == std::string::npos);
  }
  auto bad = pkgcloud_env(p.repo, p.home, {"publish", "--to", "ftp://host/x"});
  CHECK(bad.exit_status == 1);
  CHECK(bad.err.find("ftp://host/x: not a publish target") != std::string::npos);
  // A password in the URL is refused before anything is saved, and never printed.
  auto password =
      pkgcloud_env(p.repo, p.home,
                   {"publish", "--to", "https://alice:s3cret@127.0.0.1:1/repo/", "--save", "dav"});
  CHECK(password.exit_status == 1);
  CHECK(password.err.find("https://127.0.0.1:1/repo/: a user name or password") !=
        std::string::npos);
  CHECK(password.err.find("s3cret") == std::string::npos);
  CHECK(pkgcloud_env(p.repo, p.home, {"publish", "dav"}).err.find("s3cret") == std::string::npos);
  for (std::string given :
       {"HTTPS://alice:s3cret@127.0.0.1:1/repo/", "alice:s3cret@host/repo",
        "https://alice:s3#cret@127.0.0.1:1/repo/", "https://alice:s3/cret@127.0.0.1:1/repo/",
        "https://alice:12/cret@127.0.0.1:1/repo/"}) {
    INFO(given);
    auto named = pkgcloud_env(p.repo, p.home, {"publish", given});
    CHECK(named.exit_status == 1);
    CHECK((named.err.find("neither a URL") != std::string::npos ||
           named.err.find("a user name or password") != std::string::npos));
    CHECK(named.err.find("cret") == std::string::npos);
  }
  // Each file's path goes after the URL: never after a query, which would name one resource.
  auto query = pkgcloud_env(p.repo, p.home, {"publish", "--to", "https://127.0.0.1:1/r?x=1"});
  CHECK(query.exit_status == 1);
  CHECK(query.err.find("has no query (?) or fragment (#)") != std::string::npos);
  // Two targets, or none, is a mistake of the command line.
  CHECK(pkgcloud_env(p.repo, p.home, {"publish"}).exit_status == 2);
  CHECK(pkgcloud_env(p.repo, p.home, {"publish", "dav", "--to", s3_target("x")}).exit_status == 2);
}

TEST_CASE("publish: TLS is verified, a certificate not trusted is one line, --ca-file trusts one",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx", Tls::on);
  std::vector<std::string> to = nginx.login();
  to.insert(to.begin(), {"publish", "--to", nginx.url() + "/repo/"});
  auto untrusted = pkgcloud_env(p.repo, p.home, to);
  INFO(untrusted.err);
  CHECK(untrusted.exit_status == 1);
  CHECK(untrusted.err.find("publish to " + nginx.url() + "/repo/") != std::string::npos);
  CHECK(untrusted.err.find("certificate") != std::string::npos);
  CHECK(std::count(untrusted.err.begin(), untrusted.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(p.dir / "nginx/www/repo"));

  to.erase(to.begin());
  to.insert(to.end(), {"--ca-file", p.dir / "nginx/cert.pem"});
  CHECK(p.publish(to)["uploaded"].size() == p.files().size());
  CHECK(std::filesystem::exists(p.dir / "nginx/www/repo/.pkgcloud-manifest.json"));
}

TEST_CASE("publish: a target saved with --save is published by name, with settings given beside "
          "it, and by push --publish",
          "[pkgcloud][publish][server]") {
  Published p;
  S3rver s3(p.dir / "s3");
  auto saved = p.publish(
      {"--to", s3_target("saved"), "--endpoint", s3.url(), "--path-style", "--save", "mirror"});
  CHECK_FALSE(saved["uploaded"].empty());
  auto again = p.publish({"mirror"});
  CHECK(again["uploaded"].empty());

  auto deb = dpkg_deb_build(p.dir.path(), "epsilon", control("epsilon", "1.0-1", "amd64"), "xz");
  auto push = pkgcloud_env(p.repo, p.home, {"push", "--publish", "mirror", deb});
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  CHECK(push.out.find("added epsilon 1.0-1 amd64") != std::string::npos);
  CHECK(fetch(s3.url() + "/" + k_bucket +
              "/saved/deb/debian/pool/main/e/epsilon/epsilon_1.0-1_amd64.deb"));
  // A setting given beside the name takes the saved one's place, for this run only.
  auto elsewhere =
      pkgcloud_env(p.repo, p.home, {"publish", "mirror", "--endpoint", "http://127.0.0.1:1"});
  CHECK(elsewhere.exit_status == 1);
  CHECK(elsewhere.err.find("127.0.0.1 port 1 ") != std::string::npos);
  CHECK(p.publish({"mirror"})["uploaded"].empty());
  auto unknown = pkgcloud_env(p.repo, p.home, {"publish", "elsewhere"});
  CHECK(unknown.exit_status == 1);
  CHECK(unknown.err.find("no target saved as 'elsewhere'") != std::string::npos);
  // push --publish to a target that is not there fails before the push.
  auto zeta = dpkg_deb_build(p.dir.path(), "zeta", control("zeta", "1.0-1", "amd64"), "xz");
  auto nowhere = pkgcloud_env(p.repo, p.home, {"push", "--publish", "elsewhere", zeta});
  CHECK(nowhere.exit_status == 1);
  CHECK(nowhere.err.find("no target saved as 'elsewhere'") != std::string::npos);
  CHECK(pkgcloud(p.repo, {"ls"}).out.find("zeta") == std::string::npos);
}

TEST_CASE("publish: a target saved with a file's relative name is published by name from "
          "elsewhere, and a password file needs its user",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  fs::copy_file(p.dir / "nginx/password", p.dir / "password");
  auto saved = run({"sh", "-c",
                    "cd " + p.dir.path() + " && env HOME=" + p.home + " " + tool("pkgcloud") +
                        " --repo repo publish --to " + nginx.url() +
                        "/repo/ --user pub --password-file password --save dav"});
  INFO(saved.err);
  REQUIRE(saved.exit_status == 0);
  auto by_name = pkgcloud_env(p.repo, p.home, {"publish", "dav", "--json"});
  INFO(by_name.err);
  CHECK(by_name.exit_status == 0);
  CHECK(fs::exists(p.dir / "nginx/www/repo/.pkgcloud-manifest.json"));

  auto no_user = pkgcloud_env(
      p.repo, p.home,
      {"publish", "--to", nginx.url() + "/repo/", "--password-file", p.dir / "password"});
  CHECK(no_user.exit_status == 1);
  CHECK(no_user.err.find("--password-file: give the user") != std::string::npos);
}

TEST_CASE("publish: a manifest on the target naming a path above it is not followed, and "
          "--delete deletes nothing outside the target",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  p.publish(nginx.to("/t/sub/"));
  std::string www = p.dir / "nginx/www";
  std::ofstream(www + "/t/victim.txt") << "keep me\n";
  auto manifest = nlohmann::json::parse(*opskit::read_file(www + "/t/sub/.pkgcloud-manifest.json"));
  manifest["files"]["../victim.txt"] = {
      {"sha256", std::string(64, '0')}, {"size", 8}, {"superseded", true}};
  std::ofstream(www + "/t/sub/.pkgcloud-manifest.json") << manifest.dump();
  std::ofstream(p.repo + "/public/extra.txt") << "one more file, so that there is work\n";
  auto published = pkgcloud_env(p.repo, p.home, publish_args(nginx.to("/t/sub/"), {"--delete"}));
  INFO(published.err);
  CHECK(published.exit_status == 0);
  CHECK(published.err.find("a path that is not a file below the target: ../victim.txt") !=
        std::string::npos);
  CHECK(fs::exists(www + "/t/victim.txt"));
}

TEST_CASE("publish: to WebDAV (nginx), from which apt-get and dnf install",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  std::vector<std::string> to = nginx.to("/repo/");
  auto report = p.publish(to);
  CHECK(report["uploaded"].size() == p.files().size());
  // nginx makes the collections a PUT goes in: no MKCOL, one PUT a file, the lock's, the
  // manifest's.
  CHECK_FALSE(report["requests"].contains("MKCOL"));
  CHECK(report["requests"]["PUT"] == p.files().size() + 2);

  // Top-level files are the last PUTs before the manifest's.
  std::vector<std::string> puts;
  std::ifstream log(p.dir / "nginx/access.log");
  for (std::string line; std::getline(log, line);)
    if (auto at = line.find("\"PUT "); at != std::string::npos)
      puts.push_back(line.substr(at + 5, line.find(' ', at + 5) - at - 5));
  REQUIRE(puts.size() >= 4);
  CHECK(puts.back() == "/repo/.pkgcloud-manifest.json");
  std::set<std::string> last{puts[puts.size() - 2], puts[puts.size() - 3]};
  CHECK(last == std::set<std::string>{"/repo/deb/debian/dists/bookworm/InRelease",
                                      "/repo/rpm/el/9/x86_64/repodata/repomd.xml"});

  IsolatedApt apt(p.dir / "apt", "deb [signed-by=" + p.key + "] " + nginx.url() +
                                     "/repo/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  auto install = apt({"install", "-y", "--download-only", "alpha"});
  INFO(install.out << install.err);
  CHECK(install.exit_status == 0);

  IsolatedDnf dnf(p.dir / "dnf");
  dnf.add_repo("pkgcloud", nginx.url() + "/repo/rpm/el/9/x86_64", p.repo + "/public/gpg.key", true);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  CHECK(cache.exit_status == 0);
  CHECK(dnf.all("%{name}").find("rhello") != std::string::npos);

  // --verify-remote finds a file deleted behind publish's back, and one it did not put there.
  std::vector<std::string> check{"publish", "--to", nginx.url() + "/repo/", "--verify-remote"};
  auto login = nginx.login();
  check.insert(check.end(), login.begin(), login.end());
  CHECK(pkgcloud_env(p.repo, p.home, check).exit_status == 0);
  fs::remove(p.dir / "nginx/www/repo/deb/debian/dists/bookworm/InRelease");
  std::ofstream(p.dir / "nginx/www/repo/deb/stray.txt") << "x";
  auto damaged = pkgcloud_env(p.repo, p.home, check);
  CHECK(damaged.exit_status == 1);
  CHECK(damaged.out == "deb/debian/dists/bookworm/InRelease: in the manifest, not on the target\n"
                       "deb/stray.txt: on the target, not in its manifest\n");
  CHECK(damaged.err == "pkgcloud: error: verify: 2 problems\n");

  // Another package, in a collection the target does not hold: still no MKCOL.
  auto deb = dpkg_deb_build(p.dir.path(), "delta", control("delta", "1.0-1", "amd64"), "xz");
  REQUIRE(pkgcloud(p.repo, {"push", deb}).exit_status == 0);
  std::vector<std::string> again{"--to", nginx.url() + "/repo/"};
  again.insert(again.end(), login.begin(), login.end());
  auto second = p.publish(again);
  CHECK_FALSE(second["requests"].contains("MKCOL"));
  CHECK(fs::exists(p.dir / "nginx/www/repo/deb/debian/pool/main/d/delta/delta_1.0-1_amd64.deb"));

  // Without the password, the server refuses, and publish says so in one line.
  auto refused = pkgcloud_env(p.repo, p.home, {"publish", "--to", nginx.url() + "/other/"});
  CHECK(refused.exit_status == 1);
  CHECK(refused.err.find("HTTP 401") != std::string::npos);
  // The password of the user --user names comes from ~/.netrc.
  std::ofstream(p.home + "/.netrc") << "machine 127.0.0.1 login pub password secret\n";
  auto from_netrc =
      pkgcloud_env(p.repo, p.home, {"publish", "--to", nginx.url() + "/other/", "--user", "pub"});
  INFO(from_netrc.err);
  CHECK(from_netrc.exit_status == 0);
  CHECK(fs::exists(p.dir / "nginx/www/other/deb/debian/dists/bookworm/InRelease"));
}

TEST_CASE("publish: one that waited for another publisher's lock sends what that one changed, "
          "and the target ends as its own publication",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  p.publish(nginx.to("/repo/"));
  // The other publisher's repository: this one and a package more. Published beside the target
  // after this one, its publication there is what it would have made of the target.
  p.publish(nginx.to("/other/"));
  std::string other = p.dir / "other";
  REQUIRE(run({"cp", "-a", p.repo, other}).exit_status == 0);
  auto deb = dpkg_deb_build(p.dir.path(), "delta", control("delta", "1.0-1", "amd64"), "xz");
  REQUIRE(pkgcloud(other, {"push", deb}).exit_status == 0);
  REQUIRE(pkgcloud_env(other, p.home, publish_args(nginx.to("/other/"))).exit_status == 0);
  // This repository indexed again: its Release alone differs from what it published.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  REQUIRE(pkgcloud(p.repo, {"index"}).exit_status == 0);

  // The other publisher holds the target's lock while this publish starts, then puts its
  // publication there and lets go.
  std::string www = p.dir / "nginx/www";
  std::ofstream(www + "/repo/.pkgcloud-lock.json")
      << R"({"owner":"builder-7 pid 42","token":"abc","expires":)" << std::time(nullptr) + 3600
      << "}\n";
  auto args = publish_args(nginx.to("/repo/"), {"--wait", "60"});
  auto waited = std::async(std::launch::async, [&] { return pkgcloud_env(p.repo, p.home, args); });
  std::this_thread::sleep_for(std::chrono::seconds(2));
  REQUIRE(run({"cp", "-a", www + "/other/.", www + "/repo/"}).exit_status == 0);
  fs::remove(www + "/repo/.pkgcloud-lock.json");
  auto published = waited.get();
  INFO(published.err);
  REQUIRE(published.exit_status == 0);

  // Every file of this publication is on the target as it is here, the indexes the other
  // publisher replaced too, and the manifest says so.
  for (const auto& [path, bytes] : p.files()) {
    INFO(path);
    CHECK(opskit::read_file(www + "/repo/" + path).value_or("") == bytes);
  }
  auto verified =
      pkgcloud_env(p.repo, p.home, publish_args(nginx.to("/repo/"), {"--verify-remote"}));
  INFO(verified.out);
  CHECK(verified.exit_status == 0);
}

TEST_CASE("publish: to a WebDAV server whose PUT makes no collection, each is made by MKCOL "
          "first, parents first",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx", Tls::off, PutPath::mkcol_first);
  auto first = p.publish(nginx.to("/repo/"));                     // /repo/ itself is made too
  auto held = [&] { return snapshot(p.dir / "nginx/www/repo"); }; // the manifest left out
  CHECK(held() == p.files());
  // The lock's PUT found no /repo/, and went again once it was made; one PUT went alone and
  // found no collection; then every collection was made once, and every file sent.
  std::set<std::string> collections{""};
  for (const auto& [path, bytes] : p.files())
    for (auto slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
      collections.insert(path.substr(0, slash + 1));
  CHECK(first["requests"]["MKCOL"] == collections.size());
  CHECK(first["requests"]["PUT"] == p.files().size() + 4);

  // Another package: a collection is made only for what the target did not hold.
  auto deb = dpkg_deb_build(p.dir.path(), "delta", control("delta", "1.0-1", "amd64"), "xz");
  p.push({deb});
  auto second = p.publish(nginx.to("/repo/"));
  CHECK(second["requests"]["MKCOL"] == 2); // deb/debian/pool/main/d/ and its delta/

  // A target another tool wrote (no manifest) holds the collection of the first PUT only: that
  // PUT succeeds, the others meet no collection and go again once theirs are made.
  fs::remove_all(p.dir / "nginx/www/repo");
  fs::create_directories(p.dir / "nginx/www/repo/deb/debian/pool/main/a/alpha");
  auto third = p.publish(nginx.to("/repo/"));
  CHECK(third["requests"]["PUT"] > p.files().size() + 3);
  CHECK(held() == p.files());
}

TEST_CASE("publish: independent readers take the bucket: apt-get and dnf straight from it, "
          "and s3cmd's copy of it passes verify",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  if (!have_program("s3cmd"))
    FAIL("s3cmd is needed (scripts/dev installs it)");
  Published p;
  S3rver s3(p.dir / "s3");
  p.publish({"--to", s3_target("cdn"), "--endpoint", s3.url(), "--path-style"});
  std::string served = s3.url() + "/" + k_bucket + "/cdn";

  IsolatedApt apt(p.dir / "apt",
                  "deb [signed-by=" + p.key + "] " + served + "/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  CHECK(apt({"install", "-y", "--download-only", "gamma"}).exit_status == 0);
  IsolatedDnf dnf(p.dir / "dnf");
  dnf.add_repo("pkgcloud", served + "/rpm/el/9/x86_64", p.repo + "/public/gpg.key", true);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  CHECK(cache.exit_status == 0);

  // s3cmd downloads the bucket; beside the original's state, the copy verifies.
  std::string host = s3.url().substr(std::string("http://").size());
  std::ofstream(p.dir / "s3cmd.cfg")
      << "[default]\naccess_key = " << k_key_id << "\nsecret_key = " << k_secret
      << "\nhost_base = " << host << "\nhost_bucket = " << host
      << "\nuse_https = False\nsignature_v2 = False\n";
  std::string copy = p.dir / "copy";
  fs::create_directories(copy);
  auto got = run({"s3cmd", "-c", p.dir / "s3cmd.cfg", "--no-progress", "sync",
                  s3_target("cdn") + "/", copy + "/public/"});
  INFO(got.out << got.err);
  REQUIRE(got.exit_status == 0);
  fs::copy(p.repo + "/.pkgcloud", copy + "/.pkgcloud", fs::copy_options::recursive);
  fs::remove(copy + "/public/.pkgcloud-manifest.json");
  auto verified = pkgcloud(copy, {"verify"});
  INFO(verified.out << verified.err);
  CHECK(verified.exit_status == 0);
  CHECK(snapshot(copy + "/public") == p.files());
}
