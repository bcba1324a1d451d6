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

// Levenshtein distance (insertions, deletions, substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` by edit distance, if one is close enough to be a likely typo
// (distance at most max(1, len/3)); ties go to the first.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates);

// `text` without leading and trailing spaces, tabs and newlines.
std::string_view trim(std::string_view text) noexcept;

// The words of `text`, separated by spaces (a run of them separates two words).
std::vector<std::string> words(std::string_view text);

} // namespace opskit
