// SPDX-License-Identifier: MIT
#include "opskit/probes/value.hpp"

#include <charconv>
#include <cstdint>

#include <fmt/format.h>

namespace opskit::counters {

std::string_view to_string(Kind kind) noexcept {
  switch (kind) {
  case Kind::counter:
    return "counter";
  case Kind::gauge:
    return "gauge";
  case Kind::text:
    return "text";
  }
  return "text";
}

std::string format_value(const Value& value) {
  return std::visit(
      [](const auto& v) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
          return v;
        else
          return fmt::format("{}", v);
      },
      value);
}

std::optional<double> as_number(const Value& value) noexcept {
  if (const auto* s = std::get_if<std::string>(&value); s != nullptr)
    return std::nullopt;
  return std::visit(
      [](const auto& v) -> double {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
          return 0;
        else
          return static_cast<double>(v);
      },
      value);
}

// The digits' integer over a power of ten: the correctly rounded value, as std::from_chars()
// gives it in ten times the instructions (both are exact in a double, and the division rounds
// once).
std::optional<double> parse_short_decimal(std::string_view token) noexcept {
  static constexpr double k_tens[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  bool negative = token.starts_with('-');
  token.remove_prefix(negative ? 1 : 0);
  std::size_t point = token.find('.');
  if (point == 0 || point == std::string_view::npos || point + 1 == token.size() ||
      token.size() > 16)
    return std::nullopt;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (i == point)
      continue;
    unsigned digit = static_cast<unsigned char>(token[i]) - unsigned{'0'};
    if (digit > 9)
      return std::nullopt;
    n = n * 10 + digit;
  }
  double value = static_cast<double>(n) / k_tens[token.size() - point - 1];
  return negative ? -value : value;
}

std::optional<Value> parse_number(std::string_view token) noexcept {
  const char* first = token.data();
  const char* last = token.data() + token.size();
  if (token.empty())
    return std::nullopt;
  if (token[0] != '-') {
    std::uint64_t u = 0;
    auto [end, ec] = std::from_chars(first, last, u);
    if (ec == std::errc() && end == last)
      return Value(u);
  } else {
    std::int64_t i = 0;
    auto [end, ec] = std::from_chars(first, last, i);
    if (ec == std::errc() && end == last)
      return Value(i);
  }
  if (auto decimal = parse_short_decimal(token))
    return Value(*decimal);
  double d = 0;
  auto [end, ec] = std::from_chars(first, last, d, std::chars_format::fixed);
  if (ec == std::errc() && end == last)
    return Value(d);
  return std::nullopt;
}

} // namespace opskit::counters
