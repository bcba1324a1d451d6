// SPDX-License-Identifier: MIT
#pragma once

// The web configuration file of Prometheus exporters (the exporter-toolkit format that
// node_exporter's --web.config.file and Prometheus's --web.config.file read): TLS, basic
// authentication, response headers and a rate limit for an HTTP endpoint. See web/config.cpp
// for the keys and what this reader does not support.

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opskit/error.hpp"

namespace opskit::web {

// Which clients must show a certificate, and whether it is checked against client_ca: the
// names of Go's tls.ClientAuthType, as the file spells them.
enum class ClientAuth {
  none,              // NoClientCert (the default)
  request,           // RequestClientCert: asked for, neither required nor checked
  require_any,       // RequireAnyClientCert: required, not checked
  verify_if_given,   // VerifyClientCertIfGiven: checked when shown
  require_and_verify // RequireAndVerifyClientCert: required and checked
};

enum class TlsVersion { tls10, tls11, tls12, tls13 };

struct TlsConfig {
  std::string cert_pem;      // the server's certificate chain, PEM
  std::string key_pem;       // its private key, PEM
  std::string client_ca_pem; // the CAs client certificates are checked against, PEM, or ""
  // Where each came from, for a message about what is in it: the web config's path, and each
  // PEM's key in it ("tls_server_config.cert_file /etc/kstat/kstat.crt", or the inline key).
  std::string config_path, cert_from, key_from, client_ca_from;
  ClientAuth client_auth = ClientAuth::none;
  std::vector<std::string> client_allowed_sans; // a client certificate must name one, if any
  TlsVersion min_version = TlsVersion::tls12;
  TlsVersion max_version = TlsVersion::tls13;
  bool prefer_server_cipher_suites = true;

  friend bool operator==(const TlsConfig&, const TlsConfig&) = default;
};

struct RateLimit {
  std::chrono::nanoseconds interval{}; // between two requests; 0: no limit
  unsigned burst = 0;

  friend bool operator==(const RateLimit&, const RateLimit&) = default;
};

struct WebConfig {
  std::optional<TlsConfig> tls; // none: plain HTTP
  // user -> bcrypt hash ("$2y$10$..."); empty: no authentication.
  std::map<std::string, std::string> basic_auth_users;
  // Headers added to every response, in the file's order.
  std::vector<std::pair<std::string, std::string>> headers;
  RateLimit rate_limit;
  // The files it was read from: the configuration's own first (when loaded from one), then each
  // PEM file it names. ConfigWatch looks at them for changes.
  std::vector<std::string> files;

  friend bool operator==(const WebConfig&, const WebConfig&) = default;
};

// Parses the text of a web configuration file. `path` names it in errors, and relative
// cert_file, key_file and client_ca_file names are read from its directory, as the exporter
// toolkit reads them. Fails with one line naming the file, the key and what is wrong: YAML that
// does not parse, an unknown key, a value of the wrong kind, a file that cannot be read, a
// setting this reader does not support (cipher_suites, curve_preferences), or settings that
// contradict each other.
Result<WebConfig> parse_web_config(std::string_view text, const std::string& path);

// A Go duration as the file writes one ("1s", "1.5s", "250ms", "1h30m", "0"): numbers each
// followed by a unit (ns, us, µs, ms, s, m, h). Nothing when `text` is not one.
std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

// Reads and parses the file at `path`, as parse_web_config() does.
Result<WebConfig> load_web_config(const std::string& path);

} // namespace opskit::web
