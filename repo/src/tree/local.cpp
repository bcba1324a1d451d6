// SPDX-License-Identifier: MIT
// Writing a repository's metadata on disk, so that a reader sees one generation or the next.
//
// Every file is staged (written to a temporary name and fsynced) and renamed in an order that
// keeps the published repository consistent for a reader at every instant, also across a
// kill -9: content-addressed files first (by-hash copies, <sha256>-primary.xml.gz), then the
// indexes, then the top-level files that name them (Release, Release.gpg, InRelease).
// Everything is signed in memory before the first rename, so a signing failure publishes
// nothing. The previous generation of content-addressed files is kept, for clients that
// fetched the old top-level file a moment ago; temporary files of a killed run are swept away
// by the next one.
//
// A dnf repository has two top-level files, repomd.xml and its signature repomd.xml.asc, and
// an apt suite three, Release, Release.gpg and InRelease, and no order of renames is safe:
// between two, dnf sees a signature of the other file and refuses the repository, and a suite
// holds a Release that Release.gpg and InRelease do not sign (apt reads InRelease alone, but
// older clients and verify read the pair). So the new repodata/, or dists/<suite>/, is built
// whole beside the current one (".repodata.next-<pid>", ".<suite>.next-<pid>", with hard links
// to the files it keeps) and the two directories are swapped with one
// renameat2(RENAME_EXCHANGE); the old one is then removed. Where the file system cannot exchange
// (EINVAL), the files are renamed into place one by one, in their order.
#include "tree/local.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "layout/paths.hpp"
#include "opskit/handle.hpp"
#include "tree/sweep.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::tree {

using detail::join_path;

