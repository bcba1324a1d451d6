// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include <sqlite3.h>

#include "opskit/repo/store/state.hpp"
#include "temp_dir.hpp"

using namespace opskit::repo;

namespace {

PackageRecord rpm_record(const std::string& name, const std::string& xml) {
  PackageRecord r;
  r.format = PackageFormat::rpm;
  r.dist = "el/9";
  r.name = name;
  r.version = "1.0-1";
  r.arch = "noarch";
  r.file = "rpm/el/9/noarch/Packages/" + name + "-1.0-1.noarch.rpm";
  r.size = 100;
  r.sha256 = std::string(64, 'a');
  r.metadata = "{}";
  r.xml_primary = "<package>" + xml + "</package>\n";
  r.xml_filelists = "<filelists " + xml + "/>\n";
  r.xml_other = "<other " + xml + "/>\n";
  return r;
}

// The value of `key` in the config table, "(none)" when unset, "(error)" when unreadable.
std::string config_of(const State& state, const std::string& key) {
  auto value = state.config(key);
  if (!value)
    return "(error)";
  return value->value_or("(none)");
}

} // namespace

TEST_CASE("state: yum rows carry every package's fragments, or none until read_text",
          "[repo][rpm]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  for (int i = 0; i < 3; ++i)
    REQUIRE(state->put(rpm_record("p" + std::to_string(i), std::to_string(i))));
  PackageRecord other = rpm_record("elsewhere", "x");
  other.dist = "el/8";
  REQUIRE(state->put(other));

  auto all = state->yum_rows("el/9", State::Text::all);
  REQUIRE(all);
  REQUIRE(all->rows.size() == 3);
  for (const auto& r : all->rows) {
    CHECK(r.text_read);
    CHECK(r.primary == "<package>" + std::string(r.name.substr(1)) + "</package>\n");
    CHECK(r.metadata.empty()); // only where the fragments are missing
  }

  auto some = state->yum_rows("el/9", State::Text::none);
  REQUIRE(some);
  REQUIRE(some->rows.size() == 3);
  for (const auto& r : some->rows) {
    CHECK_FALSE(r.text_read);
    CHECK(r.primary.empty());
  }
  const std::size_t which[] = {1};
  REQUIRE(state->read_text(*some, which));
  CHECK(some->rows[1].primary ==
        "<package>" + std::string(some->rows[1].name.substr(1)) + "</package>\n");
  CHECK(some->rows[1].other == "<other " + std::string(some->rows[1].name.substr(1)) + "/>\n");
  CHECK(some->rows[0].primary.empty());
}

TEST_CASE("state: saved yum runs come back with every rpm record of their dist changed since",
          "[repo][rpm]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  for (const char* name : {"a", "b", "c"})
    REQUIRE(state->put(rpm_record(name, name)));
  auto none = state->yum_tracked("el/9");
  REQUIRE(none);
  CHECK_FALSE(*none);

  YumRunRecord run{{"c", "1.0-1", "noarch"}, std::string(32, '\x01'), 3};
  REQUIRE(state->save_yum_runs("el/9", {{"x86_64", {run}}, {"SRPMS", {}}}));
  auto saved = state->yum_tracked("el/9");
  REQUIRE(saved);
  REQUIRE(*saved);
  REQUIRE((*saved)->runs.size() == 2);
  CHECK((*saved)->runs["SRPMS"].empty());
  REQUIRE((*saved)->runs["x86_64"].size() == 1);
  CHECK((*saved)->runs["x86_64"][0].last.name == "c");
  CHECK((*saved)->runs["x86_64"][0].key == run.key);
  CHECK((*saved)->runs["x86_64"][0].packages == 3);
  CHECK((*saved)->changed.empty());

  // An insert, a replacement (noted once, though the update changes the row twice over), a
  // removal; nothing of a dist without saved runs, nor of a deb.
  REQUIRE(state->put(rpm_record("d", "d")));
  PackageRecord b = rpm_record("b", "b2");
  b.sha256 = std::string(64, 'b');
  REQUIRE(state->put(b));
  REQUIRE(state->put(b));
  auto a = state->find(PackageFormat::rpm, "el/9", "a", "1.0-1", "noarch");
  REQUIRE(a);
  REQUIRE(*a);
  REQUIRE(state->remove((*a)->id));
  PackageRecord elsewhere = rpm_record("e", "e");
  elsewhere.dist = "el/8";
  REQUIRE(state->put(elsewhere));
  PackageRecord deb = rpm_record("f", "f");
  deb.format = PackageFormat::deb;
  REQUIRE(state->put(deb));
  auto since = state->yum_tracked("el/9");
  REQUIRE(since);
  REQUIRE(*since);
  std::vector<std::string> changed;
  for (const auto& id : (*since)->changed)
    changed.push_back(id.name + " " + id.version + " " + id.arch);
  CHECK(changed == std::vector<std::string>{"a 1.0-1 noarch", "b 1.0-1 noarch", "d 1.0-1 noarch"});

  YumRows rows;
  REQUIRE(state->yum_rows_between("el/9", "b", "c", rows));
  REQUIRE(rows.rows.size() == 2);
  CHECK(rows.rows[0].name == "b");
  CHECK(rows.rows[0].sha256 == b.sha256);
  CHECK(rows.rows[1].name == "c");
  REQUIRE(state->yum_rows_between("el/9", "c", std::nullopt, rows));
  REQUIRE(rows.rows.size() == 4);
  CHECK(rows.rows[3].name == "d");

  // Saving again starts over; dropping forgets.
  REQUIRE(state->save_yum_runs("el/9", {{"x86_64", {run}}}));
  auto again = state->yum_tracked("el/9");
  REQUIRE(again);
  REQUIRE(*again);
  CHECK((*again)->changed.empty());
  CHECK((*again)->runs.size() == 1);
  REQUIRE(state->drop_yum_runs("el/9"));
  auto dropped = state->yum_tracked("el/9");
  REQUIRE(dropped);
  CHECK_FALSE(*dropped);
}

