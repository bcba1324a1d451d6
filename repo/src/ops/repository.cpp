// SPDX-License-Identifier: MIT
// The repository: push, index, verify and the rest, over state, pool and metadata files.
//
// Layout (also in pkgcloud(1)):
//   .pkgcloud/state.db   every package's identity, checksums and metadata (SQLite)
//   .pkgcloud/lock       flock'ed by every command that changes the repository
//   .pkgcloud/gnupg/     the signing keyring made by `init --generate-key`
//   public/              the publication, what clients read, and nothing else:
//     deb/<distro>/pool/<component>/<prefix>/<source>/<name>_<version>_<arch>.deb
//     deb/<distro>/dists/<codename>/{InRelease,Release,Release.gpg,<component>/binary-<arch>/...}
//     rpm/<distro>/<version>/<arch>/{Packages/*.rpm,repodata/...}
//     gpg.key, gpg.gpg   the public key, armored and binary (for apt's signed-by)
// Nothing private sits inside public/, so serving or uploading it can leak no secret.
// Each deb distro is an apt archive of its own (the URL a sources entry names), as Debian and
// Ubuntu are, so equal codenames of two distros cannot collide and a lost database can be
// rebuilt from the tree: the path names the distro and the Packages files name the suite.
//
// Order of work in every change: read and validate all input; take the lock and a transaction;
// record; write pool files; build every affected index and sign it in memory; stage it all to
// temporary files; rename indexes, then Release, Release.gpg and InRelease last; commit the
// transaction. A failure before the renames leaves the published indexes and the state as they
// were; a pool file written by then is new and unreferenced, except under --replace, where the
// file under its published name already holds the new content (a replacement cannot be atomic
// for a client holding the old index: its hash for that name is the old one).
#include "opskit/repo/repository.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "opskit/atomic_file.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/index/apt/suite.hpp"
#include "opskit/repo/format/deb/control.hpp"
#include "opskit/repo/format/deb/deb.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/rpm/rpm.hpp"
#include "opskit/repo/format/version.hpp"
#include "opskit/repo/index/yum/yum.hpp"
#include "opskit/text.hpp"
#include "ops/detail.hpp"

namespace fs = std::filesystem;

namespace opskit::repo {

using detail::add_yum_fragments;
using detail::join_path;
using detail::open_regular;
using detail::PackageBytes;
using detail::publication_dir;
using detail::set_other_digests;
using detail::state_dir;

namespace {

constexpr const char* k_repo_keyring = ".pkgcloud/gnupg";

bool dist_part_ok(std::string_view part) {
  if (part.empty() || part == "." || part == "..")
    return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' ||
           c == '_';
  });
}

enum class Detected { deb, rpm, unknown };

Detected detect(std::string_view bytes) {
  if (bytes.substr(0, 8) == "!<arch>\n")
    return Detected::deb;
  if (bytes.size() >= 4 && static_cast<unsigned char>(bytes[0]) == 0xed &&
      static_cast<unsigned char>(bytes[1]) == 0xab &&
      static_cast<unsigned char>(bytes[2]) == 0xee && static_cast<unsigned char>(bytes[3]) == 0xdb)
    return Detected::rpm;
  return Detected::unknown;
}

// A parsed input, ready to be recorded.
struct Candidate {
  std::string input;
  PackageRecord record;
  std::string pool_path; // relative to the publication
  std::optional<RpmInfo> rpm;
};

std::string changed_while_pushed(const std::string& input) {
  return fmt::format("{}: changed while it was being pushed; nothing was added", input);
}

} // namespace

Result<std::pair<std::string, std::string>> split_dist(const std::string& dist) {
  auto slash = dist.find('/');
  if (slash == std::string::npos)
    return fail(fmt::format(
        "bad dist '{}': expected DISTRO/RELEASE such as debian/bookworm or el/9", dist));
  std::string distro = dist.substr(0, slash), release = dist.substr(slash + 1);
  if (!dist_part_ok(distro) || !dist_part_ok(release))
    return fail(fmt::format("bad dist '{}': each part must be [a-z0-9.+_-]", dist));
  return std::pair{distro, release};
}

