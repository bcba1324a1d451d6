// SPDX-License-Identifier: MIT
// Version ordering of dpkg and rpm, for prune --keep and for picking the newest version.
//
// dpkg (deb-version(7), lib/dpkg/version.c): compare the epochs as numbers, then the upstream
// versions, then the revisions, each with verrevcmp: alternate runs of non-digits (compared
// character by character where '~' sorts before everything, even the end of the string, and
// letters before other characters) and runs of digits (compared as numbers).
//
// rpm (rpmvercmp in rpmio/rpmvercmp.c): epoch as a number (missing = 0), then version, then
// release, each split into runs of digits or letters, separators skipped; a digit run beats a
// letter run, '~' sorts before everything and '^' after the end but before anything else.
#include "opskit/repo/format/version.hpp"

#include <cstdint>

#include "opskit/text.hpp"

namespace opskit::repo {

namespace {

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int dpkg_order(char c) noexcept {
  if (is_digit(c))
    return 0;
  if (is_alpha(c))
    return c;
  if (c == '~')
    return -1;
  if (c)
    return c + 256;
  return 0;
}

int verrevcmp(std::string_view a, std::string_view b) noexcept {
  while (!a.empty() || !b.empty()) {
    while ((!a.empty() && !is_digit(a.front())) || (!b.empty() && !is_digit(b.front()))) {
      int ac = dpkg_order(a.empty() ? '\0' : a.front());
      int bc = dpkg_order(b.empty() ? '\0' : b.front());
      if (ac != bc)
        return ac < bc ? -1 : 1;
      if (!a.empty())
        a.remove_prefix(1);
      if (!b.empty())
        b.remove_prefix(1);
    }
    if (int c = compare_digit_runs(a, b); c != 0)
      return c;
  }
  return 0;
}

struct Evr {
  std::string_view epoch, version, release;
};

Evr split(std::string_view v, char release_separator_last) noexcept {
  Evr evr;
  if (auto colon = v.find(':'); colon != std::string_view::npos) {
    evr.epoch = v.substr(0, colon);
    v.remove_prefix(colon + 1);
  }
  if (auto dash = release_separator_last ? v.rfind('-') : std::string_view::npos;
      dash != std::string_view::npos) {
    evr.version = v.substr(0, dash);
    evr.release = v.substr(dash + 1);
  } else {
    evr.version = v;
  }
  return evr;
}

int compare_epochs(std::string_view a, std::string_view b) noexcept {
  if (a.empty())
    a = "0";
  if (b.empty())
    b = "0";
  return compare_digit_runs(a, b);
}

int rpmvercmp(std::string_view a, std::string_view b) noexcept {
  if (a == b)
    return 0;
  for (;;) {
    auto skip = [](std::string_view& s) {
      while (!s.empty() && !is_digit(s.front()) && !is_alpha(s.front()) && s.front() != '~' &&
             s.front() != '^')
        s.remove_prefix(1);
    };
    skip(a);
    skip(b);
    bool at = !a.empty() && a.front() == '~', bt = !b.empty() && b.front() == '~';
    if (at || bt) {
      if (!at)
        return 1;
      if (!bt)
        return -1;
      a.remove_prefix(1);
      b.remove_prefix(1);
      continue;
    }
    bool ac = !a.empty() && a.front() == '^', bc = !b.empty() && b.front() == '^';
    if (ac || bc) {
      if (a.empty())
        return -1;
      if (b.empty())
        return 1;
      if (!ac)
        return 1;
      if (!bc)
        return -1;
      a.remove_prefix(1);
      b.remove_prefix(1);
      continue;
    }
    if (a.empty() || b.empty())
      break;
    bool numeric = is_digit(a.front());
    auto run = [numeric](std::string_view& s) {
      std::size_t n = 0;
      while (n < s.size() && (numeric ? is_digit(s[n]) : is_alpha(s[n])))
        ++n;
      auto r = s.substr(0, n);
      s.remove_prefix(n);
      return r;
    };
    std::string_view ra = run(a), rb = run(b);
    if (rb.empty())
      return numeric ? 1 : -1;
    if (numeric) {
      if (int c = compare_digit_runs(ra, rb); c != 0)
        return c;
    } else if (int c = ra.compare(rb); c != 0) {
      return c < 0 ? -1 : 1;
    }
  }
  if (a.empty() && b.empty())
    return 0;
  return a.empty() ? -1 : 1;
}

} // namespace

int compare_deb_versions(std::string_view a, std::string_view b) noexcept {
  Evr x = split(a, '-'), y = split(b, '-');
  if (int c = compare_epochs(x.epoch, y.epoch); c != 0)
    return c;
  if (int c = verrevcmp(x.version, y.version); c != 0)
    return c;
  return verrevcmp(x.release, y.release);
}

int compare_rpm_versions(std::string_view a, std::string_view b) noexcept {
  Evr x = split(a, '-'), y = split(b, '-');
  if (int c = compare_epochs(x.epoch, y.epoch); c != 0)
    return c;
  if (int c = rpmvercmp(x.version, y.version); c != 0)
    return c;
  return rpmvercmp(x.release, y.release);
}

} // namespace opskit::repo
