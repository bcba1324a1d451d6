// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include "net.hpp"
#include "process.hpp"

namespace opskit::test {

// A server the test started on 127.0.0.1:`port`, stopped (SIGTERM, then reaped) when dropped.
class Daemon {
public:
  Daemon(const std::vector<std::string>& argv, int port) : port_(port) {
    pid_ = spawn_quiet(argv);
    if (!wait_for_port(port_)) {
      stop(); // a constructor that throws has no destructor run
      FAIL(argv[0] << " did not start listening on 127.0.0.1:" << port_);
    }
  }
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  ~Daemon() { stop(); }
  std::string url(const std::string& path = "") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

private:
  void stop() {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }

  int pid_ = -1;
  int port_;
};

} // namespace opskit::test