namespace {

// The config table's keys, each with the field it fills.
Result<RepositoryConfig> load_config(const State& state) {
  RepositoryConfig c;
  std::pair<const char*, std::string*> texts[] = {{"origin", &c.origin},
                                                  {"label", &c.label},
                                                  {"deb_dist", &c.deb_dist},
                                                  {"rpm_dist", &c.rpm_dist},
                                                  {"component", &c.component},
                                                  {"keyring", &c.keyring},
                                                  {"key", &c.key}};
  for (auto [key, field] : texts) {
    OPSKIT_TRY_ASSIGN(auto value, state.config(key));
    if (value)
      *field = std::move(*value);
  }
  for (auto [key, field] : {std::pair{"architectures", &c.architectures},
                            std::pair{"rpm_architectures", &c.rpm_architectures}}) {
    OPSKIT_TRY_ASSIGN(auto value, state.config(key));
    if (value)
      *field = words(*value);
  }
  OPSKIT_TRY_ASSIGN(auto days, state.config("valid_for_days"));
  if (days)
    c.valid_for_days = static_cast<unsigned>(std::strtoul(days->c_str(), nullptr, 10));
  return c;
}

Result<void> save_config(State& state, const RepositoryConfig& c) {
  std::vector<std::pair<std::string, std::string>> entries{
      {"origin", c.origin},
      {"label", c.label},
      {"deb_dist", c.deb_dist},
      {"rpm_dist", c.rpm_dist},
      {"component", c.component},
      {"architectures", fmt::format("{}", fmt::join(c.architectures, " "))},
      {"rpm_architectures", fmt::format("{}", fmt::join(c.rpm_architectures, " "))},
      {"keyring", c.keyring},
      {"key", c.key},
      {"valid_for_days", std::to_string(c.valid_for_days)}};
  for (const auto& [key, value] : entries)
    OPSKIT_TRY(state.set_config(key, value));
  return {};
}

} // namespace

Result<Repository> Repository::init(const std::string& root, const InitOptions& options,
                                    Environment env) {
  for (const auto& dist : {options.deb_dist, options.rpm_dist})
    OPSKIT_TRY(split_dist(dist));
  std::string state = state_dir(root);
  if (::access(join_path(state, "state.db").c_str(), F_OK) == 0)
    return fail(fmt::format("init {}: already a repository", root));
  for (const auto& dir : {state, publication_dir(root)})
    OPSKIT_TRY(make_directories(dir));
  OPSKIT_TRY_ASSIGN(auto lock, FileLock::acquire(detail::lock_file(root)));

  // The key first: a failure here leaves no half-made repository behind but .pkgcloud/.
  std::string keyring_home, fingerprint;
  if (options.generate_key) {
    keyring_home = k_repo_keyring;
    std::string home = join_path(root, keyring_home);
    OPSKIT_TRY(make_directories(home));
    ::chmod(home.c_str(), 0700);
    // gpg picks the digest from these preferences: SHA-512 first, never SHA-1.
    OPSKIT_TRY(write_file_atomic(join_path(home, "gpg.conf"),
                                 "personal-digest-preferences SHA512 SHA384 SHA256\n"
                                 "cert-digest-algo SHA512\n"
                                 "default-preference-list SHA512 SHA384 SHA256 AES256 AES192 "
                                 "AES ZLIB BZIP2 ZIP Uncompressed\n"));
    OPSKIT_TRY_ASSIGN(auto keyring, Keyring::open(home, env.passphrase));
    OPSKIT_TRY_ASSIGN(auto made, keyring.generate_key(*options.generate_key));
    fingerprint = made;
  } else if (options.key) {
    OPSKIT_TRY_ASSIGN(auto keyring, Keyring::open("", env.passphrase));
    OPSKIT_TRY_ASSIGN(auto found, keyring.find_secret_key(*options.key));
    fingerprint = found;
  }

  OPSKIT_TRY_ASSIGN(auto db, State::open(join_path(state, "state.db"), State::Create::yes));
  RepositoryConfig config;
  config.origin = options.origin;
  config.label = options.label;
  config.deb_dist = options.deb_dist;
  config.rpm_dist = options.rpm_dist;
  config.component = options.component;
  config.architectures = options.architectures;
  config.keyring = keyring_home;
  config.key = fingerprint;
  config.valid_for_days = options.valid_for_days;
  {
    OPSKIT_TRY_ASSIGN(auto txn, db.begin());
    OPSKIT_TRY(save_config(db, config));
    OPSKIT_TRY(txn.commit());
  }
  Repository repo(root, std::move(db), std::move(config), std::move(env));
  OPSKIT_TRY_ASSIGN(auto signer, repo.signer(SignRequest::if_key));
  if (signer)
    OPSKIT_TRY(repo.write_public_key(*signer));
  auto [distro, codename] = *split_dist(options.deb_dist);
  OPSKIT_TRY(repo.write_deb_suites({}, {{distro, codename}}, signer));
  OPSKIT_TRY(repo.write_rpm_dists({options.rpm_dist}, signer));
  return repo;
}

