// SPDX-License-Identifier: MIT
// The truth test for rpm: the real dnf, isolated in an --installroot with its own repos and
// cache, with repo_gpgcheck=1 and skip_if_unavailable=False, reading a pkgcloud repository
// served over HTTP on 127.0.0.1 — and the same rpms indexed by createrepo_c as the reference
// for what dnf repoquery must show.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>

#include <sqlite3.h>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/index/yum/yum.hpp"
#include "pattern.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

#ifdef OPSKIT_SANITIZED
constexpr bool k_sanitized = true;
#else
constexpr bool k_sanitized = false;
#endif

// repomd.xml of the dnf repository `dir` and the files it names (the previous generation's
// stay beside them), by name.
std::map<std::string, std::string> published(const std::string& dir) {
  std::map<std::string, std::string> files{
      {"repomd.xml", *opskit::read_file(dir + "/repodata/repomd.xml")}};
  for (const auto& href : re::search_all(files["repomd.xml"], "href=\"(repodata/[^\"]+)\""))
    files[href[1]] = *opskit::read_file(dir + "/" + href[1]);
  return files;
}

// The .repodata.next-<pid> directories a run left in a dnf repository's directory.
std::vector<std::string> staging_directories(const std::string& dir) {
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".repodata") != std::string::npos)
      left.push_back(e.path().filename());
  return left;
}

struct Fixture {
  TempDir dir;
  std::string repo = dir / "repo";
  std::vector<std::string> rpms;
  Fixture() {
    if (!have_program("dnf") || !have_program("rpmbuild") || !have_program("createrepo_c"))
      FAIL("dnf, rpmbuild and createrepo_c are needed (scripts/dev installs them)");
    REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Dnf Test <dnf@example.com>"}).exit_status ==
            0);
    rpms.push_back(rpmbuild(dir.path(), "rhello", "1.0", "x86_64", "",
                            "Requires: rcommon >= 1:2.0\nRecommends: rextra"));
    rpms.push_back(rpmbuild(dir.path(), "rcommon", "2.0", "noarch", "1",
                            "Conflicts: rold < 1.0\nObsoletes: rcommon-legacy"));
    std::vector<std::string> args{"push"};
    args.insert(args.end(), rpms.begin(), rpms.end());
    auto push = pkgcloud(repo, args);
    INFO(push.err);
    REQUIRE(push.exit_status == 0);
  }
};

// The fixture's x86_64 repository served on 127.0.0.1, and a dnf of its own reading it with
// the fixture's key.
struct Served {
  explicit Served(const Fixture& f) : server(f.repo + "/public"), dnf(f.dir / "dnf") {
    dnf.add_repo("pkgcloud", server.url() + "/rpm/el/9/x86_64", f.repo + "/public/gpg.key", true);
  }
  HttpServer server;
  IsolatedDnf dnf;
};

// rpmbuild -bs of the spec the fixture's rhello came from; returns the source rpm's path.
std::string source_rpm(const Fixture& f) {
  auto built =
      run({"rpmbuild", "-bs", "--define", "_topdir " + (f.dir / "top"), f.dir / "rhello.spec"});
  INFO(built.out << built.err);
  REQUIRE(built.exit_status == 0);
  std::string srpm = f.dir / "top/SRPMS/rhello-1.0-1.src.rpm";
  REQUIRE(fs::exists(srpm));
  return srpm;
}

// Every field dnf repoquery shows of a package (its --info and its --provides, --requires, ...,
// -l), one to a line and each list under its name.
const std::string k_every_field =
    "name: %{name}\nepoch: %{epoch}\nversion: %{version}\nrelease: %{release}\narch: %{arch}\n"
    "size: %{size}\ninstallsize: %{installsize}\nbuildtime: %{buildtime}\nsourcerpm: %{sourcerpm}\n"
    "summary: %{summary}\nurl: %{url}\nlicense: %{license}\npackager: %{packager}\n"
    "vendor: %{vendor}\ngroup: %{group}\ndescription:\n%{description}\n"
    "provides:\n%{provides}\nrequires:\n%{requires}\nconflicts:\n%{conflicts}\n"
    "obsoletes:\n%{obsoletes}\nrecommends:\n%{recommends}\nsuggests:\n%{suggests}\n"
    "supplements:\n%{supplements}\nenhances:\n%{enhances}\nfiles:\n%{files}\n";

