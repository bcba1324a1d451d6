// SPDX-License-Identifier: MIT
// Packages that try to hurt — names that climb out of the pool, NUL and control bytes,
// doubled fields, decompression bombs, lying ar and rpm headers, control.tar members that leave
// the package — made at run time by hostile_packages.py and pushed one by one into a signed
// repository that holds good packages; and good packages whose descriptions are not UTF-8.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "fixture.hpp"
#include "opskit/file.hpp"
#include "opskit/text.hpp"
#include "pattern.hpp"

using namespace opskit::test;
namespace fs = std::filesystem;

namespace {

// The peak resident set a push of one hostile package may reach. Each is a few KiB, and what a
// reader holds of it is bounded by the limits of pkgcloud(1) (a control.tar of 64 MiB at most,
// a control file of 512 KiB): a bomb that expands to 4 GiB must stay far below its expansion,
// below the largest of those limits. (A refused push measured 6 to 15 MiB.) The sanitizer
// build's shadow memory and quarantine make a figure of its own meaningless: there the bound is
// not checked.
constexpr long k_push_rss_limit_kib = 64 << 10;

// A signed repository with a good deb and a good rpm in it.
struct GoodRepository {
  TempDir dir;
  std::string repo = dir / "repo";
  GoodRepository() {
    REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Test Repo <repo@example.com>"}, k_epoch)
                .exit_status == 0);
    auto deb = dpkg_deb_build(dir.path(), "good", control("good", "1.0", "amd64"));
    fs::create_directories(dir / "rpm");
    auto rpm = rpmbuild(dir / "rpm", "fine", "2.0", "noarch", "", "");
    auto push = pkgcloud(repo, {"push", deb, rpm}, k_epoch);
    INFO(push.err);
    REQUIRE(push.exit_status == 0);
  }
};

// The packages hostile_packages.py writes into `dir`, and its manifest.
nlohmann::json hostile_packages(const std::string& dir) {
  fs::create_directories(dir);
  auto made = run({"/usr/bin/python3", OPSKIT_HOSTILE_PACKAGES, dir});
  INFO(made.err);
  REQUIRE(made.exit_status == 0);
  return nlohmann::json::parse(*opskit::read_file(dir + "/manifest.json"));
}

// `pkgcloud verify` of `repo` finds nothing wrong.
void check_verifies(const std::string& repo) {
  auto verify = pkgcloud(repo, {"verify"});
  INFO(verify.out << verify.err);
  CHECK(verify.exit_status == 0);
}

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#else
  return false;
#endif
}

} // namespace

TEST_CASE("hostile packages: each is refused in one line naming it and its problem, in bounded "
          "memory, with the repository unchanged and verified",
          "[pkgcloud][hostile]") {
  GoodRepository good;
  std::string out = good.dir / "hostile";
  auto manifest = hostile_packages(out);
  REQUIRE(manifest["refused"].size() >= 40);
  auto before = snapshot(good.repo);
  auto listed = pkgcloud(good.repo, {"ls", "--json"}).out;
  for (const auto& [name, problem] : manifest["refused"].items()) {
    std::string file = out + "/" + name;
    auto push = pkgcloud(good.repo, {"push", file}, k_epoch);
    INFO(name << ": " << push.err);
    CHECK(push.exit_status == 1);
    CHECK(push.err.starts_with("pkgcloud: error: " + file + ": "));
    CHECK(push.err.find(problem.get<std::string>()) != std::string::npos);
    CHECK(std::count(push.err.begin(), push.err.end(), '\n') == 1);
    CHECK(opskit::printable(push.err.substr(0, push.err.size() - 1)) ==
          push.err.substr(0, push.err.size() - 1));
    CHECK(push.out.empty());
    if (!sanitized())
      CHECK(push.max_rss_kib < k_push_rss_limit_kib);
  }
  CHECK(snapshot(good.repo) == before);
  CHECK(pkgcloud(good.repo, {"ls", "--json"}).out == listed);
  check_verifies(good.repo);
}

TEST_CASE("hostile packages: a description that is not UTF-8 is kept byte for byte in Packages "
          "and written as valid XML that dnf reads",
          "[pkgcloud][hostile][dnf]") {
  GoodRepository good;
  std::string out = good.dir / "odd";
  auto manifest = hostile_packages(out);
  REQUIRE(manifest["accepted"] == nlohmann::json{"oddtext.deb", "oddtext.rpm"});
  auto push = pkgcloud(good.repo, {"push", out + "/oddtext.deb", out + "/oddtext.rpm"}, k_epoch);
  INFO(push.err);
  REQUIRE(push.exit_status == 0);

  // The control file's Description, every byte of it, is the Packages stanza's.
  std::string control = *opskit::read_file(out + "/oddtext.control");
  std::string description = control.substr(control.find("Description: not UTF-8"));
  description = description.substr(0, description.find("  kept byte for byte\n") + 21);
  auto packages =
      opskit::read_file(good.repo + "/public/deb/debian/dists/bookworm/main/binary-amd64/Packages");
  CHECK(packages->find(description) != std::string::npos);

  // primary.xml parses as XML (expat refuses malformed UTF-8 and the characters XML 1.0
  // forbids, escaped or not), with the description read as ISO-8859-1 and its controls gone.
  std::string dir = good.repo + "/public/rpm/el/9/x86_64/";
  std::string repomd = *opskit::read_file(dir + "repodata/repomd.xml");
  auto href = re::search(repomd, "href=\"(repodata/[^\"]+-primary.xml.gz)\"");
  REQUIRE(href);
  std::string primary = dir + (*href)[1];
  auto parsed = run({"/usr/bin/python3", "-c",
                     "import gzip, sys, xml.dom.minidom\n"
                     "doc = xml.dom.minidom.parseString(gzip.open(sys.argv[1]).read())\n"
                     "for p in doc.getElementsByTagName('package'):\n"
                     "    name = p.getElementsByTagName('name')[0].firstChild.data\n"
                     "    text = p.getElementsByTagName('description')[0].firstChild.data\n"
                     "    if name == 'oddtext': sys.stdout.write(text)\n",
                     primary});
  INFO(parsed.err);
  REQUIRE(parsed.exit_status == 0);
  CHECK(
      parsed.out ==
      "not UTF-8: caf\u00e9 \u0080 \u00c3( \u00c0\u00af \u00ed\u00a0\u0080 \u00fe\u00ff <&>  end");

  HttpServer server(good.repo + "/public");
  IsolatedDnf dnf(good.dir / "dnf");
  dnf.add_repo("pkgcloud", server.url() + "/rpm/el/9/x86_64", good.repo + "/public/gpg.key", true);
  auto cache = dnf({"makecache"});
  INFO(cache.out << cache.err);
  CHECK(cache.exit_status == 0);
  CHECK(dnf.all("%{name}") == "fine\noddtext\n");
  check_verifies(good.repo);
}
