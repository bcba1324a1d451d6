// SPDX-License-Identifier: MIT
// Publishing a repository's metadata: apt suites, dnf repositories and the public key.
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
// no order of two renames is safe: between them dnf sees a signature of the other file and
// refuses the repository. So the new repodata/ is built whole beside the current one
// (".repodata.next-<pid>", with hard links to the files it keeps) and the two directories
// are swapped with one renameat2(RENAME_EXCHANGE); the old one is then removed. Where the file
// system cannot exchange (EINVAL), the files are renamed into repodata/ one by one, the
// signature first.
#include <algorithm>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "opskit/atomic_file.hpp"
#include "opskit/handle.hpp"
#include "opskit/repo/apt_index.hpp"
#include "repository_detail.hpp"

namespace fs = std::filesystem;

namespace opskit::repo {

using detail::join_path;

namespace {

// Removes temporary files that a killed run left below `dir` (".<name>.tmp-<pid>", see
// StagedFiles). Only called under the repository's lock, so no live writer owns any of them.
void remove_stale_temporaries(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> stale;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.starts_with(".") && name.find(".tmp-") != std::string::npos && e.is_regular_file(ec))
      stale.push_back(e.path());
  }
  for (const auto& path : stale)
    fs::remove(path, ec);
}

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

// Whether paths `a` and `b` name one file.
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa = {};
  struct stat sb = {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_ino == sb.st_ino &&
         sa.st_dev == sb.st_dev;
}

// Puts a hard link to `from` at `to` in place of whatever is there, or a copy where the file
// system has no hard links.
Result<void> place_link(const std::string& from, const std::string& to) {
  std::string temp = temporary_name(to);
  ::unlink(temp.c_str());
  if (::link(from.c_str(), temp.c_str()) != 0) {
    auto bytes = detail::read_whole(from);
    if (!bytes)
      return fail(bytes.error());
    return write_file_atomic(to, *bytes);
  }
  if (::rename(temp.c_str(), to.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return fail(Error::from_errno("rename", to, error));
  }
  return {};
}

// Links the noarch packages `which` of `rows` into `dir`/Packages/ (`dir` below `root`),
// leaving alone a link already there to the same file: Check::yes finds them by listing the
// directories (a whole index links thousands), Check::no with a stat of each.
enum class Check { no, yes };
Result<void> link_packages(const std::string& root, const std::string& dir, const YumRows& rows,
                           std::span<const std::size_t> which, Check check) {
  if (which.empty())
    return {};
  std::string packages = fmt::format("{}/{}/Packages", root, dir);
  if (auto made = make_directories(packages); !made)
    return made;
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
    if (check == Check::yes) {
      std::string source_dir = fmt::format("{}/{}", root, file.substr(0, slash));
      auto [it, added] = sources.try_emplace(source_dir);
      if (added)
        it->second = file_inodes(source_dir);
      if (ino_t at = inode(present, name); at != 0 && at == inode(it->second, name))
        continue;
    } else if (same_file(from, to)) {
      continue;
    }
    if (auto ok = place_link(from, to); !ok)
      return ok;
  }
  return {};
}

constexpr std::string_view k_next_repodata = ".repodata.next-";

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
  if (auto made = make_directories(parent); !made)
    return made;
  std::error_code ec;
  // Directories a killed run left, with whatever generation they hold.
  for (const auto& e : fs::directory_iterator(parent, ec))
    if (e.path().filename().string().starts_with(k_next_repodata))
      fs::remove_all(e.path(), ec);
  std::string next = fmt::format("{}/{}{}", parent, k_next_repodata, ::getpid());
  if (::mkdir(next.c_str(), 0755) != 0)
    return fail(Error::from_errno("mkdir", next));
  for (const auto& name : kept) {
    std::string from = join_path(current, name), to = join_path(next, name);
    if (::link(from.c_str(), to.c_str()) != 0 && errno != ENOENT &&
        !fs::copy_file(from, to, ec)) // a file system without hard links
      return fail(Error::from_errno("copy", from, ec.value()));
  }
  for (const auto& [name, data] : files)
    if (auto ok = staged.stage(join_path(next, name), data); !ok)
      return ok;
  if (auto ok = staged.commit(); !ok) // fsyncs every file and `next` itself
    return ok;
  if (::access(current.c_str(), F_OK) != 0) {
    if (::rename(next.c_str(), current.c_str()) != 0)
      return fail(Error::from_errno("rename", next));
  } else if (::renameat2(AT_FDCWD, next.c_str(), AT_FDCWD, current.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL)
      return fail(Error::from_errno("exchange", current));
    // No exchange here: the new files, already on disk in `next`, move over one by one in
    // their order, then the old ones go.
    for (const auto& [name, data] : files)
      if (::rename(join_path(next, name).c_str(), join_path(current, name).c_str()) != 0)
        return fail(Error::from_errno("rename", join_path(current, name)));
    if (auto ok = fsync_directory(current); !ok)
      return ok;
    std::set<std::string> keep(kept.begin(), kept.end());
    for (const auto& [name, data] : files)
      keep.insert(name);
    for (const auto& e : fs::directory_iterator(current, ec))
      if (!keep.contains(e.path().filename().string()))
        fs::remove(e.path(), ec);
  }
  if (auto ok = fsync_directory(parent); !ok)
    return ok;
  fs::remove_all(next, ec); // the previous generation, now under the temporary name
  return {};
}

} // namespace

