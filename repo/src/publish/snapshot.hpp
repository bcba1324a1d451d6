// SPDX-License-Identifier: MIT
#pragma once

// The local publication as publish sends it: every file by phase, with its SHA-256 and size,
// and what is to be sent, kept and deleted against the manifest a target holds. Not installed.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opskit/error.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/publish.hpp"
#include "publish/manifest.hpp"
#include "tree/generation.hpp"

namespace opskit::repo::publish {

struct Snapshot {
  tree::Generation files; // sources below the publication
  Manifest manifest;      // every file's SHA-256 and size: the target's next manifest
  std::map<std::string, std::string, std::less<>> md5; // of the pool files, from their records
};

// Every regular file below `publication` but temporaries (names starting with '.'). A pool
// file's SHA-256, and its MD5 where the record has one (a deb's), are taken from its record in
// `pool` when the sizes agree (push checked them, and only a command holding the repository's
// lock writes the pool); the others are hashed, on every CPU.
Result<Snapshot> snapshot(const std::string& publication, const std::vector<PackageRecord>& pool);

struct Plan {
  std::vector<const tree::GenerationFile*> upload; // by phase
  // To delete (--delete): files that were no longer published already at the publish before
  std::vector<std::string> stale;
  std::size_t unchanged = 0;
  // The manifest to write: the snapshot's, and the entries of the files the publication no
  // longer has, superseded, until a publish deletes them.
  Manifest next;
};

// What to send to a target that holds `previous` (nothing: unknown, send everything), and
// whether its stale files are to be deleted.
Plan plan(const Snapshot& snapshot, const std::optional<Manifest>& previous,
          DeleteStale delete_stale);

// The MD5 of each file of `files` (hex): a pool file's from the snapshot, the others read
// again on every CPU; the error names a file whose SHA-256 is no longer what the snapshot
// found.
Result<std::vector<std::string>> md5_each(const std::vector<const tree::GenerationFile*>& files,
                                          const Snapshot& snapshot);

} // namespace opskit::repo::publish
