// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "opskit/atomic_file.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/store/keyring.hpp"
#include "opskit/repo/store/state.hpp"

namespace opskit::repo {

// What a command takes from its surroundings; cmd/ fills it from the environment.
struct Environment {
  std::optional<std::string> passphrase; // for the signing key
  std::time_t now = 0;                   // the Date of new metadata (SOURCE_DATE_EPOCH)
  // Called after each package of a long run with (done, total); may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
  // Called with one line about what was done on the user's behalf beside the command asked
  // for (a repository moved to the current layout); may be empty.
  std::function<void(std::string_view)> notice;
};

struct InitOptions {
  std::string origin = "pkgcloud";
  std::string label = "pkgcloud";
  std::optional<std::string> generate_key; // user id of a new ed25519 key in .pkgcloud/gnupg
  std::optional<std::string> key;          // a secret key already in the user's GNUPGHOME
  std::string deb_dist = "debian/bookworm";
  std::string rpm_dist = "el/9";
  std::string component = "main";
  std::vector<std::string> architectures{"amd64"};
  unsigned valid_for_days = 0; // Valid-Until in Release, this many days after Date; 0: none
};

// A repository's settings, made by init and kept in the database's config table.
struct RepositoryConfig {
  std::string origin = "pkgcloud", label = "pkgcloud";
  std::string deb_dist = "debian/bookworm", rpm_dist = "el/9", component = "main";
  std::vector<std::string> architectures{"amd64"}, rpm_architectures{"x86_64"};
  std::string keyring; // GNUPGHOME relative to the repository root; empty: the user's
  std::string key;     // fingerprint of the signing key; empty: unsigned
  unsigned valid_for_days = 0;
};

enum class Replace { no, yes };

struct PushOptions {
  std::optional<std::string> dist;      // else the repository's default for the format
  std::optional<std::string> component; // deb only; else the repository's default
  Replace replace = Replace::no;
};

enum class PushAction { added, unchanged, replaced };

struct PushedPackage {
  std::string input; // the path given
  PackageRecord record;
  PushAction action = PushAction::added;
};

enum class SignRequest { if_key, required };

struct IndexOptions {
  SignRequest sign = SignRequest::if_key;
  bool rebuild = false; // rescan the pool and re-record what it holds
};

// Which packages `rm` removes: by name, and optionally version, dist and architecture. An rpm
// version matches with or without its epoch ("1:2.0-1" or "2.0-1").
struct RemoveFilter {
  std::string name;
  std::optional<std::string> version, dist, arch;
};

// What index wrote: one line per suite or rpm repository ("deb/debian/dists/bookworm: 3 packages").
struct IndexReport {
  std::vector<std::string> indexes;
  std::size_t rescanned = 0;
  bool is_signed = false;
};

// The ways to use a repository served at a URL.
struct Sources {
  std::string apt_deb822;   // for /etc/apt/sources.list.d/<name>.sources
  std::string apt_one_line; // for /etc/apt/sources.list.d/<name>.list
  std::string dnf_repo;     // for /etc/yum.repos.d/<name>.repo
  std::string name;
};

// A package repository in a directory (layout in pkgcloud(1)): the publication, what clients
// read, in public/ (deb/<distro>/{pool,dists} for apt, rpm/<distro>/<version>/<arch>/ for dnf,
// the public key as gpg.key and gpg.gpg), and beside it, never inside, .pkgcloud/ for state,
// lock and keyring. Every mutating operation holds .pkgcloud/lock and one SQLite transaction,
// writes metadata through temporary files renamed top-level-last, and signs before publishing
// anything, so a failure leaves the previous signed repository in place.
class Repository {
public:
  // Creates the repository in `root` (which may exist, but must not hold a repository yet),
  // generates or checks the signing key, and writes empty signed indexes for the default dists.
  static Result<Repository> init(const std::string& root, const InitOptions& options,
                                 Environment env);
  // Opens an existing repository; the error says when `root` holds none. One made before the
  // publication had a directory of its own is moved to the current layout first, safely at any
  // moment of a kill, and env.notice says so.
  static Result<Repository> open(const std::string& root, Environment env);