Result<Repository> Repository::open(const std::string& root, Environment env) {
  std::string db = join_path(state_dir(root), "state.db");
  if (::access(db.c_str(), F_OK) != 0)
    return fail(
        fmt::format("{}: not a pkgcloud repository (no {}; run 'pkgcloud init')", root, db));
  OPSKIT_TRY_ASSIGN(auto moved, detail::settle_layout(root));
  if (moved == detail::Moved::publication && env.notice)
    env.notice(fmt::format("moved the publication of {} into {}, away from its state and "
                           "signing key: serve or upload {} from now on",
                           root, publication_dir(root), publication_dir(root)));
  OPSKIT_TRY_ASSIGN(auto state, State::open(db, State::Create::no));
  OPSKIT_TRY_ASSIGN(auto config, load_config(state));
  return Repository(root, std::move(state), std::move(config), std::move(env));
}

Repository::Repository(std::string root, State state, RepositoryConfig config, Environment env)
    : root_(std::move(root)), public_(publication_dir(root_)), state_(std::move(state)),
      config_(std::move(config)), env_(std::move(env)) {}

Result<std::optional<Repository::Signer>> Repository::signer(SignRequest request) {
  const std::string& fingerprint = config_.key;
  const std::string& home = config_.keyring;
  if (fingerprint.empty()) {
    if (request == SignRequest::required)
      return fail(
          fmt::format("{}: no signing key configured (init --generate-key or --key)", root_));
    return std::optional<Signer>();
  }
  OPSKIT_TRY_ASSIGN(auto keyring,
                    Keyring::open(home.empty() ? "" : join_path(root_, home), env_.passphrase));
  return std::optional<Signer>(Signer{std::move(keyring), fingerprint});
}

