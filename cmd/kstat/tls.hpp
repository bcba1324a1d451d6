// SPDX-License-Identifier: MIT
#pragma once

// The TLS side of `kstat serve`, over GnuTLS (libmicrohttpd's TLS library): what a web
// configuration's tls_server_config means to it.

#include <memory>
#include <optional>
#include <string>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "opskit/error.hpp"
#include "opskit/web/config.hpp"

namespace opskit::cmd::kstat {

// A tls_server_config's certificate chain and key, and the CAs client certificates are checked
// against, loaded as a handshake and a request use them. Loaded again when the configuration
// changes: a handshake takes the keys in effect when it starts.
class TlsKeys {
public:
  // Fails with one line when a PEM does not load or the key does not match the certificate.
  static Result<std::shared_ptr<const TlsKeys>> load(const web::TlsConfig& tls);
  TlsKeys(const TlsKeys&) = delete;
  TlsKeys& operator=(const TlsKeys&) = delete;
  ~TlsKeys();

  // What GnuTLS's certificate callback hands a handshake: the chain and the key, valid while
  // these keys live.
  void hand_over(gnutls_pcert_st** chain, unsigned* length, gnutls_privkey_t* key) const noexcept;

  // Why the client of `session` may not be served under `tls`'s client_auth_type and
  // client_allowed_sans, its certificate checked against these keys' CAs; nothing when it may.
  std::optional<std::string> refuse_client(gnutls_session_t session,
                                           const web::TlsConfig& tls) const;

private:
  TlsKeys() = default;
  std::unique_ptr<gnutls_pcert_st[]> chain_;
  unsigned length_ = 0;
  gnutls_privkey_t key_ = nullptr;
  gnutls_x509_trust_list_t client_cas_ = nullptr; // null without client_ca_file
};

// The GnuTLS priority string for the versions and preference of `tls`
// ("NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE").
std::string tls_priorities(const web::TlsConfig& tls);

} // namespace opskit::cmd::kstat