TEST_CASE("state: a transaction dropped uncommitted rolls back, a committed one stays",
          "[repo][store]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  {
    auto txn = state->begin();
    REQUIRE(txn);
    REQUIRE(state->set_config("origin", "dropped"));
  }
  CHECK(config_of(*state, "origin") == "(none)");
  {
    auto txn = state->begin();
    REQUIRE(txn);
    REQUIRE(state->set_config("origin", "kept"));
    REQUIRE(txn->commit());
  }
  auto reopened = State::open(dir / "state.db", State::Create::no);
  REQUIRE(reopened);
  CHECK(config_of(*reopened, "origin") == "kept");
}

TEST_CASE("state: a moved State keeps its database and the transaction begun before the move",
          "[repo][store]") {
  opskit::test::TempDir dir;
  auto opened = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(opened);
  REQUIRE(opened->set_config("before", "1")); // prepares and caches the statement
  auto txn = opened->begin();
  REQUIRE(txn);
  State moved = std::move(*opened);
  REQUIRE(moved.set_config("during", "2"));
  State::Transaction carried = std::move(*txn);
  REQUIRE(carried.commit());

  auto other = State::open(dir / "other.db", State::Create::yes);
  REQUIRE(other);
  *other = std::move(moved);
  CHECK(config_of(*other, "before") == "1");
  CHECK(config_of(*other, "during") == "2");
  auto reopened = State::open(dir / "state.db", State::Create::no);
  REQUIRE(reopened);
  CHECK(config_of(*reopened, "during") == "2");
}

TEST_CASE("state: saved apt texts come back with every deb record of their dist changed since",
          "[repo][apt]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  auto deb = [](const std::string& name, const std::string& dist = "debian/bookworm") {
    PackageRecord r = rpm_record(name, name);
    r.format = PackageFormat::deb;
    r.dist = dist;
    r.arch = "amd64";
    return r;
  };
  REQUIRE(state->put(deb("a")));
  auto none = state->apt_tracked("debian/bookworm");
  REQUIRE(none);
  CHECK_FALSE(*none);

  std::map<std::string, std::string> texts{{"main/binary-amd64/Packages", std::string(64, 'c')}};
  REQUIRE(state->save_apt_texts("debian/bookworm", texts));
  REQUIRE(state->put(deb("b")));
  auto a = state->find(PackageFormat::deb, "debian/bookworm", "a", "1.0-1", "amd64");
  REQUIRE(a);
  REQUIRE(*a);
  REQUIRE(state->remove((*a)->id));
  REQUIRE(state->put(deb("c", "debian/trixie"))); // a dist without saved texts
  REQUIRE(state->put(rpm_record("d", "d")));      // an rpm
  auto since = state->apt_tracked("debian/bookworm");
  REQUIRE(since);
  REQUIRE(*since);
  CHECK((*since)->sha256 == texts);
  std::vector<std::string> changed;
  for (const auto& id : (*since)->changed)
    changed.push_back(id.name + " " + id.version + " " + id.arch);
  CHECK(changed == std::vector<std::string>{"a 1.0-1 amd64", "b 1.0-1 amd64"});

  REQUIRE(state->save_apt_texts("debian/bookworm", texts));
  auto again = state->apt_tracked("debian/bookworm");
  REQUIRE(again);
  REQUIRE(*again);
  CHECK((*again)->changed.empty());
}

TEST_CASE("state: a database whose triggers note rpm changes alone notes deb changes once opened",
          "[repo][apt]") {
  opskit::test::TempDir dir;
  {
    auto state = State::open(dir / "state.db", State::Create::yes);
    REQUIRE(state);
  }
  // The triggers of before: yum_changed alone.
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open((dir / "state.db").c_str(), &db) == SQLITE_OK);
  for (const char* sql :
       {"DROP TRIGGER changed_inserted", "DROP TRIGGER changed_removed",
        "DROP TRIGGER changed_updated",
        "CREATE TRIGGER yum_inserted AFTER INSERT ON packages BEGIN SELECT 1; END",
        "CREATE TRIGGER yum_removed AFTER DELETE ON packages BEGIN SELECT 1; END",
        "CREATE TRIGGER yum_updated AFTER UPDATE ON packages BEGIN SELECT 1; END",
        "INSERT INTO apt_texts VALUES ('debian/bookworm', 'main/binary-amd64/Packages', 'x')"})
    REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);

  auto state = State::open(dir / "state.db", State::Create::no);
  REQUIRE(state);
  PackageRecord r = rpm_record("a", "a");
  r.format = PackageFormat::deb;
  r.dist = "debian/bookworm";
  REQUIRE(state->put(r));
  auto tracked = state->apt_tracked("debian/bookworm");
  REQUIRE(tracked);
  REQUIRE(*tracked);
  REQUIRE((*tracked)->changed.size() == 1);
  CHECK((*tracked)->changed[0].name == "a");
}
