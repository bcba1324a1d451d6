// SPDX-License-Identifier: MIT
#pragma once

// The TLS side of `kstat serve`, over GnuTLS (libmicrohttpd's TLS library): what a web
// configuration's tls_server_config means to it.

#include <optional>
#include <string>

#include "opskit/error.hpp"
#include "opskit/web/config.hpp"

namespace opskit::cmd::kstat {

// Loads the certificate, key and client CAs the way the server will, so that a bad PEM or a key
// that does not match its certificate is one line at start, not a refused handshake later.
Result<void> check_tls(const web::TlsConfig& tls);

// The GnuTLS priority string for the versions and preference of `tls`
// ("NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE").
std::string tls_priorities(const web::TlsConfig& tls);

// Why the client of a TLS session (a gnutls_session_t) may not be served under `tls`'s
// client_auth_type and client_allowed_sans, or nothing when it may.
std::optional<std::string> refuse_client(void* session, const web::TlsConfig& tls);

} // namespace opskit::cmd::kstat
