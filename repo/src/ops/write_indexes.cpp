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
#include "opskit/repo/index/apt/suite.hpp"
#include "ops/detail.hpp"

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

// Links the noarch packages `which` of `rows` into `dir`/Packages/ (`dir` below `root`),
// leaving alone a link already there to the same file: Check::yes finds them by listing the
// directories (a whole index links thousands), Check::no with a stat of each.
enum class Check { no, yes };
Result<void> link_packages(const std::string& root, const std::string& dir, const YumRows& rows,
                           std::span<const std::size_t> which, Check check) {
  if (which.empty())
    return {};
  std::string packages = fmt::format("{}/{}/Packages", root, dir);
  OPSKIT_TRY(make_directories(packages));
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
    OPSKIT_TRY(place_link(from, to));
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
  OPSKIT_TRY(make_directories(parent));
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
    OPSKIT_TRY(staged.stage(join_path(next, name), data));
  OPSKIT_TRY(staged.commit());
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
    OPSKIT_TRY(fsync_directory(current));
    std::set<std::string> keep(kept.begin(), kept.end());
    for (const auto& [name, data] : files)
      keep.insert(name);
    for (const auto& e : fs::directory_iterator(current, ec))
      if (!keep.contains(e.path().filename().string()))
        fs::remove(e.path(), ec);
  }
  OPSKIT_TRY(fsync_directory(parent));
  fs::remove_all(next, ec); // the previous generation, now under the temporary name
  return {};
}

// True if an rpm of `arch` goes into repository `repository`: its own, and noarch ones into
// each binary repository.
bool belongs(std::string_view arch, std::string_view repository) {
  return detail::rpm_repository_of(arch) == repository ||
         (arch == "noarch" && repository != detail::k_source_repository);
}

YumEntry entry_of(const YumRows& rows, std::size_t i) {
  const YumRows::Row& r = rows.rows[i];
  return {r.name, r.version, r.arch, r.sha256, r.file, r.size, {r.primary, r.filelists, r.other},
          i};
}

YumEntry entry_of(const YumIdentity& id) {
  return {id.name, id.version, id.arch, {}, {}, 0, {}, 0};
}

bool same_identity(const YumEntry& a, const YumIdentity& b) {
  return a.name == b.name && a.evr == b.version && a.arch == b.arch;
}

// What a rewrite builds one dnf repository from: its runs, each carried (key and size from
// the saved run) or made anew from rows read, and what to save of them for the next one.
struct RepositoryPlan {
  std::vector<YumRun> runs;
  std::vector<YumRunRecord> records;
  // For each run, the identities it lies after (exclusive) and up to (inclusive), which
  // find its rows again when a carried run must be compressed anew.
  std::vector<std::pair<std::optional<YumIdentity>, std::optional<YumIdentity>>> ranges;
  std::size_t packages = 0;

  void add(YumRun run, std::optional<YumIdentity> after, std::optional<YumIdentity> upto,
           YumRunRecord record) {
    packages += run.packages;
    runs.push_back(std::move(run));
    ranges.emplace_back(std::move(after), std::move(upto));
    records.push_back(std::move(record));
  }
};

YumIdentity identity_of(const YumEntry& e) {
  return {std::string(e.name), std::string(e.evr), std::string(e.arch)};
}

// The plan of a repository whose every run is made anew from `entries`.
RepositoryPlan plan_all(std::vector<YumEntry> entries) {
  RepositoryPlan plan;
  std::optional<YumIdentity> after;
  for (auto& run : yum_runs(std::move(entries))) {
    YumIdentity last = identity_of(run.entries.back());
    YumRunRecord record{last, run.key, run.packages};
    plan.add(std::move(run), after, last, std::move(record));
    after = std::move(last);
  }
  if (!plan.ranges.empty())
    plan.ranges.back().second.reset(); // the last run takes whatever follows
  return plan;
}