Result<std::vector<PushedPackage>> Repository::push(const std::vector<std::string>& files,
                                                    const PushOptions& options) {
  const std::string* deb_dist = options.dist ? &*options.dist : &config_.deb_dist;
  const std::string* rpm_dist = options.dist ? &*options.dist : &config_.rpm_dist;
  const std::string* component = options.component ? &*options.component : &config_.component;
  OPSKIT_TRY_ASSIGN(auto dist_parts, split_dist(*deb_dist));
  OPSKIT_TRY(split_dist(*rpm_dist));
  if (!dist_part_ok(*component))
    return fail(fmt::format("bad component '{}': must be [a-z0-9.+_-]", *component));

  // 1. Read, validate and hash everything before touching the repository, on every CPU. The
  //    bytes are not kept: each is copied from its file into the pool later, and checked.
  std::vector<Result<Candidate>> read(files.size());
  // Once a file fails, those after it are skipped: push reports the first failure in order.
  std::atomic<std::size_t> first_failed = files.size();
  auto failed = [&](std::size_t i, Error error) {
    read[i] = fail(std::move(error));
    for (auto at = first_failed.load(); i < at && !first_failed.compare_exchange_weak(at, i);)
      ;
  };
  std::mutex progress_lock;
  std::size_t progress_done = 0;
  auto progress = [&] {
    if (env_.progress) {
      std::lock_guard hold(progress_lock);
      env_.progress(++progress_done, files.size() * 2);
    }
  };
  auto parse = [&](std::size_t i) -> Result<PackageBytes> {
    const auto& path = files[i];
    OPSKIT_TRY_ASSIGN(auto bytes, PackageBytes::open(path));
    Candidate& c = *read[i];
    c.input = path;
    std::string_view view = bytes.view();
    switch (detect(view)) {
    case Detected::deb: {
      OPSKIT_TRY_ASSIGN(auto deb, read_deb(view, path));
      c.record.format = PackageFormat::deb;
      c.record.dist = *deb_dist;
      c.record.component = *component;
      c.record.name = deb.name;
      c.record.version = deb.version;
      c.record.arch = deb.architecture;
      c.record.metadata = deb.control.render();
      c.pool_path = detail::deb_pool_file(dist_parts.first, deb_pool_path(deb, *component));
      break;
    }
    case Detected::rpm: {
      OPSKIT_TRY_ASSIGN(auto rpm, read_rpm(view, path));
      c.record.format = PackageFormat::rpm;
      c.record.dist = *rpm_dist;
      c.record.name = rpm.name;
      c.record.version = rpm.evr();
      c.record.arch = rpm.arch;
      c.record.metadata = rpm_to_json(rpm);
      c.pool_path = detail::rpm_package_file(*rpm_dist, rpm.arch, rpm_file_name(rpm));
      c.rpm = std::move(rpm);
      break;
    }
    case Detected::unknown:
      return fail(fmt::format("{}: not a .deb or .rpm package (unknown magic)", path));
    }
    c.record.file = c.pool_path;
    c.record.size = view.size();
    set_other_digests(c.record, view);
    return bytes;
  };
  detail::hash_each(
      files.size(),
      [&](std::size_t i) -> std::optional<PackageBytes> {
        if (i > first_failed)
          return std::nullopt;
        auto bytes = parse(i);
        if (bytes)
          return std::move(*bytes);
        failed(i, bytes.error());
        return std::nullopt;
      },
      [&](std::size_t i, const Sha256& digest) {
        Candidate& c = *read[i];
        c.record.sha256 = hex(digest);
        if (c.rpm)
          if (auto ok = add_yum_fragments(c.record, std::move(*c.rpm)); !ok)
            failed(i, ok.error().with_context(c.input));
        progress();
      });
  std::vector<Candidate> candidates;
  for (auto& c : read) {
    if (!c)
      return fail(c.error());
    candidates.push_back(std::move(*c));
  }

  // 2. Under the lock and one transaction: record, copy, re-index, commit. The pool files are
  //    staged, checked against the hashes recorded and made visible together.
  OPSKIT_TRY_ASSIGN(auto lock, lock_state());
  OPSKIT_TRY_ASSIGN(auto txn, state_.begin());
  std::vector<PushedPackage> pushed;
  Touched touched;
  StagedFiles pool_files;
  std::vector<const Candidate*> staged;          // what each pool file staged holds
  std::map<std::string, std::string> staged_sha; // pool path -> SHA-256
  std::vector<std::string> replaced_files;       // pool files the records pushed leave behind
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto& c = candidates[i];
    const PackageRecord& r = c.record;
    OPSKIT_TRY(check_dist_format(r, c.input));
    OPSKIT_TRY_ASSIGN(auto existing, state_.find(r.format, r.dist, r.name, r.version, r.arch));
    PushAction action = PushAction::added;
    if (existing) {
      if (existing->sha256 == r.sha256 && existing->component == r.component) {
        pushed.push_back({c.input, *existing, PushAction::unchanged});
        continue;
      }
      if (options.replace == Replace::no)
        return fail(fmt::format("{}: {} {} {} is already in {} with other content (use --replace)",
                                c.input, r.name, r.version, r.arch, r.dist));
      action = PushAction::replaced;
    }
    // A pool file shared with another record (another dist's, or a version of the same package
    // that differs only in its epoch, which pool names leave out) must not change under it.
    std::string pool_file = join_path(public_, c.pool_path);
    // Staged by this push already, or in the pool with these bytes: nothing to copy.
    auto in_push = staged_sha.find(c.pool_path);
    bool in_place = false, other_content = false;
    if (in_push != staged_sha.end()) {
      if (in_push->second != r.sha256)
        return fail(fmt::format("{}: {} is also the pool file of another package of this push, "
                                "with other content",
                                c.input, c.pool_path));
      in_place = true;
    } else if (auto on_disk = PackageBytes::open(pool_file); on_disk) {
      other_content = on_disk->view().size() != r.size || sha256_hex(on_disk->view()) != r.sha256;
      in_place = !other_content;
    }
    if (other_content) {
      OPSKIT_TRY_ASSIGN(auto refs, state_.references(c.pool_path));
      int own = existing && existing->file == c.pool_path ? 1 : 0;
      if (refs > own)
        return fail(
            fmt::format("{}: {} is already in the pool with other content, for another dist or "
                        "for a version that differs only in its epoch",
                        c.input, c.pool_path));
    }
    if (!in_place) {
      OPSKIT_TRY_ASSIGN(auto input, open_regular(c.input));
      OPSKIT_TRY_ASSIGN(auto copied, pool_files.stage_copy(pool_file, input.first, r.size));
      if (copied != r.size)
        return fail(changed_while_pushed(c.input));
      staged.push_back(&c);
      staged_sha.emplace(c.pool_path, r.sha256);
    }
    OPSKIT_TRY(state_.put(r));
    if (existing && existing->file != c.pool_path)
      replaced_files.push_back(existing->file);
    touched.add(r);
    pushed.push_back({c.input, r, action});
    if (env_.progress)
      env_.progress(candidates.size() + i + 1, candidates.size() * 2);
  }
  // What was copied is what was hashed, or an input changed since it was read.
  std::vector<char> differs(staged.size(), 0); // not vector<bool>: set from two threads
  detail::hash_each(
      staged.size(),
      [&](std::size_t i) -> std::optional<PackageBytes> {
        auto bytes = PackageBytes::open(temporary_name(join_path(public_, staged[i]->pool_path)));
        if (bytes)
          return std::move(*bytes);
        differs[i] = 1;
        return std::nullopt;
      },
      [&](std::size_t i, const Sha256& digest) {
        differs[i] = hex(digest) != staged[i]->record.sha256;
      });
  for (std::size_t i = 0; i < staged.size(); ++i)
    if (differs[i])
      return fail(changed_while_pushed(staged[i]->input));
  OPSKIT_TRY(pool_files.commit());
  for (const auto& file : replaced_files)
    if (auto refs = state_.references(file); refs && *refs == 0 && !staged_sha.contains(file))
      ::unlink(join_path(public_, file).c_str());
  OPSKIT_TRY(rewrite(touched));
  OPSKIT_TRY(txn.commit());
  return pushed;
}

