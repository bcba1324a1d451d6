// SPDX-License-Identifier: MIT
//
// libmicrohttpd rather than cpp-httplib: it polls its connections with epoll from a small pool
// of threads, so a client that connects and never sends costs a socket, not a thread, and two
// hundred scrapes at once queue nothing but their sockets; cpp-httplib gives each connection a
// pool thread until its read timeout. Neither compresses for us; gzip is libdeflate's, at level
// 1, since a scrape body is made to be read once and a faster compressor is a cheaper scrape:
// Prometheus asks for gzip in every scrape. libdeflate compresses a whole buffer, as a body is,
// in a quarter of zlib's time at the same level, and a little smaller (kstat's defaults: 0.24
// ms and 18.5 KB against 1.16 ms and 19.4 KB).
#include "http_server.hpp"

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

#include <arpa/inet.h>
#include <libdeflate.h>
#include <microhttpd.h>
#include <netdb.h>

#include <fmt/format.h>

#include "exit.hpp"
#include "opskit/handle.hpp"
#include "opskit/http_accept.hpp"
#include "opskit/scrape_timeout.hpp"
#include "tls.hpp"

namespace opskit::cmd::kstat {

namespace {

using Body = std::shared_ptr<const std::string>;

std::optional<std::string> gzip(std::string_view data) {
  // One compressor a server thread, made at its first gzip and kept: libdeflate's are not
  // shared between threads, and making one a scrape would allocate its tables each time.
  thread_local std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)>
      compressor(libdeflate_alloc_compressor(1), libdeflate_free_compressor);
  if (!compressor)
    return std::nullopt;
  // Written in place, without zeroing the bound's 137 KB first; a response held until sent
  // then keeps its 19 KB, not the bound.
  std::string out;
  out.resize_and_overwrite(libdeflate_gzip_compress_bound(compressor.get(), data.size()),
                           [&](char* at, std::size_t room) {
                             return libdeflate_gzip_compress(compressor.get(), data.data(),
                                                             data.size(), at, room);
                           });
  if (out.empty())
    return std::nullopt;
  out.shrink_to_fit();
  return out;
}

std::string header(MHD_Connection* connection, const char* name) {
  const char* value = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
  return value != nullptr ? value : "";
}

using Headers = std::vector<std::pair<std::string, std::string>>;

// A response holding `body` (gzipped first when `compress`), with the web configuration's
// headers; nullptr when libmicrohttpd cannot make one.
MHD_Response* make_response(unsigned status, std::string_view content_type, Body body,
                            bool compress, const Headers& headers) {
  if (compress) {
    auto packed = gzip(*body);
    compress = packed.has_value();
    if (packed)
      body = std::make_shared<const std::string>(std::move(*packed));
  }
  auto* holder = new Body(body);
  MHD_Response* response = MHD_create_response_from_buffer_with_free_callback_cls(
      body->size(), const_cast<char*>(body->data()),
      [](void* held) { delete static_cast<Body*>(held); }, holder);
  if (response == nullptr) {
    delete holder;
    return nullptr;
  }
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
                          std::string(content_type).c_str());
  // The format follows Accept, the encoding Accept-Encoding: a cache keeps one of each.
  MHD_add_response_header(response, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
  if (compress)
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
    MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  for (const auto& [name, value] : headers)
    MHD_add_response_header(response, name.c_str(), value.c_str());
  return response;
}

MHD_Result send(MHD_Connection* connection, unsigned status, std::string_view content_type,
                Body body, bool compress, const Headers& headers) {
  MHD_Response* response = make_response(status, content_type, std::move(body), compress, headers);
  if (response == nullptr)
    return MHD_NO;
  MHD_Result queued = MHD_queue_response(connection, status, response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result send_text(MHD_Connection* connection, unsigned status, std::string text,
                     const Headers& headers) {
  return send(connection, status, "text/plain; charset=utf-8",
              std::make_shared<const std::string>(std::move(text)), false, headers);
}

// 401 with WWW-Authenticate, unless the request carries a user and password `auth` accepts.
web::BasicAuth::Verdict authenticate(MHD_Connection* connection, web::BasicAuth& auth) {
  using Verdict = web::BasicAuth::Verdict;
  if (!auth.enabled())
    return Verdict::good;
  char* password = nullptr;
  char* user = MHD_basic_auth_get_username_password(connection, &password);
  Verdict verdict =
      user != nullptr && password != nullptr ? auth.check(user, password) : Verdict::wrong;
  if (password != nullptr) {
    std::memset(password, 0, std::strlen(password));
    MHD_free(password);
  }
  if (user != nullptr)
    MHD_free(user);
  return verdict;
}

MHD_Result refuse_unauthenticated(MHD_Connection* connection, const Headers& headers) {
  MHD_Response* response =
      make_response(MHD_HTTP_UNAUTHORIZED, "text/plain; charset=utf-8",
                    std::make_shared<const std::string>("unauthorized\n"), false, headers);
  if (response == nullptr)
    return MHD_NO;
  MHD_Result queued = MHD_queue_basic_auth_fail_response(connection, "kstat", response);
  MHD_destroy_response(response);
  return queued;
}

std::string format_address(const sockaddr* address) {
  char host[INET6_ADDRSTRLEN] = {};
  if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    ::inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
    return fmt::format("[{}]:{}", host, ntohs(v6->sin6_port));
  }
  const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
  ::inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
  return fmt::format("{}:{}", host, ntohs(v4->sin_port));
}

} // namespace

struct HttpServer::Live {
  web::WebConfig config;
  // Kept across a change that leaves their part alone: the passwords found good, the bucket.
  std::shared_ptr<web::BasicAuth> auth;
  std::shared_ptr<web::RateLimiter> limiter;
  std::shared_ptr<const TlsKeys> keys; // with TLS
  std::string broken; // why the files on disk cannot be in effect: every request gets 500
};

namespace {

// The server whose handshakes the certificate callback serves: GnuTLS's callback has no
// argument of the caller's, so a process runs one TLS server.
std::atomic<HttpServer*> g_tls_server{nullptr};

} // namespace

struct Dispatch {
  // GnuTLS's question at each handshake: the certificate chain and key to present.
  static int certificate(gnutls_session_t, const gnutls_datum_t*, int, const gnutls_pk_algorithm_t*,
                         int, gnutls_pcert_st** chain, unsigned* length, gnutls_privkey_t* key) {
    HttpServer* server = g_tls_server.load();
    if (server == nullptr)
      return -1;
    auto live = server->live(); // broken, it keeps the last keys that loaded, to answer 500
    if (!live->keys)
      return -1;
    live->keys->hand_over(chain, length, key);
    return 0;
  }

