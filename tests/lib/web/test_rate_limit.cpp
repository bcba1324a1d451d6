// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include "opskit/web/rate_limit.hpp"

using namespace std::chrono_literals;
using opskit::web::RateLimiter;

TEST_CASE("rate limit: a burst at once, then one request an interval", "[lib][web]") {
  RateLimiter::Clock::time_point t0{};
  RateLimiter limiter({1s, 3}, t0);
  CHECK(limiter.allow(t0));
  CHECK(limiter.allow(t0));
  CHECK(limiter.allow(t0));
  CHECK_FALSE(limiter.allow(t0));
  CHECK_FALSE(limiter.allow(t0 + 500ms));
  CHECK(limiter.allow(t0 + 1s));
  CHECK_FALSE(limiter.allow(t0 + 1s));
  // A long pause earns the burst again, not more.
  CHECK(limiter.allow(t0 + 1h));
  CHECK(limiter.allow(t0 + 1h));
  CHECK(limiter.allow(t0 + 1h));
  CHECK_FALSE(limiter.allow(t0 + 1h));
}

TEST_CASE("rate limit: an interval of 0 allows everything", "[lib][web]") {
  RateLimiter limiter({0s, 0});
  for (int i = 0; i < 1000; ++i)
    REQUIRE(limiter.allow());
}
