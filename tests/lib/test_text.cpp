// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "opskit/text.hpp"

TEST_CASE("natural_less: numbers inside names sort by value", "[lib][text]") {
  std::vector<std::string> names{"cpu.10.user", "cpu.2.user", "cpu.all.user", "cpu.1.user"};
  std::sort(names.begin(), names.end(),
            [](const auto& a, const auto& b) { return opskit::natural_less(a, b); });
  CHECK(names ==
        std::vector<std::string>{"cpu.1.user", "cpu.2.user", "cpu.10.user", "cpu.all.user"});
  CHECK(opskit::natural_less("vm.stats", "vm.stats.pgfault"));
  CHECK_FALSE(opskit::natural_less("a", "a"));
  CHECK(opskit::natural_less("x1", "x01")); // equal value: fewer zeros first, still a strict order
  CHECK_FALSE(opskit::natural_less("x01", "x1"));
}

TEST_CASE("closest_match: suggests a near name and nothing for a far one", "[lib][text]") {
  std::vector<std::string> children{"stats", "swappiness", "meminfo"};
  CHECK(opskit::closest_match("stat", children) == "stats");
  CHECK(opskit::closest_match("swapiness", children) == "swappiness");
  CHECK_FALSE(opskit::closest_match("network", children));
  CHECK(opskit::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("trim: strips spaces, tabs and newlines at both ends", "[lib][text]") {
  CHECK(opskit::trim("  4\t4 1 7\n") == "4\t4 1 7");
  CHECK(opskit::trim(" \n") == "");
}

TEST_CASE("words: split at spaces, a run of them making no empty word", "[lib][text]") {
  CHECK(opskit::words("x86_64  aarch64 SRPMS") ==
        std::vector<std::string>{"x86_64", "aarch64", "SRPMS"});
  CHECK(opskit::words(" amd64 ") == std::vector<std::string>{"amd64"});
  CHECK(opskit::words("").empty());
}
