// SPDX-License-Identifier: MIT
// `kstat serve --web-config`: the exporter toolkit's web configuration, checked with curl as a
// client and a CA of the test's own: TLS, client certificates, basic authentication, headers,
// the rate limit, and configurations that are wrong.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "prometheus.hpp"
#include "serve.hpp"

using namespace opskit::test;

namespace {

// "s3cret" at cost 4, as `htpasswd -nbBC 4 alice s3cret` writes it.
constexpr const char* k_alice = "$2y$04$e3nUNB4xnRWAMchAJUQkYeEIPkENYu4v3e1LbGJwOuS6v5gGqt/Mq";

void openssl(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"openssl"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto made = run(argv);
  INFO(made.err);
  REQUIRE(made.exit_status == 0);
}

// A CA, the server's certificate for 127.0.0.1, and client certificates, under `dir`:
// ca.crt, server.{crt,key}, client.{crt,key} (CN and SAN scraper.example.com, signed by the
// CA), other.{crt,key} (signed by a second CA) and stranger.{crt,key} (signed by the CA, SAN
// elsewhere.example.com) and server-only.{crt,key} (signed by the CA, SAN scraper.example.com,
// its extended key usage a server's alone).
struct Pki {
  explicit Pki(const TempDir& where) : dir(where) {
    ca("ca");
    ca("other-ca");
    leaf("server", "ca", "IP:127.0.0.1");
    leaf("client", "ca", "DNS:scraper.example.com");
    leaf("other", "other-ca", "DNS:scraper.example.com");
    leaf("stranger", "ca", "DNS:elsewhere.example.com");
    leaf("server-only", "ca", "DNS:scraper.example.com", "extendedKeyUsage=serverAuth\n");
  }
  void ca(const std::string& name) {
    openssl({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-days", "2", "-subj", "/CN=" + name, "-keyout", dir / (name + ".key"), "-out",
             dir / (name + ".crt")});
  }
  void leaf(const std::string& name, const std::string& issuer, const std::string& san,
            const std::string& more = "") {
    std::ofstream(dir / (name + ".ext")) << "subjectAltName=" << san << "\n" << more;
    openssl({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
             "/CN=" + name, "-keyout", dir / (name + ".key"), "-out", dir / (name + ".csr")});
    openssl({"x509", "-req", "-in", dir / (name + ".csr"), "-CA", dir / (issuer + ".crt"), "-CAkey",
             dir / (issuer + ".key"), "-CAcreateserial", "-days", "2", "-extfile",
             dir / (name + ".ext"), "-out", dir / (name + ".crt")});
  }
  const TempDir& dir;
};

std::string write_config(const TempDir& dir, const std::string& text) {
  std::string path = dir / "web.yml";
  std::ofstream(path) << text;
  return path;
}

// curl's exit status and HTTP status for `url` with `options`.
std::pair<int, int> fetch(const std::string& url, std::vector<std::string> options) {
  std::vector<std::string> argv{"curl",      "-s", "--max-time",   "20", "-o",
                                "/dev/null", "-w", "%{http_code}", url};
  argv.insert(argv.end(), options.begin(), options.end());
  auto r = run(argv);
  return {r.exit_status, r.out.empty() ? 0 : std::stoi(r.out)};
}

} // namespace

