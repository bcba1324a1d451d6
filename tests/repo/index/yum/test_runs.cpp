// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "opskit/repo/index/yum/runs.hpp"

using namespace opskit::repo;

namespace {

// p00000, p00010, ...: gaps left for packages to land between them.
std::vector<std::string> numbered_names(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i)
    out.push_back(fmt::format("p{:05}", 10 * i));
  return out;
}

// One noarch entry of version 1.0-1 a name, in their order; they view `names`.
std::vector<YumEntry> entries_of(const std::vector<std::string>& names) {
  std::vector<YumEntry> out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out.push_back({names[i], "1.0-1", "noarch", "aaaa", names[i], 100, {}, i});
  return out;
}

std::set<std::string> keys(const std::vector<YumRun>& runs) {
  std::set<std::string> out;
  for (const auto& run : runs)
    out.insert(run.key);
  return out;
}

bool holds(const YumRun& run, std::string_view name) {
  return std::any_of(run.entries.begin(), run.entries.end(),
                     [&](const YumEntry& e) { return e.name == name; });
}

} // namespace

TEST_CASE("yum runs: changing one package changes the key of its run and of no other",
          "[repo][rpm]") {
  auto names = numbered_names(2000);
  auto entries = entries_of(names);
  auto before = yum_runs(entries);
  REQUIRE(before.size() > 2);
  entries[1000].size = 101; // rebuilt under the same name and version
  auto after = yum_runs(entries);
  REQUIRE(after.size() == before.size());
  for (std::size_t r = 0; r < before.size(); ++r) {
    INFO("run " << r);
    CHECK(after[r].packages == before[r].packages);
    CHECK((after[r].key != before[r].key) == holds(before[r], names[1000]));
  }
}

TEST_CASE("yum runs: a package added changes the run it lands in and leaves the others",
          "[repo][rpm]") {
  auto names = numbered_names(2000);
  auto before = keys(yum_runs(entries_of(names)));
  names.push_back("p10005");
  auto after = keys(yum_runs(entries_of(names)));
  std::vector<std::string> gone, made;
  std::set_difference(before.begin(), before.end(), after.begin(), after.end(),
                      std::back_inserter(gone));
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                      std::back_inserter(made));
  CHECK(gone.size() == 1);
  CHECK(made.size() >= 1);
  CHECK(made.size() <= 2); // two when the new package ends a run
}

TEST_CASE("yum runs: runs end after each package that ends one and after the last, in order",
          "[repo][rpm]") {
  auto names = numbered_names(2000);
  auto entries = entries_of(names);
  std::reverse(entries.begin(), entries.end());
  auto runs = yum_runs(entries);
  std::vector<YumEntry> joined;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const YumRun& run = runs[r];
    INFO("run " << r);
    REQUIRE(!run.entries.empty());
    CHECK(run.packages == run.entries.size());
    CHECK(run.key == yum_run_key(run.entries));
    CHECK(std::none_of(run.entries.begin(), run.entries.end() - 1, yum_run_ends));
    CHECK((yum_run_ends(run.entries.back()) || r + 1 == runs.size()));
    joined.insert(joined.end(), run.entries.begin(), run.entries.end());
  }
  CHECK(joined.size() == names.size());
  CHECK(std::is_sorted(joined.begin(), joined.end(), yum_before));
}

TEST_CASE("yum runs: a run's key is made of pkgids, files and sizes, not of fragments",
          "[repo][rpm]") {
  auto names = numbered_names(3);
  auto entries = entries_of(names);
  std::string key = yum_run_key(entries);
  entries[1].xml = {"<package/>", "<package/>", "<package/>"};
  CHECK(yum_run_key(entries) == key);
  entries[1].file = "Packages/other.rpm";
  CHECK(yum_run_key(entries) != key);
}

TEST_CASE("yum runs: packages sort by name, rpm version order, then arch", "[repo][rpm]") {
  auto entry = [](std::string_view name, std::string_view evr, std::string_view arch) {
    return YumEntry{name, evr, arch, "aaaa", "f.rpm", 1, {}, 0};
  };
  CHECK(yum_before(entry("a", "9-1", "x86_64"), entry("b", "1-1", "noarch")));
  CHECK(yum_before(entry("a", "1.9-1", "x86_64"), entry("a", "1.10-1", "noarch")));
  CHECK(yum_before(entry("a", "1-1", "aarch64"), entry("a", "1-1", "x86_64")));
  CHECK(yum_before(entry("a", "1-1", "noarch"), entry("a", "1:0.1-1", "noarch")));
  // Equal versions spelled apart still sort one way.
  CHECK(yum_before(entry("a", "0:1-1", "noarch"), entry("a", "1-1", "noarch")) !=
        yum_before(entry("a", "1-1", "noarch"), entry("a", "0:1-1", "noarch")));
}
