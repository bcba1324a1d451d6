// SPDX-License-Identifier: MIT
// OpenPGP signing of repository metadata through gpgme.
//
// apt wants InRelease (a clear-signed Release, RFC 4880 §7) and accepts Release + Release.gpg (a
// detached signature); dnf wants repomd.xml.asc, an armored detached signature of repomd.xml.
// What is subtle: apt 2.6 rejects signatures made with SHA-1 ("weak digest"), and gpg picks the
// digest from the key's preferences, so the digest of each new signature is checked here and a
// digest weaker than SHA-256 is an error, not a repository apt will refuse later. Keys made by
// `init --generate-key` live in a GNUPGHOME of their own whose gpg.conf prefers SHA-512. With
// a passphrase, pinentry runs in loopback mode so gpg-agent asks this process (the callback
// below) and never a terminal or a GUI.
#include "opskit/repo/store/keyring.hpp"

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include <unistd.h>

#include <gpgme.h>

#include <fmt/format.h>

#include "opskit/handle.hpp"

namespace opskit::repo {

namespace {

using Context = CPtr<gpgme_context, gpgme_release>;
using Data = CPtr<gpgme_data, gpgme_data_release>;
using Key = CPtr<_gpgme_key, gpgme_key_unref>;

std::string gpg_problem(gpgme_error_t err) {
  return gpgme_strerror(err);
}

Result<Data> data_from(std::string_view bytes) {
  gpgme_data_t d = nullptr;
  if (auto err = gpgme_data_new_from_mem(&d, bytes.data(), bytes.size(), 1))
    return fail(fmt::format("gpgme: {}", gpg_problem(err)));
  return Data(d);
}

Result<Data> empty_data() {
  gpgme_data_t d = nullptr;
  if (auto err = gpgme_data_new(&d))
    return fail(fmt::format("gpgme: {}", gpg_problem(err)));
  return Data(d);
}

std::string take(Data& data) {
  std::size_t size = 0;
  char* bytes = gpgme_data_release_and_get_mem(data.release(), &size);
  std::string out(bytes ? bytes : "", bytes ? size : 0);
  gpgme_free(bytes);
  return out;
}

void initialise_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    gpgme_check_version(nullptr);
    gpgme_set_locale(nullptr, LC_CTYPE, "C");
  });
}

// Digests apt refuses or that are weaker than SHA-256: refused in what is signed and verified.
bool weak_digest(gpgme_hash_algo_t algo) {
  return algo == GPGME_MD_MD5 || algo == GPGME_MD_SHA1 || algo == GPGME_MD_RMD160 ||
         algo == GPGME_MD_SHA224;
}

SignatureCheck check_result(gpgme_verify_result_t result) {
  SignatureCheck check;
  if (!result || !result->signatures) {
    check.problem = "no signature";
    return check;
  }
  gpgme_signature_t sig = result->signatures;
  check.fingerprint = sig->fpr ? sig->fpr : "";
  if (gpgme_err_code(sig->status) != GPG_ERR_NO_ERROR) {
    check.problem = gpg_problem(sig->status);
    return check;
  }
  if (weak_digest(sig->hash_algo)) {
    check.problem = "made with a weak digest";
    return check;
  }
  check.good = true;
  return check;
}

// Hands gpg-agent the passphrase (`hook`, a std::optional<std::string>) through loopback
// pinentry; refuses when there is none or gpg says the last one was wrong.
gpgme_error_t passphrase_callback(void* hook, const char* /*uid_hint*/, const char* /*info*/,
                                  int previous_bad, int fd) {
  const auto& passphrase = *static_cast<const std::optional<std::string>*>(hook);
  if (!passphrase)
    return gpgme_error(GPG_ERR_NO_PASSPHRASE);
  if (previous_bad)
    return gpgme_error(GPG_ERR_BAD_PASSPHRASE);
  std::string line = *passphrase + "\n";
  if (gpgme_io_writen(fd, line.data(), line.size()) != 0)
    return gpgme_error(GPG_ERR_CANCELED);
  return 0;
}

// Why `key` makes no signature now (it, or each of its signing subkeys, revoked, expired,
// disabled or unable to sign), or null when it can.
const char* unusable_for_signing(gpgme_key_t key) {
  if (key->revoked)
    return "revoked";
  if (key->expired)
    return "expired";
  if (key->disabled)
    return "disabled";
  const char* problem = "cannot sign";
  for (gpgme_subkey_t sub = key->subkeys; sub; sub = sub->next) {
    if (!sub->can_sign)
      continue;
    if (!sub->revoked && !sub->expired && !sub->disabled && !sub->invalid)
      return nullptr;
    problem = sub->revoked ? "its signing subkeys are revoked" : "its signing subkeys expired";
  }
  return problem;
}

} // namespace

