// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/scrape_timeout.hpp"

using opskit::scrape_budget_seconds;

TEST_CASE("scrape timeout: Prometheus's timeout less half a second, or half of it", "[lib][http]") {
  CHECK(scrape_budget_seconds("10") == 9.5);
  CHECK(scrape_budget_seconds("2.5") == 2);
  CHECK(scrape_budget_seconds("1") == 0.5);
  CHECK(scrape_budget_seconds("0.5") == 0.25);
  CHECK(scrape_budget_seconds(" 15 ") == 14.5);
}

TEST_CASE("scrape timeout: a header that says nothing usable is none", "[lib][http]") {
  for (const char* header : {"", "abc", "10s", "-1", "0", "inf", "nan", "1e400"}) {
    INFO(header);
    CHECK_FALSE(scrape_budget_seconds(header));
  }
}