// The entries of repository `arch` of `dist` after `after` and up to `upto` (open where not
// given), read into `rows`.
Result<std::vector<YumEntry>> entries_between(const State& state, const std::string& dist,
                                              std::string_view arch,
                                              const std::optional<YumIdentity>& after,
                                              const std::optional<YumIdentity>& upto,
                                              YumRows& rows) {
  std::size_t first = rows.rows.size();
  std::optional<std::string_view> last_name;
  if (upto)
    last_name = upto->name;
  OPSKIT_TRY(state.yum_rows_between(dist, after ? after->name : "", last_name, rows));
  std::optional<YumEntry> low, high;
  if (after)
    low = entry_of(*after);
  if (upto)
    high = entry_of(*upto);
  std::vector<YumEntry> out;
  for (std::size_t i = first; i < rows.rows.size(); ++i) {
    YumEntry e = entry_of(rows, i);
    if (belongs(e.arch, arch) && (!low || yum_before(*low, e)) && (!high || !yum_before(*high, e)))
      out.push_back(e);
  }
  return out;
}

// The plan of repository `arch` from its saved runs and the identities changed since: the
// runs that hold a changed identity (and the run after one whose last package changed, which
// it may now join) are made anew from the rows between their neighbours, the others carried.
// Nothing when the saved runs cannot tell (a run made anew that does not end as a run must).
Result<std::optional<RepositoryPlan>> plan_since(const State& state, const std::string& dist,
                                                 std::string_view arch,
                                                 const std::vector<YumRunRecord>& saved,
                                                 const std::vector<YumIdentity>& changed,
                                                 YumRows& rows) {
  if (saved.empty()) { // an empty repository: whatever it holds now is made anew
    if (std::none_of(changed.begin(), changed.end(),
                     [&](const YumIdentity& id) { return belongs(id.arch, arch); }))
      return RepositoryPlan{};
    OPSKIT_TRY_ASSIGN(auto entries,
                      entries_between(state, dist, arch, std::nullopt, std::nullopt, rows));
    return plan_all(std::move(entries));
  }
  std::vector<YumEntry> lasts;
  for (const auto& run : saved)
    lasts.push_back(entry_of(run.last));
  std::vector<bool> anew(saved.size(), false);
  for (const auto& id : changed) {
    if (!belongs(id.arch, arch))
      continue;
    YumEntry e = entry_of(id);
    auto at =
        std::min(static_cast<std::size_t>(
                     std::lower_bound(lasts.begin(), lasts.end(), e, yum_before) - lasts.begin()),
                 saved.size() - 1); // after the last run's last: the last run
    anew[at] = true;
    if (same_identity(lasts[at], id) && at + 1 < saved.size())
      anew[at + 1] = true;
  }
  RepositoryPlan plan;
  for (std::size_t i = 0; i < saved.size();) {
    std::optional<YumIdentity> after;
    if (i > 0)
      after = saved[i - 1].last;
    if (!anew[i]) {
      std::optional<YumIdentity> upto;
      if (i + 1 < saved.size())
        upto = saved[i].last;
      plan.add({saved[i].key, saved[i].packages, {}}, after, upto, saved[i]);
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < saved.size() && anew[end])
      ++end;
    std::optional<YumIdentity> upto;
    if (end < saved.size())
      upto = saved[end - 1].last;
    OPSKIT_TRY_ASSIGN(auto entries, entries_between(state, dist, arch, after, upto, rows));
    if (upto && (entries.empty() || !yum_run_ends(entries.back())))
      return std::nullopt;
    RepositoryPlan part = plan_all(std::move(entries));
    for (std::size_t r = 0; r < part.runs.size(); ++r) {
      auto [low, high] = std::move(part.ranges[r]);
      plan.add(std::move(part.runs[r]), r == 0 ? after : std::move(low),
               r + 1 == part.runs.size() ? upto : std::move(high), std::move(part.records[r]));
    }
    i = end;
  }
  return plan;
}

// Past this many records changed since the runs were saved, reading every row costs less.
constexpr std::size_t k_most_changed = 512;

