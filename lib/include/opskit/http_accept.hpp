// SPDX-License-Identifier: MIT
#pragma once

#include <string_view>

namespace opskit {

// The quality an HTTP Accept or Accept-Encoding header (RFC 9110, 12.5) gives `value`
// ("application/openmetrics-text", "gzip"): its q where it is listed (1 without a q), else the
// q of a wildcard that covers it ("*", "*/*", "application/*"), else 0. Parameters other than q
// are ignored, and types and codings compared without regard to case; an empty header gives
// every value 1, as the RFC says.
double accept_quality(std::string_view header, std::string_view value);

} // namespace opskit