  static MHD_Result answer(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char*, const char*, std::size_t* upload_size,
                           void** request_state) {
    // The first call comes with the headers alone: answering then would leave libmicrohttpd
    // unsure where the request ends, and it closes such a connection ("Connection: close"),
    // so that every scrape paid a new TCP (and TLS) handshake. Answer on the second call, when
    // the request is whole; a body, which no GET needs, is consumed unread.
    static int k_started;
    auto* server = static_cast<HttpServer*>(cls);
    std::string_view verb = method;
    bool readable = verb == MHD_HTTP_METHOD_GET || verb == MHD_HTTP_METHOD_HEAD;
    if (*request_state == nullptr) {
      // Another method is refused at once, its body unread (a POST of 100 MB that asks
      // Expect: 100-continue is not taken in to be refused), and its connection closed.
      if (!readable)
        return send_text(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n",
                         server->live()->config.headers);
      *request_state = &k_started;
      return MHD_YES;
    }
    if (*upload_size != 0) {
      *upload_size = 0;
      return MHD_YES;
    }
    auto live = server->live();
    if (!live->broken.empty())
      return send_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal server error\n", {});
    const Headers& headers = live->config.headers;
    if (!live->limiter->allow())
      return send_text(connection, MHD_HTTP_TOO_MANY_REQUESTS, "too many requests\n", headers);
    if (live->keys) {
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
      auto* session = info ? static_cast<gnutls_session_t>(info->tls_session) : nullptr;
      if (auto why = live->keys->refuse_client(session, *live->config.tls))
        return send_text(connection, MHD_HTTP_FORBIDDEN, *why + "\n", headers);
    }
    switch (authenticate(connection, *live->auth)) {
    case web::BasicAuth::Verdict::good:
      break;
    case web::BasicAuth::Verdict::wrong:
      return refuse_unauthenticated(connection, headers);
    case web::BasicAuth::Verdict::busy: {
      Headers later = headers;
      later.emplace_back("Retry-After", "1");
      return send_text(connection, MHD_HTTP_SERVICE_UNAVAILABLE,
                       "busy checking another password: try again\n", later);
    }
    }
    std::string encodings = header(connection, MHD_HTTP_HEADER_ACCEPT_ENCODING);
    bool compress = !encodings.empty() && accept_quality(encodings, "gzip") > 0;
    std::string accept = header(connection, MHD_HTTP_HEADER_ACCEPT);
    std::string timeout = header(connection, k_scrape_timeout_header);
    Response r = server->handler_(server->context_, Request{url, accept, timeout});
    return send(connection, r.status, r.content_type, std::move(r.body), compress, headers);
  }
};

void HttpServer::Stop::operator()(MHD_Daemon* daemon) const noexcept {
  MHD_stop_daemon(daemon);
}

Result<ListenAddress> parse_listen(std::string_view text) {
  auto wrong = [&] { return fail(fmt::format("--listen '{}': expected HOST:PORT", text), EINVAL); };
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos)
    return wrong();
  std::string host(text.substr(0, colon));
  std::string_view port_text = text.substr(colon + 1);
  if (host.starts_with('[') && host.ends_with(']'))
    host = host.substr(1, host.size() - 2);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || end != port_text.data() + port_text.size() ||
      (ec != std::errc{} && ec != std::errc::result_out_of_range))
    return wrong();
  if (ec == std::errc::result_out_of_range || port > 65535)
    return fail(fmt::format("--listen '{}': port {} is out of range (0 to 65535)", text, port_text),
                EINVAL);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  // Every interface: IPv6's any address, which answers IPv4 too, where the kernel has IPv6.
  if (host.empty())
    host = UniqueFd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0)) ? "::" : "0.0.0.0";
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    return fail(fmt::format("--listen '{}': {}", text, ::gai_strerror(rc)), EINVAL);
  CPtr<addrinfo, ::freeaddrinfo> owner(found);
  ListenAddress where;
  std::memcpy(&where.address, found->ai_addr, found->ai_addrlen);
  where.size = found->ai_addrlen;
  if (found->ai_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(where.address);
    where.dual_stack = IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr);
  }
  return where;
}