std::uint32_t be32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i)
    v = v << 8 | static_cast<unsigned char>(bytes.at(at + i));
  return v;
}

// A copy of the rpm at `path` whose main header has no RPMTAG_SOURCEPACKAGE (1106), as source
// rpms of older rpmbuilds have: its entry is renamed to the unused tag 1105 in place.
std::string without_source_package_tag(const std::string& path, const std::string& out) {
  std::string bytes = *opskit::read_file(path);
  std::size_t sig = 96, main = sig + 16 + 16 * be32(bytes, sig + 8) + be32(bytes, sig + 12);
  main += (8 - main % 8) % 8;
  bool renamed = false;
  for (std::size_t i = 0, n = be32(bytes, main + 8); i < n; ++i)
    if (std::size_t at = main + 16 + 16 * i; be32(bytes, at) == 1106) {
      bytes[at + 3] = '\x51'; // 1106 = 0x452 -> 0x451
      renamed = true;
    }
  REQUIRE(renamed);
  std::ofstream(out, std::ios::binary) << bytes;
  return out;
}

} // namespace

TEST_CASE("dnf: makecache and install into an installroot from a signed repository",
          "[pkgcloud][dnf][server]") {
  Fixture f;
  Served served(f);
  const IsolatedDnf& dnf = served.dnf;
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  REQUIRE(cache.exit_status == 0);
  auto install = dnf({"install", "--setopt=install_weak_deps=False", "rhello"});
  INFO(install.out << install.err);
  REQUIRE(install.exit_status == 0);
  CHECK(fs::exists(f.dir / "dnf/root/usr/share/rhello/data"));
  CHECK(fs::exists(f.dir / "dnf/root/usr/share/rcommon/data")); // pulled in by Requires, noarch
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: repoquery shows what it shows for createrepo_c's index of the same rpms",
          "[pkgcloud][dnf][server]") {
  Fixture f;
  fs::create_directories(f.dir / "reference");
  for (const auto& rpm : f.rpms)
    fs::copy_file(rpm, f.dir / ("reference/" + fs::path(rpm).filename().string()));
  REQUIRE(run({"createrepo_c", "--no-database", f.dir / "reference"}).exit_status == 0);
  HttpServer server(f.repo + "/public");
  IsolatedDnf ours(f.dir / "ours"), theirs(f.dir / "theirs");
  ours.add_repo("ours", server.url() + "/rpm/el/9/x86_64", f.repo + "/public/gpg.key", true);
  theirs.add_repo("theirs", "file://" + (f.dir / "reference"), "", false);
  // Every field of a package in one query: each dnf run takes about a second.
  for (std::string package : {"rhello", "rcommon"}) {
    auto a = ours({"repoquery", "--qf", k_every_field, package});
    auto b = theirs({"repoquery", "--qf", k_every_field, package});
    INFO(package << "\nours:\n" << a.out << a.err << "\ncreaterepo_c:\n" << b.out << b.err);
    REQUIRE(a.exit_status == 0);
    REQUIRE(b.exit_status == 0);
    CHECK(a.out == b.out);
    // and the comparison compared something
    if (package == "rhello") {
      CHECK(a.out.find("\nrequires:\nrcommon >= 1:2.0\n") != std::string::npos);
      CHECK(a.out.find("\nrecommends:\nrextra\n") != std::string::npos);
    } else {
      CHECK(a.out.find("\nconflicts:\nrold < 1.0\n") != std::string::npos);
      CHECK(a.out.find("\nobsoletes:\nrcommon-legacy\n") != std::string::npos);
      CHECK(a.out.find("/var/log/rcommon.log\n") != std::string::npos);
    }
  }
}