Result<IndexReport> Repository::index(const IndexOptions& options) {
  OPSKIT_TRY_ASSIGN(auto lock, lock_state());
  OPSKIT_TRY_ASSIGN(auto signer, this->signer(options.sign));
  IndexReport report;
  OPSKIT_TRY_ASSIGN(auto txn, state_.begin());
  OPSKIT_TRY_ASSIGN(auto records, state_.packages());
  if (options.rebuild) {
    OPSKIT_TRY_ASSIGN(auto rescanned, rescan_pool(records));
    report.rescanned = rescanned;
  }
  std::set<std::pair<std::string, std::string>> suites{*split_dist(config_.deb_dist)};
  for (const auto& r : records)
    if (r.format == PackageFormat::deb)
      suites.insert(*split_dist(r.dist));
  if (signer)
    OPSKIT_TRY(write_public_key(*signer));
  std::set<std::string> rpm_dists{config_.rpm_dist};
  for (const auto& r : records)
    if (r.format == PackageFormat::rpm)
      rpm_dists.insert(r.dist);
  // The apt suites and the dnf repositories have no file in common: they are written side by
  // side, the dnf ones with a signing context of their own (a gpgme context is one thread's).
  OPSKIT_TRY_ASSIGN(auto rpm_signer, this->signer(options.sign));
  auto rpm_job =
      std::async(std::launch::async, [&] { return write_rpm_dists(rpm_dists, rpm_signer); });
  auto written = write_deb_suites(records, {suites.begin(), suites.end()}, signer);
  auto rpm_written = rpm_job.get();
  if (!written)
    return fail(written.error());
  if (!rpm_written)
    return fail(rpm_written.error());
  OPSKIT_TRY(txn.commit());
  report.indexes = std::move(*written);
  report.indexes.insert(report.indexes.end(), rpm_written->begin(), rpm_written->end());
  report.is_signed = signer.has_value();
  return report;
}

