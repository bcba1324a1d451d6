// SPDX-License-Identifier: MIT
#pragma once

// The rate_limit of a web configuration: a token bucket shared by every client.

#include <chrono>
#include <mutex>

#include "opskit/web/config.hpp"

namespace opskit::web {

// Allows `burst` requests at once and one more every `interval` after that, as the exporter
// toolkit's limiter does (golang.org/x/time/rate); an interval of 0 allows everything.
class RateLimiter {
public:
  using Clock = std::chrono::steady_clock;

  explicit RateLimiter(RateLimit limit, Clock::time_point now = Clock::now());

  // Takes a token when there is one. Safe to call from many threads.
  bool allow(Clock::time_point now = Clock::now());

private:
  const RateLimit limit_;
  std::mutex mutex_;
  double tokens_;
  Clock::time_point last_;
};

} // namespace opskit::web
