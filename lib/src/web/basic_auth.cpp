// SPDX-License-Identifier: MIT
#include "opskit/web/basic_auth.hpp"

#include <memory>

#include <crypt.h>
#include <gnutls/crypto.h>

namespace opskit::web {

namespace {

// A bcrypt hash of no one's password, at the cost of the usual ones, for an unknown user where
// no user is configured.
constexpr std::string_view k_dummy_hash =
    "$2b$10$LmgjOX7FXH4W5ZcvP2wyGeHLREh3BXbKU/CpN9mo8oLAUBBmG4lxG";

// Compares in a time that depends on the length alone.
bool same_bytes(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size())
    return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Zeroes a string that held a secret, in a way the compiler keeps.
void wipe(std::string& secret) noexcept {
  gnutls_memset(secret.data(), 0, secret.size());
}

// True when crypt(3) of `password` with `hash`'s salt and cost gives `hash`.
bool bcrypt_matches(std::string_view password, std::string_view hash) {
  auto data = std::make_unique<crypt_data>(); // 32 KiB: not on the stack
  std::string key(password), setting(hash);
  const char* made = ::crypt_r(key.c_str(), setting.c_str(), data.get());
  wipe(key);
  return made != nullptr && made[0] != '*' && same_bytes(made, hash);
}

// The SHA-256 of the three, each length-prefixed so that no two triples give the same bytes.
std::string fingerprint(std::string_view user, std::string_view hash, std::string_view password) {
  std::string input;
  for (std::string_view part : {user, hash, password}) {
    std::uint64_t length = part.size();
    input.append(reinterpret_cast<const char*>(&length), sizeof length).append(part);
  }
  std::string digest(32, '\0');
  gnutls_hash_fast(GNUTLS_DIG_SHA256, input.data(), input.size(), digest.data());
  wipe(input);
  return digest;
}

} // namespace

BasicAuth::BasicAuth(std::map<std::string, std::string> users)
    : users_(users.begin(), users.end()) {}

BasicAuth::Verdict BasicAuth::check(std::string_view user, std::string_view password) {
  auto it = users_.find(user);
  bool known = it != users_.end();
  // An unknown user's check takes as long as a user's, at a configured hash's cost (a cost-4
  // one is a millisecond, the dummy's cost 10 sixty): the time tells no one which users there
  // are.
  std::string_view hash = known            ? std::string_view(it->second)
                          : users_.empty() ? k_dummy_hash
                                           : std::string_view(users_.begin()->second);
  std::string key = fingerprint(user, hash, password);
  {
    std::lock_guard lock(mutex_);
    if (auto checked = checked_.find(key); checked != checked_.end())
      return checked->second ? Verdict::good : Verdict::wrong;
  }
  // One bcrypt at a time, and none waited for: a flood of wrong passwords holds one of the
  // server's threads, not all of them, and a check that would wait for another's is put off at
  // once. A password checked before, good or not, is answered from memory meanwhile.
  std::unique_lock hashing(hashing_, std::try_to_lock);
  if (!hashing.owns_lock())
    return Verdict::busy;
  bool good = bcrypt_matches(password, hash) && known;
  hashing.unlock();
  std::lock_guard lock(mutex_);
  if (checked_.size() >= k_checked_max) // bounded against a flood: the good ones stay
    std::erase_if(checked_, [](const auto& checked) { return !checked.second; });
  checked_.insert_or_assign(std::move(key), good);
  return good ? Verdict::good : Verdict::wrong;
}

} // namespace opskit::web
