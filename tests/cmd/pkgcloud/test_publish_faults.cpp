// SPDX-License-Identifier: MIT
// pkgcloud publish through s3_proxy.py, which recomputes each S3 request's signature with
// botocore (s3rver does not check them) and injects the faults of a real network and store:
// 500s, connections dropped mid-body, a file that always fails, a stalled request; and real
// apt-get clients reading a repository while a new version of it is published.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "published.hpp"
#include "servers.hpp"

using namespace opskit::test;

namespace {

std::vector<std::string> s3_via(const std::string& prefix, const std::string& endpoint) {
  return {"--to", s3_target(prefix), "--endpoint", endpoint, "--path-style"};
}

std::string object_url(const S3rver& s3, const std::string& prefix, const std::string& path) {
  return s3.url() + "/" + k_bucket + "/" + prefix + "/" + path;
}

// Every file of the publication is in the bucket under `prefix`, byte for byte, as a client
// reads it straight from s3rver.
void check_bucket_holds(const Published& p, const S3rver& s3, const std::string& prefix) {
  for (const auto& [path, bytes] : p.files()) {
    INFO(path);
    auto object = fetch(object_url(s3, prefix, path));
    REQUIRE(object);
    CHECK(*object == bytes);
  }
}

// dnf with the publication's x86_64 repository under `prefix` of the bucket, signed, and its
// metadata fetched, which must succeed.
IsolatedDnf bucket_dnf(const Published& p, const S3rver& s3, const std::string& prefix) {
  IsolatedDnf dnf(p.dir / "dnf");
  dnf.add_repo("pkgcloud", object_url(s3, prefix, "rpm/el/9/x86_64"), p.repo + "/public/gpg.key",
               true);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  REQUIRE(cache.exit_status == 0);
  return dnf;
}

std::size_t count_faults(const std::vector<nlohmann::json>& requests, const std::string& fault) {
  return std::count_if(requests.begin(), requests.end(),
                       [&](const nlohmann::json& r) { return r.value("fault", "") == fault; });
}

// s3_proxy.py's faults for a publish: a 500 on every third PUT, a drop on every fifth.
const std::vector<std::string> k_put_faults{"--fail-put-every", "3", "--drop-put-every", "5"};

// A publish through k_put_faults met both and retried.
void check_faults_met(const S3Proxy& proxy, const nlohmann::json& report) {
  auto requests = proxy.requests();
  CHECK(count_faults(requests, "fail") > 0);
  CHECK(count_faults(requests, "drop") > 0);
  CHECK(report["retries"].get<std::size_t>() > 0);
}

// The manifest got through whole: the next publish to `to` has nothing to send.
void check_nothing_left(const Published& p, const std::vector<std::string>& to) {
  auto again = p.publish(to);
  CHECK(again["had_manifest"] == true);
  CHECK(again["uploaded"].empty());
}

std::string deb(const Published& p, const std::string& name, const std::string& version) {
  return dpkg_deb_build(p.dir.path(), name, control(name, version, "amd64"), "xz");
}

} // namespace

