// SPDX-License-Identifier: MIT
#pragma once

#include <optional>
#include <string_view>

namespace opskit {

// The header in which Prometheus tells a target how long it waits for a scrape: its
// scrape_timeout in seconds ("10", "0.5").
inline constexpr char k_scrape_timeout_header[] = "X-Prometheus-Scrape-Timeout-Seconds";

// The seconds a scrape may spend reading when the scraper waits `header`'s seconds for it: that
// less half a second for the answer's way back (blackbox_exporter's offset), or half of it where
// that is longer (a timeout of a second or less). Nothing for a header that is empty, not a
// number, or not a positive finite one: the scraper said nothing usable.
std::optional<double> scrape_budget_seconds(std::string_view header);

} // namespace opskit