struct Keyring::Impl {
  Impl(Context context, std::optional<std::string> secret)
      : ctx(std::move(context)), passphrase(std::move(secret)) {
    gpgme_set_passphrase_cb(ctx.get(), &passphrase_callback, &passphrase);
  }
  // The callback holds the passphrase's address: an Impl stays where it was made.
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  Result<gpgme_key_t> secret_key(const std::string& spec);
  Result<std::string> sign(const std::string& fingerprint, std::string_view text,
                           gpgme_sig_mode_t mode);

  Context ctx;
  std::optional<std::string> passphrase;
  std::map<std::string, Key> secret_keys; // by the spec they were found by
};

// The one secret key `spec` names, listed once a keyring, on the keyring's own context:
// gpgme_get_key lists on a context it makes for the call, and gpgme starts `gpg --version` for
// every context given a home directory, so each signature cost two gpg processes more.
Result<gpgme_key_t> Keyring::Impl::secret_key(const std::string& spec) {
  if (auto known = secret_keys.find(spec); known != secret_keys.end())
    return known->second.get();
  gpgme_key_t raw = nullptr;
  auto err = gpgme_op_keylist_start(ctx.get(), spec.c_str(), 1);
  if (!err)
    err = gpgme_op_keylist_next(ctx.get(), &raw);
  Key key(raw);
  if (gpgme_key_t next = nullptr; !err && !gpgme_op_keylist_next(ctx.get(), &next)) {
    Key other(next); // the same key listed twice is one key, not an ambiguous name
    if (std::strcmp(key->subkeys->fpr, other->subkeys->fpr) != 0)
      err = gpgme_error(GPG_ERR_AMBIGUOUS_NAME);
  }
  gpgme_op_keylist_end(ctx.get());
  if (err)
    return gpgme_err_code(err) == GPG_ERR_EOF ? fail("not in the keyring", ENOENT)
                                              : fail(gpg_problem(err));
  return secret_keys.emplace(spec, std::move(key)).first->second.get();
}

Keyring::Keyring(std::unique_ptr<Impl> impl, std::string home) noexcept
    : impl_(std::move(impl)), home_(std::move(home)) {}
Keyring::Keyring(Keyring&&) noexcept = default;
Keyring& Keyring::operator=(Keyring&&) noexcept = default;
Keyring::~Keyring() = default;

Result<Keyring> Keyring::open(const std::string& home, std::optional<std::string> passphrase) {
  initialise_once();
  gpgme_ctx_t raw = nullptr;
  if (auto err = gpgme_new(&raw))
    return fail(fmt::format("gpgme: {}", gpg_problem(err)));
  Context ctx(raw);
  if (auto err = gpgme_set_protocol(raw, GPGME_PROTOCOL_OpenPGP))
    return fail(fmt::format("gpgme: {}", gpg_problem(err)));
  if (!home.empty())
    if (auto err = gpgme_ctx_set_engine_info(raw, GPGME_PROTOCOL_OpenPGP, nullptr, home.c_str()))
      return fail(fmt::format("keyring {}: {}", home, gpg_problem(err)));
  if (auto err = gpgme_set_pinentry_mode(raw, GPGME_PINENTRY_MODE_LOOPBACK))
    return fail(fmt::format("gpgme: loopback pinentry: {}", gpg_problem(err)));
  return Keyring(std::make_unique<Impl>(std::move(ctx), std::move(passphrase)), home);
}

Result<std::string> Keyring::generate_key(const std::string& user_id) {
  unsigned flags = GPGME_CREATE_SIGN | GPGME_CREATE_NOEXPIRE | GPGME_CREATE_FORCE;
  if (!impl_->passphrase)
    flags |= GPGME_CREATE_NOPASSWD;
  if (auto err =
          gpgme_op_createkey(impl_->ctx.get(), user_id.c_str(), "ed25519", 0, 0, nullptr, flags))
    return fail(fmt::format("generate key for '{}': {}", user_id, gpg_problem(err)));
  gpgme_genkey_result_t result = gpgme_op_genkey_result(impl_->ctx.get());
  if (!result || !result->fpr)
    return fail(fmt::format("generate key for '{}': gpg reported no fingerprint", user_id));
  return std::string(result->fpr);
}

Result<std::string> Keyring::find_secret_key(const std::string& spec) {
  auto key = impl_->secret_key(spec);
  if (!key)
    return std::unexpected(key.error().with_context(fmt::format("secret key {}", spec)));
  if (auto problem = unusable_for_signing(*key))
    return fail(fmt::format("secret key {}: {}", spec, problem));
  return std::string((*key)->fpr);
}

