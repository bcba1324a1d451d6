// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include "opskit/handle.hpp"

using opskit::UniqueFd;

namespace {
bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}
} // namespace

TEST_CASE("UniqueFd: closes its descriptor when it goes out of scope", "[lib][fd]") {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(raw >= 0);
  { UniqueFd fd(raw); }
  CHECK_FALSE(is_open(raw));
}

TEST_CASE("UniqueFd: move transfers ownership and leaves -1 behind", "[lib][fd]") {
  UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = a.get();
  UniqueFd b(std::move(a));
  CHECK(a.get() == -1);
  CHECK(b.get() == raw);
  UniqueFd c;
  c = std::move(b);
  CHECK(c.get() == raw);
  CHECK(is_open(raw));
}

TEST_CASE("UniqueFd: self-move keeps the descriptor open", "[lib][fd]") {
  UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = a.get();
  auto& alias = a;
  a = std::move(alias);
  CHECK(a.get() == raw);
  CHECK(is_open(raw));
}

TEST_CASE("UniqueFd: release gives up ownership without closing", "[lib][fd]") {
  UniqueFd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  int raw = a.release();
  CHECK_FALSE(a);
  CHECK(is_open(raw));
  ::close(raw);
}
