// SPDX-License-Identifier: MIT
// The walk of a publication: 20,000 packages of a pool in as many directories. Each directory
// is opened relative to its parent and read with getdents64 into a buffer of its own, its
// entries' types taken from the listing: four calls a directory (open, two reads, close), no
// stat of any file, and a path string made only where a file is reported. Through
// std::filesystem the walk made a path and a string of every name (120 ms of CPU); through
// fdopendir and readdir it still cost a stat and two fcntl calls a directory.
#include "tree/sweep.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opskit/atomic_file.hpp"
#include "opskit/handle.hpp"

namespace opskit::repo::tree {

namespace {

bool is_dot_or_dot_dot(const char* name) noexcept {
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

// The type of entry `name` of directory `fd` where the listing did not say (DT_UNKNOWN), or
// what a symbolic link names (DT_LNK): DT_DIR only for a directory itself, never through a link.
unsigned char resolve_type(int fd, const char* name, unsigned char type) {
  struct stat st {};
  if (type == DT_UNKNOWN) {
    if (::fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
      return DT_UNKNOWN;
    if (!S_ISLNK(st.st_mode))
      return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
  }
  if (::fstatat(fd, name, &st, 0) != 0 || !S_ISREG(st.st_mode))
    return DT_UNKNOWN;
  return DT_LNK; // to a regular file
}

// Sweeps the open directory `fd` (`path`, used only to report files to `found`, which may be
// null), and with Depth::below the directories below it.
void sweep(const UniqueFd& fd, const std::string& path, Depth depth, const FoundFile* found) {
  alignas(dirent64) char listing[16 * 1024];
  for (;;) {
    ssize_t n = ::getdents64(fd.get(), listing, sizeof listing);
    if (n <= 0)
      return;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const dirent64*>(listing + at);
      at += e->d_reclen;
      const char* name = e->d_name;
      if (is_dot_or_dot_dot(name))
        continue;
      unsigned char type = e->d_type;
      if (type == DT_UNKNOWN || (type == DT_LNK && found))
        type = resolve_type(fd.get(), name, type);
      if (type == DT_REG && is_temporary_name(name)) {
        ::unlinkat(fd.get(), name, 0);
      } else if (type == DT_DIR && depth == Depth::below) {
        UniqueFd sub(::openat(fd.get(), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (sub)
          sweep(sub, found ? path + '/' + name : std::string(), depth, found);
      } else if ((type == DT_REG || type == DT_LNK) && found) {
        (*found)(path, name);
      }
    }
  }
}

void sweep_from(const std::string& dir, Depth depth, const FoundFile* found) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd)
    sweep(fd, dir, depth, found);
}

} // namespace

void remove_stale_temporaries(const std::string& dir, Depth depth) {
  sweep_from(dir, depth, nullptr);
}

void sweep_files(const std::string& dir, const FoundFile& found) {
  sweep_from(dir, Depth::below, &found);
}

} // namespace opskit::repo::tree
