// SPDX-License-Identifier: MIT
#pragma once

// Metric families read from Prometheus' text exposition format (version 0.0.4), as scripts
// write them for a textfile directory, and written again in either format. Parsing checks what
// node_exporter's textfile collector and Prometheus' parser check: names and labels legal, one
// TYPE and one HELP a family and before its samples, a histogram's buckets with "le", a
// summary's quantiles with "quantile", values that are numbers as Go's ParseFloat reads them, HELP
// and label values in UTF-8, no timestamps, no series twice: what Prometheus would fail a whole
// scrape on is refused here, file by file.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/prometheus.hpp"

namespace opskit {

class TextFamilies {
public:
  // The families of one whole file, or the first reason it fails ("twice: TYPE given twice, or
  // after its samples").
  static Result<TextFamilies> parse(std::string_view text);

  // Adds `other`'s families, read from `source` (which a family without HELP is said to be read
  // from), unless one of them is typed otherwise here or holds a series these hold: then
  // nothing is added and the error says which.
  Result<void> merge(TextFamilies other, std::string_view source);

  // Appends the families that have samples, by name, in `format`: in OpenMetrics a counter's
  // family is named without its "_total", and one not so named, or untyped, is of type unknown.
  void append(std::string& out, TextFormat format) const;

  enum class Type { untyped, counter, gauge, histogram, summary };
  struct Family {
    Type type = Type::untyped;
    bool typed = false;
    std::optional<std::string> help;  // as the text escapes it (\\ and \n)
    std::vector<std::string> samples; // "name{labels} value", label values as escaped
    std::set<std::string> series;     // "name{labels}"
    std::vector<std::string> sources;
  };
  const std::map<std::string, Family, std::less<>>& families() const noexcept {
    return families_;
  }

private:
  std::map<std::string, Family, std::less<>> families_;
};

} // namespace opskit
