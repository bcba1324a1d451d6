// SPDX-License-Identifier: MIT
#pragma once

// The HTTP side of `kstat serve`, over GNU libmicrohttpd: one listening socket, requests handed
// to a handler that returns a whole body, gzip when the client accepts it.

#include <memory>
#include <string>
#include <string_view>

#include <sys/socket.h>

#include "opskit/error.hpp"

struct MHD_Daemon;

namespace opskit::cmd::kstat {

struct Request {
  std::string_view path;
  std::string_view accept; // the Accept header, or ""
};

struct Response {
  unsigned status = 200;
  std::string_view content_type;
  std::shared_ptr<const std::string> body; // shared, not copied, by the connections sending it
};

// Where to listen: "HOST:PORT", "[V6]:PORT", or ":PORT" for every interface; port 0 takes a free
// one. Fails with "--listen 'x': expected HOST:PORT" or the resolver's reason.
struct ListenAddress {
  sockaddr_storage address{};
  socklen_t size = 0;
};
Result<ListenAddress> parse_listen(std::string_view text);

class HttpServer {
public:
  using Handler = Response (*)(void* context, const Request& request);

  // Listens on `where` and answers every GET and HEAD with `handler(context, request)` from its
  // own threads, until destroyed. A connection idle for `idle_seconds` is closed, so a client
  // that connects and never sends holds nothing for long.
  static Result<std::unique_ptr<HttpServer>> start(const ListenAddress& where, Handler handler,
                                                   void* context, unsigned idle_seconds = 10);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer(); // stops listening, waits for the handlers running

  // "127.0.0.1:9100", "[::1]:9100": the address bound, with the port taken for port 0.
  const std::string& address() const noexcept { return address_; }

private:
  HttpServer() = default;
  struct Stop {
    void operator()(MHD_Daemon* daemon) const noexcept;
  };
  std::unique_ptr<MHD_Daemon, Stop> daemon_;
  Handler handler_ = nullptr;
  void* context_ = nullptr;
  std::string address_;
  friend struct Dispatch;
};

} // namespace opskit::cmd::kstat
