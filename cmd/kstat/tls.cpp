// SPDX-License-Identifier: MIT
//
// The server's certificate is handed to each handshake by libmicrohttpd's certificate callback
// (MHD_OPTION_HTTPS_CERT_CALLBACK) from the keys in effect, so that a renewed certificate is
// served from the first handshake after the files change.
//
// Client certificates. libmicrohttpd asks a client for its certificate when it has CAs to trust
// (MHD_OPTION_HTTPS_MEM_TRUST, given at start) and leaves the judgement to the application: the
// handshake succeeds whatever the client shows. So every request is judged here, before it is
// answered, the way Go's crypto/tls judges a handshake for each tls.ClientAuthType: a
// certificate required or not, verified or not against the CAs of the configuration in effect
// (a trust list of the keys', not the daemon's); client_allowed_sans then asks the first
// certificate to name one of the allowed DNS names, IP addresses, e-mail addresses or URIs.
#include "tls.hpp"

#include <memory>
#include <vector>

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

// Why the chain a client showed (its certificate first) does not verify against `cas`: signed by
// none of them, expired, not yet valid, revoked, ...; nothing when it verifies.
std::optional<std::string> untrusted(gnutls_x509_trust_list_t cas, const gnutls_datum_t* peers,
                                     unsigned count) {
  if (cas == nullptr)
    return "the client certificate cannot be checked: no client_ca_file";
  std::vector<Certificate> owned;
  std::vector<gnutls_x509_crt_t> chain;
  for (unsigned i = 0; i < count; ++i) {
    gnutls_x509_crt_t raw = nullptr;
    if (gnutls_x509_crt_init(&raw) < 0)
      return "the client certificate: out of memory";
    owned.emplace_back(raw, gnutls_x509_crt_deinit);
    if (int rc = gnutls_x509_crt_import(raw, &peers[i], GNUTLS_X509_FMT_DER); rc < 0)
      return fmt::format("the client certificate: {}", gnutls_strerror(rc));
    chain.push_back(raw);
  }
  // A certificate for client authentication, as Go's crypto/tls asks of one: another the CA
  // signed for a server only is no client's credential. One that names no purpose has any.
  gnutls_typed_vdata_st purpose{
      GNUTLS_DT_KEY_PURPOSE_OID,
      reinterpret_cast<unsigned char*>(const_cast<char*>(GNUTLS_KP_TLS_WWW_CLIENT)), 0};
  unsigned status = 0;
  if (int rc = gnutls_x509_trust_list_verify_crt2(cas, chain.data(), count, &purpose, 1, 0, &status,
                                                  nullptr);
      rc < 0)
    return fmt::format("the client certificate: {}", gnutls_strerror(rc));
  if (status == 0)
    return std::nullopt;
  gnutls_datum_t why{};
  gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0);
  std::string text = why.data ? std::string(reinterpret_cast<char*>(why.data), why.size) : "";
  gnutls_free(why.data);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n'))
    text.pop_back();
  return fmt::format("the client certificate is not trusted: {}", text);
}

// The longest certificate chain a configuration's cert_file may hold.
constexpr unsigned k_chain_max = 16;

} // namespace

Result<std::shared_ptr<const TlsKeys>> TlsKeys::load(const web::TlsConfig& tls) {
  std::shared_ptr<TlsKeys> keys(new TlsKeys());
  auto cert = datum(tls.cert_pem), key = datum(tls.key_pem);
  // That the key is the certificate's is told by GnuTLS's own pairing of the two.
  gnutls_certificate_credentials_t raw = nullptr;
  if (int rc = gnutls_certificate_allocate_credentials(&raw); rc < 0)
    return fail(fmt::format("TLS: {}", gnutls_strerror(rc)));
  Credentials credentials(raw, gnutls_certificate_free_credentials);
  if (int rc =
          gnutls_certificate_set_x509_key_mem(credentials.get(), &cert, &key, GNUTLS_X509_FMT_PEM);
      rc < 0)
    return fail(fmt::format("web config {}: {}, {}: {}", tls.config_path, tls.cert_from,
                            tls.key_from, gnutls_strerror(rc)),
                EINVAL);
  unsigned length = k_chain_max;
  keys->chain_ = std::make_unique<gnutls_pcert_st[]>(length);
  if (int rc = gnutls_pcert_list_import_x509_raw(keys->chain_.get(), &length, &cert,
                                                 GNUTLS_X509_FMT_PEM, 0);
      rc < 0)
    return fail(
        fmt::format("web config {}: {}: {}", tls.config_path, tls.cert_from, gnutls_strerror(rc)),
        EINVAL);
  keys->length_ = length;
  if (int rc = gnutls_privkey_init(&keys->key_); rc < 0)
    return fail(fmt::format("TLS: {}", gnutls_strerror(rc)));
  if (int rc = gnutls_privkey_import_x509_raw(keys->key_, &key, GNUTLS_X509_FMT_PEM, nullptr, 0);
      rc < 0)
    return fail(
        fmt::format("web config {}: {}: {}", tls.config_path, tls.key_from, gnutls_strerror(rc)),
        EINVAL);
  if (!tls.client_ca_pem.empty()) {
    if (int rc = gnutls_x509_trust_list_init(&keys->client_cas_, 0); rc < 0)
      return fail(fmt::format("TLS: {}", gnutls_strerror(rc)));
    auto ca = datum(tls.client_ca_pem);
    int rc = gnutls_x509_trust_list_add_trust_mem(keys->client_cas_, &ca, nullptr,
                                                  GNUTLS_X509_FMT_PEM, 0, 0);
    if (rc <= 0)
      return fail(fmt::format("web config {}: {}: {}", tls.config_path, tls.client_ca_from,
                              rc < 0 ? gnutls_strerror(rc) : "no certificate in it"),
                  EINVAL);
  }
  return keys;
}

TlsKeys::~TlsKeys() {
  for (unsigned i = 0; i < length_; ++i)
    gnutls_pcert_deinit(&chain_[i]);
  if (key_ != nullptr)
    gnutls_privkey_deinit(key_);
  if (client_cas_ != nullptr)
    gnutls_x509_trust_list_deinit(client_cas_, 1);
}

void TlsKeys::hand_over(gnutls_pcert_st** chain, unsigned* length,
                        gnutls_privkey_t* key) const noexcept {
  *chain = chain_.get();
  *length = length_;
  *key = key_;
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

std::optional<std::string> TlsKeys::refuse_client(gnutls_session_t session,
                                                  const web::TlsConfig& tls) const {
  if (tls.client_auth == web::ClientAuth::none || tls.client_auth == web::ClientAuth::request)
    return std::nullopt;
  unsigned count = 0;
  const gnutls_datum_t* peers = session ? gnutls_certificate_get_peers(session, &count) : nullptr;
  if (peers == nullptr || count == 0) {
    if (requires_certificate(tls.client_auth) || !tls.client_allowed_sans.empty())
      return "a client certificate is required";
    return std::nullopt;
  }
  if (verifies_certificate(tls.client_auth))
    if (auto why = untrusted(client_cas_, peers, count))
      return why;
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
