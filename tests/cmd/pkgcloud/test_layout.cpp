// SPDX-License-Identifier: MIT
// Where a repository keeps its parts: what a web server or a sync of the publication shows,
// and the move of a repository of the first layout, which kept the publication beside its
// state and signing key, into public/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

constexpr const char* k_old_entries[] = {"deb", "rpm", "gpg.key", "gpg.gpg"};

// The HTTP status of a GET of each URL, in order, by Python's urllib.
std::vector<int> statuses(const std::vector<std::string>& urls) {
  std::vector<std::string> argv{"/usr/bin/python3", "-c",
                                "import sys, urllib.request, urllib.error\n"
                                "for url in sys.argv[1:]:\n"
                                "    try:\n"
                                "        print(urllib.request.urlopen(url).status)\n"
                                "    except urllib.error.HTTPError as e:\n"
                                "        print(e.code)\n"};
  argv.insert(argv.end(), urls.begin(), urls.end());
  auto fetched = run(argv);
  INFO(fetched.err);
  REQUIRE(fetched.exit_status == 0);
  std::vector<int> out;
  std::istringstream lines(fetched.out);
  for (int status; lines >> status;)
    out.push_back(status);
  REQUIRE(out.size() == urls.size());
  return out;
}

// Every regular file below `repo` outside its publication, by path relative to `repo`.
std::vector<std::string> private_files(const std::string& repo) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(repo)) {
    std::string rel = e.path().string().substr(repo.size() + 1);
    if (e.is_regular_file() && !rel.starts_with("public/"))
      out.push_back(rel);
  }
  return out;
}

// Turns a repository into one of the first layout: its publication at the top.
void to_first_layout(const std::string& repo) {
  for (const auto& e : fs::directory_iterator(repo + "/public"))
    fs::rename(e.path(), repo + "/" + e.path().filename().string());
  fs::remove(repo + "/public");
}

// The first layout's publication, as snapshot() shows the new one's.
std::map<std::string, std::string> first_layout_snapshot(const std::string& repo) {
  std::map<std::string, std::string> out;
  for (const auto& [path, bytes] : snapshot(repo))
    if (!path.starts_with("public/"))
      out[path] = bytes;
  return out;
}

bool first_layout_left(const std::string& repo) {
  for (const char* entry : k_old_entries)
    if (fs::exists(repo + "/" + entry))
      return true;
  return false;
}

// <dir>/repo, signed with a key of its own, holding the deb hello 1.0.
std::string signed_repo_with_hello(const TempDir& dir) {
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Layout <layout@example.com>"}).exit_status ==
          0);
  auto deb = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"), "xz");
  REQUIRE(pkgcloud(repo, {"push", deb}).exit_status == 0);
  return repo;
}

} // namespace

TEST_CASE("pkgcloud: serving the publication as its owner shows no state, lock or key",
          "[pkgcloud][server]") {
  TempDir dir;
  std::string repo = signed_repo_with_hello(dir);
  REQUIRE(pkgcloud(repo, {"index", "--sign"}).exit_status == 0);

  auto secrets = private_files(repo);
  auto is_secret_key = [](const std::string& path) {
    return path.find("/private-keys-v1.d/") != std::string::npos && path.ends_with(".key");
  };
  REQUIRE(std::count_if(secrets.begin(), secrets.end(), is_secret_key) > 0);
  REQUIRE(std::find(secrets.begin(), secrets.end(), ".pkgcloud/state.db") != secrets.end());

  HttpServer server(repo + "/public");
  auto published = snapshot(repo + "/public");
  std::vector<std::string> urls;
  for (const auto& [path, bytes] : published)
    urls.push_back(server.url() + "/" + path);
  for (int status : statuses(urls))
    CHECK(status == 200);
  urls.clear();
  for (const auto& path : secrets)
    for (const char* prefix : {"/", "/../", "/public/../"})
      urls.push_back(server.url() + prefix + path);
  auto got = statuses(urls);
  for (std::size_t i = 0; i < urls.size(); ++i) {
    INFO(urls[i]);
    CHECK(got[i] == 404);
  }
  // nor does a copy of the publication (a sync to a bucket) carry any secret's bytes
  for (const auto& path : secrets) {
    std::string bytes = *opskit::read_file(repo + "/" + path);
    if (bytes.size() < 16)
      continue;
    for (const auto& [name, content] : published) {
      INFO(name << " holds " << path);
      CHECK(content.find(bytes) == std::string::npos);
      CHECK_FALSE(content.starts_with(std::string("SQLite format 3\0", 16)));
    }
  }
}

