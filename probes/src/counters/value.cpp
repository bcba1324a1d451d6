// SPDX-License-Identifier: MIT
#include "opskit/probes/value.hpp"

#include <charconv>

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
  double d = 0;
  auto [end, ec] = std::from_chars(first, last, d, std::chars_format::fixed);
  if (ec == std::errc() && end == last)
    return Value(d);
  return std::nullopt;
}

} // namespace opskit::counters
