// SPDX-License-Identifier: MIT
#include "opskit/text_exposition.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "opskit/text.hpp"

namespace opskit {

namespace {

using Type = TextFamilies::Type;
using Family = TextFamilies::Family;
using Map = std::map<std::string, Family, std::less<>>;

constexpr std::pair<std::string_view, Type> k_types[] = {{"counter", Type::counter},
                                                         {"gauge", Type::gauge},
                                                         {"histogram", Type::histogram},
                                                         {"summary", Type::summary},
                                                         {"untyped", Type::untyped}};

bool is_name_start(char c, bool colon) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}
bool is_name_char(char c, bool colon) noexcept {
  return is_name_start(c, colon) || (c >= '0' && c <= '9');
}

// Reads a metric name (`colon`) or a label name from `line` at `at`; empty when none is there.
std::string_view take_name(std::string_view line, std::size_t& at, bool colon) {
  std::size_t start = at;
  if (at < line.size() && is_name_start(line[at], colon))
    while (at < line.size() && is_name_char(line[at], colon))
      ++at;
  return line.substr(start, at - start);
}

void skip_blanks(std::string_view line, std::size_t& at) {
  while (at < line.size() && (line[at] == ' ' || line[at] == '\t'))
    ++at;
}

std::string_view take_token(std::string_view line, std::size_t& at) {
  skip_blanks(line, at);
  std::size_t start = at;
  while (at < line.size() && line[at] != ' ' && line[at] != '\t')
    ++at;
  return line.substr(start, at - start);
}

// Whether `text` is UTF-8 and escapes only what the format escapes: `quote` adds \" to \\ and
// \n. Prometheus fails a whole scrape on a label value that is not UTF-8.
bool escapes_ok(std::string_view text, bool quote) {
  if (!is_utf8(text))
    return false;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\\' &&
        (++i == text.size() || !(text[i] == '\\' || text[i] == 'n' || (quote && text[i] == '"'))))
      return false;
  return true;
}

// Whether Go's ParseFloat, which Prometheus parses values with, takes `token`: a value it cannot
// parse fails the whole scrape. strtod takes more: hexadecimal floats, "nan(...)", a sign
// before NaN, and a number past the largest double (infinite, ERANGE; Go's range error).
bool is_number(std::string_view token) {
  std::string text(token);
  if (text.empty() || text.find_first_of("xXpP(") != std::string::npos)
    return false;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  bool signed_nan = std::isnan(value) && (text[0] == '+' || text[0] == '-');
  bool out_of_range = errno == ERANGE && std::isinf(value);
  return end == text.c_str() + text.size() && !signed_nan && !out_of_range;
}

// A sample's labels from `at` (at its '{') to past its '}', written again as name="value"
// pairs with a comma between, the values as escaped, in the order of their names: the same
// series is one however its labels are ordered. `le` and `quantile` noted, their values numbers
// (a histogram's bucket bound, a summary's quantile).
std::optional<std::string> take_labels(std::string_view line, std::size_t& at,
                                       std::set<std::string, std::less<>>& names) {
  std::vector<std::pair<std::string_view, std::string_view>> labels; // names, escaped values
  ++at;
  for (;;) {
    skip_blanks(line, at);
    if (at < line.size() && line[at] == '}')
      break;
    std::string_view name = take_name(line, at, false);
    skip_blanks(line, at);
    if (name.empty() || name.starts_with("__") || at >= line.size() || line[at] != '=' ||
        !names.emplace(name).second)
      return std::nullopt;
    ++at;
    skip_blanks(line, at);
    if (at >= line.size() || line[at] != '"')
      return std::nullopt;
    std::size_t start = ++at;
    while (at < line.size() && line[at] != '"')
      at += line[at] == '\\' ? 2 : 1;
    std::string_view value = line.substr(start, std::min(at, line.size()) - start);
    if (at >= line.size() || !escapes_ok(value, true) ||
        ((name == "le" || name == "quantile") && !is_number(value)))
      return std::nullopt;
    labels.emplace_back(name, value);
    ++at;
    skip_blanks(line, at);
    if (at < line.size() && line[at] == ',')
      ++at;
    else if (at >= line.size() || line[at] != '}')
      return std::nullopt;
  }
  ++at; // '}'
  std::ranges::sort(labels);
  std::string out;
  for (const auto& [name, value] : labels) // an empty value is no label, as Prometheus keeps it
    if (!value.empty())
      out.append(out.empty() ? "" : ",").append(name).append("=\"").append(value).push_back('"');
  return out;
}

