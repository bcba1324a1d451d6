// SPDX-License-Identifier: MIT
#pragma once

// Basic authentication against bcrypt hashes, as a web configuration's basic_auth_users asks.

#include <map>
#include <mutex>
#include <set>
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

  // True when `password` is `user`'s. Safe to call from many threads.
  bool check(std::string_view user, std::string_view password);

private:
  std::map<std::string, std::string, std::less<>> users_;
  std::mutex mutex_; // guards good_
  std::set<std::string> good_;
};

} // namespace opskit::web
