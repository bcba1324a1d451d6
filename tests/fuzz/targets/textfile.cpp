// SPDX-License-Identifier: MIT
// Fuzz target: Prometheus' text format as a textfile directory's files hold it
// (opskit::TextFamilies, which kstat serve --textfile-directory reads). Whatever parses is
// written again in both formats, and the text format written parses again to the same text.
#include <cstdint>
#include <string>

#include "fuzz_input.hpp"
#include "opskit/text_exposition.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using opskit::TextFamilies;
  using opskit::TextFormat;
  auto parsed = TextFamilies::parse(opskit::fuzz::bytes_of(data, size));
  if (!parsed)
    return 0;
  std::string once, openmetrics;
  parsed->append(once, TextFormat::prometheus);
  parsed->append(openmetrics, TextFormat::openmetrics);
  auto again = TextFamilies::parse(once);
  opskit::fuzz::check(again.has_value(), "families written that do not parse again");
  std::string twice;
  again->append(twice, TextFormat::prometheus);
  opskit::fuzz::check(once == twice, "families that change when written, parsed and written");
  TextFamilies merged;
  opskit::fuzz::check(merged.merge(std::move(*parsed), "a").has_value(),
                      "families that do not merge into none");
  return 0;
}