TEST_CASE("publish: a target that does not give back the lock put there fails in one line "
          "after three writes of it",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  S3Proxy proxy(s3.url(), p.dir / "proxy.log", {"--missing-path", ".pkgcloud-lock.json"});
  auto refused = pkgcloud_env(p.repo, p.home, publish_args(s3_via("cached", proxy.url())));
  CHECK(refused.exit_status == 1);
  CHECK(refused.err.find("written, then read back as missing, three times") != std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  int lock_writes = 0;
  for (const auto& r : proxy.requests())
    if (r["method"] == "PUT" && r["path"].get<std::string>().ends_with(".pkgcloud-lock.json"))
      ++lock_writes;
  CHECK(lock_writes == 3);
  CHECK_FALSE(fetch(object_url(s3, "cached", ".pkgcloud-manifest.json")));
}

TEST_CASE("publish: a bucket encrypting with SSE-KMS, whose ETags are no MD5, takes a publish, "
          "and each object goes with its Content-Type and Cache-Control",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  S3Proxy proxy(s3.url(), p.dir / "proxy.log", {"--sse-kms"});
  auto report = p.publish(s3_via("kms", proxy.url()));
  CHECK(report["retries"] == 0);
  check_bucket_holds(p, s3, "kms");
  std::map<std::string, std::pair<std::string, std::string>> sent; // path: type, cache
  for (const auto& r : proxy.requests())
    if (r["method"] == "PUT")
      sent[r["path"].get<std::string>()] = {r.value("content_type", ""),
                                            r.value("cache_control", "")};
  auto headers_of = [&](const std::string& path) {
    auto it = sent.find("/" + std::string(k_bucket) + "/kms/" + path);
    return it == sent.end() ? std::pair<std::string, std::string>() : it->second;
  };
  CHECK(headers_of("deb/debian/dists/bookworm/InRelease") ==
        std::pair<std::string, std::string>("text/plain; charset=utf-8", "no-cache"));
  CHECK(headers_of("rpm/el/9/x86_64/repodata/repomd.xml") ==
        std::pair<std::string, std::string>("application/xml", "no-cache"));
  std::size_t by_hash = 0;
  for (const auto& [path, headers] : sent)
    if (path.find("/by-hash/") != std::string::npos) {
      ++by_hash;
      CHECK(headers.second == "public, max-age=31536000, immutable");
    }
  CHECK(by_hash > 0);
}

TEST_CASE("publish: the lock is written again during a long upload, and a publish whose lock "
          "another publisher took stops",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  // Each PUT a little late, one at a time: the publish lasts seconds, its lock renewed each.
  S3Proxy proxy(s3.url(), p.dir / "proxy.log", {"--delay-put", "0.2"});
  auto args = publish_args(s3_via("renew", proxy.url()));
  args.insert(args.end(), {"--jobs", "1"});
  const std::vector<std::string> env{"PKGCLOUD_LOCK_REFRESH_SECONDS=1"};
  auto lock_puts = [&] {
    auto requests = proxy.requests();
    return std::count_if(requests.begin(), requests.end(), [](const nlohmann::json& r) {
      return r["method"] == "PUT" && r["path"].get<std::string>().ends_with("/.pkgcloud-lock.json");
    });
  };
  auto renewed = pkgcloud_env(p.repo, p.home, args, env);
  INFO(renewed.err);
  REQUIRE(renewed.exit_status == 0);
  CHECK(lock_puts() >= 3); // taken, then written again at least twice

  // Another publisher's lock written over this one's as it sends: it stops, and leaves that
  // lock alone.
  p.push({deb(p, "delta", "1.0-1"), deb(p, "epsilon", "1.0-1")});
  std::string lock = s3.url() + "/" + k_bucket + "/renew/.pkgcloud-lock.json";
  args.push_back("--delete");
  auto publishing =
      std::async(std::launch::async, [&] { return pkgcloud_env(p.repo, p.home, args, env); });
  auto sending = [&, before = proxy.requests().size()] { // a file's PUT: the lock is held
    auto requests = proxy.requests();
    return std::any_of(requests.begin() + static_cast<long>(before), requests.end(),
                       [](const nlohmann::json& r) {
                         return r["method"] == "PUT" &&
                                !r["path"].get<std::string>().ends_with("/.pkgcloud-lock.json");
                       });
  };
  while (!sending())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  // Written again and again, as a live publisher would, while this publish goes on: the last
  // write is theirs whatever this publish wrote between.
  std::string theirs = R"({"owner":"builder-9 pid 7","token":"theirs","expires":)" +
                       std::to_string(std::time(nullptr) + 3600) + "}";
  do
    REQUIRE(run({"curl", "-sf", "-X", "PUT", "--data-binary", theirs, "-H",
                 "x-amz-content-sha256: UNSIGNED-PAYLOAD", "--aws-sigv4", "aws:amz:us-east-1:s3",
                 "--user", "S3RVER:S3RVER", lock})
                .exit_status == 0);
  while (publishing.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready);
  auto stopped = publishing.get();
  CHECK(stopped.exit_status == 1);
  // Seen when it reads the lock, or, where the store checks If-Match, when it writes it.
  CHECK(stopped.err.find("the lock of this publish") != std::string::npos);
  CHECK(fetch(lock) == theirs);
}

TEST_CASE("publish: every S3 request is signed as botocore signs it, over the SHA-256 of its "
          "body, first publish and incremental, and a wrong secret is caught",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  S3Proxy proxy(s3.url(), p.dir / "proxy.log",
                {"--check-sigv4", std::string(k_key_id) + ":" + k_secret + ":us-east-1"});
  auto to = s3_via("signed", proxy.url());
  p.publish(to);
  // A version with characters that S3 paths escape ('+') and keep ('~').
  p.push({deb(p, "delta", "2.0+git~1-1")});
  auto incremental = p.publish(to);
  CHECK(incremental["uploaded"].size() < p.files().size());

  auto requests = proxy.requests();
  std::map<std::string, std::size_t> methods;
  for (const auto& r : requests) {
    INFO(r.dump());
    CHECK(r["signature_ok"] == true);
    CHECK(r["payload_ok"] == true);
    ++methods[r["method"].get<std::string>()];
  }
  CHECK(methods["PUT"] > p.files().size());
  CHECK(methods["GET"] >= 4);
  CHECK(methods["DELETE"] == 2);
  // The object's key is the file's path, which its URL escapes.
  CHECK(fetch(object_url(s3, "signed",
                         "deb/debian/pool/main/d/delta/delta_2.0%2Bgit~1-1_amd64.deb")) ==
        p.files().at("deb/debian/pool/main/d/delta/delta_2.0+git~1-1_amd64.deb"));

  // Another secret: s3rver takes the requests, the check refuses every one.
  p.push({deb(p, "epsilon", "1.0-1")});
  std::size_t before = requests.size();
  auto wrong =
      pkgcloud_env(p.repo, p.home, publish_args(to), {"AWS_SECRET_ACCESS_KEY=not-the-secret"});
  INFO(wrong.err);
  requests = proxy.requests();
  REQUIRE(requests.size() > before);
  for (std::size_t i = before; i < requests.size(); ++i) {
    INFO(requests[i].dump());
    CHECK(requests[i]["signature_ok"] == false);
    CHECK(requests[i]["why"].get<std::string>().find("botocore computes") != std::string::npos);
  }

  // curl signs on its own too: botocore agrees with it, and a payload hash of other bytes is
  // caught though the signature over it is right.
  std::string empty_sha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  auto put =
      run({"curl", "-sf", "-X", "PUT", "--data-binary", "not empty", "-H",
           "x-amz-content-sha256: " + empty_sha, "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
           std::string(k_key_id) + ":" + k_secret, proxy.url() + "/" + k_bucket + "/curl/object"});
  CHECK(put.exit_status == 0);
  auto last = proxy.requests().back();
  INFO(last.dump());
  CHECK(last["path"] == std::string("/") + k_bucket + "/curl/object");
  CHECK(last["signature_ok"] == true);
  CHECK(last["payload_ok"] == false);
}

TEST_CASE("publish: with a 500 on every third PUT and connections dropped mid-body, it retries "
          "and the bucket holds the publication byte for byte",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  S3Proxy proxy(s3.url(), p.dir / "proxy.log", k_put_faults);
  auto to = s3_via("faults", proxy.url());
  check_faults_met(proxy, p.publish(to));
  check_bucket_holds(p, s3, "faults");
  CHECK_FALSE(fetch(object_url(s3, "faults", ".pkgcloud-lock.json")));
  check_nothing_left(p, to);
}

TEST_CASE("publish: S3's answers to retry though not 5xx, 400 RequestTimeout and a completion's "
          "200 with InternalError, are retried",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  std::string src = p.dir / "parts";
  fs::create_directories(src + "/DEBIAN");
  fs::create_directories(src + "/usr/share/parts");
  std::ofstream(src + "/DEBIAN/control") << control("parts", "1.0", "amd64");
  REQUIRE(run({"sh", "-c", "head -c 6000000 /dev/urandom > " + src + "/usr/share/parts/data"})
              .exit_status == 0);
  std::string deb = p.dir / "parts_1.0_amd64.deb";
  REQUIRE(run({"dpkg-deb", "-Znone", "--root-owner-group", "--build", src, deb}).exit_status == 0);
  REQUIRE(pkgcloud(p.repo, {"push", deb}).exit_status == 0);
  S3rver s3(p.dir / "s3");
  S3Proxy proxy(s3.url(), p.dir / "proxy.log",
                {"--timeout-put-every", "4", "--complete-error-once"});
  auto to = s3_via("retried", proxy.url());
  to.insert(to.end(), {"--multipart-threshold", "5MiB"}); // the package goes in two parts
  auto report = p.publish(to);
  auto requests = proxy.requests();
  CHECK(count_faults(requests, "timeout") > 0);
  CHECK(count_faults(requests, "complete-error") == 1);
  CHECK(report["retries"].get<std::size_t>() >= count_faults(requests, "timeout") + 1);
  check_bucket_holds(p, s3, "retried");
  check_nothing_left(p, to);
}

TEST_CASE("publish: to WebDAV, a 500 on every third PUT and connections dropped mid-body end in "
          "the publication on the server byte for byte",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  S3Proxy proxy(nginx.url(), p.dir / "proxy.log", k_put_faults);
  auto to = nginx.login();
  to.insert(to.begin(), {"--to", proxy.url() + "/repo/"});
  auto report = p.publish(to);
  check_faults_met(proxy, report);
  // A 500 may mean a collection that is not there: the PUTs that met one went again once their
  // collections were made.
  CHECK(report["requests"]["MKCOL"].get<std::size_t>() > 0);
  CHECK(snapshot(p.dir / "nginx/www/repo") == p.files()); // the manifest left out
  CHECK_FALSE(std::filesystem::exists(p.dir / "nginx/www/repo/.pkgcloud-lock.json"));
  check_nothing_left(p, to);
}

TEST_CASE("publish: a file that always fails ends the publish in one line naming it, apt-get "
          "and dnf still read the repository, and the next publish finishes the job",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  p.publish(s3_via("f", s3.url()));
  std::string in_release = object_url(s3, "f", "deb/debian/dists/bookworm/InRelease");
  auto previous = fetch(in_release);
  REQUIRE(previous);
  p.push({deb(p, "delta", "1.0-1"), deb(p, "alpha", "1.1-1"),
          rpmbuild(p.dir.path(), "rworld", "1.0", "x86_64", "", "")});

  {
    S3Proxy proxy(s3.url(), p.dir / "proxy.log", {"--fail-path", "InRelease"});
    auto failed = pkgcloud_env(p.repo, p.home, publish_args(s3_via("f", proxy.url())));
    CHECK(failed.exit_status == 1);
    CHECK(std::count(failed.err.begin(), failed.err.end(), '\n') == 1);
    CHECK(failed.err.find("/f/deb/debian/dists/bookworm/InRelease: HTTP 500") != std::string::npos);
  }
  CHECK(fetch(in_release) == previous);
  IsolatedApt apt(p.dir / "apt", "deb [signed-by=" + p.key + "] " + s3.url() + "/" + k_bucket +
                                     "/f/deb/debian bookworm main");
  auto update = apt({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  CHECK(apt({"install", "-y", "--download-only", "alpha=1.0-1"}).exit_status == 0);
  CHECK(apt({"install", "-y", "--download-only", "delta"}).exit_status != 0);
  // dnf's repository, whose repomd.xml went in the failed publish's last batch, is whole: the
  // old one or the new one.
  auto dnf = bucket_dnf(p, s3, "f");

  auto finished = p.publish(s3_via("f", s3.url()));
  CHECK_FALSE(finished["uploaded"].empty());
  check_bucket_holds(p, s3, "f");
  auto again = apt({"update"});
  INFO(again.out << again.err);
  REQUIRE(again.exit_status == 0);
  CHECK(apt({"install", "-y", "--download-only", "delta", "alpha=1.1-1"}).exit_status == 0);
  CHECK(dnf({"makecache"}).exit_status == 0);
  CHECK(dnf.all("%{name}").find("rworld") != std::string::npos);
}

TEST_CASE("publish: one that fails at repomd.xml puts the previous dnf signature back, and dnf "
          "reads the previous repository",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  p.publish(s3_via("r", s3.url()));
  auto signature = fetch(object_url(s3, "r", "rpm/el/9/x86_64/repodata/repomd.xml.asc"));
  REQUIRE(signature);
  p.push({rpmbuild(p.dir.path(), "rworld", "1.0", "x86_64", "", "")});
  {
    S3Proxy proxy(s3.url(), p.dir / "proxy.log", {"--fail-path", "x86_64/repodata/repomd.xml"});
    auto failed = pkgcloud_env(p.repo, p.home, publish_args(s3_via("r", proxy.url())));
    INFO("pkgcloud publish said: " << failed.err);
    CHECK(failed.exit_status == 1);
    CHECK(failed.err.find("repodata/repomd.xml: HTTP 500") != std::string::npos);
  }
  CHECK(fetch(object_url(s3, "r", "rpm/el/9/x86_64/repodata/repomd.xml.asc")) == signature);
  auto dnf = bucket_dnf(p, s3, "r");
  CHECK(dnf.all("%{name}").find("rworld") == std::string::npos);

  p.publish(s3_via("r", s3.url()));
  check_bucket_holds(p, s3, "r");
  CHECK(dnf({"makecache"}).exit_status == 0);
  CHECK(dnf.all("%{name}").find("rworld") != std::string::npos);
}

TEST_CASE("publish: a request that stalls longer than PKGCLOUD_STALL_SECONDS is given up and "
          "sent again",
          "[pkgcloud][publish][server]") {
  require_s3rver();
  Published p;
  S3rver s3(p.dir / "s3");
  // Far longer than the test may take: the publish ends only if it gives the request up.
  S3Proxy proxy(s3.url(), p.dir / "proxy.log", {"--stall-once-path", "InRelease", "3600"});
  auto to = s3_via("stall", proxy.url());
  auto report = p.publish(to, {"PKGCLOUD_STALL_SECONDS=2"});
  CHECK(count_faults(proxy.requests(), "stall") == 1);
  CHECK(report["retries"].get<std::size_t>() > 0);
  check_bucket_holds(p, s3, "stall");

  auto bad = pkgcloud_env(p.repo, p.home, publish_args(to), {"PKGCLOUD_STALL_SECONDS=soon"});
  CHECK(bad.exit_status == 1);
  CHECK(bad.err.find("PKGCLOUD_STALL_SECONDS 'soon'") != std::string::npos);
}

TEST_CASE("publish: apt-get update in a loop never fails while a new version of the repository "
          "is published to WebDAV",
          "[pkgcloud][publish][server]") {
  require_nginx();
  Published p;
  Nginx nginx(p.dir / "nginx");
  auto direct = nginx.login();
  direct.insert(direct.begin(), {"--to", nginx.url() + "/repo/"});
  p.publish(direct);
  IsolatedApt apt(p.dir / "apt", "deb [signed-by=" + p.key + "] " + nginx.url() +
                                     "/repo/deb/debian bookworm main");
  REQUIRE(apt({"update"}).exit_status == 0);

  p.push({deb(p, "alpha", "1.1-1"), deb(p, "beta", "1.1-1"), deb(p, "delta", "1.0-1"),
          deb(p, "epsilon", "1.0-1")});
  // Through the proxy, each PUT a little late, two at a time: the publish lasts while apt-get
  // reads what nginx serves.
  S3Proxy proxy(nginx.url(), p.dir / "proxy.log", {"--delay-put", "0.2"});
  auto args = publish_args(nginx.login());
  args.insert(args.end(), {"--to", proxy.url() + "/repo/", "--jobs", "2"});
  auto publishing =
      std::async(std::launch::async, [&] { return pkgcloud_env(p.repo, p.home, args); });
  int updates = 0;
  do {
    auto update = apt({"update"});
    INFO("update " << updates << ": " << update.out << update.err);
    CHECK(update.exit_status == 0);
    CHECK(update.err.find("E:") == std::string::npos);
    ++updates;
  } while (publishing.wait_for(std::chrono::seconds(0)) != std::future_status::ready ||
           updates < 3);
  auto published = publishing.get();
  INFO(published.err);
  REQUIRE(published.exit_status == 0);
  CHECK(apt({"update"}).exit_status == 0);
  auto install = apt({"install", "-y", "--download-only", "alpha=1.1-1", "delta", "epsilon"});
  INFO(install.out << install.err);
  CHECK(install.exit_status == 0);
}