TEST_CASE("dnf: an edited primary.xml.gz and another key are rejected", "[pkgcloud][dnf][server]") {
  Fixture f;
  Fixture other;
  HttpServer server(f.repo + "/public");
  {
    IsolatedDnf dnf(f.dir / "wrongkey");
    dnf.add_repo("pkgcloud", server.url() + "/rpm/el/9/x86_64", other.repo + "/public/gpg.key",
                 true);
    auto cache = dnf({"makecache"});
    INFO(cache.out << cache.err);
    CHECK(cache.exit_status != 0);
  }
  for (const auto& e : fs::directory_iterator(f.repo + "/public/rpm/el/9/x86_64/repodata"))
    if (e.path().string().ends_with("-primary.xml.gz"))
      std::ofstream(e.path(), std::ios::app | std::ios::binary) << "tampered";
  IsolatedDnf dnf(f.dir / "tampered");
  dnf.add_repo("pkgcloud", server.url() + "/rpm/el/9/x86_64", f.repo + "/public/gpg.key", true);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  CHECK(cache.exit_status != 0);
  auto verify = pkgcloud(f.repo, {"verify"});
  CHECK(verify.exit_status == 1);
  CHECK(verify.out.find("-primary.xml.gz has size") != std::string::npos);
}

TEST_CASE("dnf: after a push and an rm into a repository, makecache sees exactly what is left",
          "[pkgcloud][dnf][server]") {
  // push and rm rewrite the metadata copying its unchanged gzip members: the files dnf reads
  // are then members of two generations, which must read as one.
  Fixture f;
  std::string extra = rpmbuild(f.dir.path(), "rextra", "3.0", "noarch", "", "");
  REQUIRE(pkgcloud(f.repo, {"push", extra}).exit_status == 0);
  REQUIRE(pkgcloud(f.repo, {"rm", "rhello"}).exit_status == 0);
  Served served(f);
  const IsolatedDnf& dnf = served.dnf;
  CHECK(dnf.all("%{name}-%{evr}") == "rcommon-1:2.0-1\nrextra-3.0-1\n");
  CHECK(dnf({"repoquery", "-l", "rextra"}).out.find("/usr/share/rextra/data\n") !=
        std::string::npos);
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: verify reports a package that primary.xml lists but dnf could not download",
          "[pkgcloud][dnf]") {
  Fixture f;
  REQUIRE(pkgcloud(f.repo, {"verify"}).exit_status == 0);
  // the noarch package's link in the x86_64 repository, which its primary.xml points at
  std::string link = "rpm/el/9/x86_64/Packages/rcommon-2.0-1.noarch.rpm";
  REQUIRE(fs::exists(f.repo + "/public/" + link));
  fs::remove(f.repo + "/public/" + link);
  auto verify = pkgcloud(f.repo, {"verify"});
  CHECK(verify.exit_status == 1);
  CHECK(verify.out == link + ": listed in primary.xml but missing\n");
}

