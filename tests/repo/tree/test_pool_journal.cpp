// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>

#include "opskit/file.hpp"
#include "temp_dir.hpp"
#include "tree/pool_journal.hpp"

namespace fs = std::filesystem;
using opskit::repo::tree::PoolJournal;
using opskit::test::make_file;

TEST_CASE("pool journal: the next push sweeps the directories a killed one noted, and only those",
          "[repo][tree]") {
  opskit::test::TempDir tmp;
  std::string root = tmp / "public", journal = tmp / "staging";
  std::string hello = root + "/deb/debian/pool/main/h/hello", other = root + "/rpm/Packages";
  {
    auto killed = PoolJournal::open(journal, root);
    REQUIRE(killed);
    REQUIRE(killed->note("deb/debian/pool/main/h/hello"));
    REQUIRE(killed->note("deb/debian/pool/main/h/hello")); // noted once
    make_file(hello + "/.hello_1.0_amd64.deb.tmp-123");
  } // killed: never cleared
  CHECK(*opskit::read_file(journal) == "deb/debian/pool/main/h/hello\n");
  make_file(hello + "/hello_1.0_amd64.deb");
  make_file(other + "/.x-1-1.noarch.rpm.tmp-7"); // not noted: left to index's sweep
  auto next = PoolJournal::open(journal, root);
  REQUIRE(next);
  CHECK_FALSE(fs::exists(hello + "/.hello_1.0_amd64.deb.tmp-123"));
  CHECK(fs::exists(hello + "/hello_1.0_amd64.deb"));
  CHECK(fs::exists(other + "/.x-1-1.noarch.rpm.tmp-7"));
  CHECK(opskit::read_file(journal)->empty()); // swept: the next push notes only its own
  REQUIRE(next->note("rpm"));
  CHECK(*opskit::read_file(journal) == "rpm\n");
  REQUIRE(next->clear());
  CHECK(opskit::read_file(journal)->empty());
}

TEST_CASE("pool journal: a note that leaves the publication is not swept", "[repo][tree]") {
  opskit::test::TempDir tmp;
  std::string root = tmp / "public", journal = tmp / "staging";
  make_file(tmp / "elsewhere/.secret.tmp-1");
  make_file(root + "/pool/.a.tmp-1");
  std::ofstream(journal) << "../elsewhere\n"
                         << tmp / "elsewhere"
                         << "\n\npool/../../elsewhere\n";
  REQUIRE(PoolJournal::open(journal, root));
  CHECK(fs::exists(tmp / "elsewhere/.secret.tmp-1"));
  CHECK(fs::exists(root + "/pool/.a.tmp-1"));
}
