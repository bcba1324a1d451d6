// SPDX-License-Identifier: MIT
// The Release file of an apt suite, dists/<suite>/Release.
//
// The format is described on the Debian wiki ("DebianRepository/Format"): a deb822 paragraph
// naming the suite and listing, under MD5Sum and SHA256 (what Debian's archive lists),
// " <hash> <size> <path>" for every index below dists/<suite>/.
//
// What is subtle (each seen failing with apt 2.6):
// - SHA256 is required (MD5/SHA1 alone are "weak security information");
// - Date must be RFC 2822 in UTC; a date in the future is "not valid yet";
// - "Acquire-By-Hash: yes" makes apt fetch each index by the strongest hash listed here, from
//   the by-hash copies the suite writes (suite.cpp).
#include "opskit/repo/index/apt/release.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace opskit::repo {

namespace {

constexpr std::string_view k_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

} // namespace

std::string rfc2822_utc(std::time_t t) {
  static constexpr const char* k_days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{}, {:02} {} {} {:02}:{:02}:{:02} UTC", k_days[tm.tm_wday], tm.tm_mday,
                     k_months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::optional<std::time_t> parse_rfc2822_utc(std::string_view text) {
  std::tm tm{};
  char day[4] = {}, month[4] = {}, zone[4] = {};
  std::string line(text);
  if (std::sscanf(line.c_str(), "%3s, %d %3s %d %d:%d:%d %3s", day, &tm.tm_mday, month, &tm.tm_year,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, zone) != 8 ||
      std::string_view(zone) != "UTC")
    return std::nullopt;
  auto at = std::find(std::begin(k_months), std::end(k_months), std::string_view(month));
  if (at == std::end(k_months))
    return std::nullopt;
  tm.tm_mon = static_cast<int>(at - std::begin(k_months));
  tm.tm_year -= 1900;
  return ::timegm(&tm);
}

std::string apt_release(const AptReleaseFields& fields,
                        const std::map<std::string, Digests>& indexes) {
  auto join = [](const std::set<std::string>& words) {
    return fmt::format("{}", fmt::join(words, " "));
  };
  std::string rel;
  fmt::format_to(std::back_inserter(rel),
                 "Origin: {}\nLabel: {}\nSuite: {}\nCodename: {}\nDate: {}\n", fields.origin,
                 fields.label, fields.codename, fields.codename, rfc2822_utc(fields.date));
  if (fields.valid_until)
    fmt::format_to(std::back_inserter(rel), "Valid-Until: {}\n", rfc2822_utc(*fields.valid_until));
  fmt::format_to(std::back_inserter(rel),
                 "Acquire-By-Hash: yes\nArchitectures: {}\nComponents: {}\n",
                 join(fields.architectures), join(fields.components));
  for (auto [title, member] :
       {std::pair{"MD5Sum", &Digests::md5}, std::pair{"SHA256", &Digests::sha256}}) {
    rel += title;
    rel += ":\n";
    for (const auto& [path, d] : indexes)
      fmt::format_to(std::back_inserter(rel), " {} {:>16} {}\n", d.*member, d.size, path);
  }
  return rel;
}

} // namespace opskit::repo
