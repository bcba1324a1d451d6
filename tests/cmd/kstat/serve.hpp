// SPDX-License-Identifier: MIT
#pragma once

// What the `kstat serve` tests share: the server started on a free 127.0.0.1 port and stopped
// by its pid, HTTP requests made with curl, and a reader of the text exposition format.

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>

#include "process.hpp"
#include "temp_dir.hpp"

namespace opskit::test {

// `kstat serve --listen 127.0.0.1:0 ARGS...`, its address read from the line it prints; run by
// the command `as` when there is one (setpriv ..., to serve as another user).
class KstatServe {
public:
  explicit KstatServe(std::vector<std::string> args, const std::vector<std::string>& as = {}) {
    std::vector<std::string> argv{"sh", "-c", "exec \"$@\" >\"$0\" 2>\"$0.err\"", dir_ / "out"};
    argv.insert(argv.end(), as.begin(), as.end());
    argv.push_back(tool("kstat"));
    std::vector<std::string> serve{"serve"};
    if (std::ranges::find(args, "--listen") == args.end()) // else the test's own
      serve.insert(serve.end(), {"--listen", "127.0.0.1:0"});
    while (args.size() >= 2 && (args.front() == "--proc-root" || args.front() == "--sys-root" ||
                                args.front() == "--rootfs")) {
      argv.insert(argv.end(), args.begin(), args.begin() + 2); // a global option goes first
      args.erase(args.begin(), args.begin() + 2);
    }
    argv.insert(argv.end(), serve.begin(), serve.end());
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = spawn_quiet(argv);
    for (int i = 0; i < 400 && address_.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      std::ifstream in(dir_ / "out");
      std::string line;
      constexpr std::string_view k_serving = "kstat: serving ";
      if (std::getline(in, line) && line.starts_with(k_serving) &&
          line.find("://") != std::string::npos) {
        std::size_t colon = line.find("://");
        scheme_ = line.substr(k_serving.size(), colon - k_serving.size());
        address_ = line.substr(colon + 3, line.find("/metrics") - colon - 3);
      }
    }
    if (address_.empty()) {
      stop(SIGKILL);
      FAIL("kstat serve did not start");
    }
  }
  KstatServe(const KstatServe&) = delete;
  KstatServe& operator=(const KstatServe&) = delete;
  ~KstatServe() {
    if (pid_ > 0)
      stop(SIGKILL);
  }

  std::string url(const std::string& path = "/metrics") const {
    return scheme_ + "://" + address_ + path;
  }
  const std::string& address() const noexcept { return address_; } // "127.0.0.1:PORT"
  int port() const { return std::stoi(address_.substr(address_.find(':') + 1)); }
  int pid() const noexcept { return pid_; }
  // What it has written to standard error so far.
  std::string err() const {
    std::ifstream in(dir_ / "out.err");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Sends `signal` and returns the exit status (128+N when the signal killed it).
  int stop(int signal = SIGTERM) {
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

private:
  TempDir dir_;
  int pid_ = -1;
  std::string scheme_;
  std::string address_;
};

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers; // names lowercased
  std::string body;
};

// GET `url` with curl, adding `headers` ("Accept: ...") and curl's `options` ("--cacert", ...);
// the body as sent (not decompressed).
inline HttpReply http_get(const std::string& url, const std::vector<std::string>& headers = {},
                          const std::vector<std::string>& options = {}) {
  std::vector<std::string> argv{"curl", "-sS", "--max-time", "30", "-i", url};
  for (const auto& h : headers) {
    argv.push_back("-H");
    argv.push_back(h);
  }
  argv.insert(argv.end(), options.begin(), options.end());
  auto r = run(argv);
  REQUIRE(r.exit_status == 0);
  HttpReply reply;
  std::size_t end = r.out.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  std::istringstream head(r.out.substr(0, end));
  std::string line;
  std::getline(head, line);
  reply.status = std::stoi(line.substr(line.find(' ') + 1));
  while (std::getline(head, line)) {
    std::size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value = line.substr(colon + 2);
    if (value.ends_with('\r'))
      value.pop_back();
    reply.headers[name] = value;
  }
  reply.body = r.out.substr(end + 4);
  return reply;
}

// Every sample of a text exposition by its series ("kstat_cpu_seconds_total{cpu=\"0\",...}").
inline std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#')
      continue;
    std::size_t space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// `promtool check metrics` on `text`: what it says (empty when the text is clean) and its status.
inline Outcome promtool_check(const std::string& text) {
  return run({"promtool", "check", "metrics"}, text);
}

} // namespace opskit::test
