// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opskit {

// Name order for dotted names: runs of digits compare by value, so cpu.2 sorts before cpu.10.
bool natural_less(std::string_view a, std::string_view b) noexcept;

// Compares the runs of digits that `a` and `b` start with by value, however long they are
// (leading zeros skipped, then the longer run is the greater, then digit by digit), and removes
// them from both: negative, 0 or positive. A view that starts with no digit has the run 0.
int compare_digit_runs(std::string_view& a, std::string_view& b) noexcept;

// Whether `s` is one or more decimal digits, and nothing else (a pid, a count of any size).
bool all_digits(std::string_view s) noexcept;

// Levenshtein distance (insertions, deletions, substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` by edit distance, if one is close enough to be a likely typo
// (distance at most max(1, len/3)); ties go to the first.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates);

// Whether `a` and `b` are equal but for the case of ASCII letters (as deb822 field names are).
bool iequals(std::string_view a, std::string_view b) noexcept;

// `text` without leading and trailing spaces, tabs and newlines.
std::string_view trim(std::string_view text) noexcept;

// The words of `text`, separated by spaces (a run of them separates two words).
std::vector<std::string> words(std::string_view text);

// The length of the UTF-8 sequence at the start of `text` (1 to 4), or 0 when it does not start
// with one: a stray continuation byte, an overlong form, a surrogate, past U+10FFFF or cut off.
std::size_t utf8_sequence(std::string_view text) noexcept;

// Whether `text` is UTF-8 throughout.
bool is_utf8(std::string_view text) noexcept;

// `text` as UTF-8: itself when it is, else read as ISO-8859-1 (each byte its code point), as
// createrepo_c does with rpm headers written before UTF-8.
std::string utf8_or_latin1(std::string_view text);

// `text` fit to show within a one-line message: control characters as C escapes (\n, \t,
// \x01), bytes outside a UTF-8 sequence as \xNN; past `max_bytes` of `text`, cut at a character
// and "..." added.
std::string printable(std::string_view text, std::size_t max_bytes = std::string_view::npos);

// A value read from input, to quote in an error message: printable, at most 64 bytes of it.
inline std::string excerpt(std::string_view value) {
  return printable(value, 64);
}

} // namespace opskit
