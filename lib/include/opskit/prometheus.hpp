// SPDX-License-Identifier: MIT
#pragma once

// Writing the Prometheus text exposition formats: version 0.0.4 (text/plain) and OpenMetrics
// 1.0.0. A family is a "# HELP" and "# TYPE" line followed by its samples; the two formats differ
// in a counter's family name (OpenMetrics drops the "_total" its samples carry), in what HELP
// escapes, and in the "# EOF" line OpenMetrics ends with.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace opskit {

// An info family is one sample of value 1 whose labels are the information ("kstat_uname_info");
// 0.0.4 has no such type and calls it a gauge. An untyped family is one whose source does not say
// which of its values count and which are levels (ZFS's statistics); OpenMetrics calls it unknown.
enum class MetricType { counter, gauge, info, untyped };
enum class TextFormat { prometheus, openmetrics };

// The Content-Type of a body in `format`.
std::string_view content_type(TextFormat format) noexcept;

// `text` as a legal snake_case name component: characters outside [a-zA-Z0-9_] become '_',
// words of a camelCase or PascalCase name are split and lowercased ("MemTotal" -> "mem_total",
// "TCPTimeouts" -> "tcp_timeouts", "Ip6InReceives" -> "ip6_in_receives"), and a word that
// promtool would read as an abbreviated unit is joined to the next ("SReclaimable" ->
// "sreclaimable", "DirectMap2M" -> "direct_map2m").
std::string snake_case(std::string_view text);

// Appends "# HELP" (unless `help` is empty) and "# TYPE" for the family `name`, which for a
// counter ends in "_total" and for an info family in "_info".
void append_family(std::string& out, std::string_view name, std::string_view help, MetricType type,
                   TextFormat format);

// A family's "# HELP" and "# TYPE" lines in both formats, rendered once: for a family a server
// appends to every scrape.
class FamilyHeader {
public:
  FamilyHeader(std::string_view name, std::string_view help, MetricType type);
  const std::string& operator[](TextFormat format) const noexcept {
    return text_[static_cast<std::size_t>(format)];
  }

private:
  std::array<std::string, 2> text_;
};

// Appends `text` escaped as a HELP line's (backslash and newline) or, with `quote`, as a label
// value's or an OpenMetrics HELP line's (and '"'); text that is not UTF-8 is read as ISO-8859-1.
void append_escaped(std::string& out, std::string_view text, bool quote);

// Appends `name="value"` to a label set being built ("" -> `cpu="0"`, then `cpu="0",mode="user"`),
// with the value's backslashes, quotes and newlines escaped.
void append_label(std::string& labels, std::string_view name, std::string_view value);

// Appends one sample line: `name{labels} value` (no braces for an empty label set).
void append_sample(std::string& out, std::string_view name, std::string_view labels,
                   std::string_view value);

// The most characters write_real() writes.
inline constexpr std::size_t k_real_max = 32;

// Writes `value` at `at` as a sample's value, and returns the end: the shortest decimal that reads
// back as `value`, as fmt's "{}" writes it ("35548.62", "1e-05", "inf"). A whole count of
// hundredths or millionths (ticks or microseconds as seconds) is written from the count's digits,
// in two thirds of fmt's time (21 against 33 ns).
char* write_real(char* at, double value);

// Ends a body: "# EOF" for OpenMetrics, nothing for 0.0.4.
void append_end(std::string& out, TextFormat format);

} // namespace opskit
