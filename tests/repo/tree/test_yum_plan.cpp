// SPDX-License-Identifier: MIT
// The plan of a rewrite of a dist's dnf repositories, on a state database of generated records.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "opskit/repo/store/state.hpp"
#include "temp_dir.hpp"
#include "tree/yum_plan.hpp"

using namespace opskit::repo;
using tree::Reuse;

namespace {

PackageRecord rpm(const std::string& name, const std::string& arch) {
  PackageRecord r;
  r.format = PackageFormat::rpm;
  r.dist = "el/9";
  r.name = name;
  r.version = "1.0-1";
  r.arch = arch;
  r.file = fmt::format("rpm/el/9/{}/Packages/{}-1.0-1.{}.rpm", arch == "src" ? "SRPMS" : arch,
                       name, arch);
  r.size = 100;
  r.sha256 = std::string(64, 'a');
  r.metadata = "{}";
  r.xml_primary = "<package/>\n";
  r.xml_filelists = "<package/>\n";
  r.xml_other = "<package/>\n";
  return r;
}

std::size_t entries(const tree::RepositoryPlan& plan) {
  std::size_t n = 0;
  for (const auto& run : plan.runs)
    n += run.entries.size();
  return n;
}

} // namespace

TEST_CASE("yum plan: noarch rpms go into each binary repository, sources into SRPMS",
          "[repo][tree]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  for (auto [name, arch] : {std::pair{"a", "x86_64"}, std::pair{"b", "noarch"},
                            std::pair{"c", "aarch64"}, std::pair{"d", "src"}})
    REQUIRE(state->put(rpm(name, arch)));
  YumRows rows;
  // x86_64 is kept (configured) even if it held nothing of its own.
  auto plan = tree::plan_dist(*state, "el/9", {"x86_64"}, Reuse::none, rows);
  REQUIRE(plan);
  CHECK_FALSE(plan->changed);
  REQUIRE(plan->repositories.size() == 3);
  CHECK(plan->repositories.at("x86_64").packages == 2);  // a, b
  CHECK(plan->repositories.at("aarch64").packages == 2); // c, b
  CHECK(plan->repositories.at("SRPMS").packages == 1);   // d
}

TEST_CASE("yum plan: a rewrite carries the runs saved and makes anew only the one that changed",
          "[repo][tree]") {
  opskit::test::TempDir dir;
  auto state = State::open(dir / "state.db", State::Create::yes);
  REQUIRE(state);
  {
    auto txn = state->begin();
    REQUIRE(txn);
    for (int i = 0; i < 2000; ++i)
      REQUIRE(state->put(rpm(fmt::format("p{:04}", i), "x86_64")));
    REQUIRE(txn->commit());
  }
  YumRows rows;
  auto whole = tree::plan_dist(*state, "el/9", {"x86_64"}, Reuse::none, rows);
  REQUIRE(whole);
  auto& first = whole->repositories.at("x86_64");
  REQUIRE(first.runs.size() > 3); // runs end where an identity hashes to 0 mod 256
  CHECK(entries(first) == 2000);
  REQUIRE(state->save_yum_runs("el/9", {{"x86_64", first.records}}));

  REQUIRE(state->put(rpm("p1000a", "x86_64")));
  YumRows since;
  auto rewrite = tree::plan_dist(*state, "el/9", {"x86_64"}, Reuse::previous, since);
  REQUIRE(rewrite);
  REQUIRE(rewrite->changed);
  const auto& plan = rewrite->repositories.at("x86_64");
  CHECK(plan.packages == 2001);
  // Only the rows of the changed run (or of the run it joined) were read and planned anew.
  std::size_t anew = std::count_if(plan.runs.begin(), plan.runs.end(),
                                   [](const YumRun& run) { return !run.entries.empty(); });
  CHECK(anew >= 1);
  CHECK(anew <= 2);
  CHECK(entries(plan) < 2000 / 2);
  CHECK(since.rows.size() < 2000 / 2);
}
