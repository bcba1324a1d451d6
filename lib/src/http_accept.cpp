// SPDX-License-Identifier: MIT
#include "opskit/http_accept.hpp"

#include <cstdlib>
#include <optional>
#include <string>

#include "opskit/text.hpp"

namespace opskit {

namespace {

// The q parameter of one list item's parameters (";version=1.0.0;q=0.5"), 1 without one.
double quality_of(std::string_view params) {
  while (!params.empty()) {
    params.remove_prefix(1); // the ';'
    std::size_t end = std::min(params.find(';'), params.size());
    std::string_view param = trim(params.substr(0, end));
    if (param.starts_with("q=") || param.starts_with("Q="))
      return std::strtod(std::string(param.substr(2)).c_str(), nullptr);
    params.remove_prefix(end);
  }
  return 1;
}

// How well `range` ("*/*", "text/*", "gzip") covers `value`: 3 exactly, 2 by its type's
// wildcard, 1 by the wildcard of all; the most specific range that covers a value gives its
// quality, wherever it stands in the list (RFC 9110, 12.5.1). Media types and codings are
// compared without regard to case (RFC 9110, 8.3.1 and 8.4.1).
int coverage(std::string_view range, std::string_view value) {
  if (iequals(range, value))
    return 3;
  if (range == "*" || range == "*/*")
    return 1;
  std::string_view type = range.substr(0, range.size() - 1); // "text/" of "text/*"
  if (range.ends_with("/*") && iequals(value.substr(0, type.size()), type))
    return 2;
  return 0;
}

} // namespace

double accept_quality(std::string_view header, std::string_view value) {
  if (trim(header).empty())
    return 1;
  int best = 0;
  double quality = 0;
  while (!header.empty()) {
    std::size_t end = std::min(header.find(','), header.size());
    std::string_view item = header.substr(0, end);
    header.remove_prefix(std::min(end + 1, header.size()));
    std::size_t semi = std::min(item.find(';'), item.size());
    int cover = coverage(trim(item.substr(0, semi)), value);
    if (cover > best) {
      best = cover;
      quality = quality_of(item.substr(semi));
    }
  }
  return quality;
}

} // namespace opskit