// The plan of each dnf repository of `dist` (by its directory's name) from the saved runs and
// the records changed since, when they tell it all: every repository there must be (`kept`)
// has its runs saved, and no package changed belongs to a new one.
Result<std::optional<std::map<std::string, RepositoryPlan>>>
plan_from_saved(const State& state, const std::string& dist, const YumTracked& tracked,
                const std::set<std::string>& kept, YumRows& rows) {
  if (tracked.changed.size() > k_most_changed)
    return std::nullopt;
  for (const auto& arch : kept)
    if (!tracked.runs.contains(arch))
      return std::nullopt;
  for (const auto& id : tracked.changed)
    if (id.arch != "noarch" &&
        !tracked.runs.contains(std::string(detail::rpm_repository_of(id.arch))))
      return std::nullopt;
  std::map<std::string, RepositoryPlan> plans;
  for (const auto& [arch, saved] : tracked.runs) {
    OPSKIT_TRY_ASSIGN(auto plan, plan_since(state, dist, arch, saved, tracked.changed, rows));
    if (!plan)
      return std::nullopt;
    plans.emplace(arch, std::move(*plan));
  }
  return plans;
}

// The plans of a dist's dnf repositories, by directory name, and when they come from saved
// runs, the identities changed since, sorted.
struct DistPlan {
  std::map<std::string, RepositoryPlan> repositories;
  std::optional<std::vector<YumIdentity>> changed;

  // True unless `r`'s record is known not to have changed since the runs were saved.
  bool changed_since(const YumRows::Row& r) const {
    if (!changed)
      return true;
    using Key = std::tuple<std::string_view, std::string_view, std::string_view>;
    auto key = [](const auto& x) { return Key(x.name, x.version, x.arch); };
    auto it = std::lower_bound(changed->begin(), changed->end(), key(r),
                               [&](const YumIdentity& id, const Key& k) { return key(id) < k; });
    return it != changed->end() && key(*it) == key(r);
  }
};

// The plan of each dnf repository of `dist`: in a rewrite from the saved runs where they tell
// it, else every run made anew from every row (with its fragments in a whole index). One
// repository per architecture of a package, and one for each in `kept`: those configured and
// those published, which stay when their last package of their own goes (their clients still
// read them, and noarch packages still belong to them). noarch packages belong to each binary
// repository, sources to SRPMS.
Result<DistPlan> plan_dist(const State& state, const std::string& dist,
                           const std::set<std::string>& kept, bool rewrite, YumRows& rows) {
  if (rewrite) {
    OPSKIT_TRY_ASSIGN(auto tracked, state.yum_tracked(dist));
    if (tracked) {
      OPSKIT_TRY_ASSIGN(auto plans, plan_from_saved(state, dist, *tracked, kept, rows));
      if (plans)
        return DistPlan{std::move(*plans), std::move(tracked->changed)};
    }
  }
  OPSKIT_TRY_ASSIGN(auto read,
                    state.yum_rows(dist, rewrite ? State::Text::none : State::Text::all));
  rows = std::move(read);
  std::set<std::string> arches = kept;
  for (const auto& r : rows.rows)
    if (r.arch != "noarch")
      arches.emplace(detail::rpm_repository_of(r.arch));
  std::map<std::string, RepositoryPlan> plans;
  for (const auto& arch : arches) {
    std::vector<YumEntry> entries;
    for (std::size_t i = 0; i < rows.rows.size(); ++i)
      if (belongs(rows.rows[i].arch, arch))
        entries.push_back(entry_of(rows, i));
    plans.emplace(arch, plan_all(std::move(entries)));
  }
  return DistPlan{std::move(plans), std::nullopt};
}

} // namespace

using detail::PackageBytes;
using detail::read_whole;
using detail::release_hashes;
using detail::rpm_fragments;

