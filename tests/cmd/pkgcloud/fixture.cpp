// SPDX-License-Identifier: MIT
#include "fixture.hpp"

#include <chrono>
#include <filesystem>
#include <thread>

#include <signal.h>
#include <sys/wait.h>

#include "opskit/file.hpp"

namespace opskit::test {

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
