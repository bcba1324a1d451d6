// SPDX-License-Identifier: MIT
#pragma once

// Basic authentication against bcrypt hashes, as a web configuration's basic_auth_users asks.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace opskit::web {

// A bcrypt check costs tens of milliseconds by design (about 70 ms at cost 10), too much for
// every scrape: a user and password found good are remembered, as a SHA-256 of the user, the
// hash and the password (never the password), until the process ends. An unknown user is
// checked against a dummy hash all the same, so that the time of an answer does not tell
// which users exist.
class BasicAuth {
public:
  // `users` maps user names to bcrypt hashes ("$2y$10$..."); none: every request is allowed.
  explicit BasicAuth(std::map<std::string, std::string> users);

  bool enabled() const noexcept { return !users_.empty(); }

  enum class Verdict : std::uint8_t {
    good,  // `password` is `user`'s
    wrong, // it is not, or there is no such user
    busy,  // not checked before, and another's bcrypt runs: not checked now either
  };
  // Whether `password` is `user`'s. Safe to call from many threads.
  Verdict check(std::string_view user, std::string_view password);

private:
  static constexpr std::size_t k_checked_max = 1024;
  std::map<std::string, std::string, std::less<>> users_;
  std::mutex hashing_; // held by the one bcrypt that runs
  std::mutex mutex_;   // guards checked_
  // What each password checked gave, by a digest of the user, hash and password.
  std::map<std::string, bool> checked_;
};

} // namespace opskit::web
