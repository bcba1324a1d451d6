// SPDX-License-Identifier: MIT
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "opskit/web/config.hpp"
#include "opskit/web/watch.hpp"
#include "temp_dir.hpp"

using opskit::web::ClientAuth;
using opskit::web::parse_web_config;
using opskit::web::TlsVersion;

namespace {

constexpr const char* k_path = "/etc/kstat/web.yml";
constexpr const char* k_hash = "$2y$04$e3nUNB4xnRWAMchAJUQkYeEIPkENYu4v3e1LbGJwOuS6v5gGqt/Mq";

// The error of a text that must not parse.
std::string refused(const std::string& yaml, const std::string& path = k_path) {
  auto parsed = parse_web_config(yaml, path);
  REQUIRE_FALSE(parsed);
  return parsed.error().message();
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

} // namespace

TEST_CASE("web config: an empty file, or empty sections, is plain HTTP with no authentication",
          "[lib][web]") {
  for (const char* text : {"", "# nothing\n", "tls_server_config:\nbasic_auth_users:\n",
                           "tls_server_config:\n  min_version: TLS13\n"}) {
    INFO(text);
    auto parsed = parse_web_config(text, k_path);
    REQUIRE(parsed);
    CHECK_FALSE(parsed->tls);
    CHECK(parsed->basic_auth_users.empty());
    CHECK(parsed->headers.empty());
    CHECK(parsed->rate_limit.interval.count() == 0);
  }
}

TEST_CASE("web config: the exporter toolkit's example, with files beside the configuration",
          "[lib][web]") {
  opskit::test::TempDir dir;
  write(dir / "server.crt", "CERT PEM");
  write(dir / "server.key", "KEY PEM");
  write(dir / "ca.crt", "CA PEM");
  auto parsed = parse_web_config(std::string("tls_server_config:\n"
                                             "  cert_file: server.crt\n"
                                             "  key_file: ") +
                                     dir.path() + "/server.key\n" +
                                     "  client_auth_type: RequireAndVerifyClientCert\n"
                                     "  client_ca_file: ca.crt\n"
                                     "  client_allowed_sans: [scraper.example.com, 10.0.0.1]\n"
                                     "  min_version: TLS13\n"
                                     "  prefer_server_cipher_suites: false\n"
                                     "http_server_config:\n"
                                     "  http2: false\n"
                                     "  headers:\n"
                                     "    X-Frame-Options: deny\n"
                                     "    Strict-Transport-Security: max-age=31536000\n"
                                     "    Content-Security-Policy: |\n"
                                     "      default-src 'none'\n"
                                     "basic_auth_users:\n"
                                     "  alice: " +
                                     k_hash +
                                     "\n"
                                     "rate_limit:\n"
                                     "  interval: 250ms\n"
                                     "  burst: 20\n",
                                 dir / "web.yml");
  REQUIRE(parsed);
  REQUIRE(parsed->tls);
  CHECK(parsed->tls->cert_pem == "CERT PEM");
  CHECK(parsed->tls->key_pem == "KEY PEM");
  CHECK(parsed->tls->client_ca_pem == "CA PEM");
  CHECK(parsed->tls->client_auth == ClientAuth::require_and_verify);
  CHECK(parsed->tls->client_allowed_sans ==
        std::vector<std::string>{"scraper.example.com", "10.0.0.1"});
  CHECK(parsed->tls->min_version == TlsVersion::tls13);
  CHECK(parsed->tls->max_version == TlsVersion::tls13);
  CHECK_FALSE(parsed->tls->prefer_server_cipher_suites);
  CHECK(parsed->headers ==
        std::vector<std::pair<std::string, std::string>>{
            {"X-Frame-Options", "deny"},
            {"Strict-Transport-Security", "max-age=31536000"},
            {"Content-Security-Policy", "default-src 'none'"}}); // a block's line end dropped
  CHECK(parsed->basic_auth_users.at("alice") == k_hash);
  CHECK(parsed->rate_limit.interval == std::chrono::milliseconds(250));
  CHECK(parsed->rate_limit.burst == 20);
}

TEST_CASE("web config: inline PEM is taken as it is", "[lib][web]") {
  auto parsed =
      parse_web_config("tls_server_config:\n  cert: |\n    CERT\n  key: |\n    KEY\n", k_path);
  REQUIRE(parsed);
  REQUIRE(parsed->tls);
  CHECK(parsed->tls->cert_pem == "CERT\n");
  CHECK(parsed->tls->key_pem == "KEY\n");
  CHECK(parsed->tls->client_auth == ClientAuth::none);
}

TEST_CASE("web config: what the exporter toolkit takes of client certificates, its older name "
          "and allowed names where a certificate is verified if given",
          "[lib][web]") {
  auto older = parse_web_config("tls_server_config:\n  cert: C\n  key: K\n  client_ca: CA\n"
                                "  client_auth_type: RequireClientCert\n",
                                k_path);
  REQUIRE(older);
  CHECK(older->tls->client_auth == ClientAuth::require_any);
  auto if_given = parse_web_config("tls_server_config:\n  cert: C\n  key: K\n  client_ca: CA\n"
                                   "  client_auth_type: VerifyClientCertIfGiven\n"
                                   "  client_allowed_sans: [scraper.example.com]\n",
                                   k_path);
  REQUIRE(if_given);
  CHECK(if_given->tls->client_allowed_sans == std::vector<std::string>{"scraper.example.com"});
  // The names of a certificate nobody verified are whatever its maker chose.
  for (std::string auth : {"RequestClientCert", "RequireAnyClientCert"})
    CHECK(refused("tls_server_config:\n  cert: C\n  key: K\n  client_ca: CA\n"
                  "  client_auth_type: " +
                  auth + "\n  client_allowed_sans: [x]\n")
              .find("client_allowed_sans needs client_auth_type VerifyClientCertIfGiven or "
                    "RequireAndVerifyClientCert") != std::string::npos);
}

TEST_CASE("web config: each mistake is one line naming the file, the key and what is wrong",
          "[lib][web]") {
  CHECK(refused("tls_server_config:\n  cert_file: /nonexistent/x.crt\n  key_file: k\n") ==
        "web config /etc/kstat/web.yml: tls_server_config.cert_file: open /nonexistent/x.crt: No "
        "such file or directory");
  CHECK(refused("tls_server_config:\n  cert: C\n") ==
        "web config /etc/kstat/web.yml: tls_server_config: cert_file is set and key_file is not");
  CHECK(refused("tls_server_config:\n  cert: C\n  cert_file: c.crt\n  key: K\n") ==
        "web config /etc/kstat/web.yml: tls_server_config: cert and cert_file are both set: give "
        "one");
  CHECK(refused("tls_server_config:\n  cert: C\n  key: K\n  client_auth_type: Maybe\n")
            .starts_with("web config /etc/kstat/web.yml: tls_server_config.client_auth_type: "
                         "'Maybe' is not one of NoClientCert,"));
  CHECK(refused("tls_server_config:\n  cert: C\n  key: K\n  client_ca: CA\n")
            .find("client_ca_file is set and client_auth_type is not") != std::string::npos);
  CHECK(refused("tls_server_config:\n  cert: C\n  key: K\n  client_auth_type: "
                "RequireAndVerifyClientCert\n")
            .find("client_auth_type needs client_ca_file") != std::string::npos);
  CHECK(refused("tls_server_config:\n  cert: C\n  key: K\n  min_version: TLS13\n  max_version: "
                "TLS12\n") ==
        "web config /etc/kstat/web.yml: tls_server_config: min_version is above max_version");
  CHECK(refused("tls_server_config:\n  cert: C\n  key: K\n  cipher_suites: "
                "[TLS_AES_128_GCM_SHA256]\n")
            .starts_with("web config /etc/kstat/web.yml: tls_server_config.cipher_suites: not "
                         "supported"));
  CHECK(refused("tls_server_config:\n  certfile: c.crt\n") ==
        "web config /etc/kstat/web.yml: tls_server_config: unknown key 'certfile'");
  CHECK(refused("basic_auth_user:\n  alice: x\n") ==
        "web config /etc/kstat/web.yml: unknown key 'basic_auth_user'");
  CHECK(refused("basic_auth_users:\n  alice: plaintext\n") ==
        "web config /etc/kstat/web.yml: basic_auth_users.alice: not a bcrypt hash (htpasswd "
        "-nBC 10 \"\" makes one)");
  CHECK(refused("http_server_config:\n  headers:\n    X-Frame-Options: allow\n") ==
        "web config /etc/kstat/web.yml: http_server_config.headers.X-Frame-Options: 'allow' is "
        "not deny or sameorigin");
  CHECK(refused("http_server_config:\n  headers:\n    Content-Security-Policy: |\n"
                "      default-src 'none'\n      img-src 'self'\n") ==
        "web config /etc/kstat/web.yml: http_server_config.headers.Content-Security-Policy: a "
        "header's value is one line, without control characters");
  CHECK(refused("http_server_config:\n  headers:\n    Server: kstat\n") ==
        "web config /etc/kstat/web.yml: http_server_config.headers: unknown key 'Server'");
  CHECK(refused("rate_limit:\n  interval: 1 second\n  burst: 1\n") ==
        "web config /etc/kstat/web.yml: rate_limit.interval: '1 second' is not a duration such "
        "as 1s or 250ms");
  CHECK(refused("rate_limit:\n  interval: 1s\n") ==
        "web config /etc/kstat/web.yml: rate_limit: an interval with a burst of 0 would refuse "
        "every request");
  CHECK(refused("tls_server_config: [\n")
            .starts_with("web config /etc/kstat/web.yml: line 2, column 1: "));
  CHECK(refused("- a\n- b\n") ==
        "web config /etc/kstat/web.yml: expected a mapping of keys to values");
  // Given twice, at the top or within, the first would be taken: an empty basic_auth_users
  // before the one with users would turn authentication off.
  CHECK(refused(std::string("basic_auth_users:\nbasic_auth_users:\n  alice: ") + k_hash + "\n") ==
        "web config /etc/kstat/web.yml: line 2: 'basic_auth_users' is given twice");
  CHECK(refused(std::string("basic_auth_users:\n  alice: ") + k_hash + "\n  alice: " + k_hash +
                "\n") == "web config /etc/kstat/web.yml: line 3: 'alice' is given twice");
  CHECK(refused("tls_server_config:\n  client_auth_type: RequireAndVerifyClientCert\n  "
                "client_ca: CA\n") ==
        "web config /etc/kstat/web.yml: tls_server_config: client_auth_type is set and cert_file "
        "and key_file are not");
}

TEST_CASE("web config: an empty certificate or key file is a mistake, not plain HTTP",
          "[lib][web]") {
  opskit::test::TempDir dir;
  write(dir / "empty.crt", "");
  write(dir / "empty.key", "\n");
  CHECK(refused("tls_server_config:\n  cert_file: empty.crt\n  key_file: empty.key\n",
                dir / "web.yml") == "web config " + dir / "web.yml" +
                                        ": tls_server_config.cert_file: " + dir / "empty.crt" +
                                        ": empty");
}

TEST_CASE("web config: Go durations", "[lib][web]") {
  using namespace std::chrono_literals;
  using opskit::web::parse_go_duration;
  CHECK(parse_go_duration("0") == 0ns);
  CHECK(parse_go_duration("1s") == 1s);
  CHECK(parse_go_duration("1.5s") == 1500ms);
  CHECK(parse_go_duration("250ms") == 250ms);
  CHECK(parse_go_duration("1h30m") == 90min);
  CHECK(parse_go_duration("10us") == 10us);
  CHECK(parse_go_duration("10\xc2\xb5s") == 10us);
  CHECK_FALSE(parse_go_duration(""));
  CHECK_FALSE(parse_go_duration("1"));
  CHECK_FALSE(parse_go_duration("s"));
  CHECK_FALSE(parse_go_duration("-1s"));
  CHECK_FALSE(parse_go_duration("1d"));
}

TEST_CASE("web config: a watch reads the file again when it or a PEM file it names changes",
          "[lib][web]") {
  using opskit::web::ConfigWatch;
  opskit::test::TempDir dir;
  std::string path = dir / "web.yml", cert = dir / "server.crt", key = dir / "server.key";
  write(cert, "cert\n");
  write(key, "key\n");
  write(path, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
  auto loaded = opskit::web::load_web_config(path);
  REQUIRE(loaded);
  CHECK(loaded->files == std::vector<std::string>{path, cert, key});

  auto t = ConfigWatch::Clock::now();
  ConfigWatch watch(path, *loaded, std::chrono::seconds(1));
  CHECK_FALSE(watch.poll(t + std::chrono::seconds(2)).has_value()); // nothing changed
  write(cert, "renewed\n");
  CHECK_FALSE(
      watch.poll(t + std::chrono::milliseconds(2500)).has_value()); // looked under a second ago
  auto renewed = watch.poll(t + std::chrono::seconds(4));
  REQUIRE(renewed.has_value());
  REQUIRE(renewed->has_value());
  CHECK((*renewed)->tls->cert_pem == "renewed\n");
  CHECK_FALSE(watch.poll(t + std::chrono::seconds(6)).has_value());

  write(path, "basic_auth_users: [\n");
  auto broken = watch.poll(t + std::chrono::seconds(8));
  REQUIRE(broken.has_value());
  CHECK_FALSE(broken->has_value());
  write(key, "rotated\n"); // a file of the last good load is still watched
  write(path, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
  auto fixed = watch.poll(t + std::chrono::seconds(10));
  REQUIRE(fixed.has_value());
  REQUIRE(fixed->has_value());
  CHECK((*fixed)->tls->key_pem == "rotated\n");

  // Files named before they are there: read again at each look, told once until they come.
  write(path, "tls_server_config:\n  cert_file: new.crt\n  key_file: new.key\n");
  auto missing = watch.poll(t + std::chrono::seconds(12));
  REQUIRE(missing.has_value());
  CHECK_FALSE(missing->has_value());
  CHECK_FALSE(watch.poll(t + std::chrono::seconds(14)).has_value());
  write(dir / "new.crt", "new cert\n");
  write(dir / "new.key", "new key\n");
  auto arrived = watch.poll(t + std::chrono::seconds(16));
  REQUIRE(arrived.has_value());
  REQUIRE(arrived->has_value());
  CHECK((*arrived)->tls->cert_pem == "new cert\n");
}