using detail::PackageBytes;
using detail::read_whole;
using detail::release_hashes;
using detail::rpm_fragments;

Result<void> Repository::write_public_key(Signer& signer) {
  auto armored = signer.keyring.export_key(signer.fingerprint, Armor::yes);
  if (!armored)
    return fail(armored.error());
  auto binary = signer.keyring.export_key(signer.fingerprint, Armor::no);
  if (!binary)
    return fail(binary.error());
  StagedFiles files;
  for (auto [name, data] : {std::pair{"gpg.key", &*armored}, std::pair{"gpg.gpg", &*binary}})
    if (auto ok = files.stage(join_path(root_, name), *data); !ok)
      return ok;
  return files.commit();
}

Result<std::vector<std::string>>
Repository::write_deb_suites(const std::vector<PackageRecord>& records,
                             const std::vector<std::pair<std::string, std::string>>& suites,
                             std::optional<Signer>& signer) {
  // Everything in memory and signed before the first file is touched.
  struct Suite {
    std::string dir; // relative to root: deb/<distro>/dists/<codename>
    AptSuiteIndex index;
    std::string in_release, release_gpg;
    std::size_t packages = 0;
  };
  std::vector<Suite> built;
  for (const auto& [distro, codename] : suites) {
    AptSuiteInput input;
    input.codename = codename;
    input.origin = config_.origin;
    input.label = config_.label;
    input.architectures = config_.architectures;
    input.components = {config_.component};
    input.date = env_.now;
    if (config_.valid_for_days > 0)
      input.valid_until = env_.now + static_cast<std::time_t>(config_.valid_for_days) * 86400;
    std::string dist = fmt::format("{}/{}", distro, codename);
    for (const auto& r : records)
      if (r.format == PackageFormat::deb && r.dist == dist)
        input.packages.push_back(r);
    auto index = build_apt_suite(input);
    if (!index)
      return fail(index.error());
    Suite suite{fmt::format("deb/{}/dists/{}", distro, codename), std::move(*index), "", "",
                input.packages.size()};
    if (signer) {
      auto clear = signer->keyring.clear_sign(signer->fingerprint, suite.index.release);
      if (!clear)
        return fail(clear.error().with_context(fmt::format("sign {}/InRelease", suite.dir)));
      auto detached = signer->keyring.detach_sign(signer->fingerprint, suite.index.release);
      if (!detached)
        return fail(detached.error().with_context(fmt::format("sign {}/Release.gpg", suite.dir)));
      suite.in_release = std::move(*clear);
      suite.release_gpg = std::move(*detached);
    }
    built.push_back(std::move(suite));
  }

  std::vector<std::string> report;
  for (const auto& suite : built) {
    std::string dir = join_path(root_, suite.dir);
    remove_stale_temporaries(dir);
    // The previous generation's hashes stay fetchable by-hash for clients holding the old Release.
    std::set<std::string> keep;
    if (auto old = read_file(join_path(dir, "Release")))
      for (const char* list : {"SHA256", "SHA512"})
        for (const auto& [path, entry] : release_hashes(*old, list))
          keep.insert(entry.second);
    StagedFiles files;
    std::set<std::string> by_hash_dirs;
    for (const auto& f : suite.index.files) {
      std::string path = join_path(dir, f.path);
      if (auto at = f.path.find("/by-hash/"); at != std::string::npos) {
        auto slash = f.path.rfind('/');
        keep.insert(f.path.substr(slash + 1));
        by_hash_dirs.insert(join_path(dir, f.path.substr(0, slash)));
        if (::access(path.c_str(), F_OK) == 0)
          continue; // content-addressed: already there is already right
      }
      if (auto ok = files.stage(path, f.data); !ok)
        return fail(ok.error());
    }
    if (auto ok = files.stage(join_path(dir, "Release"), suite.index.release); !ok)
      return fail(ok.error());
    if (signer) {
      if (auto ok = files.stage(join_path(dir, "Release.gpg"), suite.release_gpg); !ok)
        return fail(ok.error());
      if (auto ok = files.stage(join_path(dir, "InRelease"), suite.in_release); !ok)
        return fail(ok.error());
    }
    if (auto ok = files.commit(); !ok)
      return fail(ok.error());
    if (!signer) { // signatures of an older Release would now be wrong
      ::unlink(join_path(dir, "InRelease").c_str());
      ::unlink(join_path(dir, "Release.gpg").c_str());
    }
    std::error_code ec;
    for (const auto& by_hash : by_hash_dirs)
      for (const auto& entry : fs::directory_iterator(by_hash, ec))
        if (!keep.contains(entry.path().filename().string()))
          fs::remove(entry.path(), ec);
    report.push_back(fmt::format("{}: {} packages", suite.dir, suite.packages));
  }
  return report;
}

