// SPDX-License-Identifier: MIT
#include "opskit/atomic_file.hpp"

#include <algorithm>

#include <cerrno>
#include <set>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/file.hpp"
#include "opskit/parallel.hpp"

namespace opskit {

namespace {

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Copies `size` bytes of `from`, from its start, to `to`, in the kernel: copy_file_range, or
// sendfile where the two files' file systems cannot copy between them. Returns the bytes
// copied, fewer if `from` is shorter.
Result<std::size_t> copy_all(int from, int to, std::size_t size, const std::string& name) {
  std::size_t done = 0;
  bool ranges = true;
  while (done < size) {
    off_t at = static_cast<off_t>(done);
    ssize_t n = ranges ? ::copy_file_range(from, &at, to, nullptr, size - done, 0)
                       : ::sendfile(to, from, &at, size - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && ranges && done == 0 &&
        (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
      ranges = false;
      continue;
    }
    if (n < 0)
      return fail(Error::from_errno("copy to", name));
    if (n == 0)
      break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

// Writes a temporary file beside `path`, in a directory that exists, with fill(fd, temp name)
// and starts writing it back to disk, without waiting; returns its name and open descriptor.
template <class Fill>
Result<std::pair<std::string, UniqueFd>> write_temporary(const std::string& path,
                                                         const Fill& fill) {
  std::string temp = temporary_name(path);
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd)
    return fail(Error::from_errno("create", temp));
  if (auto written = fill(fd.get(), temp); !written) {
    ::unlink(temp.c_str());
    return fail(written.error());
  }
  // A hint: the fsync in commit() finds the pages already on their way.
  ::sync_file_range(fd.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
  return std::pair{std::move(temp), std::move(fd)};
}

} // namespace

std::string temporary_name(const std::string& path) {
  return fmt::format("{}/.{}.tmp-{}", parent_of(path), path.substr(path.rfind('/') + 1),
                     ::getpid());
}

bool is_temporary_name(std::string_view name) noexcept {
  return name.starts_with('.') && name.find(".tmp-") != std::string_view::npos;
}

Result<void> fsync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return fail(Error::from_errno("open", dir));
  UniqueFd owner(fd);
  if (::fsync(fd) != 0)
    return fail(Error::from_errno("fsync", dir));
  return {};
}

Result<void> make_directories(const std::string& path, std::vector<std::string>* created) {
  if (path.empty())
    return {};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return {};
    return fail(Error::from_errno("mkdir", path, ENOTDIR));
  }
  std::string parent = parent_of(path);
  if (parent != path)
    OPSKIT_TRY(make_directories(parent, created));
  if (::mkdir(path.c_str(), 0755) == 0) {
    if (created)
      created->push_back(path);
  } else if (errno != EEXIST) {
    return fail(Error::from_errno("mkdir", path));
  }
  return {};
}

Result<void> write_file_atomic(const std::string& path, std::string_view data) {
  StagedFiles files;
  OPSKIT_TRY(files.stage(path, data));
  return files.commit();
}

StagedFiles::~StagedFiles() {
  for (const auto& file : files_)
    ::unlink(file.temp.c_str());
  // Deepest first; one that holds something else by now stays.
  for (auto dir = created_.rbegin(); dir != created_.rend(); ++dir)
    ::rmdir(dir->c_str());
}

Result<void> StagedFiles::stage(const std::string& path, std::string_view data) {
  OPSKIT_TRY(make_directories(parent_of(path), &created_));
  OPSKIT_TRY_ASSIGN(auto temp, write_temporary(path, [data](int fd, const std::string& name) {
                      return write_all(fd, data, name);
                    }));
  files_.push_back({std::move(temp.first), path, std::move(temp.second)});
  return {};
}

Result<void>
StagedFiles::stage_all(std::span<const std::pair<std::string, std::string_view>> files) {
  for (const auto& [path, data] : files)
    OPSKIT_TRY(make_directories(parent_of(path), &created_));
  std::vector<Result<std::pair<std::string, UniqueFd>>> written(files.size());
  parallel_for(files.size(), std::thread::hardware_concurrency(), [&](std::size_t i) {
    written[i] = write_temporary(files[i].first, [&](int fd, const std::string& name) {
      return write_all(fd, files[i].second, name);
    });
  });
  for (const auto& w : written) {
    if (w)
      continue;
    for (const auto& other : written)
      if (other)
        ::unlink(other->first.c_str());
    return fail(w.error());
  }
  for (std::size_t i = 0; i < files.size(); ++i)
    files_.push_back({std::move(written[i]->first), files[i].first, std::move(written[i]->second)});
  return {};
}

Result<std::size_t> StagedFiles::stage_copy(const std::string& path, const UniqueFd& from,
                                            std::size_t size) {
  std::size_t copied = 0;
  OPSKIT_TRY(make_directories(parent_of(path), &created_));
  OPSKIT_TRY_ASSIGN(auto temp,
                    write_temporary(path, [&](int fd, const std::string& name) -> Result<void> {
                      OPSKIT_TRY_ASSIGN(auto n, copy_all(from.get(), fd, size, name));
                      copied = n;
                      return {};
                    }));
  files_.push_back({std::move(temp.first), path, std::move(temp.second)});
  return copied;
}

Result<void> StagedFiles::stage_link(const std::string& path, const std::string& same_as) {
  auto first = std::find_if(files_.begin(), files_.end(),
                            [&](const Staged& f) { return f.path == same_as && f.fd; });
  if (first == files_.end())
    return fail(fmt::format("link {}: {} is not staged", path, same_as), EINVAL);
  OPSKIT_TRY(make_directories(parent_of(path), &created_));
  std::string temp = temporary_name(path);
  ::unlink(temp.c_str()); // a killed run's, of this pid
  if (::link(first->temp.c_str(), temp.c_str()) != 0)
    return fail(Error::from_errno("link", temp));
  files_.push_back({std::move(temp), path, UniqueFd()});
  return {};
}

Result<void> StagedFiles::commit() {
  // Every file on disk before the first rename. Each fsync waits for its own writes and a
  // cache flush of the device; run side by side they wait once rather than once per file.
  constexpr unsigned k_max_syncs = 8;
  std::vector<int> errors(files_.size(), 0);
  parallel_for(files_.size(), k_max_syncs, [this, &errors](std::size_t i) {
    if (files_[i].fd) // a link's bytes are its first name's
      errors[i] = ::fsync(files_[i].fd.get()) == 0 ? 0 : errno;
  });
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (!files_[i].fd && errors[i] == 0)
      continue;
    int err = errors[i] != 0 ? errors[i] : ::close(files_[i].fd.release()) == 0 ? 0 : errno;
    if (err != 0)
      return fail(Error::from_errno(errors[i] != 0 ? "fsync" : "close", files_[i].temp, err));
  }
  std::set<std::string> dirs;
  for (std::size_t i = 0; i < files_.size(); ++i) {
    if (::rename(files_[i].temp.c_str(), files_[i].path.c_str()) != 0) {
      auto error = Error::from_errno("rename", files_[i].path);
      files_.erase(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(i));
      return fail(std::move(error));
    }
    dirs.insert(parent_of(files_[i].path));
  }
  files_.clear();
  created_.clear();
  for (const auto& dir : dirs)
    OPSKIT_TRY(fsync_directory(dir));
  return {};
}

Result<FileLock> FileLock::acquire(const std::string& path, Mode mode,
                                   const std::function<void()>& on_wait) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail(Error::from_errno("open", path));
  UniqueFd owner(fd);
  int how = mode == Mode::shared ? LOCK_SH : LOCK_EX;
  if (::flock(fd, how | LOCK_NB) == 0)
    return FileLock(std::move(owner));
  if (errno == EWOULDBLOCK && on_wait)
    on_wait();
  while (::flock(fd, how) != 0)
    if (errno != EINTR)
      return fail(Error::from_errno("lock", path));
  return FileLock(std::move(owner));
}

} // namespace opskit