HttpServer::HttpServer(WebSettings web)
    : started_(std::move(web.config)), watch_(std::move(web.watch)) {}

Result<std::shared_ptr<const HttpServer::Live>> HttpServer::make_live(const web::WebConfig& config,
                                                                      const Live* before) {
  auto live = std::make_shared<Live>();
  live->config = config;
  live->auth = before && before->config.basic_auth_users == config.basic_auth_users
                   ? before->auth
                   : std::make_shared<web::BasicAuth>(config.basic_auth_users);
  live->limiter = before && before->config.rate_limit == config.rate_limit
                      ? before->limiter
                      : std::make_shared<web::RateLimiter>(config.rate_limit);
  if (config.tls) {
    const auto* was = before && before->config.tls ? &*before->config.tls : nullptr;
    if (was && before->keys && was->cert_pem == config.tls->cert_pem &&
        was->key_pem == config.tls->key_pem && was->client_ca_pem == config.tls->client_ca_pem) {
      live->keys = before->keys;
    } else {
      OPSKIT_TRY_ASSIGN(live->keys, TlsKeys::load(*config.tls));
    }
  }
  return live;
}

std::optional<std::string> HttpServer::needs_restart(const web::WebConfig& config) const {
  // Protection dropped, as by a file caught half rewritten, is not taken on the fly.
  if (config.basic_auth_users.empty() && !live_->config.basic_auth_users.empty())
    return "basic_auth_users is gone";
  if (const auto& was = live_->config.tls; was && !was->client_allowed_sans.empty() &&
                                           (!config.tls || config.tls->client_allowed_sans.empty()))
    return "client_allowed_sans is gone";
  const auto &now = config.tls, &then = started_.tls;
  if (now.has_value() != then.has_value())
    return now ? "tls_server_config turns TLS on" : "tls_server_config turns TLS off";
  if (!now)
    return std::nullopt;
  if (now->min_version != then->min_version || now->max_version != then->max_version ||
      now->prefer_server_cipher_suites != then->prefer_server_cipher_suites)
    return "tls_server_config's min_version, max_version or prefer_server_cipher_suites changed";
  if (now->client_ca_pem.empty() != then->client_ca_pem.empty())
    return now->client_ca_pem.empty() ? "client_ca_file is gone"
                                      : "client_ca_file is new: client certificates are asked "
                                        "for only by a server started with one";
  return std::nullopt;
}