TEST_CASE("kstat serve --web-config: TLS and basic authentication serve the right password "
          "over a verified connection, and nothing else",
          "[kstat][serve][web]") {
  TempDir dir;
  Pki pki(dir);
  std::string config = write_config(dir, std::string("tls_server_config:\n"
                                                     "  cert_file: server.crt\n"
                                                     "  key_file: server.key\n"
                                                     "http_server_config:\n"
                                                     "  headers:\n"
                                                     "    X-Frame-Options: deny\n"
                                                     "basic_auth_users:\n"
                                                     "  alice: ") +
                                             k_alice + "\n");
  KstatServe serve({"--web-config", config, "cpu"});
  REQUIRE(serve.url().starts_with("https://127.0.0.1:"));
  std::string ca = dir / "ca.crt";

  auto reply = http_get(serve.url(), {}, {"--cacert", ca, "-u", "alice:s3cret"});
  CHECK(reply.status == 200);
  CHECK(reply.body.find("kstat_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} ") != std::string::npos);
  CHECK(reply.headers["x-frame-options"] == "deny");

  auto anonymous = http_get(serve.url(), {}, {"--cacert", ca});
  CHECK(anonymous.status == 401);
  CHECK(anonymous.headers["www-authenticate"].starts_with("Basic realm=\"kstat\""));
  CHECK(anonymous.body.find("kstat_") == std::string::npos);
  CHECK(fetch(serve.url(), {"--cacert", ca, "-u", "alice:S3cret"}) == std::pair{0, 401});
  CHECK(fetch(serve.url(), {"--cacert", ca, "-u", "bob:s3cret"}) == std::pair{0, 401});
  // Not trusted without the CA (curl: 60, the peer's certificate), and no plain HTTP.
  CHECK(fetch(serve.url(), {"-u", "alice:s3cret"}).first == 60);
  auto plain = fetch("http://" + serve.url().substr(8), {"-u", "alice:s3cret"});
  CHECK(plain.second != 200);
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve --web-config: with client_allowed_sans, serves clients the CA signed "
          "that it names, and no other, even where a certificate is only verified if given",
          "[kstat][serve][web]") {
  TempDir dir;
  Pki pki(dir);
  std::vector<std::string> trust{"--cacert", dir / "ca.crt"};
  auto as = [&](const std::string& name) {
    auto options = trust;
    options.insert(options.end(),
                   {"--cert", dir / (name + ".crt"), "--key", dir / (name + ".key")});
    return options;
  };
  for (std::string auth : {"RequireAndVerifyClientCert", "VerifyClientCertIfGiven"}) {
    INFO(auth);
    std::string yaml = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                       "  client_auth_type: " +
                       auth +
                       "\n  client_ca_file: ca.crt\n  client_allowed_sans: [scraper.example.com]\n";
    std::string config = write_config(dir, yaml);
    KstatServe serve({"--web-config", config, "cpu"});
    CHECK(fetch(serve.url(), as("client")) == std::pair{0, 200});
    auto without = http_get(serve.url(), {}, trust);
    CHECK(without.status == 403);
    CHECK(without.body == "a client certificate is required\n");
    auto other = http_get(serve.url(), {}, as("other"));
    CHECK(other.status == 403);
    CHECK(other.body.starts_with("the client certificate is not trusted: "));
    auto stranger = http_get(serve.url(), {}, as("stranger"));
    CHECK(stranger.status == 403);
    CHECK(stranger.body == "the client certificate names none of client_allowed_sans\n");
    auto server_only = http_get(serve.url(), {}, as("server-only"));
    CHECK(server_only.status == 403);
    CHECK(server_only.body.starts_with("the client certificate is not trusted: "));
    // The names taken out of the file, as by a rewrite caught half way: not until a restart.
    write_config(dir, yaml.substr(0, yaml.find("  client_allowed_sans")));
    int status = 0;
    for (int i = 0; i < 40 && status != 500; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      status = http_get(serve.url(), {}, as("stranger")).status;
    }
    CHECK(status == 500);
    CHECK(serve.err().find("client_allowed_sans is gone, which takes a restart") !=
          std::string::npos);
    CHECK(serve.stop() == 0);
  }
}