// A dist serves one format: the repository's default dist of the other format, or one that
// already holds packages of it, would make an apt archive named like a dnf release (or the
// other way round) that no client of either looks for.
Result<void> Repository::check_dist_format(const PackageRecord& r, std::string_view input) const {
  bool deb = r.format == PackageFormat::deb;
  PackageFormat other = deb ? PackageFormat::rpm : PackageFormat::deb;
  OPSKIT_TRY_ASSIGN(auto holds, state_.holds(other, r.dist));
  if (!holds && r.dist != (deb ? config_.rpm_dist : config_.deb_dist))
    return {};
  return fail(fmt::format("{}: {} {} {}; push {} with --dist DISTRO/RELEASE such as {}", input,
                          r.dist, holds ? "holds" : "is the repository's default dist for",
                          deb ? "rpms" : "debs", deb ? "debs" : "rpms",
                          deb ? "debian/bookworm" : "el/9"));
}

Result<FileLock> Repository::lock_state() {
  return FileLock::acquire(detail::lock_file(root_));
}

void Repository::Touched::add(const PackageRecord& record) {
  if (record.format == PackageFormat::deb)
    suites.insert(*split_dist(record.dist));
  else
    rpm_dists.insert(record.dist);
}

Result<void> Repository::rewrite(const Touched& touched) {
  if (touched.suites.empty() && touched.rpm_dists.empty())
    return {};
  OPSKIT_TRY_ASSIGN(auto signer, this->signer(SignRequest::if_key));
  if (!touched.suites.empty()) {
    OPSKIT_TRY_ASSIGN(auto records, state_.packages(PackageFormat::deb));
    OPSKIT_TRY(write_deb_suites(records, {touched.suites.begin(), touched.suites.end()}, signer));
  }
  if (!touched.rpm_dists.empty())
    OPSKIT_TRY(write_rpm_dists(touched.rpm_dists, signer, Reuse::previous));
  return {};
}

Result<void> Repository::remove_records(const std::vector<PackageRecord>& doomed) {
  OPSKIT_TRY_ASSIGN(auto txn, state_.begin());
  Touched touched;
  for (const auto& r : doomed) {
    OPSKIT_TRY(state_.remove(r.id));
    touched.add(r);
  }
  OPSKIT_TRY(rewrite(touched));
  OPSKIT_TRY(txn.commit());
  // Pool files go only after the indexes that named them are replaced (and committed).
  std::error_code ec;
  for (const auto& r : doomed) {
    auto refs = state_.references(r.file);
    if (!refs || *refs > 0)
      continue;
    ::unlink(join_path(public_, r.file).c_str());
    if (r.format == PackageFormat::rpm && r.arch == "noarch") // and its links in each arch
      for (const auto& arch :
           fs::directory_iterator(join_path(public_, detail::rpm_dist_dir(r.dist)), ec))
        fs::remove(arch.path() / "Packages" / fs::path(r.file).filename(), ec);
  }
  return {};
}

Result<std::vector<PackageRecord>> Repository::remove(const RemoveFilter& filter) {
  OPSKIT_TRY_ASSIGN(auto lock, lock_state());
  OPSKIT_TRY_ASSIGN(auto records, state_.packages());
  std::vector<PackageRecord> doomed;
  for (auto& r : records) {
    if (r.name != filter.name || (filter.dist && r.dist != *filter.dist) ||
        (filter.arch && r.arch != *filter.arch))
      continue;
    if (filter.version && r.version != *filter.version &&
        !(r.format == PackageFormat::rpm && strip_epoch(r.version) == *filter.version))
      continue;
    doomed.push_back(std::move(r));
  }
  if (doomed.empty())
    return fail(fmt::format("rm: no package {}{}{}{}{}{}", filter.name, filter.version ? "=" : "",
                            filter.version.value_or(""), filter.dist ? " in " : "",
                            filter.dist.value_or(""), filter.arch ? " for " + *filter.arch : ""));
  OPSKIT_TRY(remove_records(doomed));
  return doomed;
}

