// SPDX-License-Identifier: MIT
#pragma once

// A small file system of the test's own, to run pkgcloud and its servers out of space: a tmpfs
// mounted for the length of a test and filled on demand.

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "mount_namespace.hpp"
#include "opskit/handle.hpp"
#include "process.hpp"

namespace opskit::test {

// A tmpfs of `bytes` mounted at `dir` (made when missing), unmounted when dropped, after the
// gpg-agents whose home is in it are stopped. mounted() is false, and why() says why, when
// this process may not mount one.
class Tmpfs {
public:
  Tmpfs(std::string dir, std::size_t bytes) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    // In a mount namespace of this process's, where it may make one: what it and the programs
    // it starts then mount, no other test sees (kstat's read every mount point's usage).
    try_own_mount_namespace();
    std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
      why_ = "mount -t tmpfs " + dir_ + ": " + std::strerror(errno);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;
  ~Tmpfs() {
    if (!mounted())
      return;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, ec);
         it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      if (it->path().filename() == "pubring.kbx")
        run({"gpgconf", "--homedir", it->path().parent_path().string(), "--kill", "all"});
    // Lazily, so that a server's file still open does not keep it mounted.
    ::umount2(dir_.c_str(), MNT_DETACH);
  }
  bool mounted() const noexcept { return why_.empty(); }
  const std::string& why() const noexcept { return why_; }
  const std::string& path() const noexcept { return dir_; }
  std::string operator/(const std::string& name) const { return dir_ + "/" + name; }

  // Bytes free.
  std::size_t available() const {
    struct statvfs st {};
    REQUIRE(::statvfs(dir_.c_str(), &st) == 0);
    return static_cast<std::size_t>(st.f_bavail) * st.f_frsize;
  }
  // Takes all space but `left` bytes with a file of its own, `path()`/.filler.
  void fill(std::size_t left) {
    std::size_t taking = available() > left ? available() - left : 0;
    UniqueFd fd(::open(filler().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
    REQUIRE(fd);
    struct stat st {};
    REQUIRE(::fstat(fd.get(), &st) == 0);
    if (taking > 0)
      REQUIRE(::fallocate(fd.get(), 0, st.st_size, static_cast<off_t>(taking)) == 0);
  }
  // Gives back what fill() took.
  void unfill() const { std::filesystem::remove(filler()); }

private:
  std::string filler() const { return dir_ + "/.filler"; }

  std::string dir_;
  std::string why_;
};

} // namespace opskit::test