TEST_CASE("kstat serve --web-config: a change to the file, or to a certificate it names, takes "
          "effect without a restart, and one that cannot answers 500",
          "[kstat][serve][web]") {
  TempDir dir;
  Pki pki(dir);
  std::string tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
  std::string config = write_config(dir, tls);
  KstatServe serve({"--web-config", config, "kern.loadavg"});
  std::vector<std::string> trust{"--cacert", dir / "ca.crt"};
  CHECK(fetch(serve.url(), trust) == std::pair{0, 200});
  // A change is seen by the first request a second or more after the last look.
  auto becomes = [&](const std::string& url, const std::vector<std::string>& options,
                     std::pair<int, int> want) {
    auto got = fetch(url, options);
    for (int i = 0; i < 40 && got != want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      got = fetch(url, options);
    }
    return got;
  };
  std::string users = std::string("basic_auth_users:\n  alice: ") + k_alice + "\n";
  write_config(dir, tls + users); // from now on, only alice is served
  CHECK(becomes(serve.url(), trust, {0, 401}) == std::pair{0, 401});
  CHECK(serve.err() == "kstat: " + config + ": read again, in effect\n");
  trust.insert(trust.end(), {"-u", "alice:s3cret"});
  CHECK(fetch(serve.url(), trust) == std::pair{0, 200});
  // Authentication turned off, as a file rewritten in place is for a moment: not until a restart.
  write_config(dir, tls);
  CHECK(becomes(serve.url(), trust, {0, 500}) == std::pair{0, 500});
  CHECK(serve.err().ends_with("basic_auth_users is gone, which takes a restart; answering 500 "
                              "until it is put right\n"));
  CHECK(fetch(serve.url(), {"--cacert", dir / "ca.crt"}) == std::pair{0, 500});
  write_config(dir, tls + users);
  CHECK(becomes(serve.url(), trust, {0, 200}) == std::pair{0, 200});

  // A renewed certificate, here from another CA, is presented from the next handshake on.
  std::filesystem::copy_file(dir / "other.crt", dir / "server.crt",
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir / "other.key", dir / "server.key",
                             std::filesystem::copy_options::overwrite_existing);
  std::vector<std::string> other_ca{
      "--cacert",  dir / "other-ca.crt",
      "-u",        "alice:s3cret",
      "--resolve", "scraper.example.com:" + std::to_string(serve.port()) + ":127.0.0.1"};
  auto renewed = "https://scraper.example.com:" + std::to_string(serve.port()) + "/metrics";
  CHECK(becomes(renewed, other_ca, {0, 200}) == std::pair{0, 200});
  CHECK(fetch(serve.url(), trust).first == 60); // the old CA no longer vouches for it

  // A file that does not load, or a change only a restart makes, is 500 until put right.
  write_config(dir, tls + "basic_auth_users:\n  alice: [\n");
  CHECK(becomes(renewed, other_ca, {0, 500}) == std::pair{0, 500});
  CHECK(serve.err().find("; answering 500 until it is put right\n") != std::string::npos);
  write_config(dir, tls + "  min_version: TLS13\n" + users);
  const std::string restart = "tls_server_config's min_version, max_version or "
                              "prefer_server_cipher_suites changed, which takes a restart; "
                              "answering 500 until it is put right\n";
  for (int i = 0; i < 40 && !serve.err().ends_with(restart); ++i) {
    fetch(renewed, other_ca);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(serve.err().ends_with(restart));
  CHECK(fetch(renewed, other_ca) == std::pair{0, 500});
  write_config(dir, tls + users);
  CHECK(becomes(renewed, other_ca, {0, 200}) == std::pair{0, 200});

  // Certificate files named before they are there: 500 until they come, then served.
  write_config(dir, "tls_server_config:\n  cert_file: new.crt\n  key_file: new.key\n" + users);
  CHECK(becomes(renewed, other_ca, {0, 500}) == std::pair{0, 500});
  std::filesystem::copy_file(dir / "other.key", dir / "new.key");
  std::filesystem::copy_file(dir / "other.crt", dir / "new.crt");
  CHECK(becomes(renewed, other_ca, {0, 200}) == std::pair{0, 200});
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve --web-config: a rate limit answers 429 past its burst",
          "[kstat][serve][web]") {
  TempDir dir;
  std::string config = write_config(dir, "rate_limit:\n  interval: 1h\n  burst: 3\n");
  KstatServe serve({"--web-config", config, "kern.loadavg"});
  REQUIRE(serve.url().starts_with("http://"));
  for (int i = 0; i < 3; ++i)
    CHECK(fetch(serve.url(), {}) == std::pair{0, 200});
  auto refused = http_get(serve.url());
  CHECK(refused.status == 429);
  CHECK(refused.body == "too many requests\n");
  CHECK(serve.stop() == 0);
}

TEST_CASE("kstat serve --web-config: a wrong configuration is one line and exit status 1, "
          "before anything listens",
          "[kstat][serve][web]") {
  TempDir dir;
  Pki pki(dir);
  auto serve_with = [&](const std::string& text) {
    return run({tool("kstat"), "serve", "--listen", "127.0.0.1:0", "--web-config",
                write_config(dir, text)});
  };
  std::string path = dir / "web.yml";
  auto typo = serve_with("tls_server_config:\n  cert_fil: server.crt\n");
  CHECK(typo.exit_status == 1);
  CHECK(typo.out == "");
  CHECK(typo.err ==
        "kstat: error: web config " + path + ": tls_server_config: unknown key 'cert_fil'\n");
  auto mismatch = serve_with("tls_server_config:\n  cert_file: server.crt\n"
                             "  key_file: client.key\n");
  CHECK(mismatch.exit_status == 1);
  CHECK(mismatch.out == "");
  CHECK(mismatch.err.starts_with("kstat: error: web config " + path +
                                 ": tls_server_config.cert_file " + dir / "server.crt" +
                                 ", tls_server_config.key_file " + dir / "client.key" + ": "));
  CHECK(std::count(mismatch.err.begin(), mismatch.err.end(), '\n') == 1);
  auto missing =
      run({tool("kstat"), "serve", "--listen", "127.0.0.1:0", "--web-config", dir / "absent.yml"});
  CHECK(missing.exit_status == 1);
  CHECK(missing.err ==
        "kstat: error: web config: open " + dir / "absent.yml" + ": No such file or directory\n");
}

TEST_CASE("kstat serve --web-config: Prometheus scrapes it over TLS with basic authentication",
          "[kstat][serve][web][prometheus]") {
  if (!have_program("prometheus"))
    FAIL("prometheus is needed (scripts/dev installs it)");
  TempDir dir;
  Pki pki(dir);
  std::string config = write_config(dir, std::string("tls_server_config:\n"
                                                     "  cert_file: server.crt\n"
                                                     "  key_file: server.key\n"
                                                     "basic_auth_users:\n"
                                                     "  alice: ") +
                                             k_alice + "\n");
  KstatServe serve({"--web-config", config, "kern.loadavg"});
  std::ofstream(dir / "password") << "s3cret";
  Prometheus prometheus(dir, serve.address(),
                        "    scheme: https\n    tls_config:\n      ca_file: " + dir / "ca.crt" +
                            "\n    basic_auth:\n      username: alice\n      password_file: " +
                            dir / "password" + "\n");
  auto up = prometheus.wait_for("up{job=\"kstat\"}", [](double v) { return v == 1; });
  CHECK(up == 1);
  CHECK(prometheus.wait_for("kstat_load1", [](double) { return true; }));
}