std::shared_ptr<const HttpServer::Live> HttpServer::live() {
  std::lock_guard lock(live_mutex_);
  auto reloaded = watch_ ? watch_->poll() : std::nullopt;
  if (!reloaded)
    return live_;
  std::string why;
  if (!*reloaded) {
    why = reloaded->error().message();
  } else if (auto change = needs_restart(**reloaded)) {
    why = fmt::format("web config {}: {}, which takes a restart", (*reloaded)->files.front(),
                      *change);
  } else if (auto made = make_live(**reloaded, live_.get()); !made) {
    why = made.error().message();
  } else {
    live_ = std::move(*made);
    if (live_->keys && (keys_.empty() || keys_.back() != live_->keys))
      keys_.push_back(live_->keys);
    print_stderr("kstat: {}: read again, in effect\n", (*reloaded)->files.front());
    return live_;
  }
  auto broken = std::make_shared<Live>(*live_);
  broken->broken = why;
  live_ = broken;
  print_stderr("kstat: {}; answering 500 until it is put right\n", why);
  return live_;
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const ListenAddress& where, Handler handler,
                                                      void* context, WebSettings web,
                                                      unsigned idle_seconds) {
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(web)));
  server->handler_ = handler;
  server->context_ = context;
  OPSKIT_TRY_ASSIGN(server->live_, make_live(server->started_, nullptr));
  const auto* address = reinterpret_cast<const sockaddr*>(&where.address);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL;
  if (address->sa_family == AF_INET6)
    flags |= where.dual_stack ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
  std::vector<MHD_OptionItem> options = {
      {MHD_OPTION_SOCK_ADDR, 0, const_cast<sockaddr*>(address)},
      {MHD_OPTION_THREAD_POOL_SIZE, 2, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, idle_seconds, nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, 1000, nullptr},
      // Each connection's buffers: a scrape's request is under 1 KB, and 16 KiB holds one with a
      // 14 KB bearer token; libmicrohttpd's 32 KiB made 200 scrapes at once 6.5 MiB resident.
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, std::size_t{16384}, nullptr},
  };
  if (const auto& tls = server->started_.tls) {
    if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES ||
        MHD_is_feature_supported(MHD_FEATURE_HTTPS_CERT_CALLBACK) != MHD_YES)
      return fail("web config: TLS asked for, and this libmicrohttpd was built without it");
    HttpServer* none = nullptr;
    if (!g_tls_server.compare_exchange_strong(none, server.get()))
      return fail("web config: TLS asked for by a second server in one process");
    server->keys_.push_back(server->live_->keys);
    server->priorities_ = tls_priorities(*tls);
    flags |= MHD_USE_TLS;
    options.push_back(
        {MHD_OPTION_HTTPS_CERT_CALLBACK, 0, reinterpret_cast<void*>(&Dispatch::certificate)});
    options.push_back(
        {MHD_OPTION_HTTPS_PRIORITIES, 0, const_cast<char*>(server->priorities_.c_str())});
    if (!tls->client_ca_pem.empty())
      options.push_back(
          {MHD_OPTION_HTTPS_MEM_TRUST, 0, const_cast<char*>(tls->client_ca_pem.c_str())});
  }
  options.push_back({MHD_OPTION_END, 0, nullptr});
  errno = 0;
  server->daemon_.reset(MHD_start_daemon(flags, 0, nullptr, nullptr, &Dispatch::answer,
                                         server.get(), MHD_OPTION_ARRAY, options.data(),
                                         MHD_OPTION_END));
  if (!server->daemon_)
    return fail(Error::from_errno("listen on", format_address(address)));
  const MHD_DaemonInfo* info =
      MHD_get_daemon_info(server->daemon_.get(), MHD_DAEMON_INFO_LISTEN_FD);
  sockaddr_storage bound{};
  socklen_t size = sizeof bound;
  if (info != nullptr &&
      ::getsockname(info->listen_fd, reinterpret_cast<sockaddr*>(&bound), &size) == 0)
    server->address_ = format_address(reinterpret_cast<const sockaddr*>(&bound));
  else
    server->address_ = format_address(address);
  return server;
}

HttpServer::~HttpServer() {
  daemon_.reset(); // its threads gone, no handshake asks for this server's keys any more
  HttpServer* self = this;
  g_tls_server.compare_exchange_strong(self, nullptr);
}

} // namespace opskit::cmd::kstat
