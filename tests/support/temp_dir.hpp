// SPDX-License-Identifier: MIT
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "process.hpp"

namespace opskit::test {

// A fresh directory under $TMPDIR (else /tmp), removed with everything in it when the object
// dies. gpg-agents started for keyrings inside it are stopped first.
class TempDir {
public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/opskit-test-XXXXXX";
    if (!::mkdtemp(pattern.data()))
      throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->path().filename() == "pubring.kbx")
        run({"gpgconf", "--homedir", it->path().parent_path().string(), "--kill", "all"});
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const noexcept { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

// Writes `text` to the file at `path`, making the directories it needs.
inline void make_file(const std::string& path, const std::string& text = "x\n") {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

} // namespace opskit::test