TEST_CASE("pkgcloud: sources names the publication to serve, and its URLs are in it",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Layout <layout@example.com>"}).exit_status ==
          0);
  for (std::string url : {"repo.example.com/x/", "https://repo.example.com/a b/"}) {
    auto wrong = pkgcloud(repo, {"sources", "--url", url}); // no client could use it
    CHECK(wrong.exit_status == 2);
    CHECK(wrong.err.starts_with("pkgcloud: error: --url: '" + url +
                                "' is not an http://, https:// or file: URL without spaces"));
  }
  auto sources = pkgcloud(repo, {"sources", "--url", "https://repo.example.com/x/"});
  REQUIRE(sources.exit_status == 0);
  CHECK(
      sources.out.starts_with("# for " + repo + "/public served at https://repo.example.com/x/\n"));
  // every URL it gives is a file or directory of the publication
  for (const char* path : {"gpg.gpg", "gpg.key", "deb/debian/dists/bookworm/InRelease",
                           "rpm/el/9/x86_64/repodata/repomd.xml"}) {
    INFO(path);
    CHECK(fs::exists(repo + "/public/" + path));
  }
  for (const char* text : {"curl -fsSL https://repo.example.com/x/gpg.gpg ",
                           "URIs: https://repo.example.com/x/deb/debian\n", "Suites: bookworm\n",
                           "baseurl=https://repo.example.com/x/rpm/el/9/$basearch\n",
                           "gpgkey=https://repo.example.com/x/gpg.key\n"}) {
    INFO(text);
    CHECK(sources.out.find(text) != std::string::npos);
  }
}

TEST_CASE("pkgcloud: the sources of an unsigned repository are what apt-get and dnf take from it",
          "[pkgcloud][apt][dnf][server]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}).exit_status == 0);
  auto hello = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0-1", "amd64"), "xz");
  auto rpm = rpm_set(dir.path(), {"rhello"}, "1.0", "noarch", "one");
  REQUIRE(pkgcloud(repo, {"push", hello, rpm["rhello"]}).exit_status == 0);
  HttpServer server(repo + "/public");
  auto sources = pkgcloud(repo, {"sources", "--url", server.url()});
  REQUIRE(sources.exit_status == 0);
  INFO(sources.out);
  for (const char* key : {"gpg.gpg", "gpg.key", "signed-by", "Signed-By"}) // no key to name
    CHECK(sources.out.find(key) == std::string::npos);
  // The one-line entry of the .list, and the .repo, as printed.
  std::string list = sources.out.substr(sources.out.find("\ndeb ") + 1);
  list = list.substr(0, list.find('\n'));
  IsolatedApt apt(dir / "apt", list);
  auto update = apt({"update"});
  INFO(update.out << update.err);
  REQUIRE(update.exit_status == 0);
  auto install = apt({"install", "-y", "--download-only", "hello"});
  INFO(install.out << install.err);
  CHECK(install.exit_status == 0);
  IsolatedDnf dnf(dir / "dnf");
  std::ofstream(dir / "dnf/repos/pkgcloud.repo")
      << sources.out.substr(sources.out.find("\n[pkgcloud-el-9]") + 1);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  REQUIRE(cache.exit_status == 0);
  CHECK(dnf.all("%{name}") == "rhello\n");
}

TEST_CASE("pkgcloud: a repository of the first layout is moved into public/ once, byte for byte",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = signed_repo_with_hello(dir);
  to_first_layout(repo);
  auto before = first_layout_snapshot(repo);
  REQUIRE(before.contains("gpg.key"));
  REQUIRE(before.contains("deb/debian/dists/bookworm/InRelease"));
  REQUIRE(before.contains("rpm/el/9/x86_64/repodata/repomd.xml"));

  auto listed = pkgcloud(repo, {"ls"});
  CHECK(listed.exit_status == 0);
  CHECK(listed.err == fmt::format("pkgcloud: moved the publication of {0} into {0}/public, away "
                                  "from its state and signing key: serve or upload {0}/public "
                                  "from now on\n",
                                  repo));
  CHECK(listed.out.find("hello") != std::string::npos);
  CHECK_FALSE(first_layout_left(repo));
  CHECK(snapshot(repo + "/public") == before);
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/public.new"));

  auto again = pkgcloud(repo, {"verify"});
  CHECK(again.exit_status == 0);
  CHECK(again.err.empty()); // moved once
  auto other = dpkg_deb_build(dir.path(), "world", control("world", "1.0", "amd64"), "xz");
  CHECK(pkgcloud(repo, {"push", other}).exit_status == 0);
  CHECK(fs::exists(repo + "/public/deb/debian/pool/main/w/world/world_1.0_amd64.deb"));
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}

