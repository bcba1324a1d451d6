// SPDX-License-Identifier: MIT
#include "fixture.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <signal.h>
#include <sys/wait.h>

#include "../../repo/deb_builder.hpp"
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

std::string random_deb(const std::string& dir, const std::string& name, std::size_t size,
                       std::mt19937& gen) {
  std::string payload(size, '\0');
  for (auto& c : payload)
    c = static_cast<char>(gen());
  std::string path = dir + "/" + name + ".deb";
  std::ofstream(path, std::ios::binary)
      << make_ar({{"debian-binary", "2.0\n"},
                  {"control.tar.gz", make_tar("./control", control(name, "1.0", "amd64"), "gz")},
                  {"data.tar", make_tar({{"./usr/share/" + name, payload}})}});
  return path;
}

void kill_after(const std::vector<std::string>& argv, int ms) {
  pid_t pid = spawn_quiet(argv);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

} // namespace opskit::test
