// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <cerrno>

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
