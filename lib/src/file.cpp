// SPDX-License-Identifier: MIT
#include "opskit/file.hpp"

#include <cerrno>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace opskit {

Result<UniqueFd> open_file(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0)
    return fail(Error::from_errno("open", path));
  return UniqueFd(fd);
}

Result<std::string_view> pread_whole(int fd, std::string& buffer, std::string_view name) {
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data(), buffer.size(), 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail(Error::from_errno("read", name));
    }
    auto got = static_cast<std::size_t>(n);
    if (got < buffer.size())
      return std::string_view(buffer.data(), got);
    buffer.resize(buffer.size() * 4);
  }
}

std::uint64_t raise_open_file_limit() noexcept {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0)
    return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = {limit.rlim_max, limit.rlim_max};
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0)
      limit = raised;
  }
  return limit.rlim_cur;
}

Result<void> write_all(int fd, std::string_view data, std::string_view name) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail(Error::from_errno("write", name));
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<std::vector<std::string>> list_directory(const std::string& path) {
  CPtr<DIR, ::closedir> dir(::opendir(path.c_str()));
  if (!dir)
    return fail(Error::from_errno("opendir", path));
  std::vector<std::string> names;
  while (const dirent* entry = ::readdir(dir.get())) {
    std::string_view name = entry->d_name;
    if (name != "." && name != "..")
      names.emplace_back(name);
  }
  return names;
}

Result<std::string> read_file(const std::string& path) {
  // O_NONBLOCK: a FIFO where a file was expected fails at the read instead of hanging the open.
  OPSKIT_TRY_ASSIGN(auto fd, open_file(path, O_RDONLY | O_NONBLOCK));
  // A regular file's size is known: one read of a byte more than that reads it whole (one
  // that grows meanwhile takes more). /proc and /sys files say 0 or 4096 whatever they hold.
  struct stat st {};
  std::size_t size = 4096;
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 4096)
    size = static_cast<std::size_t>(st.st_size) + 1;
  std::string buffer(size, '\0');
  OPSKIT_TRY_ASSIGN(auto text, pread_whole(fd.get(), buffer, path));
  buffer.resize(text.size());
  return buffer;
}

} // namespace opskit