TEST_CASE("dnf: records made before fragments were kept index to the same metadata",
          "[pkgcloud][dnf]") {
  Fixture f;
  auto repodata = [&] {
    std::map<std::string, std::string> files;
    for (const auto& e : fs::directory_iterator(f.repo + "/public/rpm/el/9/x86_64/repodata"))
      if (e.path().string().ends_with(".xml.gz"))
        files[e.path().filename()] = *opskit::read_file(e.path());
    return files;
  };
  REQUIRE(pkgcloud(f.repo, {"index"}).exit_status == 0);
  auto before = repodata();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((f.repo + "/.pkgcloud/state.db").c_str(), &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, "UPDATE packages SET xml_primary = '', xml_filelists = '', xml_other = ''",
                     nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  auto index = pkgcloud(f.repo, {"index"});
  INFO(index.err);
  REQUIRE(index.exit_status == 0);
  CHECK(repodata() == before);
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
  // A push writes the fragments it needs from the metadata too: after one in and out, the
  // files are those of before again.
  fs::remove_all(f.repo + "/.pkgcloud/yum");
  std::string extra = rpmbuild(f.dir.path(), "rextra", "3.0", "noarch", "", "");
  REQUIRE(pkgcloud(f.repo, {"push", extra}).exit_status == 0);
  REQUIRE(pkgcloud(f.repo, {"rm", "rextra"}).exit_status == 0);
  auto after = repodata();
  for (const auto& [name, data] : before)
    CHECK(after[name] == data);
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: a push writes what a whole index writes, with or without the kept texts",
          "[pkgcloud][dnf]") {
  // A push copies the unchanged runs of packages from the published files and their texts
  // from .pkgcloud/yum/; a whole index writes everything anew from the database.
  Fixture f;
  const std::string epoch = "1764000000";
  auto repodata = [&] { return published(f.repo + "/public/rpm/el/9/x86_64"); };
  std::string extra = rpmbuild(f.dir.path(), "rextra", "3.0", "noarch", "", "");
  REQUIRE(pkgcloud(f.repo, {"push", extra}, epoch).exit_status == 0);
  auto pushed = repodata();
  REQUIRE(fs::exists(f.repo + "/.pkgcloud/yum/rpm/el/9/x86_64"));
  REQUIRE(pkgcloud(f.repo, {"index"}, epoch).exit_status == 0);
  CHECK(repodata() == pushed);
  // index drops the kept texts (a damaged one would otherwise outlive the repair)
  CHECK_FALSE(fs::exists(f.repo + "/.pkgcloud/yum/rpm/el/9/x86_64"));
  REQUIRE(pkgcloud(f.repo, {"rm", "rextra"}, epoch).exit_status == 0);
  REQUIRE(pkgcloud(f.repo, {"push", extra}, epoch).exit_status == 0);
  CHECK(repodata() == pushed);
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: pushes, replacements and removals in any order write what a whole index writes",
          "[pkgcloud][dnf]") {
  // A rewrite carries the runs of packages that no record changed since the last one and
  // reads the rows of the others alone. Names chosen to end runs (see yum_run_ends) make a
  // repository of a few packages many runs, so that changes split, join and extend them.
  if (!have_program("rpmbuild"))
    FAIL("rpmbuild is needed (scripts/dev installs it)");
  TempDir dir;
  const std::string repo = dir / "repo", copy = dir / "copy", epoch = "1764000000";
  REQUIRE(pkgcloud(repo, {"init"}).exit_status == 0);
  std::vector<std::string> ends, others;
  for (int i = 0; ends.size() < 5 || others.size() < 9; ++i) {
    std::string name = "s" + std::to_string(i);
    opskit::repo::YumEntry e{name, "1.0-1", "noarch", {}, {}, 0, {}, 0};
    auto& into = opskit::repo::yum_run_ends(e) ? ends : others;
    if (into.size() < (&into == &ends ? 5u : 9u))
      into.push_back(name);
  }
  std::vector<std::string> names = ends;
  names.insert(names.end(), others.begin(), others.end());
  struct Package {
    std::string spec; // NAME=VERSION, as rm takes it
    std::string file, other_content;
  };
  std::vector<Package> pool;
  auto first = rpm_set(dir.path(), names, "1.0", "noarch", "one");
  auto again = rpm_set(dir.path(), names, "1.0", "noarch", "two");
  for (const auto& n : names)
    pool.push_back({n + "=1.0-1", first[n], again[n]});
  std::vector<std::string> newer(names.begin() + 3, names.begin() + 8);
  for (const auto& [n, file] : rpm_set(dir.path(), newer, "2.0", "noarch", "one"))
    pool.push_back({n + "=2.0-1", file, ""});
  for (const auto& [n, file] : rpm_set(dir.path(), {"s1", "sx", "zz"}, "1.0", "x86_64", "one"))
    pool.push_back({n + "=1.0-1", file, ""});
  // An architecture the repository is not configured for: its repository comes and goes.
  for (const auto& [n, file] : rpm_set(dir.path(), {"sa", "sb"}, "1.0", "aarch64", "one"))
    pool.push_back({n + "=1.0-1", file, ""});

  // Each step runs pkgcloud twice: instrumented by the sanitizers, three times slower, the
  // first 24 steps of the same sequence keep the suite's run within its budget.
  constexpr int k_steps = k_sanitized ? 24 : 60;
  std::mt19937 random(7);
  std::vector<int> in(pool.size(), 0); // 0: not in the repository, 1: first content, 2: other
  for (int step = 0; step < k_steps; ++step) {
    std::size_t i = random() % pool.size();
    const Package& p = pool[i];
    std::vector<std::string> args;
    if (in[i] == 0) {
      args = {"push", p.file};
      in[i] = 1;
    } else if (!p.other_content.empty() && random() % 2 == 0) {
      args = {"push", "--replace", in[i] == 1 ? p.other_content : p.file};
      in[i] = 3 - in[i];
    } else {
      args = {"rm", p.spec};
      in[i] = 0;
    }
    if (step == k_steps / 2) // a whole index in between: the next rewrite starts from all the rows
      REQUIRE(pkgcloud(repo, {"index"}, epoch).exit_status == 0);
    auto changed = pkgcloud(repo, args, epoch);
    INFO("step " << step << ": " << args[0] << " " << args.back() << ": " << changed.err);
    REQUIRE(changed.exit_status == 0);
    fs::remove_all(copy);
    fs::copy(repo, copy, fs::copy_options::recursive);
    REQUIRE(pkgcloud(copy, {"index"}, epoch).exit_status == 0);
    for (const char* arch : {"x86_64", "aarch64"})
      if (fs::exists(repo + "/public/rpm/el/9/" + arch + "/repodata/repomd.xml"))
        CHECK(published(repo + "/public/rpm/el/9/" + arch) ==
              published(copy + "/public/rpm/el/9/" + arch));
  }
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out);
  CHECK(verify.exit_status == 0);
}

