// SPDX-License-Identifier: MIT
#pragma once

// The servers pkgcloud's publish tests start on 127.0.0.1, each stopped by its pid when
// dropped: s3rver (the npm package) for S3, nginx with its dav module for WebDAV, and
// s3_proxy.py in front of either, which checks signatures and injects faults.

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "daemon.hpp"
#include "fixture.hpp"

namespace opskit::test {

inline constexpr const char* k_bucket = "pkgcloud-test";
// s3rver's own credentials; it accepts any others too.
inline constexpr const char* k_key_id = "S3RVER";
inline constexpr const char* k_secret = "S3RVER-secret-do-not-print";

// Fail the test, saying where to get it, when its server is missing.
inline void require_s3rver() {
  if (!have_program("s3rver"))
    FAIL("s3rver is needed (scripts/dev installs it with npm)");
}
inline void require_nginx() {
  if (!have_program("nginx"))
    FAIL("nginx is needed (scripts/dev installs it)");
}

// s3rver with one bucket, its objects in `dir`.
struct S3rver : Daemon {
  S3rver(const std::string& dir, int port = free_port())
      : Daemon({"s3rver", "-d", dir, "-a", "127.0.0.1", "-p", std::to_string(port), "-s",
                "--configure-bucket", k_bucket},
               port) {}
};

enum class Tls { off, on };
// Whether a PUT makes the collections it goes in (create_full_put_path), or fails without them
// (nginx answers 500) and each must be made by MKCOL first, as Apache's mod_dav wants (409).
enum class PutPath { made, mkcol_first };

// nginx serving `dir`/www with PUT, DELETE, MKCOL and (dav_ext) PROPFIND behind basic
// authentication (user "pub", password "secret", also in `dir`/password), its access log in
// `dir`/access.log. With Tls::on it speaks https only, with a certificate for 127.0.0.1 that
// nothing trusts but `dir`/cert.pem.
struct Nginx : Daemon {
  static std::vector<std::string> start(const std::string& dir, int port, Tls tls,
                                        PutPath put_path) {
    namespace fs = std::filesystem;
    fs::create_directories(dir + "/www");
    fs::create_directories(dir + "/tmp");
    auto hash = run({"openssl", "passwd", "-apr1", "secret"});
    REQUIRE(hash.exit_status == 0);
    std::ofstream(dir + "/htpasswd") << "pub:" << hash.out;
    std::ofstream(dir + "/password") << "secret\n";
    std::string listen = std::to_string(port);
    if (tls == Tls::on) {
      auto made = run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                       "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                       "-keyout", dir + "/key.pem", "-out", dir + "/cert.pem"});
      REQUIRE(made.exit_status == 0);
      listen += " ssl;\n    ssl_certificate " + dir + "/cert.pem;\n    ssl_certificate_key " + dir +
                "/key.pem";
    }
    std::ofstream(dir + "/nginx.conf")
        << "load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;\n"
        << "daemon off;\nuser root;\nworker_processes 1;\npid " << dir << "/nginx.pid;\n"
        << "error_log " << dir << "/error.log;\nevents { worker_connections 64; }\n"
        << "http {\n  access_log " << dir << "/access.log;\n"
        << "  client_body_temp_path " << dir << "/tmp;\n  proxy_temp_path " << dir << "/tmp;\n"
        << "  fastcgi_temp_path " << dir << "/tmp;\n  uwsgi_temp_path " << dir << "/tmp;\n"
        << "  scgi_temp_path " << dir << "/tmp;\n  client_max_body_size 0;\n"
        << "  server {\n    listen 127.0.0.1:" << listen << ";\n    root " << dir << "/www;\n"
        << "    location / {\n      dav_methods PUT DELETE MKCOL;\n"
        << "      dav_ext_methods PROPFIND OPTIONS;\n"
        << (put_path == PutPath::made ? "      create_full_put_path on;\n" : "")
        << "      dav_access user:rw group:r all:r;\n"
        << "      limit_except GET HEAD {\n        auth_basic dav;\n"
        << "        auth_basic_user_file " << dir << "/htpasswd;\n      }\n    }\n  }\n}\n";
    return {"nginx", "-p", dir, "-e", dir + "/error.log", "-c", dir + "/nginx.conf"};
  }
  Nginx(const std::string& dir, Tls tls = Tls::off, PutPath put_path = PutPath::made,
        int port = free_port())
      : Daemon(start(dir, port, tls, put_path), port), dir_(dir), tls_(tls) {}
  std::string url() const { return (tls_ == Tls::on ? "https" : "http") + Daemon::url().substr(4); }
  // The options by which pkgcloud publish logs in.
  std::vector<std::string> login() const {
    return {"--user", "pub", "--password-file", dir_ + "/password"};
  }
  // The options by which pkgcloud publish sends to `path` ("/repo/") of it, logged in.
  std::vector<std::string> to(const std::string& path) const {
    std::vector<std::string> options{"--to", url() + path};
    auto logged_in = login();
    options.insert(options.end(), logged_in.begin(), logged_in.end());
    return options;
  }

private:
  std::string dir_;
  Tls tls_;
};

// s3_proxy.py forwarding to `upstream` with `options` (--check-sigv4, the faults), writing a
// JSON line a request to `log`. Debian's python3 runs it, for its python3-botocore.
class S3Proxy : public Daemon {
public:
  S3Proxy(const std::string& upstream, std::string log, const std::vector<std::string>& options,
          int port = free_port())
      : Daemon(start(upstream, log, options, port), port), log_(std::move(log)) {}
  // Every request logged so far, in the order answered.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> lines;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);)
      lines.push_back(nlohmann::json::parse(line));
    return lines;
  }

private:
  static std::vector<std::string> start(const std::string& upstream, const std::string& log,
                                        const std::vector<std::string>& options, int port) {
    if (run({"/usr/bin/python3", "-c", "import botocore"}).exit_status != 0)
      FAIL("/usr/bin/python3 with python3-botocore is needed (scripts/dev installs it)");
    std::vector<std::string> argv{"/usr/bin/python3", OPSKIT_S3_PROXY,      "--upstream", upstream,
                                  "--port",           std::to_string(port), "--log",      log};
    argv.insert(argv.end(), options.begin(), options.end());
    return argv;
  }

  std::string log_;
};

// An object of the bucket, or of a WebDAV server, as a client reads it; nothing when missing.
inline std::optional<std::string> fetch(const std::string& url) {
  auto got = run({"curl", "-sf", "-o", "-", url});
  if (got.exit_status != 0)
    return std::nullopt;
  return got.out;
}

} // namespace opskit::test
