// SPDX-License-Identifier: MIT
#include "opskit/scrape_timeout.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "opskit/text.hpp"

namespace opskit {

std::optional<double> scrape_budget_seconds(std::string_view header) {
  header = trim(header);
  double seconds = 0;
  auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
  if (ec != std::errc() || end != header.data() + header.size() || !std::isfinite(seconds) ||
      seconds <= 0)
    return std::nullopt;
  return std::max(seconds - 0.5, seconds / 2);
}

} // namespace opskit