TEST_CASE("dnf: a repository whose last package of its own goes stays, with the noarch ones",
          "[pkgcloud][dnf]") {
  // Its clients still read it: removing it, or leaving it as it was, would break them.
  Fixture f;
  auto arm = rpm_set(f.dir.path(), {"rarm"}, "1.0", "aarch64", "one");
  REQUIRE(pkgcloud(f.repo, {"push", arm["rarm"]}).exit_status == 0);
  REQUIRE(pkgcloud(f.repo, {"rm", "rarm"}).exit_status == 0);
  auto files = published(f.repo + "/public/rpm/el/9/aarch64");
  std::string primary;
  for (const auto& [name, data] : files)
    if (name.ends_with("-primary.xml.gz"))
      primary = *opskit::repo::gzip_decompress(data, std::size_t{1} << 24);
  CHECK(primary.find("packages=\"1\"") != std::string::npos);
  CHECK(primary.find("<name>rcommon</name>") != std::string::npos);
  CHECK(primary.find("rarm") == std::string::npos);
  auto verify = pkgcloud(f.repo, {"verify"});
  INFO(verify.out);
  CHECK(verify.exit_status == 0);
}

TEST_CASE("dnf: an aarch64 machine reads a repository of noarch packages that init --arch made "
          "for it",
          "[pkgcloud][dnf][server]") {
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Dnf Test <dnf@example.com>", "--arch",
                          "x86_64,arm64"})
              .exit_status == 0);
  auto noarch = rpm_set(dir.path(), {"rnoarch"}, "1.0", "noarch", "one");
  REQUIRE(pkgcloud(repo, {"push", noarch["rnoarch"]}).exit_status == 0);
  HttpServer server(repo + "/public");
  IsolatedDnf dnf(dir / "dnf");
  dnf.add_repo("pkgcloud", server.url() + "/rpm/el/9/$basearch", repo + "/public/gpg.key", true);
  auto cache = dnf({"--forcearch=aarch64", "makecache"});
  INFO(cache.out << cache.err);
  REQUIRE(cache.exit_status == 0);
  auto query = dnf({"--forcearch=aarch64", "repoquery", "--qf", "%{name}.%{arch}", "--all"});
  INFO(query.err);
  CHECK(query.out == "rnoarch.noarch\n");
}

TEST_CASE("dnf: a --replace'd noarch package reaches every architecture with its new content",
          "[pkgcloud][dnf][server]") {
  Fixture f;
  fs::create_directories(f.dir / "again");
  std::string again =
      rpmbuild(f.dir / "again", "rcommon", "2.0", "noarch", "1", "Provides: rcommon-again");
  auto replace = pkgcloud(f.repo, {"push", "--replace", again});
  INFO(replace.err);
  REQUIRE(replace.exit_status == 0);
  auto bytes = *opskit::read_file(again);
  CHECK(*opskit::read_file(f.repo + "/public/rpm/el/9/noarch/Packages/rcommon-2.0-1.noarch.rpm") ==
        bytes);
  CHECK(*opskit::read_file(f.repo + "/public/rpm/el/9/x86_64/Packages/rcommon-2.0-1.noarch.rpm") ==
        bytes);
  auto verify = pkgcloud(f.repo, {"verify"});
  INFO(verify.out);
  CHECK(verify.exit_status == 0);
  Served served(f);
  const IsolatedDnf& dnf = served.dnf;
  // dnf checks the download against primary.xml's checksum, which is the new package's.
  auto install = dnf({"install", "rcommon"});
  INFO(install.out << install.err);
  CHECK(install.exit_status == 0);
  CHECK(dnf({"repoquery", "--provides", "rcommon"}).out.find("rcommon-again\n") !=
        std::string::npos);
}

