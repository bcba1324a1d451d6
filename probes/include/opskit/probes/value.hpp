// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace opskit::counters {

// What a counter name holds. A counter only grows (until a wrap or reset), so its rate is
// meaningful; a gauge is a level; text is anything that is not one number.
enum class Kind : std::uint8_t { counter, gauge, text };

std::string_view to_string(Kind kind) noexcept;

// One value: unsigned and signed integers, reals (loadavg, CPU seconds) or text.
using Value = std::variant<std::uint64_t, std::int64_t, double, std::string>;

// The value as kstat prints it: integers in full, reals in the shortest form that reads back
// exactly, text as is.
std::string format_value(const Value& value);

// The value as a double, or nothing for text.
std::optional<double> as_number(const Value& value) noexcept;

// Parses a whole token as a number: an unsigned or negative integer, else a real; nothing when
// the token is not entirely a number.
std::optional<Value> parse_number(std::string_view token) noexcept;

// A token of digits on both sides of a point, 15 at most, and maybe a '-' first ("0.66", load
// averages and pressure's), as parse_number() reads it; nothing for any other.
std::optional<double> parse_short_decimal(std::string_view token) noexcept;

} // namespace opskit::counters
