// SPDX-License-Identifier: MIT
//
// Client certificates. libmicrohttpd asks a client for its certificate when it has CAs to trust
// (MHD_OPTION_HTTPS_MEM_TRUST) and leaves the judgement to the application: the handshake
// succeeds whatever the client shows. So every request is judged here, before it is answered,
// the way Go's crypto/tls judges a handshake for each tls.ClientAuthType: a certificate required
// or not, verified against the CAs or not; client_allowed_sans then asks the first certificate
// to name one of the allowed DNS names, IP addresses, e-mail addresses or URIs.
#include "tls.hpp"

#include <memory>

#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include <fmt/format.h>

namespace opskit::cmd::kstat {

namespace {

using Credentials = std::unique_ptr<gnutls_certificate_credentials_st,
                                    decltype(&gnutls_certificate_free_credentials)>;
using Certificate = std::unique_ptr<gnutls_x509_crt_int, decltype(&gnutls_x509_crt_deinit)>;

gnutls_datum_t datum(const std::string& text) {
  return {reinterpret_cast<unsigned char*>(const_cast<char*>(text.data())),
          static_cast<unsigned>(text.size())};
}

// The subject alternative names of a certificate, as text.
std::vector<std::string> alt_names(const gnutls_datum_t& der) {
  std::vector<std::string> out;
  gnutls_x509_crt_t raw = nullptr;
  if (gnutls_x509_crt_init(&raw) < 0)
    return out;
  Certificate cert(raw, gnutls_x509_crt_deinit);
  if (gnutls_x509_crt_import(cert.get(), &der, GNUTLS_X509_FMT_DER) < 0)
    return out;
  for (unsigned seq = 0;; ++seq) {
    char name[1024];
    std::size_t size = sizeof name;
    int type = gnutls_x509_crt_get_subject_alt_name(cert.get(), seq, name, &size, nullptr);
    if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
      break;
    if (type < 0)
      continue; // too long for the buffer: no allowed name is that long
    if (type == GNUTLS_SAN_IPADDRESS) {
      char text[INET6_ADDRSTRLEN] = {};
      if (size == 4 || size == 16)
        ::inet_ntop(size == 4 ? AF_INET : AF_INET6, name, text, sizeof text);
      out.emplace_back(text);
    } else if (type == GNUTLS_SAN_DNSNAME || type == GNUTLS_SAN_RFC822NAME ||
               type == GNUTLS_SAN_URI) {
      out.emplace_back(name, size);
    }
  }
  return out;
}

bool requires_certificate(web::ClientAuth auth) {
  return auth == web::ClientAuth::require_any || auth == web::ClientAuth::require_and_verify;
}

bool verifies_certificate(web::ClientAuth auth) {
  return auth == web::ClientAuth::verify_if_given || auth == web::ClientAuth::require_and_verify;
}

} // namespace

Result<void> check_tls(const web::TlsConfig& tls) {
  gnutls_certificate_credentials_t raw = nullptr;
  if (int rc = gnutls_certificate_allocate_credentials(&raw); rc < 0)
    return fail(fmt::format("TLS: {}", gnutls_strerror(rc)));
  Credentials credentials(raw, gnutls_certificate_free_credentials);
  auto cert = datum(tls.cert_pem), key = datum(tls.key_pem);
  if (int rc =
          gnutls_certificate_set_x509_key_mem(credentials.get(), &cert, &key, GNUTLS_X509_FMT_PEM);
      rc < 0)
    return fail(fmt::format("web config: the certificate and key: {}", gnutls_strerror(rc)),
                EINVAL);
  if (!tls.client_ca_pem.empty()) {
    auto ca = datum(tls.client_ca_pem);
    int rc = gnutls_certificate_set_x509_trust_mem(credentials.get(), &ca, GNUTLS_X509_FMT_PEM);
    if (rc <= 0)
      return fail(fmt::format("web config: client_ca_file: {}",
                              rc < 0 ? gnutls_strerror(rc) : "no certificate in it"),
                  EINVAL);
  }
  return {};
}

std::string tls_priorities(const web::TlsConfig& tls) {
  static constexpr const char* k_names[] = {"TLS1.0", "TLS1.1", "TLS1.2", "TLS1.3"};
  std::string out = "NORMAL:-VERS-ALL";
  for (auto v = static_cast<int>(tls.max_version); v >= static_cast<int>(tls.min_version); --v)
    out += fmt::format(":+VERS-{}", k_names[v]);
  if (tls.prefer_server_cipher_suites)
    out += ":%SERVER_PRECEDENCE";
  return out;
}

std::optional<std::string> refuse_client(void* session_ptr, const web::TlsConfig& tls) {
  if (tls.client_auth == web::ClientAuth::none || tls.client_auth == web::ClientAuth::request)
    return std::nullopt;
  auto* session = static_cast<gnutls_session_t>(session_ptr);
  unsigned count = 0;
  const gnutls_datum_t* peers = session ? gnutls_certificate_get_peers(session, &count) : nullptr;
  if (peers == nullptr || count == 0) {
    if (requires_certificate(tls.client_auth))
      return "a client certificate is required";
    return std::nullopt;
  }
  if (verifies_certificate(tls.client_auth)) {
    unsigned status = 0;
    int rc = gnutls_certificate_verify_peers2(session, &status);
    if (rc < 0)
      return fmt::format("the client certificate: {}", gnutls_strerror(rc));
    if (status != 0) {
      gnutls_datum_t why{};
      gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0);
      std::string text = why.data ? std::string(reinterpret_cast<char*>(why.data), why.size) : "";
      gnutls_free(why.data);
      while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
        text.pop_back();
      return fmt::format("the client certificate is not trusted: {}", text);
    }
  }
  if (!tls.client_allowed_sans.empty()) {
    for (const auto& name : alt_names(peers[0]))
      for (const auto& allowed : tls.client_allowed_sans)
        if (name == allowed)
          return std::nullopt;
    return "the client certificate names none of client_allowed_sans";
  }
  return std::nullopt;
}

} // namespace opskit::cmd::kstat