TEST_CASE("dnf: verify reports metadata whose text disagrees with its open-checksum",
          "[pkgcloud][dnf]") {
  Fixture f;
  std::string repomd = f.repo + "/public/rpm/el/9/x86_64/repodata/repomd.xml";
  std::string text = *opskit::read_file(repomd);
  auto at = text.find("<open-checksum type=\"sha256\">");
  REQUIRE(at != std::string::npos);
  at += std::string_view("<open-checksum type=\"sha256\">").size();
  text[at] = text[at] == '0' ? '1' : '0';
  std::ofstream(repomd, std::ios::trunc) << text;
  auto verify = pkgcloud(f.repo, {"verify"});
  CHECK(verify.exit_status == 1);
  CHECK(verify.out.find("-primary.xml.gz holds other text than its open-checksum and open-size "
                        "in repomd.xml say\n") != std::string::npos);
}

TEST_CASE("dnf: after kill -9 at any moment of a push, dnf still accepts the repository",
          "[pkgcloud][dnf][server]") {
  Fixture f;
  Served served(f);
  const IsolatedDnf& dnf = served.dnf;
  std::vector<std::string> late;
  for (int i = 0; i < 6; ++i)
    late.push_back(rpmbuild(f.dir.path(), "late" + std::to_string(i), "1.0", "noarch", "", ""));
  for (int i = 0; i < 6; ++i) {
    // Spread the kills over a push's life: parsing, pool copy, indexing, signing, swapping.
    kill_after({tool("pkgcloud"), "--repo", f.repo, "push", late[i]}, 4 + 12 * i);
    auto cache = dnf({"makecache"});
    INFO("killed after " << 4 + 12 * i << " ms\n" << cache.out << cache.err);
    REQUIRE(cache.exit_status == 0);
    CHECK(dnf({"repoquery", "rhello"}).out == "rhello-0:1.0-1.x86_64\n");
  }
  // what a killed run left is swept, and the same pushes then land whole
  fs::create_directories(f.repo + "/public/rpm/el/9/x86_64/.repodata.next-99999");
  std::ofstream(f.repo + "/public/rpm/el/9/x86_64/.repodata.next-99999/repomd.xml") << "half";
  std::vector<std::string> args{"push"};
  args.insert(args.end(), late.begin(), late.end());
  REQUIRE(pkgcloud(f.repo, args).exit_status == 0);
  CHECK(staging_directories(f.repo + "/public/rpm/el/9/x86_64").empty());
  // A fresh cache: the HTTP server's Last-Modified has one-second resolution, so within the
  // same second as the last makecache dnf would be told "304 Not Modified" and keep what it has.
  fs::remove_all(f.dir / "dnf/cache");
  fs::create_directories(f.dir / "dnf/cache");
  CHECK(dnf({"repoquery", "late5"}).out == "late5-0:1.0-1.noarch\n");
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: a source rpm lands in SRPMS, which dnf reads as a repository of its own",
          "[pkgcloud][dnf][server]") {
  Fixture f;
  std::string srpm = source_rpm(f);
  auto push = pkgcloud(f.repo, {"push", srpm});
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  CHECK(fs::exists(f.repo + "/public/rpm/el/9/SRPMS/Packages/rhello-1.0-1.src.rpm"));
  HttpServer server(f.repo + "/public");
  IsolatedDnf dnf(f.dir / "dnf");
  dnf.add_repo("sources", server.url() + "/rpm/el/9/SRPMS", f.repo + "/public/gpg.key", true);
  CHECK(dnf.all("%{name}-%{evr}.%{arch}") == "rhello-1.0-1.src\n");
  // and the binary repository does not list it
  IsolatedDnf binary(f.dir / "binary");
  binary.add_repo("pkgcloud", server.url() + "/rpm/el/9/x86_64", f.repo + "/public/gpg.key", true);
  CHECK(binary.all("%{name}.%{arch}") == "rcommon.noarch\nrhello.x86_64\n");
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: a source rpm without SOURCEPACKAGE is a source rpm, as rpm reads it",
          "[pkgcloud][dnf][server]") {
  Fixture f; // its binary rhello-1.0-1.x86_64 is in the repository already
  std::string srpm = without_source_package_tag(source_rpm(f), f.dir / "old.src.rpm");
  auto queried = run(
      {"rpm", "-qp", "--nosignature", "--nodigest", "--qf", "%{SOURCEPACKAGE} %{SOURCERPM}", srpm});
  REQUIRE(queried.out == "1 (none)");
  auto push = pkgcloud(f.repo, {"push", srpm});
  INFO(push.err);
  REQUIRE(push.exit_status == 0);
  CHECK(push.out == "added rhello 1.0-1 src -> el/9\n");
  CHECK(fs::exists(f.repo + "/public/rpm/el/9/SRPMS/Packages/rhello-1.0-1.src.rpm"));
  // and the binary it was built into is still taken as the same package
  CHECK(pkgcloud(f.repo, {"push", f.rpms[0]}).out == "unchanged rhello 1.0-1 x86_64 -> el/9\n");
  HttpServer server(f.repo + "/public");
  IsolatedDnf dnf(f.dir / "dnf");
  dnf.add_repo("sources", server.url() + "/rpm/el/9/SRPMS", f.repo + "/public/gpg.key", true);
  CHECK(dnf.all("%{name}-%{evr}.%{arch}") == "rhello-1.0-1.src\n");
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: where the file system cannot exchange directories, repodata/ is replaced file "
          "by file",
          "[pkgcloud][dnf][server]") {
  Fixture f;
  // renameat2(RENAME_EXCHANGE) fails with EINVAL, as on NFS
  auto push = [&](const std::string& rpm) {
    return run({"env", "LD_PRELOAD=" OPSKIT_NO_EXCHANGE,
                "ASAN_OPTIONS=verify_asan_link_order=0:handle_sigill=1", tool("pkgcloud"), "--repo",
                f.repo, "push", rpm});
  };
  for (const char* name : {"rextra", "rmore"}) {
    auto pushed = push(rpmbuild(f.dir.path(), name, "3.0", "noarch", "", ""));
    INFO(pushed.err);
    REQUIRE(pushed.exit_status == 0);
  }
  std::string repodata = f.repo + "/public/rpm/el/9/x86_64/repodata";
  int gz = 0;
  for (const auto& e : fs::directory_iterator(repodata))
    gz += e.path().string().ends_with(".xml.gz");
  CHECK(gz == 6); // this generation's three and the previous one's, no older
  CHECK(staging_directories(f.repo + "/public/rpm/el/9/x86_64").empty());
  Served served(f);
  const IsolatedDnf& dnf = served.dnf;
  CHECK(dnf.all("%{name}") == "rcommon\nrextra\nrhello\nrmore\n");
  CHECK(pkgcloud(f.repo, {"verify"}).exit_status == 0);
}

