// SPDX-License-Identifier: MIT
#include "fixture.hpp"

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opskit/file.hpp"
#include "opskit/handle.hpp"

namespace opskit::test {

HttpServer::HttpServer(const std::string& dir) : port_(free_port()) {
  std::string port = std::to_string(port_);
  std::vector<std::string> argv{"python3",   "-m",          "http.server", "--bind",
                                "127.0.0.1", "--directory", dir,           port};
  pid_ = opskit::test::spawn_quiet(argv);
  wait_for_port(port_);
}

HttpServer::~HttpServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
}

std::map<std::string, std::string> snapshot(const std::string& dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    // the iterator's paths are `dir` + "/" + a relative path: no need to resolve links
    std::string rel = e.path().string().substr(dir.size() + 1);
    if (e.is_regular_file() && !rel.starts_with(".pkgcloud"))
      files[rel] = *opskit::read_file(e.path().string());
  }
  return files;
}

void kill_after(const std::vector<std::string>& argv, int ms) {
  pid_t pid = spawn_quiet(argv);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

} // namespace opskit::test