TEST_CASE("pkgcloud: kill -9 during the move leaves the first layout or the new one, whole",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "template";
  REQUIRE(pkgcloud(repo, {"init"}).exit_status == 0);
  auto deb = dpkg_deb_build(dir.path(), "hello", control("hello", "1.0", "amd64"), "xz");
  REQUIRE(pkgcloud(repo, {"push", deb}).exit_status == 0);
  // files enough that the move takes a while to link, so that kills land inside it
  std::string filler = repo + "/public/deb/debian/filler";
  for (int d = 0; d < 10; ++d) {
    fs::create_directories(fmt::format("{}/{}", filler, d));
    for (int f = 0; f < 100; ++f)
      std::ofstream(fmt::format("{}/{}/{}", filler, d, f)) << d << "/" << f;
  }
  to_first_layout(repo);
  auto before = first_layout_snapshot(repo);

  // Each run moves a copy made of hard links, quick to make; the move changes no file's bytes.
  auto copy = [&](const std::string& to) {
    fs::copy(repo, to, fs::copy_options::recursive | fs::copy_options::create_hard_links);
  };
  // how long a whole move takes here, to spread the kills over it
  std::string timed = dir / "timed";
  copy(timed);
  auto start = std::chrono::steady_clock::now();
  REQUIRE(pkgcloud(timed, {"ls"}).exit_status == 0);
  auto whole = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::steady_clock::now() - start)
                   .count();
  for (int step = 0; step <= 24; ++step) {
    int ms = static_cast<int>(whole * step / 20);
    std::string work = dir / fmt::format("work-{}", step);
    copy(work);
    kill_after({tool("pkgcloud"), "--repo", work, "ls"}, ms);
    INFO("killed after " << ms << " ms of " << whole);
    if (fs::exists(work + "/public"))
      CHECK(snapshot(work + "/public") == before);
    else
      CHECK(first_layout_snapshot(work) == before);
    // the next command finishes what the killed one left
    auto listed = pkgcloud(work, {"ls"});
    CHECK(listed.exit_status == 0);
    CHECK_FALSE(first_layout_left(work));
    CHECK_FALSE(fs::exists(work + "/.pkgcloud/public.new"));
    CHECK_FALSE(fs::exists(work + "/.pkgcloud/moving-to-public"));
    CHECK(snapshot(work + "/public") == before);
    fs::remove_all(work);
  }
}

TEST_CASE("pkgcloud: what a move killed after its rename left is removed, and only that",
          "[pkgcloud]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}).exit_status == 0);
  auto published = snapshot(repo + "/public");
  // the first layout's entries linked back beside public/: without the move's note they are
  // the user's, and stay
  for (const char* entry : k_old_entries)
    if (fs::exists(repo + "/public/" + entry))
      fs::copy(repo + "/public/" + entry, repo + "/" + entry,
               fs::copy_options::recursive | fs::copy_options::create_hard_links);
  auto listed = pkgcloud(repo, {"ls"});
  CHECK(listed.exit_status == 0);
  CHECK(listed.err.empty());
  CHECK(fs::exists(repo + "/deb/debian/dists/bookworm/Release"));
  // with it, they are what the move left
  std::ofstream(repo + "/.pkgcloud/moving-to-public") << "deb rpm gpg.key gpg.gpg\n";
  listed = pkgcloud(repo, {"ls"});
  CHECK(listed.exit_status == 0);
  CHECK(listed.err.find("pkgcloud: moved the publication of ") == 0);
  CHECK_FALSE(first_layout_left(repo));
  CHECK_FALSE(fs::exists(repo + "/.pkgcloud/moving-to-public"));
  CHECK(snapshot(repo + "/public") == published);
  CHECK(pkgcloud(repo, {"verify"}).exit_status == 0);
}
