// SPDX-License-Identifier: MIT
#include "opskit/text.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace opskit {

namespace {
bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
} // namespace

bool all_digits(std::string_view s) noexcept {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}

int compare_digit_runs(std::string_view& a, std::string_view& b) noexcept {
  while (!a.empty() && a.front() == '0')
    a.remove_prefix(1);
  while (!b.empty() && b.front() == '0')
    b.remove_prefix(1);
  std::size_t la = 0, lb = 0;
  while (la < a.size() && is_digit(a[la]))
    ++la;
  while (lb < b.size() && is_digit(b[lb]))
    ++lb;
  int result = 0;
  if (la != lb)
    result = la < lb ? -1 : 1;
  else if (int c = a.substr(0, la).compare(b.substr(0, lb)); c != 0)
    result = c < 0 ? -1 : 1;
  a.remove_prefix(la);
  b.remove_prefix(lb);
  return result;
}

bool natural_less(std::string_view a, std::string_view b) noexcept {
  // What both start with compares equal, whatever it holds: skipped, but for a run of digits it
  // ends in, which the bytes after it may make a different number ("cpu.1" and "cpu.10").
  auto same = static_cast<std::size_t>(std::ranges::mismatch(a, b).in1 - a.begin());
  while (same > 0 && is_digit(a[same - 1]))
    --same;
  a.remove_prefix(same);
  b.remove_prefix(same);
  while (!a.empty() && !b.empty()) {
    if (is_digit(a.front()) && is_digit(b.front())) {
      std::size_t a_size = a.size(), b_size = b.size();
      if (int c = compare_digit_runs(a, b); c != 0)
        return c < 0;
      // the same value: the run with fewer leading zeros first
      if (std::size_t ra = a_size - a.size(), rb = b_size - b.size(); ra != rb)
        return ra < rb;
      continue;
    }
    if (a.front() != b.front())
      return static_cast<unsigned char>(a.front()) < static_cast<unsigned char>(b.front());
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  return a.size() < b.size();
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates) {
  std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

// A loop, not find_first_not_of(" \t\n"), which makes a memchr call of the set a byte: a
// scrape trims the counts of /proc/interrupts' lines, led by up to nine blanks each.
std::string_view trim(std::string_view text) noexcept {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n'; };
  std::size_t first = 0, last = text.size();
  while (first < last && blank(text[first]))
    ++first;
  if (first == last)
    return {};
  while (blank(text[last - 1]))
    --last;
  return text.substr(first, last - first);
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    auto space = text.find(' ');
    if (space != 0)
      out.emplace_back(text.substr(0, space));
    text.remove_prefix(space == std::string_view::npos ? text.size() : space + 1);
  }
  return out;
}

std::size_t utf8_sequence(std::string_view text) noexcept {
  if (text.empty())
    return 0;
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  if (lead < 0x80)
    return 1;
  // The lead byte gives the length and the range the second byte must fall in (RFC 3629 §4):
  // that excludes overlong forms, surrogates and code points past U+10FFFF.
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    low = lead == 0xe0 ? 0xa0 : 0x80;
    high = lead == 0xed ? 0x9f : 0xbf;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    low = lead == 0xf0 ? 0x90 : 0x80;
    high = lead == 0xf4 ? 0x8f : 0xbf;
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high)
    return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xbf)
      return 0;
  return length;
}

bool is_utf8(std::string_view text) noexcept {
  while (!text.empty()) {
    std::size_t n = utf8_sequence(text);
    if (n == 0)
      return false;
    text.remove_prefix(n);
  }
  return true;
}

std::string utf8_or_latin1(std::string_view text) {
  if (is_utf8(text))
    return std::string(text);
  std::string out;
  out.reserve(text.size() * 2);
  for (char c : text) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      out += static_cast<char>(0xc0 | (b >> 6));
      out += static_cast<char>(0x80 | (b & 0x3f));
    }
  }
  return out;
}

std::string printable(std::string_view text, std::size_t max_bytes) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t n = utf8_sequence(text.substr(at));
    std::size_t step = std::max<std::size_t>(n, 1); // a stray byte is shown alone
    if (at + step > max_bytes) {
      out += "...";
      break;
    }
    auto b = static_cast<unsigned char>(text[at]);
    if (n > 1 || (n == 1 && b >= 0x20 && b != 0x7f)) {
      out.append(text.substr(at, n));
    } else if (b == '\n') {
      out += "\\n";
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\r') {
      out += "\\r";
    } else {
      out += "\\x";
      out += k_hex[b >> 4];
      out += k_hex[b & 0xf];
    }
    at += step;
  }
  return out;
}

} // namespace opskit
