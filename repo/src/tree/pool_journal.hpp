// SPDX-License-Identifier: MIT
#pragma once

// The pool directories a push is staging copies in. Not installed.

#include <set>
#include <string>

#include "opskit/error.hpp"
#include "opskit/handle.hpp"

namespace opskit::repo::tree {

// The pool directories a push stages copies in (".<name>.tmp-<pid>", see StagedFiles), noted
// before the first copy in each and cleared once every copy is in place: the next push sweeps
// what a killed one left from those directories alone. Sweeping every directory a push writes
// into listed the whole of each, 31 getdents64 calls (4 ms) for one of 10,000 rpms.
//
// The notes are not synced: a kill leaves them in the page cache, where the next push reads
// them; a power cut may lose one, and the copies it names then stay until `pkgcloud index`,
// which sweeps the whole publication. They are harmless meanwhile: no index names them.
class PoolJournal {
public:
  // Opens the journal at `path` (made if missing), sweeps the directories below `publication`
  // that it names, and empties it. The caller holds the repository's lock.
  static Result<PoolJournal> open(const std::string& path, const std::string& publication);

  // Notes `dir` (relative to the publication) before a copy is staged in it.
  Result<void> note(const std::string& dir);
  // Empties the journal once every copy noted is in place, or removed.
  Result<void> clear();

private:
  PoolJournal(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
  std::set<std::string> noted_;
  std::size_t end_ = 0; // of the notes written
};

} // namespace opskit::repo::tree
