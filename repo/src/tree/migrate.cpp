// SPDX-License-Identifier: MIT
// The move of a repository of the first layout to the current one.
//
// The first layout kept the publication (deb/, rpm/, gpg.key, gpg.gpg) at the repository's top,
// beside .pkgcloud/, so that serving or syncing the repository's directory, as the documents
// then said to, published the state database and the secret signing key with it. The current
// layout keeps the publication in public/. The move must survive kill -9 (or a crash) at any
// moment, and no sequence of renames of four entries is atomic, so it builds before it commits:
//
//   1. note that the entries at the top are the old publication (.pkgcloud/moving-to-public);
//   2. build the new tree in .pkgcloud/public.new of hard links to every file, so no byte is
//      copied, and sync it to disk;
//   3. rename it to public/: the one step that changes the layout;
//   4. remove the old entries, then the note.
//
// Killed before step 3, the old layout is whole and the next run starts again (public.new is
// pkgcloud's own to throw away); killed after it, the new layout is whole, and the note tells
// the next run that the entries at the top are what the move left, not files of the user's.
// Hard links keep each file's identity: a noarch rpm linked into every arch stays one file.
#include "tree/migrate.hpp"

#include "layout/paths.hpp"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/atomic_file.hpp"
#include "opskit/handle.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::detail {

namespace {

constexpr const char* k_old_entries[] = {"deb", "rpm", "gpg.key", "gpg.gpg"};
constexpr const char* k_note = "/moving-to-public";
constexpr const char* k_staging = "/public.new";

Error fs_error(std::string_view op, const fs::path& path, const std::error_code& ec) {
  return Error::from_errno(op, path.string(), ec.value());
}

Result<bool> exists(const std::string& path) {
  if (::access(path.c_str(), F_OK) == 0)
    return true;
  if (errno == ENOENT)
    return false;
  return fail(Error::from_errno("access", path));
}

// Puts everything written to the file system that holds `path` on disk: one syncfs rather
// than an fsync of each of the pool's thousands of directories.
Result<void> sync_file_system(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd || ::syncfs(fd.get()) != 0)
    return fail(Error::from_errno("sync", path));
  return {};
}

Result<void> remove_old_entries(const std::string& root) {
  for (const char* entry : k_old_entries) {
    std::error_code ec;
    fs::path path = fs::path(root) / entry;
    if (fs::remove_all(path, ec) == static_cast<std::uintmax_t>(-1))
      return fail(fs_error("remove", path, ec));
  }
  OPSKIT_TRY(fsync_directory(root));
  if (std::string note = state_dir(root) + k_note; ::unlink(note.c_str()) != 0 && errno != ENOENT)
    return fail(Error::from_errno("remove", note));
  return {};
}

Result<void> link_old_publication(const std::string& root, const std::string& staging) {
  std::error_code ec;
  fs::remove_all(staging, ec);
  if (ec)
    return fail(fs_error("remove", staging, ec));
  OPSKIT_TRY(make_directories(staging));
  for (const char* entry : k_old_entries) {
    fs::path from = fs::path(root) / entry;
    if (!fs::exists(fs::symlink_status(from, ec)))
      continue;
    fs::copy(from, fs::path(staging) / entry,
             fs::copy_options::recursive | fs::copy_options::create_hard_links |
                 fs::copy_options::copy_symlinks,
             ec);
    if (ec)
      return fail(fs_error("link", from, ec));
  }
  return sync_file_system(staging);
}

Result<void> move_publication(const std::string& root) {
  std::string state = state_dir(root), publication = publication_dir(root);
  std::string staging = state + k_staging;
  OPSKIT_TRY(write_file_atomic(state + k_note, "deb rpm gpg.key gpg.gpg\n"));
  OPSKIT_TRY(link_old_publication(root, staging));
  if (::rename(staging.c_str(), publication.c_str()) != 0)
    return fail(Error::from_errno("rename", staging));
  OPSKIT_TRY(fsync_directory(root));
  OPSKIT_TRY(fsync_directory(state));
  return remove_old_entries(root);
}

// What the repository at `root` needs to reach the current layout.
enum class Step { none, move, finish };

Result<Step> next_step(const std::string& root) {
  OPSKIT_TRY_ASSIGN(auto has_publication, exists(publication_dir(root)));
  if (!has_publication)
    return Step::move;
  auto noted = exists(state_dir(root) + k_note);
  if (!noted)
    return fail(noted.error());
  return *noted ? Step::finish : Step::none;
}

} // namespace

Result<Moved> settle_layout(const std::string& root) {
  auto step = next_step(root);
  if (!step)
    return fail(step.error());
  if (*step == Step::none)
    return Moved::nothing;
  std::string context = "move the publication of " + root + " into " + publication_dir(root);
  auto lock = FileLock::acquire(lock_file(root));
  if (!lock)
    return fail(lock.error().with_context(context));
  step = next_step(root); // another run may have moved it while this one waited for the lock
  if (!step)
    return fail(step.error());
  if (*step == Step::none)
    return Moved::nothing;
  auto done = *step == Step::move ? move_publication(root) : remove_old_entries(root);
  if (!done)
    return fail(done.error().with_context(context));
  return Moved::publication;
}

} // namespace opskit::repo::detail