namespace {

// Whether paths `a` and `b` name one file.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa = {};
  struct stat sb = {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_ino == sb.st_ino &&
         sa.st_dev == sb.st_dev;
}

// A directory removed, with all it holds, when this is dropped.
class RemovedWhenDone {
public:
  explicit RemovedWhenDone(std::string dir) : dir_(std::move(dir)) {}
  RemovedWhenDone(const RemovedWhenDone&) = delete;
  RemovedWhenDone& operator=(const RemovedWhenDone&) = delete;
  ~RemovedWhenDone() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

private:
  std::string dir_;
};

// Puts a hard link to `from` at `to` in place of whatever is there, or a copy where the file
// system has no hard links.
Result<void> place_link(const std::string& from, const std::string& to) {
  std::string temp = temporary_name(to);
  ::unlink(temp.c_str());
  if (::link(from.c_str(), temp.c_str()) != 0) {
    OPSKIT_TRY_ASSIGN(auto bytes, detail::read_whole(from));
    return write_file_atomic(to, bytes);
  }
  if (::rename(temp.c_str(), to.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return fail(Error::from_errno("rename", to, error));
  }
  return {};
}

// The name of a new generation of directory `current` being built beside it: ".<name>.next-",
// then the pid (".repodata.next-4242", ".bookworm.next-4242").
std::string next_prefix(const std::string& current) {
  return fmt::format(".{}.next-", current.substr(current.rfind('/') + 1));
}

// Stages `files` below `dir`, side by side, each the first time its bytes come: a later file
// with the same bytes (a by-hash copy of an index) is a hard link to the first.
Result<void> stage_all(StagedFiles& staged, const std::string& dir,
                       const std::vector<std::pair<std::string, std::string_view>>& files) {
  std::vector<std::pair<std::string, std::string_view>> written; // path, bytes
  std::vector<std::pair<std::string, std::size_t>> links;        // path, the written one's index
  for (const auto& [name, data] : files) {
    auto same = std::find_if(written.begin(), written.end(), [&](const auto& w) {
      // A by-hash copy is usually a view of its index's bytes: no need to compare them.
      return w.second.size() == data.size() && (w.second.data() == data.data() || w.second == data);
    });
    if (same != written.end())
      links.emplace_back(join_path(dir, name), static_cast<std::size_t>(same - written.begin()));
    else
      written.emplace_back(join_path(dir, name), data);
  }
  OPSKIT_TRY(staged.stage_all(written));
  for (const auto& [path, first] : links)
    OPSKIT_TRY(staged.stage_link(path, written[first].first));
  return {};
}

} // namespace

// The names in directory `dir` with their inode numbers, sorted; none when it cannot be read.
std::vector<std::pair<std::string, ino_t>> file_inodes(const std::string& dir) {
  std::vector<std::pair<std::string, ino_t>> names;
  CPtr<DIR, ::closedir> d(::opendir(dir.c_str()));
  if (!d)
    return names;
  while (const dirent* e = ::readdir(d.get()))
    names.emplace_back(e->d_name, e->d_ino);
  std::sort(names.begin(), names.end());
  return names;
}

// Links the noarch packages `which` of `rows` into `dir`/Packages/ (`dir` below `root`),
// leaving alone a link already there to the same file: Check::yes finds them by listing the
// directories (a whole index links thousands), Check::no with a stat of each.
Result<std::vector<std::string>> link_packages(const std::string& root, const std::string& dir,
                                               const YumRows& rows,
                                               std::span<const std::size_t> which, Check check) {
  std::vector<std::string> made;
  if (which.empty())
    return made;
  std::string packages = fmt::format("{}/{}/Packages", root, dir);
  OPSKIT_TRY(make_directories(packages));
  remove_stale_temporaries(packages, Depth::here); // links a killed run left half made
  using Inodes = std::vector<std::pair<std::string, ino_t>>;
  std::map<std::string, Inodes> sources; // directory -> its files
  Inodes present;
  if (check == Check::yes)
    present = file_inodes(packages);
  auto inode = [](const Inodes& in, std::string_view name) -> ino_t {
    auto it = std::lower_bound(in.begin(), in.end(), name,
                               [](const auto& e, std::string_view n) { return e.first < n; });
    return it != in.end() && it->first == name ? it->second : 0;
  };
  for (std::size_t i : which) {
    std::string_view file = rows.rows[i].file;
    auto slash = file.rfind('/');
    std::string_view name = file.substr(slash + 1);
    std::string from = fmt::format("{}/{}", root, file);
    std::string to = fmt::format("{}/{}", packages, name);
    bool there = false;
    if (check == Check::yes) {
      std::string source_dir = fmt::format("{}/{}", root, file.substr(0, slash));
      auto [it, added] = sources.try_emplace(source_dir);
      if (added)
        it->second = file_inodes(source_dir);
      ino_t at = inode(present, name);
      if (at != 0 && at == inode(it->second, name))
        continue;
      there = at != 0;
    } else if (same_file(from, to)) {
      continue;
    } else {
      there = ::access(to.c_str(), F_OK) == 0;
    }
    if (auto placed = place_link(from, to); !placed) {
      for (const auto& link : made)
        ::unlink(link.c_str());
      return fail(placed.error());
    }
    if (!there)
      made.push_back(std::move(to));
  }
  return made;
}

// Where the texts of the runs of packages of dnf repository `dir` ("rpm/el/9/x86_64") are kept
// between rewrites (see build_yum_repo), named by their member's key.
std::string yum_text_dir(std::string_view dir) {
  return fmt::format("{}/yum/{}", detail::k_state_dir, dir);
}

// Writes `files` (name -> bytes) and hard links to `kept` files of `current` into a new
// directory beside it, then puts that directory in its place with one exchange (see the top of
// this file). `current` may not exist yet. Files already in `staged` are committed with the
// new directory's, before the exchange.
Result<void> replace_directory(const std::string& parent, const std::string& current,
                               const std::vector<std::string>& kept,
                               const std::vector<std::pair<std::string, std::string_view>>& files,
                               StagedFiles staged) {
  OPSKIT_TRY(make_directories(parent));
  std::error_code ec;
  // Directories a killed run left, with whatever generation they hold.
  std::string prefix = next_prefix(current);
  for (const auto& e : fs::directory_iterator(parent, ec))
    if (e.path().filename().string().starts_with(prefix))
      fs::remove_all(e.path(), ec);
  std::string next = fmt::format("{}/{}{}", parent, prefix, ::getpid());
  if (::mkdir(next.c_str(), 0755) != 0)
    return fail(Error::from_errno("mkdir", next));
  // Gone when this returns: put in place, or holding the previous generation after the
  // exchange, or what a failure (a full disk) left half made.
  RemovedWhenDone next_guard{next};
  for (const auto& name : kept) {
    std::string from = join_path(current, name), to = join_path(next, name);
    OPSKIT_TRY(make_directories(fs::path(to).parent_path().string()));
    if (::link(from.c_str(), to.c_str()) != 0 && errno != ENOENT &&
        !fs::copy_file(from, to, ec)) // a file system without hard links
      return fail(Error::from_errno("copy", from, ec.value()));
  }
  OPSKIT_TRY(stage_all(staged, next, files));
  OPSKIT_TRY(staged.commit());
  if (::access(current.c_str(), F_OK) != 0) {
    if (::rename(next.c_str(), current.c_str()) != 0)
      return fail(Error::from_errno("rename", next));
  } else if (::renameat2(AT_FDCWD, next.c_str(), AT_FDCWD, current.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL)
      return fail(Error::from_errno("exchange", current));
    // No exchange here: the new files, already on disk in `next`, move over one by one in
    // their order, then the old ones go.
    for (const auto& [name, data] : files) {
      std::string to = join_path(current, name);
      OPSKIT_TRY(make_directories(fs::path(to).parent_path().string()));
      if (::rename(join_path(next, name).c_str(), to.c_str()) != 0)
        return fail(Error::from_errno("rename", to));
    }
    OPSKIT_TRY(fsync_directory(current));
    std::set<std::string> keep(kept.begin(), kept.end());
    for (const auto& [name, data] : files)
      keep.insert(name);
    for (const auto& e : fs::recursive_directory_iterator(current, ec))
      if (e.is_regular_file(ec) && !keep.contains(fs::relative(e.path(), current, ec).string()))
        fs::remove(e.path(), ec);
  }
  return fsync_directory(parent);
}

} // namespace opskit::repo::tree
