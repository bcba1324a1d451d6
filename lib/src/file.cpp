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

namespace {

// Whether a read that gave `chunk`, short of the room it had, may have stopped where a seq_file
// of many records (/proc/net/dev, diskstats, vmstat) filled its buffer rather than at the end
// of the file. Such a file fills a buffer of a page a read (of a power of two pages where one
// record needed more) and stops before the record that would not fit: the chunk ends the file
// when the next record, taken as twice the chunk's last, would have fitted. 4,013 bytes of
// /proc/net/dev's 125-byte lines may go on; /proc/vmstat's 3,992 bytes ending in a 20-byte line
// do not, nor 4,166 bytes of /proc/net/netstat, one record in a buffer of two pages.
bool may_go_on(std::string_view chunk) noexcept {
  static const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (chunk.size() < page / 2)
    return false;
  std::size_t buffer = page;
  while (buffer < chunk.size())
    buffer *= 2;
  // A record is a line, or lines up to a blank one where the chunk ends in one (/proc/mdstat's
  // arrays).
  std::string_view end = chunk.ends_with("\n\n") ? "\n\n" : "\n";
  std::size_t before = chunk.substr(0, chunk.size() - end.size()).rfind(end);
  std::size_t last = chunk.size() - (before == std::string_view::npos ? 0 : before + end.size());
  return chunk.size() + 2 * last > buffer;
}

// Reads from offset 0 into `buffer` until a read gives nothing, or one short of the room left
// gives a chunk that is the `last(chunk)`. A buffer filled grows 4x and is read again from
// offset 0, as /proc/sys reads nothing past offset 0.
template <typename Last>
Result<std::string_view> read_from_start(int fd, std::string& buffer, std::string_view name,
                                         Last last) {
  std::size_t got = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buffer.data() + got, buffer.size() - got, static_cast<off_t>(got));
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return fail(Error::from_errno("read", name));
    }
    auto count = static_cast<std::size_t>(n);
    got += count;
    if (got == buffer.size() && count > 0) {
      buffer.resize(buffer.size() * 4);
      got = 0;
    } else if (count == 0 || last(std::string_view(buffer.data() + got - count, count))) {
      return std::string_view(buffer.data(), got);
    }
  }
}

} // namespace

Result<std::string_view> pread_whole(int fd, std::string& buffer, std::string_view name) {
  return read_from_start(fd, buffer, name,
                         [](std::string_view chunk) { return !may_go_on(chunk); });
}

Result<std::string_view> pread_to_end(int fd, std::string& buffer, std::string_view name) {
  return read_from_start(fd, buffer, name, [](std::string_view) { return false; });
}

Result<std::string_view> pread_one_record(int fd, std::string& buffer, std::string_view name) {
  return read_from_start(fd, buffer, name, [](std::string_view) { return true; });
}

void raise_open_file_limit() noexcept {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &limit);
  }
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
  // A file that says no size (/proc's) is read until a read gives nothing: this is what reads
  // the mount table, whose lines range from 50 bytes to kilobytes (an overlay's layers).
  bool sized = S_ISREG(st.st_mode) && st.st_size > 0;
  OPSKIT_TRY_ASSIGN(auto text, read_from_start(fd.get(), buffer, path,
                                               [sized](std::string_view) { return sized; }));
  buffer.resize(text.size());
  return buffer;
}

} // namespace opskit
