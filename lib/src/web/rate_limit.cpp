// SPDX-License-Identifier: MIT
#include "opskit/web/rate_limit.hpp"

#include <algorithm>

namespace opskit::web {

RateLimiter::RateLimiter(RateLimit limit, Clock::time_point now)
    : limit_(limit), tokens_(limit.burst), last_(now) {}

bool RateLimiter::allow(Clock::time_point now) {
  if (limit_.interval.count() <= 0)
    return true;
  std::lock_guard lock(mutex_);
  if (now > last_) {
    double earned =
        std::chrono::duration<double>(now - last_) / std::chrono::duration<double>(limit_.interval);
    tokens_ = std::min<double>(limit_.burst, tokens_ + earned);
    last_ = now;
  }
  if (tokens_ < 1)
    return false;
  tokens_ -= 1;
  return true;
}

} // namespace opskit::web
