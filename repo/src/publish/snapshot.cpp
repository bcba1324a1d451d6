// SPDX-License-Identifier: MIT
#include "publish/snapshot.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/text.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::publish {

namespace {

// The regular files below `root`, relative to it, with their sizes. The iterator's paths are
// `root` + "/" + the path below it, so no path is resolved.
Result<std::vector<std::pair<std::string, std::uint64_t>>> list_files(const std::string& root) {
  std::vector<std::pair<std::string, std::uint64_t>> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, ec), end;
  if (ec)
    return fail(Error::from_errno("read", root, ec.value()));
  for (; it != end; it.increment(ec)) {
    if (ec)
      return fail(Error::from_errno("read", it->path().string(), ec.value()));
    std::string name = it->path().filename().string();
    if (name.starts_with(".")) { // a temporary, or a repodata/ being built
      if (it->is_directory(ec))
        it.disable_recursion_pending();
      continue;
    }
    auto status = it->symlink_status(ec);
    if (ec || !fs::is_regular_file(status))
      continue;
    std::string path = it->path().string().substr(root.size() + 1);
    if (!is_utf8(path)) // an S3 key, a URL's path and the manifest are UTF-8
      return fail(fmt::format("{}: the name is not UTF-8, which S3 keys and WebDAV paths must be: "
                              "rename or remove it",
                              it->path().string()));
    files.emplace_back(std::move(path), it->file_size(ec));
  }
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace

Result<Snapshot> snapshot(const std::string& publication, const std::vector<PackageRecord>& pool) {
  OPSKIT_TRY_ASSIGN(auto files, list_files(publication));
  std::map<std::string_view, const PackageRecord*> records;
  for (const auto& r : pool)
    records.emplace(r.file, &r);
  Snapshot s;
  std::vector<std::string> digests(files.size());
  for (std::size_t i = 0; i < files.size(); ++i)
    if (auto it = records.find(files[i].first);
        it != records.end() && it->second->size == files[i].second && !it->second->sha256.empty()) {
      digests[i] = it->second->sha256;
      if (!it->second->md5.empty()) // an rpm's record has none: md5_each reads it if it is sent
        s.md5.emplace(files[i].first, it->second->md5);
    }
  std::vector<std::string> errors(files.size());
  detail::hash_each(
      files.size(),
      [&](std::size_t i) -> std::optional<detail::PackageBytes> {
        if (!digests[i].empty())
          return std::nullopt;
        auto bytes = detail::PackageBytes::open(detail::join_path(publication, files[i].first));
        if (!bytes) {
          errors[i] = bytes.error().message();
          return std::nullopt;
        }
        return std::move(*bytes);
      },
      [&](std::size_t i, const Sha256& digest) { digests[i] = hex(digest); });
  for (const auto& e : errors)
    if (!e.empty())
      return fail(e);
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto& [path, size] = files[i];
    s.manifest.emplace(path, ManifestEntry{digests[i], size});
    s.files.add_file(path, detail::join_path(publication, path), size);
  }
  return s;
}

Plan plan(const Snapshot& snapshot, const std::optional<Manifest>& previous,
          DeleteStale delete_stale) {
  Plan p;
  p.next = snapshot.manifest;
  for (const auto* f : snapshot.files.files()) {
    const ManifestEntry& now = snapshot.manifest.find(f->path)->second;
    if (previous)
      // A superseded file may be gone already (a DELETE went through, the manifest after it
      // did not): one the publication has again is sent again.
      if (auto it = previous->find(f->path);
          it != previous->end() && it->second == now && !it->second.superseded) {
        ++p.unchanged;
        continue;
      }
    p.upload.push_back(f);
  }
  // A file the publication no longer has stays listed until it is deleted, which --delete
  // does a publish after the one that superseded it: the target's metadata named it until then.
  if (previous)
    for (const auto& [path, entry] : *previous)
      if (!snapshot.manifest.contains(path)) {
        if (delete_stale == DeleteStale::yes && entry.superseded)
          p.stale.push_back(path);
        ManifestEntry kept = entry;
        kept.superseded = true;
        p.next.emplace(path, std::move(kept));
      }
  return p;
}

Result<std::vector<std::string>> md5_each(const std::vector<const tree::GenerationFile*>& files,
                                          const Snapshot& snapshot) {
  std::vector<std::string> md5(files.size());
  std::vector<std::string> errors(files.size());
  unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  parallel_for(files.size(), workers, [&](std::size_t i) {
    const auto& f = *files[i];
    if (auto known = snapshot.md5.find(f.path); known != snapshot.md5.end()) {
      md5[i] = known->second;
      return;
    }
    auto opened = detail::open_regular(f.source);
    if (!opened) {
      errors[i] = opened.error().message();
      return;
    }
    auto digests = detail::md5_and_sha256(opened->first, 0, opened->second, f.source);
    if (!digests) {
      errors[i] = digests.error().message();
      return;
    }
    if (digests->second != snapshot.manifest.find(f.path)->second.sha256)
      errors[i] = fmt::format("{}: changed while it was being published", f.path);
    md5[i] = std::move(digests->first);
  });
  for (const auto& e : errors)
    if (!e.empty())
      return fail(e);
  return md5;
}

} // namespace opskit::repo::publish
