// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <string>

#include "opskit/repo/state.hpp"
#include "temp_dir.hpp"

using namespace opskit::repo;

namespace {

PackageRecord rpm(const std::string& name, const std::string& xml) {
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

} // namespace

TEST_CASE("state: yum rows carry every package's fragments, or none until read_text",
          "[repo][rpm]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  for (int i = 0; i < 3; ++i)
    REQUIRE(state->put(rpm("p" + std::to_string(i), std::to_string(i))));
  PackageRecord other = rpm("elsewhere", "x");
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
