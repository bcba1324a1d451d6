// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <cerrno>
#include <string_view>

#include <fmt/format.h>

#include "opskit/error.hpp"

using opskit::Error;

TEST_CASE("Error: from_errno reads 'op object: reason' and keeps errno", "[lib][error]") {
  auto e = Error::from_errno("open", "/srv/r/Release", EACCES);
  CHECK(e.message() == "open /srv/r/Release: Permission denied");
  CHECK(e.errno_value() == EACCES);
}

TEST_CASE("Error: context goes in front", "[lib][error]") {
  auto e = Error("bad value", EINVAL).with_context("vm.swappiness");
  CHECK(e.message() == "vm.swappiness: bad value");
  CHECK(e.errno_value() == EINVAL);
}

namespace {

opskit::Result<int> parse_digit(char c) {
  if (c < '0' || c > '9')
    return opskit::fail(fmt::format("{}: not a digit", c));
  return c - '0';
}

opskit::Result<int> sum_digits(std::string_view text) {
  int sum = 0;
  for (char c : text) {
    OPSKIT_TRY_ASSIGN(int digit, parse_digit(c));
    sum += digit;
  }
  return sum;
}

opskit::Result<void> all_digits(std::string_view text, int& calls) {
  for (char c : text) {
    ++calls;
    OPSKIT_TRY(parse_digit(c));
  }
  return {};
}

} // namespace

TEST_CASE("Error: OPSKIT_TRY_ASSIGN gives the value, or returns the first failure",
          "[lib][error]") {
  CHECK(sum_digits("123") == 6);
  auto bad = sum_digits("12x4");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message() == "x: not a digit");
}

TEST_CASE("Error: OPSKIT_TRY stops at the first failure and evaluates once", "[lib][error]") {
  int calls = 0;
  CHECK(all_digits("42", calls));
  CHECK(calls == 2);
  calls = 0;
  auto bad = all_digits("4y2", calls);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message() == "y: not a digit");
  CHECK(calls == 2);
}