Result<std::vector<std::string>> Repository::write_rpm_dists(const std::set<std::string>& dists,
                                                             std::optional<Signer>& signer,
                                                             Reuse reuse) {

  struct Built {
    std::string dir; // rpm/<distro>/<version>/<arch>
    YumIndex index;
    std::string signature;
    std::size_t packages = 0;
    const YumRows* rows = nullptr;
    std::vector<std::size_t> links;    // rows of noarch packages to link into this repo
    std::vector<RepomdEntry> previous; // what the current repomd.xml lists
  };
  std::vector<Built> built;
  std::deque<YumRows> dist_rows;
  std::deque<PackageBytes> kept_texts; // the files and texts of runs that new files copy
  std::deque<YumFragments> written;    // fragments of rows recorded without them; stable
  for (const auto& dist : dists) {
    // One repository per architecture; noarch packages belong to each, sources to SRPMS.
    std::set<std::string> arches(config_.rpm_architectures.begin(),
                                 config_.rpm_architectures.end());
    // A rewrite reads the fragments only of the runs it compresses anew.
    auto read =
        state_.yum_rows(dist, reuse == Reuse::previous ? State::Text::none : State::Text::all);
    if (!read)
      return fail(read.error());
    YumRows& rows = dist_rows.emplace_back(std::move(*read));
    for (const auto& r : rows.rows)
      if (r.arch != "noarch")
        arches.insert(r.arch == "src" ? "SRPMS" : std::string(r.arch));
    // Gives the fragments of `entries` (their source is their row), written from the metadata
    // where the row has none, and notes their rows in `filled`.
    std::vector<std::size_t> filled;
    YumFill fill = [&](std::span<YumEntry* const> entries) -> Result<void> {
      std::vector<std::size_t> which;
      for (const YumEntry* e : entries)
        which.push_back(e->source);
      filled.insert(filled.end(), which.begin(), which.end());
      if (auto ok = state_.read_text(rows, which); !ok)
        return ok;
      for (YumEntry* e : entries) {
        const YumRows::Row& r = rows.rows[e->source];
        e->xml = {r.primary, r.filelists, r.other};
        if (!e->xml.primary.empty())
          continue;
        auto rpm = rpm_from_json(std::string(r.metadata));
        auto made = rpm ? rpm_fragments(std::move(*rpm), r.file, r.size, std::string(r.sha256))
                        : fail(rpm.error());
        if (!made)
          return fail(made.error().with_context(r.file));
        const YumFragments& f = written.emplace_back(std::move(*made));
        e->xml = {f.primary, f.filelists, f.other};
      }
      return {};
    };
    for (const auto& arch : arches) {
      Built b;
      b.dir = fmt::format("rpm/{}/{}", dist, arch);
      std::vector<YumEntry> packages;
      packages.reserve(rows.rows.size());
      std::vector<std::size_t> links; // noarch rows
      for (std::size_t i = 0; i < rows.rows.size(); ++i) {
        const YumRows::Row& r = rows.rows[i];
        std::string_view dir = r.arch == "src" ? "SRPMS" : r.arch;
        if (dir != arch && !(r.arch == "noarch" && arch != "SRPMS"))
          continue;
        if (dir != arch)
          links.push_back(i);
        packages.push_back({r.name,
                            r.version,
                            r.arch,
                            r.sha256,
                            r.file,
                            r.size,
                            {r.primary, r.filelists, r.other},
                            i});
      }
      b.packages = packages.size();
      std::string dir = join_path(root_, b.dir);
      if (auto old = read_file(join_path(dir, "repodata/repomd.xml")))
        if (auto entries = parse_repomd(*old))
          b.previous = std::move(*entries);
      YumPrevious previous;
      if (reuse == Reuse::previous) {
        for (const auto& e : b.previous) {
          std::string_view* into = e.type == "primary"     ? &previous.primary
                                   : e.type == "filelists" ? &previous.filelists
                                   : e.type == "other"     ? &previous.other
                                                           : nullptr;
          if (!into)
            continue;
          if (auto bytes = PackageBytes::open(join_path(dir, e.location), 0);
              bytes && bytes->view().size() == e.size)
            *into = kept_texts.emplace_back(std::move(*bytes)).view();
        }
        previous.text = [&, texts = join_path(root_, yum_text_dir(b.dir))](
                            std::string_view name,
                            std::size_t size) -> std::optional<std::string_view> {
          auto bytes = PackageBytes::open(join_path(texts, name), 0);
          if (!bytes || bytes->view().size() != size)
            return std::nullopt;
          return kept_texts.emplace_back(std::move(*bytes)).view();
        };
      }
      filled.clear();
      auto index = build_yum_repo(std::move(packages), env_.now, previous, fill);
      if (!index)
        return fail(index.error());
      b.index = std::move(*index);
      // A rewrite links the packages of the runs it wrote anew (a --replace'd noarch package
      // among them, whose old link still holds its old content); the others were published
      // with their links before.
      if (reuse == Reuse::previous) {
        std::sort(filled.begin(), filled.end());
        std::erase_if(links, [&](std::size_t i) {
          return !std::binary_search(filled.begin(), filled.end(), i);
        });
      }
      b.rows = &rows;
      b.links = std::move(links);
      if (signer) {
        auto signature = signer->keyring.detach_sign(signer->fingerprint, b.index.repomd);
        if (!signature)
          return fail(
              signature.error().with_context(fmt::format("sign {}/repodata/repomd.xml", b.dir)));
        b.signature = std::move(*signature);
      }
      built.push_back(std::move(b));
    }
  }

  std::vector<std::string> report;
  for (const auto& b : built) {
    std::string dir = join_path(root_, b.dir);
    if (auto ok = link_packages(root_, b.dir, *b.rows, b.links,
                                reuse == Reuse::previous ? Check::no : Check::yes);
        !ok)
      return fail(ok.error());
    // Files the previous repomd.xml names stay for clients that hold it.
    std::vector<std::string> kept;
    for (const auto& e : b.previous)
      if (std::string_view name = e.location; name.starts_with("repodata/")) {
        name.remove_prefix(std::string_view("repodata/").size());
        if (!name.empty() && name[0] != '.' && name.find('/') == std::string_view::npos)
          kept.emplace_back(name);
      }
    std::vector<std::pair<std::string, std::string_view>> files;
    for (const auto& f : b.index.files) // "repodata/<sha256>-primary.xml.gz", ...
      files.emplace_back(f.path.substr(f.path.find('/') + 1), f.data);
    if (signer)
      files.emplace_back("repomd.xml.asc", b.signature);
    files.emplace_back("repomd.xml", b.index.repomd);
    // A rewrite keeps the texts of the runs it compressed, for the next one, on disk before
    // the files that hold them are published; the texts of runs no longer published go after
    // them. A whole index keeps none and drops those there were: the first rewrite after it
    // compresses everything.
    std::string texts = join_path(root_, yum_text_dir(b.dir));
    StagedFiles staged;
    if (reuse == Reuse::previous) {
      if (auto made = make_directories(texts); !made)
        return fail(made.error());
      for (const auto& t : b.index.texts)
        if (auto ok = staged.stage(join_path(texts, t.path), t.data); !ok)
          return fail(ok.error());
    }
    if (auto ok =
            replace_directory(dir, join_path(dir, "repodata"), kept, files, std::move(staged));
        !ok)
      return fail(ok.error());
    if (reuse == Reuse::previous) {
      std::set<std::string_view> live(b.index.text_names.begin(), b.index.text_names.end());
      for (const auto& [name, inode] : file_inodes(texts))
        if (name != "." && name != ".." && !live.contains(name))
          ::unlink(join_path(texts, name).c_str());
    } else { // a damaged text must not outlive the index that repairs what it caused
      std::error_code ec;
      fs::remove_all(texts, ec);
    }
    report.push_back(fmt::format("{}: {} packages", b.dir, b.packages));
  }
  return report;
}

} // namespace opskit::repo
