// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "opskit/web/basic_auth.hpp"

using opskit::web::BasicAuth;
using Verdict = BasicAuth::Verdict;

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
  CHECK(auth.check("alice", "s3cret") == Verdict::good);
  CHECK(auth.check("bob", "s3cret") == Verdict::good);
  CHECK(auth.check("alice", "s3cret ") == Verdict::wrong);
  CHECK(auth.check("alice", "") == Verdict::wrong);
  CHECK(auth.check("Alice", "s3cret") == Verdict::wrong);
  CHECK(auth.check("carol", "s3cret") == Verdict::wrong);
  CHECK_FALSE(BasicAuth({}).enabled());
}

TEST_CASE("basic auth: a password found good is not checked with bcrypt again", "[lib][web]") {
  using Clock = std::chrono::steady_clock;
  BasicAuth auth(std::map<std::string, std::string>{{"dummy", k_cost10}});
  auto start = Clock::now();
  REQUIRE(auth.check("dummy", "opskit-dummy") == Verdict::good);
  auto first = Clock::now() - start;
  start = Clock::now();
  for (int i = 0; i < 10; ++i)
    REQUIRE(auth.check("dummy", "opskit-dummy") == Verdict::good);
  auto ten_more = Clock::now() - start;
  // Ten bcrypt checks at cost 10 would take ten times the first; remembered, they take none.
  CHECK(ten_more < first);
  CHECK(auth.check("dummy", "opskit-dummy!") == Verdict::wrong);
}

TEST_CASE("basic auth: a wrong password is remembered too, and a flood of them never holds up a "
          "password found good",
          "[lib][web]") {
  using Clock = std::chrono::steady_clock;
  BasicAuth auth(std::map<std::string, std::string>{{"dummy", k_cost10}});
  auto start = Clock::now();
  REQUIRE(auth.check("dummy", "wrong") == Verdict::wrong);
  auto first = Clock::now() - start;
  start = Clock::now();
  for (int i = 0; i < 10; ++i)
    REQUIRE(auth.check("dummy", "wrong") == Verdict::wrong);
  CHECK(Clock::now() - start < first);
  REQUIRE(auth.check("dummy", "opskit-dummy") == Verdict::good);
  // Another thread tries password after password, each a bcrypt, as a client guessing would;
  // none is good, and none is put off, the main thread's checks holding no bcrypt.
  std::atomic<bool> stop{false};
  std::atomic<int> tried{0}, not_wrong{0};
  std::thread guesser([&] {
    for (int i = 0; !stop; ++i) {
      not_wrong += auth.check("dummy", "guess" + std::to_string(i)) != Verdict::wrong;
      ++tried;
    }
  });
  while (tried < 3)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  start = Clock::now();
  int answered = 0;
  for (int i = 0; i < 100; ++i)
    answered += auth.check("dummy", "opskit-dummy") == Verdict::good &&
                auth.check("dummy", "wrong") == Verdict::wrong;
  auto hundred = Clock::now() - start;
  stop = true;
  guesser.join();
  CHECK(answered == 100);
  CHECK(hundred < first); // none waited for the guesser's bcrypt
  CHECK(not_wrong == 0);
  // A password not checked before, while a guess's bcrypt runs, is put off, not judged.
  std::atomic<bool> guessing{true};
  std::thread slow([&] {
    while (guessing)
      auth.check("dummy", "slow" + std::to_string(tried++));
  });
  Verdict fresh = Verdict::wrong;
  for (int i = 0; i < 1000 && fresh != Verdict::busy; ++i)
    fresh = auth.check("dummy", "fresh" + std::to_string(i));
  guessing = false;
  slow.join();
  CHECK(fresh == Verdict::busy);
}