Result<void> Repository::write_public_key(Signer& signer) {
  OPSKIT_TRY_ASSIGN(auto armored, signer.keyring.export_key(signer.fingerprint, Armor::yes));
  OPSKIT_TRY_ASSIGN(auto binary, signer.keyring.export_key(signer.fingerprint, Armor::no));
  StagedFiles files;
  for (auto [name, data] : {std::pair{"gpg.key", &armored}, std::pair{"gpg.gpg", &binary}})
    OPSKIT_TRY(files.stage(join_path(public_, name), *data));
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
    OPSKIT_TRY_ASSIGN(auto index, build_apt_suite(input));
    Suite suite{detail::deb_suite(distro, codename), std::move(index), "", "",
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
    std::string dir = join_path(public_, suite.dir);
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
      OPSKIT_TRY(files.stage(path, f.data));
    }
    OPSKIT_TRY(files.stage(join_path(dir, "Release"), suite.index.release));
    if (signer) {
      OPSKIT_TRY(files.stage(join_path(dir, "Release.gpg"), suite.release_gpg));
      OPSKIT_TRY(files.stage(join_path(dir, "InRelease"), suite.in_release));
    }
    OPSKIT_TRY(files.commit());
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
    // A rewrite reads the rows only of the runs that changed since the last one saved them
    // (see plan_dist), and their fragments only where it compresses them anew. A whole index
    // reads everything, and drops the saved runs as it drops the kept texts.
    YumRows& rows = dist_rows.emplace_back();
    if (reuse == Reuse::none)
      OPSKIT_TRY(state_.drop_yum_runs(dist));
    // The repositories configured, and those published before (see plan_dist).
    std::set<std::string> kept(config_.rpm_architectures.begin(), config_.rpm_architectures.end());
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(join_path(public_, detail::rpm_dist_dir(dist)), ec))
      if (fs::exists(e.path() / "repodata" / "repomd.xml", ec))
        kept.insert(e.path().filename().string());
    OPSKIT_TRY_ASSIGN(auto plans, plan_dist(state_, dist, kept, reuse == Reuse::previous, rows));
    std::map<std::string, std::vector<YumRunRecord>> saved;
    for (auto& [arch, plan] : plans.repositories)
      saved.emplace(arch, std::move(plan.records));
    // Gives the fragments of `entries` (their source is their row), written from the metadata
    // where the row has none, and notes their rows in `filled`.
    std::vector<std::size_t> filled;
    YumFill fill = [&](std::span<YumEntry* const> entries) -> Result<void> {
      std::vector<std::size_t> which;
      for (const YumEntry* e : entries)
        which.push_back(e->source);
      filled.insert(filled.end(), which.begin(), which.end());
      OPSKIT_TRY(state_.read_text(rows, which));
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
    for (auto& [arch, plan] : plans.repositories) {
      Built b;
      b.dir = detail::rpm_repository(dist, arch);
      // The noarch rows to link into this repository: every one in a whole index.
      std::vector<std::size_t> links;
      if (reuse == Reuse::none && arch != detail::k_source_repository)
        for (const auto& run : plan.runs)
          for (const auto& e : run.entries)
            if (e.arch == "noarch")
              links.push_back(e.source);
      b.packages = plan.packages;
      std::string dir = join_path(public_, b.dir);
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
      YumRunEntries entries_of = [&](std::size_t r) {
        return entries_between(state_, dist, arch, plan.ranges[r].first, plan.ranges[r].second,
                               rows);
      };
      filled.clear();
      OPSKIT_TRY_ASSIGN(auto index,
                        build_yum_repo(std::move(plan.runs), env_.now, previous, fill, entries_of));
      b.index = std::move(index);
      // A rewrite links the packages of the runs it wrote anew, or of those the ones changed
      // since the last rewrite when it knows them (a --replace'd noarch package among them,
      // whose old link still holds its old content); the others were linked before.
      if (reuse == Reuse::previous && arch != detail::k_source_repository)
        for (std::size_t i : filled)
          if (rows.rows[i].arch == "noarch" && plans.changed_since(rows.rows[i]))
            links.push_back(i);
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
    if (reuse == Reuse::previous)
      OPSKIT_TRY(state_.save_yum_runs(dist, saved));
  }

  std::vector<std::string> report;
  for (const auto& b : built) {
    std::string dir = join_path(public_, b.dir);
    OPSKIT_TRY(link_packages(public_, b.dir, *b.rows, b.links,
                             reuse == Reuse::previous ? Check::no : Check::yes));
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
      OPSKIT_TRY(make_directories(texts));
      for (const auto& t : b.index.texts)
        OPSKIT_TRY(staged.stage(join_path(texts, t.path), t.data));
    }
    OPSKIT_TRY(replace_directory(dir, join_path(dir, "repodata"), kept, files, std::move(staged)));
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
