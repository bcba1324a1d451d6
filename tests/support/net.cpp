// SPDX-License-Identifier: MIT
#include "net.hpp"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "opskit/handle.hpp"

namespace opskit::test {

namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

} // namespace

UniqueFd connect_loopback(int port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr = loopback(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return UniqueFd();
  return fd;
}

// A port the kernel chose, held by a socket bound to it.
ClosedPort::ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  sockaddr_in addr = loopback(0);
  socklen_t size = sizeof addr;
  if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &size) != 0)
    throw std::runtime_error("cannot find a free port");
  port_ = ntohs(addr.sin_port);
}

// A port the kernel just handed out and took back: free unless someone races us for it.
int free_port() {
  return ClosedPort().port();
}

bool wait_for_port(int port) {
  for (int i = 0; i < 400; ++i) {
    if (connect_loopback(port))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

} // namespace opskit::test