// The family a sample named `name` belongs to: its own when typed, else the histogram or summary
// its suffix names, else its own.
std::string family_of(const Map& families, std::string_view name) {
  if (auto own = families.find(name); own != families.end() && own->second.typed)
    return own->first;
  for (std::string_view suffix : {"_bucket", "_sum", "_count"}) {
    if (!name.ends_with(suffix))
      continue;
    auto base = families.find(name.substr(0, name.size() - suffix.size()));
    if (base != families.end() && (base->second.type == Type::histogram ||
                                   (base->second.type == Type::summary && suffix != "_bucket")))
      return base->first;
  }
  return std::string(name);
}

std::optional<std::string> parse_comment(std::string_view line, Map& families) {
  std::size_t at = 1;
  std::string_view keyword = take_token(line, at);
  if (keyword != "HELP" && keyword != "TYPE")
    return std::nullopt; // a comment
  skip_blanks(line, at);
  std::string_view name = take_name(line, at, true);
  if (name.empty() || (at < line.size() && line[at] != ' ' && line[at] != '\t'))
    return fmt::format("{} line without a metric name", keyword);
  Family& family = families[std::string(name)];
  if (keyword == "HELP") {
    std::string_view help = at < line.size() ? line.substr(at + 1) : std::string_view();
    if (family.help || !escapes_ok(help, false))
      return fmt::format("HELP of {} given twice or badly escaped", name);
    family.help = std::string(help);
    return std::nullopt;
  }
  std::string_view word = take_token(line, at);
  auto type = std::ranges::find(k_types, word, &std::pair<std::string_view, Type>::first);
  if (type == std::end(k_types) || !take_token(line, at).empty())
    return fmt::format("TYPE of {} is not one of counter, gauge, histogram, summary, untyped",
                       name);
  if (family.typed || !family.samples.empty())
    return fmt::format("TYPE of {} given twice, or after its samples", name);
  if (type->second == Type::counter && name == "_total")
    return "a counter named _total, nothing in OpenMetrics";
  family.typed = true;
  family.type = type->second;
  return std::nullopt;
}

std::optional<std::string> parse_sample(std::string_view line, Map& families) {
  std::size_t at = 0;
  std::string_view name = take_name(line, at, true);
  if (name.empty())
    return fmt::format("not a sample: '{}'", line.substr(0, 60));
  std::string labels;
  std::set<std::string, std::less<>> label_names;
  if (at < line.size() && line[at] == '{') {
    auto taken = take_labels(line, at, label_names);
    if (!taken)
      return fmt::format("{}: labels that do not parse", name);
    labels = std::move(*taken);
  }
  std::string_view value = take_token(line, at);
  if (!is_number(value))
    return fmt::format("{}: '{}' is not a number", name, value);
  if (!take_token(line, at).empty())
    return fmt::format("{}: a timestamp, which a scrape's samples may not have", name);
  std::string family_name = family_of(families, name);
  Family& family = families[family_name];
  if (family.type == Type::histogram && name.ends_with("_bucket") && !label_names.contains("le"))
    return fmt::format("{}: a histogram's bucket without an le label", name);
  if (family.type == Type::summary && name == family_name && !label_names.contains("quantile"))
    return fmt::format("{}: a summary's sample without a quantile label", name);
  std::string series = labels.empty() ? std::string(name) : fmt::format("{}{{{}}}", name, labels);
  if (!family.series.insert(series).second)
    return fmt::format("{}: the same series twice", series);
  family.samples.push_back(fmt::format("{} {}", series, value));
  return std::nullopt;
}

// The names a family's samples may have, and its name in OpenMetrics (a counter's without
// "_total"), which another family's must not be: a gauge "x" beside a counter "x_total" are one
// family "x" in OpenMetrics, and an untyped "h_count" beside a histogram "h" holds a sample of
// h's name. Prometheus fails a whole scrape on either.
std::vector<std::string> names_claimed(const std::string& name, const Family& family) {
  switch (family.type) {
  case Type::histogram:
    return {name, name + "_bucket", name + "_sum", name + "_count"};
  case Type::summary:
    return {name, name + "_sum", name + "_count"};
  case Type::counter:
    if (name.ends_with("_total"))
      return {name, name.substr(0, name.size() - 6)};
    return {name};
  default:
    return {name};
  }
}

