// SPDX-License-Identifier: MIT
#include "opskit/web/basic_auth.hpp"

#include <memory>

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

namespace opskit::web {

namespace {

// A bcrypt hash of no one's password, at the cost of the usual ones, for unknown users.
constexpr std::string_view k_dummy_hash =
    "$2b$10$LmgjOX7FXH4W5ZcvP2wyGeHLREh3BXbKU/CpN9mo8oLAUBBmG4lxG";

// True when crypt(3) of `password` with `hash`'s salt and cost gives `hash`.
bool bcrypt_matches(std::string_view password, std::string_view hash) {
  auto data = std::make_unique<crypt_data>(); // 32 KiB: not on the stack
  std::string key(password), setting(hash);
  const char* made = ::crypt_r(key.c_str(), setting.c_str(), data.get());
  OPENSSL_cleanse(key.data(), key.size());
  return made != nullptr && made[0] != '*' && std::string_view(made).size() == hash.size() &&
         CRYPTO_memcmp(made, hash.data(), hash.size()) == 0;
}

// The SHA-256 of the three, each length-prefixed so that no two triples give the same bytes.
std::string fingerprint(std::string_view user, std::string_view hash, std::string_view password) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  for (std::string_view part : {user, hash, password}) {
    std::uint64_t length = part.size();
    EVP_DigestUpdate(ctx.get(), &length, sizeof length);
    EVP_DigestUpdate(ctx.get(), part.data(), part.size());
  }
  EVP_DigestFinal_ex(ctx.get(), digest, &size);
  return {reinterpret_cast<const char*>(digest), size};
}

} // namespace

BasicAuth::BasicAuth(std::map<std::string, std::string> users)
    : users_(users.begin(), users.end()) {}

bool BasicAuth::check(std::string_view user, std::string_view password) {
  auto it = users_.find(user);
  if (it == users_.end()) {
    bcrypt_matches(password, k_dummy_hash);
    return false;
  }
  std::string key = fingerprint(user, it->second, password);
  {
    std::lock_guard lock(mutex_);
    if (good_.contains(key))
      return true;
  }
  if (!bcrypt_matches(password, it->second))
    return false;
  std::lock_guard lock(mutex_);
  good_.insert(std::move(key));
  return true;
}

} // namespace opskit::web
