// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "opskit/web/basic_auth.hpp"

using opskit::web::BasicAuth;

namespace {

// "s3cret" at cost 4, as htpasswd ($2y$) and libxcrypt ($2b$) write it.
constexpr const char* k_2y = "$2y$04$e3nUNB4xnRWAMchAJUQkYeEIPkENYu4v3e1LbGJwOuS6v5gGqt/Mq";
constexpr const char* k_2b = "$2b$04$e3nUNB4xnRWAMchAJUQkYeEIPkENYu4v3e1LbGJwOuS6v5gGqt/Mq";
// "opskit-dummy" at cost 10: a check of it takes tens of milliseconds.
constexpr const char* k_cost10 = "$2b$10$LmgjOX7FXH4W5ZcvP2wyGeHLREh3BXbKU/CpN9mo8oLAUBBmG4lxG";

} // namespace

TEST_CASE("basic auth: the right password of a known user, and nothing else", "[lib][web]") {
  BasicAuth auth({{"alice", k_2y}, {"bob", k_2b}});
  CHECK(auth.enabled());
  CHECK(auth.check("alice", "s3cret"));
  CHECK(auth.check("bob", "s3cret"));
  CHECK_FALSE(auth.check("alice", "s3cret "));
  CHECK_FALSE(auth.check("alice", ""));
  CHECK_FALSE(auth.check("Alice", "s3cret"));
  CHECK_FALSE(auth.check("carol", "s3cret"));
  CHECK_FALSE(BasicAuth({}).enabled());
}

TEST_CASE("basic auth: a password found good is not checked with bcrypt again", "[lib][web]") {
  using Clock = std::chrono::steady_clock;
  BasicAuth auth(std::map<std::string, std::string>{{"dummy", k_cost10}});
  auto start = Clock::now();
  REQUIRE(auth.check("dummy", "opskit-dummy"));
  auto first = Clock::now() - start;
  start = Clock::now();
  for (int i = 0; i < 10; ++i)
    REQUIRE(auth.check("dummy", "opskit-dummy"));
  auto ten_more = Clock::now() - start;
  // Ten bcrypt checks at cost 10 would take ten times the first; remembered, they take none.
  CHECK(ten_more < first);
  CHECK_FALSE(auth.check("dummy", "opskit-dummy!"));
}

TEST_CASE("basic auth: a wrong password is remembered too, and a flood of them never holds up a "
          "password found good",
          "[lib][web]") {
  using Clock = std::chrono::steady_clock;
  BasicAuth auth(std::map<std::string, std::string>{{"dummy", k_cost10}});
  auto start = Clock::now();
  REQUIRE_FALSE(auth.check("dummy", "wrong"));
  auto first = Clock::now() - start;
  start = Clock::now();
  for (int i = 0; i < 10; ++i)
    REQUIRE_FALSE(auth.check("dummy", "wrong"));
  CHECK(Clock::now() - start < first);
  REQUIRE(auth.check("dummy", "opskit-dummy"));
  // Another thread tries password after password, each a bcrypt, as a client guessing would.
  std::atomic<bool> stop{false};
  std::atomic<int> tried{0};
  std::thread guesser([&] {
    for (int i = 0; !stop; ++i) {
      CHECK_FALSE(auth.check("dummy", "guess" + std::to_string(i)));
      ++tried;
    }
  });
  while (tried < 3)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  start = Clock::now();
  for (int i = 0; i < 100; ++i) {
    CHECK(auth.check("dummy", "opskit-dummy"));
    CHECK_FALSE(auth.check("dummy", "wrong"));
  }
  CHECK(Clock::now() - start < first); // none waited for the guesser's bcrypt
  stop = true;
  guesser.join();
}
