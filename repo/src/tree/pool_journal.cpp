// SPDX-License-Identifier: MIT
#include "tree/pool_journal.hpp"

#include <algorithm>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "layout/paths.hpp"
#include "opskit/file.hpp"
#include "tree/sweep.hpp"

namespace opskit::repo::tree {

Result<PoolJournal> PoolJournal::open(const std::string& path, const std::string& publication) {
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd)
    return fail(Error::from_errno("open", path));
  std::string buffer(4096, '\0');
  OPSKIT_TRY_ASSIGN(std::string_view notes, pread_whole(fd.get(), buffer, path));
  for (std::size_t at = 0; at < notes.size();) {
    std::size_t end = std::min(notes.find('\n', at), notes.size());
    std::string_view dir(notes.data() + at, end - at);
    if (!dir.empty() && dir.front() != '/' && !detail::climbs_out(dir)) // below the publication
      remove_stale_temporaries(detail::join_path(publication, dir), Depth::here);
    at = end + 1;
  }
  if (!notes.empty() && ::ftruncate(fd.get(), 0) != 0) // swept: this push notes its own
    return fail(Error::from_errno("truncate", path));
  return PoolJournal(std::move(fd), path);
}

Result<void> PoolJournal::note(const std::string& dir) {
  if (!noted_.insert(dir).second)
    return {};
  std::string line = dir + '\n';
  ssize_t n = ::pwrite(fd_.get(), line.data(), line.size(), static_cast<off_t>(end_));
  if (n != static_cast<ssize_t>(line.size()))
    return fail(n < 0 ? Error::from_errno("write", path_)
                      : Error(path_ + ": a note was cut short (disk full?)"));
  end_ += line.size();
  return {};
}

Result<void> PoolJournal::clear() {
  if (end_ == 0)
    return {};
  if (::ftruncate(fd_.get(), 0) != 0)
    return fail(Error::from_errno("truncate", path_));
  noted_.clear();
  end_ = 0;
  return {};
}

} // namespace opskit::repo::tree
