// SPDX-License-Identifier: MIT
#pragma once

// The HTTP side of `kstat serve`, over GNU libmicrohttpd: one listening socket, requests handed
// to a handler that returns a whole body, gzip when the client accepts it; TLS, client
// certificates, basic authentication, headers and a rate limit as a web configuration asks.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/socket.h>

#include "opskit/error.hpp"
#include "opskit/web/basic_auth.hpp"
#include "opskit/web/config.hpp"
#include "opskit/web/rate_limit.hpp"
#include "opskit/web/watch.hpp"
#include "tls.hpp"

struct MHD_Daemon;

namespace opskit::cmd::kstat {

struct Request {
  std::string_view path;
  std::string_view accept;         // the Accept header, or ""
  std::string_view scrape_timeout; // X-Prometheus-Scrape-Timeout-Seconds, or ""
};

struct Response {
  unsigned status = 200;
  std::string_view content_type;
  std::shared_ptr<const std::string> body; // shared, not copied, by the connections sending it
};

// Where to listen: "HOST:PORT", "[V6]:PORT", or ":PORT" for every interface, IPv4 and IPv6 as
// Go's servers take it (and "[::]:PORT" likewise; "0.0.0.0:PORT" is IPv4's alone); port 0 takes
// a free one. Fails with "--listen 'x': expected HOST:PORT", a port out of range, or the
// resolver's reason.
struct ListenAddress {
  sockaddr_storage address{};
  socklen_t size = 0;
  bool dual_stack = false; // IPv6's any address, IPv4's answered on it too
};
Result<ListenAddress> parse_listen(std::string_view text);

// A web configuration and, where it was loaded from a file, the watch on that file made as it
// was loaded: the server reads the configuration again when the file, or a PEM file it names,
// has changed since.
struct WebSettings {
  web::WebConfig config;
  std::optional<web::ConfigWatch> watch;
};

class HttpServer {
public:
  using Handler = Response (*)(void* context, const Request& request);

  // Listens on `where` and answers every GET and HEAD with `handler(context, request)` from its
  // own threads, until destroyed; over TLS when `web` has a tls_server_config, and only to
  // clients that pass its client certificate policy (403), its basic authentication (401) and
  // its rate limit (429). A connection idle for `idle_seconds` is closed, so a client that
  // connects and never sends holds nothing for long. Fails when it cannot listen, and with one
  // line when the TLS material does not load.
  //
  // With `web.path`, a request (or a handshake) finds a change to the configuration's files
  // within a second and is judged by what they now say: users, headers, the rate limit, the
  // certificate and key, the client CAs and policy. What the server fixes at start, HTTP or TLS,
  // the TLS versions and client certificates asked for or not, changes at a restart: until
  // then, as while the files do not load, every request is answered 500 and the reason written
  // to standard error once, so that nothing is served under a configuration no longer on disk.
  static Result<std::unique_ptr<HttpServer>> start(const ListenAddress& where, Handler handler,
                                                   void* context, WebSettings web = {},
                                                   unsigned idle_seconds = 90);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer(); // stops listening, waits for the handlers running

  // "127.0.0.1:9100", "[::1]:9100": the address bound, with the port taken for port 0.
  const std::string& address() const noexcept { return address_; }
  // "https" or "http".
  std::string_view scheme() const noexcept { return started_.tls ? "https" : "http"; }

private:
  struct Live; // the configuration in effect and what is made of it
  explicit HttpServer(WebSettings web);
  // The configuration in effect, after a look for changes to its files.
  std::shared_ptr<const Live> live();
  // Live for `config`, or one that answers 500 for `why` it cannot be in effect.
  static Result<std::shared_ptr<const Live>> make_live(const web::WebConfig& config,
                                                       const Live* before);
  // Why `config` cannot replace the one in effect until a restart (under live_mutex_).
  std::optional<std::string> needs_restart(const web::WebConfig& config) const;

  struct Stop {
    void operator()(MHD_Daemon* daemon) const noexcept;
  };
  Handler handler_ = nullptr;
  void* context_ = nullptr;
  std::string address_;
  const web::WebConfig started_; // what the daemon was started with
  std::string priorities_;       // the GnuTLS priority string the daemon holds
  std::mutex live_mutex_;        // guards live_, watch_ and keys_
  std::shared_ptr<const Live> live_;
  std::optional<web::ConfigWatch> watch_;
  // Every certificate and key loaded: a handshake holds them by plain pointers, so none is freed
  // before the server (a renewal adds a few KB).
  std::vector<std::shared_ptr<const TlsKeys>> keys_;
  std::unique_ptr<MHD_Daemon, Stop> daemon_; // last: stopped before what its threads use
  friend struct Dispatch;
};

} // namespace opskit::cmd::kstat