TEST_CASE("dnf: index --rebuild recovers rpm records, noarch ones once", "[pkgcloud][dnf]") {
  Fixture f;
  std::string primary_dir = f.repo + "/public/rpm/el/9/x86_64/repodata";
  auto listing = pkgcloud(f.repo, {"ls"});
  fs::remove(f.repo + "/.pkgcloud/state.db");
  REQUIRE(pkgcloud(f.repo, {"init"}).exit_status == 0);
  auto rebuilt = pkgcloud(f.repo, {"index", "--rebuild"});
  INFO(rebuilt.err);
  REQUIRE(rebuilt.exit_status == 0);
  CHECK(rebuilt.out.starts_with("rescanned 2 packages from the pool\n"));
  CHECK(pkgcloud(f.repo, {"ls"}).out == listing.out);
}

TEST_CASE("dnf: a deb is refused in a dist of rpms, and an rpm in the default dist of debs",
          "[pkgcloud][dnf]") {
  Fixture f;
  auto deb = dpkg_deb_build(f.dir.path(), "dhello", control("dhello", "1.0", "amd64"));
  auto listing = pkgcloud(f.repo, {"ls"}).out;
  auto into_rpms = pkgcloud(f.repo, {"push", "--dist", "el/9", deb});
  CHECK(into_rpms.exit_status == 1);
  CHECK(into_rpms.err == "pkgcloud: error: " + deb +
                             ": el/9 holds rpms; push debs with --dist DISTRO/RELEASE such as "
                             "debian/bookworm\n");
  auto into_debs = pkgcloud(f.repo, {"push", "--dist", "debian/bookworm", f.rpms[0]});
  CHECK(into_debs.exit_status == 1);
  CHECK(into_debs.err == "pkgcloud: error: " + f.rpms[0] +
                             ": debian/bookworm is the repository's default dist for debs; push "
                             "rpms with --dist DISTRO/RELEASE such as el/9\n");
  CHECK(pkgcloud(f.repo, {"ls"}).out == listing);
  CHECK_FALSE(fs::exists(f.repo + "/public/deb/el"));
  // A dist of its own for each is fine, and so is each format's default.
  CHECK(pkgcloud(f.repo, {"push", "--dist", "el/8", f.rpms[0]}).exit_status == 0);
  CHECK(pkgcloud(f.repo, {"push", "--dist", "el/8", deb}).exit_status == 1);
  CHECK(pkgcloud(f.repo, {"push", deb}).exit_status == 0);
}