// The first name two families with samples claim, of `families` and those of `more` not in it
// (of the same name: one family), if any.
std::optional<std::string> clash(const Map& families, const Map& more = {}) {
  std::set<std::string, std::less<>> claimed;
  auto claims = [&](const std::string& name, const Family& family) {
    if (family.samples.empty())
      return false;
    for (auto& each : names_claimed(name, family))
      if (!claimed.insert(std::move(each)).second)
        return true;
    return false;
  };
  for (const auto& [name, family] : families)
    if (claims(name, family))
      return name;
  for (const auto& [name, family] : more)
    if (!families.contains(name) && claims(name, family))
      return name;
  return std::nullopt;
}

// A family's HELP and TYPE lines and its samples, in `format`.
void append_family_text(std::string& out, std::string_view name, const Family& family,
                        TextFormat format) {
  // Without HELP, where it was read from, as node_exporter says it: a file's name escaped.
  std::string help;
  if (family.help)
    help = *family.help;
  else if (!family.sources.empty())
    append_escaped(help, fmt::format("Metric read from {}", fmt::join(family.sources, ", ")),
                   format == TextFormat::openmetrics);
  std::string_view type = family.type == Type::counter     ? "counter"
                          : family.type == Type::gauge     ? "gauge"
                          : family.type == Type::histogram ? "histogram"
                          : family.type == Type::summary   ? "summary"
                                                           : "untyped";
  if (format == TextFormat::openmetrics) {
    if (family.type == Type::counter && name.ends_with("_total"))
      name.remove_suffix(6);
    else if (family.type == Type::counter || family.type == Type::untyped)
      type = "unknown";
    if (family.help) { // OpenMetrics escapes '"' in HELP too
      std::string escaped;
      for (char c : help)
        escaped.append(c == '"' ? "\\\"" : std::string_view(&c, 1));
      help = std::move(escaped);
    }
  }
  if (family.help || !family.sources.empty())
    fmt::format_to(std::back_inserter(out), "# HELP {} {}\n", name, help);
  fmt::format_to(std::back_inserter(out), "# TYPE {} {}\n", name, type);
  for (const auto& sample : family.samples)
    out.append(sample).push_back('\n');
}

} // namespace

Result<TextFamilies> TextFamilies::parse(std::string_view text) {
  TextFamilies parsed;
  for (std::string_view rest = text; !rest.empty();) {
    std::size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    std::size_t at = 0;
    skip_blanks(line, at);
    line.remove_prefix(at);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (line.empty())
      continue;
    if (auto failed = line.front() == '#' ? parse_comment(line, parsed.families_)
                                          : parse_sample(line, parsed.families_))
      return fail(*failed);
  }
  if (auto name = clash(parsed.families_))
    return fail(fmt::format("{}: a name another family's samples have", *name));
  return parsed;
}

Result<void> TextFamilies::merge(TextFamilies other, std::string_view source) {
  for (const auto& [name, family] : other.families_) {
    auto known = families_.find(name);
    if (known == families_.end())
      continue;
    if (known->second.type != family.type)
      return fail(fmt::format("{}: typed otherwise by another file", name));
    for (const auto& series : family.series)
      if (known->second.series.contains(series))
        return fail(fmt::format("{}: in another file too", series));
  }
  if (auto name = clash(families_, other.families_))
    return fail(fmt::format("{}: a name another file's families have", *name));
  for (auto& [name, family] : other.families_) {
    Family& into = families_[name];
    into.type = family.type;
    if (!into.help)
      into.help = std::move(family.help);
    into.samples.insert(into.samples.end(), std::make_move_iterator(family.samples.begin()),
                        std::make_move_iterator(family.samples.end()));
    into.series.merge(family.series);
    into.sources.emplace_back(source);
  }
  return {};
}

void TextFamilies::append(std::string& out, TextFormat format) const {
  for (const auto& [name, family] : families_)
    if (!family.samples.empty())
      append_family_text(out, name, family, format);
}

} // namespace opskit