Result<std::vector<PackageRecord>> Repository::prune(std::size_t keep,
                                                     const std::optional<std::string>& dist) {
  OPSKIT_TRY_ASSIGN(auto lock, lock_state());
  OPSKIT_TRY_ASSIGN(auto records, state_.packages());
  std::map<std::tuple<PackageFormat, std::string, std::string, std::string>,
           std::vector<PackageRecord>>
      groups;
  for (auto& r : records)
    if (!dist || r.dist == *dist)
      groups[{r.format, r.dist, r.name, r.arch}].push_back(std::move(r));
  std::vector<PackageRecord> doomed;
  for (auto& [key, versions] : groups) {
    std::sort(versions.begin(), versions.end(), [](const PackageRecord& a, const PackageRecord& b) {
      int c = a.format == PackageFormat::deb ? compare_deb_versions(a.version, b.version)
                                             : compare_rpm_versions(a.version, b.version);
      return c > 0; // newest first
    });
    for (std::size_t i = keep; i < versions.size(); ++i)
      doomed.push_back(std::move(versions[i]));
  }
  if (!doomed.empty())
    OPSKIT_TRY(remove_records(doomed));
  return doomed;
}

Result<std::vector<PackageRecord>> Repository::list(const std::optional<std::string>& dist) const {
  return state_.listing(dist);
}

Result<std::string> Repository::export_key(Armor armor) {
  OPSKIT_TRY_ASSIGN(auto signer, this->signer(SignRequest::required));
  return signer->keyring.export_key(signer->fingerprint, armor);
}

Result<Sources> Repository::sources(const std::string& url) const {
  OPSKIT_TRY_ASSIGN(auto records, state_.packages());
  const std::string* deb_dist = &config_.deb_dist;
  const std::string* rpm_dist = &config_.rpm_dist;
  const std::string* label = &config_.label;
  const std::string* component = &config_.component;
  std::string base = url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  Sources out;
  for (char c : *label)
    out.name.push_back((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ? c
                       : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a')
                                                : '-');
  std::string keyring = fmt::format("/etc/apt/keyrings/{}.gpg", out.name);
  // dist -> components (deb), and rpm dists.
  std::map<std::string, std::set<std::string>> deb;
  std::set<std::string> rpm{*rpm_dist};
  deb[*deb_dist].insert(*component);
  for (const auto& r : records) {
    if (r.format == PackageFormat::deb)
      deb[r.dist].insert(r.component);
    else
      rpm.insert(r.dist);
  }
  out.apt_deb822 = fmt::format("# curl -fsSL {}/gpg.gpg -o {}\n", base, keyring);
  out.apt_one_line = out.apt_deb822;
  bool first = true;
  for (const auto& [dist, components] : deb) {
    auto [distro, codename] = *split_dist(dist);
    std::string uri = fmt::format("{}/{}", base, detail::deb_archive(distro));
    std::string comps = fmt::format("{}", fmt::join(components, " "));
    if (!first)
      out.apt_deb822 += "\n";
    first = false;
    fmt::format_to(std::back_inserter(out.apt_deb822),
                   "Types: deb\nURIs: {}\nSuites: {}\nComponents: {}\nSigned-By: {}\n", uri,
                   codename, comps, keyring);
    fmt::format_to(std::back_inserter(out.apt_one_line), "deb [signed-by={}] {} {} {}\n", keyring,
                   uri, codename, comps);
  }
  first = true;
  for (const auto& dist : rpm) {
    auto [distro, version] = *split_dist(dist);
    if (!first)
      out.dnf_repo += "\n";
    first = false;
    fmt::format_to(std::back_inserter(out.dnf_repo),
                   "[{}-{}-{}]\nname={} {} {}\nbaseurl={}/{}/$basearch\nenabled=1\n"
                   "repo_gpgcheck=1\ngpgcheck=0\ngpgkey={}/gpg.key\n",
                   out.name, distro, version, *label, distro, version, base,
                   detail::rpm_dist_dir(dist), base);
  }
  return out;
}

} // namespace opskit::repo