TEST_CASE("dnf: eight concurrent rpm pushes lose nothing", "[pkgcloud][dnf]") {
  if (!have_program("rpmbuild"))
    FAIL("rpmbuild is needed (scripts/dev installs it)");
  TempDir dir;
  std::string repo = dir / "repo";
  REQUIRE(pkgcloud(repo, {"init"}).exit_status == 0);
  // One rpmbuild run, eight subpackages.
  std::ofstream spec(dir / "many.spec");
  spec << "Name: many\nVersion: 1.0\nRelease: 1\nSummary: s\nLicense: MIT\nBuildArch: noarch\n"
          "%description\nd\n%install\nfor i in 0 1 2 3 4 5 6 7; do mkdir -p "
          "%{buildroot}/usr/share/c$i; "
          "echo $i > %{buildroot}/usr/share/c$i/data; done\n%files\n";
  for (int i = 0; i < 8; ++i)
    spec << "%package -n c" << i << "\nSummary: c" << i << "\n%description -n c" << i
         << "\nd\n%files -n c" << i << "\n/usr/share/c" << i << "/data\n";
  spec.close();
  auto built = run({"rpmbuild", "-bb", "--define", "_topdir " + (dir / "top"), "--define",
                    "_build_id_links none", dir / "many.spec"});
  REQUIRE(built.exit_status == 0);
  std::vector<std::future<Outcome>> runs;
  for (int i = 0; i < 8; ++i) {
    std::string rpm = dir / ("top/RPMS/noarch/c" + std::to_string(i) + "-1.0-1.noarch.rpm");
    runs.push_back(std::async(std::launch::async, [&repo, rpm] {
      return pkgcloud(repo, {"push", rpm});
    }));
  }
  for (auto& r : runs) {
    auto outcome = r.get();
    INFO(outcome.err);
    CHECK(outcome.exit_status == 0);
  }
  auto listing = pkgcloud(repo, {"ls"}).out;
  for (int i = 0; i < 8; ++i)
    CHECK(listing.find("c" + std::to_string(i) + " ") != std::string::npos);
  std::string repomd = *opskit::read_file(repo + "/public/rpm/el/9/x86_64/repodata/repomd.xml");
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out);
  CHECK(verify.exit_status == 0);
  bool counted = false;
  for (const auto& e : fs::directory_iterator(repo + "/public/rpm/el/9/x86_64/repodata"))
    if (e.path().string().ends_with("-primary.xml.gz") &&
        repomd.find(e.path().filename().string()) != std::string::npos) {
      auto text = run({"zcat", e.path().string()});
      CHECK(text.out.find("packages=\"8\"") != std::string::npos);
      counted = true;
    }
  CHECK(counted);
}
