// SPDX-License-Identifier: MIT
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::repo {

enum class Armor { no, yes };

// What a signature check found: whether it is good and which key made it.
struct SignatureCheck {
  bool good = false;
  std::string fingerprint; // of the signing (sub)key, when known
  std::string problem;     // why it is not good, in gpg's words
  std::string signed_text; // for a clear-signed message: the text that was signed
};

// A GnuPG keyring reached through gpgme: the directory `home` (a GNUPGHOME), or the user's own
// ($GNUPGHOME, else ~/.gnupg) when `home` is empty. Passphrases go to gpg-agent through
// loopback pinentry, never on a command line. Signatures use SHA-512 (keys generated here prefer
// it) and any signature made with a digest weaker than SHA-256 is refused, as apt refuses it.
// Move-only, and used by one thread at a time (a gpgme context is one thread's); gpgme itself
// stays in keyring.cpp.
class Keyring {
public:
  // Fails when gpgme cannot make an OpenPGP context on `home`.
  static Result<Keyring> open(const std::string& home, std::optional<std::string> passphrase);
  Keyring(Keyring&&) noexcept;
  Keyring& operator=(Keyring&&) noexcept;
  ~Keyring();

  // Creates an ed25519 signing key for `user_id` ("Name <mail>") that does not expire, protected
  // by the passphrase when there is one; returns its fingerprint.
  Result<std::string> generate_key(const std::string& user_id);
  // Fails unless a secret key with this fingerprint (or other gpg key spec) is in the keyring
  // (with ENOENT when none is) and can sign now; returns its full fingerprint.
  Result<std::string> find_secret_key(const std::string& spec);
  // The public key, armored or as a binary OpenPGP keyring apt's signed-by accepts.
  Result<std::string> export_key(const std::string& fingerprint, Armor armor);
  // The fingerprints of the keys and subkeys in exported key data, which is not imported.
  Result<std::vector<std::string>> fingerprints_in(std::string_view key_data);
  // A clear-signed copy of `text` (InRelease) and an armored detached signature (Release.gpg,
  // repomd.xml.asc).
  Result<std::string> clear_sign(const std::string& fingerprint, std::string_view text);
  Result<std::string> detach_sign(const std::string& fingerprint, std::string_view text);
  // Checks signatures made by keys of this keyring.
  Result<SignatureCheck> verify_detached(std::string_view signature, std::string_view text);
  Result<SignatureCheck> verify_clear_signed(std::string_view message);

  // The GNUPGHOME this keyring uses ("" for the user's).
  const std::string& home() const noexcept { return home_; }

private:
  struct Impl; // the gpgme context and the passphrase its callback hands out
  Keyring(std::unique_ptr<Impl> impl, std::string home) noexcept;
  std::unique_ptr<Impl> impl_;
  std::string home_;
};

} // namespace opskit::repo
