// SPDX-License-Identifier: MIT
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

namespace opskit {

// Creates `path` and its missing parents with mode 0755; an existing directory is fine. The
// directories made are appended to `created`, when given, parents first.
Result<void> make_directories(const std::string& path, std::vector<std::string>* created = nullptr);

// fsync of a directory, so that the renames and links in it are on disk.
Result<void> fsync_directory(const std::string& dir);

// The temporary name a file is written under before it is renamed to `path`:
// "<dir>/.<name>.tmp-<pid>", in the same directory, and what a killed run leaves behind.
std::string temporary_name(const std::string& path);

// Whether `name`, a file's name without its directory, is one that temporary_name makes.
bool is_temporary_name(std::string_view name) noexcept;

// Writes `data` to `path` so that a reader sees the old file or the new one, never a mix: a
// temporary file in the same directory, fsync, rename, fsync of the directory. Parents are
// created. Errors name the path.
Result<void> write_file_atomic(const std::string& path, std::string_view data);

// A set of files written now and made visible later, in the order they were staged. stage()
// writes "<dir>/.<name>.tmp-<pid>" and starts its write-back; commit() fsyncs them all (side
// by side), then renames each over its final name in staging order and fsyncs the
// directories, so the files staged last (a repository's top-level index) appear last. Files not
// committed are removed when the object dies, with the directories staging made for them, so a
// failure before commit() leaves the final names untouched.
class StagedFiles {
public:
  StagedFiles() = default;
  StagedFiles(StagedFiles&&) noexcept = default;
  StagedFiles& operator=(StagedFiles&&) noexcept = default;
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles();

  Result<void> stage(const std::string& path, std::string_view data);
  // Stages each of `files` (path, bytes) as stage() does, in their order, written side by side
  // on the CPUs: a few files of megabytes cost the time of the largest. On a failure none of
  // them is staged.
  Result<void> stage_all(std::span<const std::pair<std::string, std::string_view>> files);
  // Stages `size` bytes of the open file `from`, from its start, copied in the kernel; returns
  // the bytes copied, fewer when `from` is shorter (the file is staged all the same).
  Result<std::size_t> stage_copy(const std::string& path, const UniqueFd& from, std::size_t size);
  // Stages `path` as a hard link to the file staged for `same_as`, which must be staged
  // already: one file's bytes written once for two names (a by-hash copy and its index).
  Result<void> stage_link(const std::string& path, const std::string& same_as);
  // Renames every staged file into place; stops at the first failure.
  Result<void> commit();
  std::size_t size() const noexcept { return files_.size(); }

private:
  struct Staged {
    std::string temp, path;
    UniqueFd fd; // open until commit() has fsynced it; none for a link to another
  };
  std::vector<Staged> files_;
  std::vector<std::string> created_; // directories made for files not yet committed
};

// An advisory lock (flock) on a lock file, held while the object lives: exclusive, or shared
// with other shared holders. acquire() creates the file and waits for the holders it cannot share
// with, calling `on_wait` first when it has to.
class FileLock {
public:
  enum class Mode { exclusive, shared };
  static Result<FileLock> acquire(const std::string& path, Mode mode = Mode::exclusive,
                                  const std::function<void()>& on_wait = {});

private:
  explicit FileLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

} // namespace opskit
