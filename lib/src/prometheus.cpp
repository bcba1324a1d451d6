// SPDX-License-Identifier: MIT
//
// The text formats are specified in Prometheus's exposition_formats.md (0.0.4) and the
// OpenMetrics specification (1.0.0). What is subtle: names must match [a-zA-Z_][a-zA-Z0-9_]*
// (a colon is legal but reserved for recording rules); promtool's linter also wants snake_case,
// so kernel names like "MemTotal" are split into words; HELP escapes only '\' and newline in
// 0.0.4 but also '"' in OpenMetrics; a label value escapes all three in both. Both formats are
// UTF-8, and a scraper drops the whole body over one label value that is not: an interface, an
// interrupt's device or a mount point may be named in bytes of another encoding, so such text is
// read as ISO-8859-1, as utf8_or_latin1() does.
#include "opskit/prometheus.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "opskit/text.hpp"

namespace opskit {

namespace {

bool is_upper(char c) noexcept {
  return c >= 'A' && c <= 'Z';
}
bool is_lower_or_digit(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool is_legal(char c) noexcept {
  return is_upper(c) || is_lower_or_digit(c) || c == '_';
}

} // namespace

void append_escaped(std::string& out, std::string_view text, bool quote) {
  std::string utf8;
  if (!is_utf8(text))
    text = utf8 = utf8_or_latin1(text);
  for (char c : text) {
    if (c == '\\')
      out.append("\\\\");
    else if (c == '\n')
      out.append("\\n");
    else if (c == '"' && quote)
      out.append("\\\"");
    else
      out.push_back(c);
  }
}

std::string_view content_type(TextFormat format) noexcept {
  return format == TextFormat::openmetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

namespace {

// The words promtool's linter takes for abbreviated units (promlint's unitAbbreviations).
bool looks_like_unit(std::string_view word) noexcept {
  static constexpr std::string_view k_units[] = {"s",  "ms", "us", "ns", "sec", "b", "kb",
                                                 "mb", "gb", "tb", "pb", "m",   "h", "d"};
  for (auto unit : k_units)
    if (word == unit)
      return true;
  return false;
}

// Joins each word that looks like a unit to the next word, or to the one before when it is
// last: "s_reclaimable" -> "sreclaimable", "sec_page_tables" -> "secpage_tables".
std::string join_unit_words(std::string_view name) {
  std::string out;
  bool join_next = false;
  for (std::size_t start = 0; start <= name.size();) {
    std::size_t end = std::min(name.find('_', start), name.size());
    std::string_view word = name.substr(start, end - start);
    bool last = end == name.size();
    if (!out.empty() && !join_next && !(looks_like_unit(word) && last))
      out.push_back('_');
    out.append(word);
    join_next = looks_like_unit(word) && !last;
    start = end + 1;
  }
  return out;
}

} // namespace

std::string snake_case(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 4);
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (!is_legal(c)) {
      out.push_back('_');
      continue;
    }
    if (is_upper(c)) {
      char before = i > 0 ? text[i - 1] : '_';
      char after = i + 1 < text.size() ? text[i + 1] : '_';
      bool word_ends = after >= 'a' && after <= 'z';
      bool unit_after_digit = before >= '0' && before <= '9' && !word_ends; // "DirectMap2M"
      bool starts_word =
          (is_lower_or_digit(before) && !unit_after_digit) || (is_upper(before) && word_ends);
      if (starts_word && !out.empty() && out.back() != '_')
        out.push_back('_');
      c = static_cast<char>(c - 'A' + 'a');
    }
    out.push_back(c);
  }
  return join_unit_words(out);
}

void append_family(std::string& out, std::string_view name, std::string_view help, MetricType type,
                   TextFormat format) {
  bool openmetrics = format == TextFormat::openmetrics;
  if (openmetrics && type == MetricType::counter && name.ends_with("_total"))
    name.remove_suffix(6);
  else if (openmetrics && type == MetricType::info && name.ends_with("_info"))
    name.remove_suffix(5);
  if (!help.empty()) {
    out.append("# HELP ").append(name).push_back(' ');
    append_escaped(out, help, openmetrics);
    out.push_back('\n');
  }
  std::string_view type_name = " gauge\n";
  if (type == MetricType::counter)
    type_name = " counter\n";
  else if (type == MetricType::info && openmetrics)
    type_name = " info\n";
  else if (type == MetricType::untyped)
    type_name = openmetrics ? " unknown\n" : " untyped\n";
  out.append("# TYPE ").append(name).append(type_name);
}

FamilyHeader::FamilyHeader(std::string_view name, std::string_view help, MetricType type) {
  for (auto format : {TextFormat::prometheus, TextFormat::openmetrics})
    append_family(text_[static_cast<std::size_t>(format)], name, help, type, format);
}

void append_label(std::string& labels, std::string_view name, std::string_view value) {
  if (!labels.empty())
    labels.push_back(',');
  labels.append(name).append("=\"");
  append_escaped(labels, value, true);
  labels.push_back('"');
}

void append_sample(std::string& out, std::string_view name, std::string_view labels,
                   std::string_view value) {
  out.append(name);
  if (!labels.empty())
    out.append("{").append(labels).push_back('}');
  out.push_back(' ');
  out.append(value).push_back('\n');
}

namespace {

// `value`, when it is n / 10^k for a whole n below 2^52 and k <= 6, written as n's digits with
// a point k from the end; nullptr otherwise. That is the shortest decimal that reads back as
// `value`: one of fewer digits, or another of as many, lies 10^-k or more from n / 10^k, and
// `value` within half an ulp of it, an ulp below 10^-k while n < 2^52. Values below 10^-4 are
// left to fmt, which writes them with an exponent.
char* write_decimal(char* at, double value) {
  if (value == 0 && !std::signbit(value)) {
    *at = '0';
    return at + 1;
  }
  if (!(value >= 1e-4)) // negative, tiny, NaN
    return nullptr;
  double scale = 1;
  for (std::size_t k = 0; k <= 6; ++k, scale *= 10) {
    double n = value * scale;
    if (!(n < 0x1p52)) // inf too
      return nullptr;
    auto whole = static_cast<std::uint64_t>(n);
    if (static_cast<double>(whole) != n || n / scale != value)
      continue;
    char digits[24];
    char* end = std::to_chars(digits, digits + sizeof digits, whole).ptr;
    auto size = static_cast<std::size_t>(end - digits);
    for (; k > 0 && digits[size - 1] == '0'; --k) // value * scale rounded to a whole n * 10
      --size;
    if (k == 0)
      return static_cast<char*>(std::memcpy(at, digits, size)) + size;
    if (size > k) { // "35548.62"
      std::memcpy(at, digits, size - k);
      at[size - k] = '.';
      std::memcpy(at + size - k + 1, digits + size - k, k);
      return at + size + 1;
    }
    *at++ = '0'; // "0.0012"
    *at++ = '.';
    std::memset(at, '0', k - size);
    std::memcpy(at + k - size, digits, size);
    return at + k;
  }
  return nullptr;
}

} // namespace

char* write_real(char* at, double value) {
  if (char* end = write_decimal(at, value))
    return end;
  return fmt::format_to(at, FMT_COMPILE("{}"), value);
}

void append_end(std::string& out, TextFormat format) {
  if (format == TextFormat::openmetrics)
    out.append("# EOF\n");
}

} // namespace opskit