Result<std::string> Keyring::export_key(const std::string& fingerprint, Armor armor) {
  OPSKIT_TRY_ASSIGN(auto out, empty_data());
  gpgme_set_armor(impl_->ctx.get(), armor == Armor::yes);
  if (auto err = gpgme_op_export(impl_->ctx.get(), fingerprint.c_str(), GPGME_EXPORT_MODE_MINIMAL,
                                 out.get()))
    return fail(fmt::format("export key {}: {}", fingerprint, gpg_problem(err)));
  std::string key = take(out);
  if (key.empty())
    return fail(fmt::format("export key {}: not in the keyring", fingerprint));
  return key;
}

Result<std::vector<std::string>> Keyring::fingerprints_in(std::string_view key_data) {
  OPSKIT_TRY_ASSIGN(auto data, data_from(key_data));
  std::vector<std::string> fingerprints;
  auto err = gpgme_op_keylist_from_data_start(impl_->ctx.get(), data.get(), 0);
  for (gpgme_key_t raw = nullptr; !err && !(err = gpgme_op_keylist_next(impl_->ctx.get(), &raw));) {
    Key key(raw);
    for (gpgme_subkey_t sub = key->subkeys; sub; sub = sub->next)
      if (sub->fpr)
        fingerprints.emplace_back(sub->fpr);
  }
  gpgme_op_keylist_end(impl_->ctx.get());
  if (gpgme_err_code(err) != GPG_ERR_EOF)
    return fail(fmt::format("list keys: {}", gpg_problem(err)));
  return fingerprints;
}

Result<std::string> Keyring::Impl::sign(const std::string& fingerprint, std::string_view text,
                                        gpgme_sig_mode_t mode) {
  auto key = secret_key(fingerprint);
  if (!key)
    return std::unexpected(key.error().with_context(fmt::format("signing key {}", fingerprint)));
  gpgme_signers_clear(ctx.get());
  if (auto err = gpgme_signers_add(ctx.get(), *key))
    return fail(fmt::format("signing key {}: {}", fingerprint, gpg_problem(err)));
  gpgme_set_armor(ctx.get(), 1);
  gpgme_set_textmode(ctx.get(), 0);
  auto in = data_from(text);
  auto out = empty_data();
  if (!in || !out)
    return fail(!in ? in.error() : out.error());
  if (auto err = gpgme_op_sign(ctx.get(), in->get(), out->get(), mode)) {
    if (gpgme_err_code(err) == GPG_ERR_NO_PASSPHRASE)
      return fail(fmt::format("sign with {}: the key needs its passphrase (--passphrase-file FILE "
                              "or PKGCLOUD_GPG_PASSPHRASE)",
                              fingerprint));
    return fail(fmt::format("sign with {}: {}", fingerprint, gpg_problem(err)));
  }
  gpgme_sign_result_t result = gpgme_op_sign_result(ctx.get());
  if (!result || !result->signatures || result->invalid_signers)
    return fail(fmt::format("sign with {}: gpg made no signature", fingerprint));
  auto algo = result->signatures->hash_algo;
  if (weak_digest(algo))
    return fail(fmt::format("sign with {}: gpg chose the weak digest {}, which apt rejects; set "
                            "personal-digest-preferences SHA512 in gpg.conf",
                            fingerprint, gpgme_hash_algo_name(algo)));
  return take(*out);
}

Result<std::string> Keyring::clear_sign(const std::string& fingerprint, std::string_view text) {
  return impl_->sign(fingerprint, text, GPGME_SIG_MODE_CLEAR);
}

Result<std::string> Keyring::detach_sign(const std::string& fingerprint, std::string_view text) {
  return impl_->sign(fingerprint, text, GPGME_SIG_MODE_DETACH);
}

Result<SignatureCheck> Keyring::verify_detached(std::string_view signature, std::string_view text) {
  auto sig = data_from(signature);
  auto in = data_from(text);
  if (!sig || !in)
    return fail(!sig ? sig.error() : in.error());
  if (auto err = gpgme_op_verify(impl_->ctx.get(), sig->get(), in->get(), nullptr))
    return SignatureCheck{false, "", gpg_problem(err), ""};
  return check_result(gpgme_op_verify_result(impl_->ctx.get()));
}

Result<SignatureCheck> Keyring::verify_clear_signed(std::string_view message) {
  auto sig = data_from(message);
  auto plain = empty_data();
  if (!sig || !plain)
    return fail(!sig ? sig.error() : plain.error());
  if (auto err = gpgme_op_verify(impl_->ctx.get(), sig->get(), nullptr, plain->get()))
    return SignatureCheck{false, "", gpg_problem(err), ""};
  SignatureCheck check = check_result(gpgme_op_verify_result(impl_->ctx.get()));
  check.signed_text = take(*plain);
  return check;
}

} // namespace opskit::repo