  // Reads and validates every file first (nothing is changed if one is bad), then records them,
  // copies them into the pool and re-indexes the suites they touch.
  Result<std::vector<PushedPackage>> push(const std::vector<std::string>& files,
                                          const PushOptions& options);
  Result<IndexReport> index(const IndexOptions& options);
  // Removes the packages named `name` (of `version`, `dist`, `arch` when given), deletes pool
  // files nothing else refers to and re-indexes what they were in. Nothing matching is an error.
  Result<std::vector<PackageRecord>> remove(const RemoveFilter& filter);
  // Keeps the newest `keep` versions of each name, dist and arch (dpkg or rpm version order,
  // epochs included) and removes the rest as remove() does; `dist` limits it to one dist.
  Result<std::vector<PackageRecord>> prune(std::size_t keep,
                                           const std::optional<std::string>& dist);
  // Every package (of one dist when given), sorted, as ls shows it: without its metadata, index
  // fragments and MD5, SHA-1 and SHA-512 sums.
  Result<std::vector<PackageRecord>> list(const std::optional<std::string>& dist) const;
  // Every problem a client would trip over, one line each; empty when the repository is sound.
  Result<std::vector<std::string>> verify();
  Result<std::string> export_key(Armor armor);
  Result<Sources> sources(const std::string& url) const;

  const std::string& root() const noexcept { return root_; }
  // The directory to serve or upload: `root`/public.
  const std::string& publication() const noexcept { return public_; }

private:
  Repository(std::string root, State state, RepositoryConfig config, Environment env);
  struct Signer;
  Result<std::optional<Signer>> signer(SignRequest request);
  // Writes the apt suites (distro, codename) of `records`, which hold every package in state.
  Result<std::vector<std::string>>
  write_deb_suites(const std::vector<PackageRecord>& records,
                   const std::vector<std::pair<std::string, std::string>>& suites,
                   std::optional<Signer>& signer);
  // Reuse::previous copies the unchanged parts of each dist's current .xml.gz files (push, rm,
  // prune); a full index compresses everything anew, so that it also repairs damaged files.
  enum class Reuse { none, previous };
  Result<std::vector<std::string>> write_rpm_dists(const std::set<std::string>& dists,
                                                   std::optional<Signer>& signer,
                                                   Reuse reuse = Reuse::none);
  Result<void> write_public_key(Signer& signer);
  // Refuses a package for a dist of the other format (`input` names it in the error).
  Result<void> check_dist_format(const PackageRecord& r, std::string_view input) const;
  // The deb suites and rpm dists that a change to some packages touches.
  struct Touched {
    std::set<std::pair<std::string, std::string>> suites;
    std::set<std::string> rpm_dists;
    void add(const PackageRecord& record);
  };
  // Rewrites the indexes `touched` names, signed when the repository has a key.
  Result<void> rewrite(const Touched& touched);
  // The lock every change to the repository holds, beside its state database.
  Result<FileLock> lock_state();
  // Reads every package in the pool and records those that differ from `records` (every
  // package in state), which it then brings up to date; returns how many it found.
  Result<std::size_t> rescan_pool(std::vector<PackageRecord>& records);
  Result<void> remove_records(const std::vector<PackageRecord>& doomed);

  std::string root_;
  std::string public_; // the publication; pool paths in records are relative to it
  State state_;
  RepositoryConfig config_; // read once when opened: a command sees one configuration
  Environment env_;
};

// "debian/bookworm" -> {"debian", "bookworm"}; each part must be [a-z0-9.+_-]+.
Result<std::pair<std::string, std::string>> split_dist(const std::string& dist);

} // namespace opskit::repo
