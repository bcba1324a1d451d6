// SPDX-License-Identifier: MIT
#pragma once

#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "opskit/atomic_file.hpp"
#include "opskit/error.hpp"
#include "opskit/repo/format/record.hpp"
#include "opskit/repo/publish.hpp"
#include "opskit/repo/store/keyring.hpp"
#include "opskit/repo/store/state.hpp"

namespace opskit::repo {

namespace ops {
struct Context;
}

// What a command takes from its surroundings; cmd/ fills it from the environment.
struct Environment {
  std::optional<std::string> passphrase; // for the signing key
  std::time_t now = 0;                   // the Date of new metadata (SOURCE_DATE_EPOCH)
  // Called after each package of a long run with (done, total); may be empty.
  std::function<void(std::size_t, std::size_t)> progress;
  // Called with one line about what was done on the user's behalf beside the command asked
  // for (a repository moved to the current layout); may be empty.
  std::function<void(std::string_view)> notice;
  // The process environment's variable `name`, for publish's credentials (AWS_*, HOME); may
  // be empty: none are set.
  std::function<std::optional<std::string>(std::string_view)> variable;
};

struct InitOptions {
  std::string origin = "pkgcloud";
  std::string label = "pkgcloud";
  std::optional<std::string> generate_key; // user id of a new ed25519 key in .pkgcloud/gnupg
  std::optional<std::string> key;          // a secret key already in the user's GNUPGHOME
  std::string deb_dist = "debian/bookworm";
  std::string rpm_dist = "el/9";
  std::string component = "main";
  // The machines clients run on, as Debian or rpm names them (arm64 or aarch64): apt suites
  // and dnf repositories are made for each, also while they hold only packages of all
  // architectures.
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

// One index written: an apt suite or a dnf repository, its directory relative to the
// publication ("deb/debian/dists/bookworm", "rpm/el/9/x86_64"), how many packages it lists, and
// the files written into it (relative to `dir`), in the order they were published.
struct WrittenIndex {
  PackageFormat format = PackageFormat::deb;
  std::string dir;
  std::size_t packages = 0;
  std::vector<std::string> files;
};

// What index wrote, every apt suite and then every dnf repository, and how many packages a
// rebuild found that state did not hold as they are.
struct IndexReport {
  std::vector<WrittenIndex> indexes;
  std::size_t rescanned = 0;
  bool is_signed = false;
};

// One thing verify found that a client would trip over: the file (relative to the
// publication), what is wrong with it in a word ("unreadable", "size", "sha256", "signature",
// "missing", "malformed"), what was expected and found where that applies, and the line that
// says it all.
struct Problem {
  std::string file, what, expected, found;
  std::string message;
};

// The ways to use a repository served at a URL: apt archives with their suites and components,
// dnf repositories by dist, and the name the client files take (from the label).
struct AptSource {
  std::string uri, suite;
  std::vector<std::string> components;
};
struct DnfSource {
  std::string distro, version; // the dist's parts: "el", "9"
  std::string baseurl;         // with $basearch for the client to fill
};
struct Sources {
  std::string name;             // "pkgcloud": /etc/apt/sources.list.d/<name>.sources, <name>.repo
  std::string label;            // the repository's label, for dnf's name=
  std::string key_url, gpg_url; // the public key, armored (dnf) and binary (apt)
  bool is_signed = true;        // else there is no key: clients take it with their checks off
  std::vector<AptSource> apt;
  std::vector<DnfSource> dnf;
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
  // Whether `dist` holds a package, of either format.
  Result<bool> holds(const std::string& dist) const;
  // Every package (of one dist when given), sorted, as ls shows it: without its metadata, index
  // fragments and SHA-1 and SHA-512 sums.
  Result<std::vector<PackageRecord>> list(const std::optional<std::string>& dist) const;
  // Every problem a client would trip over, in the order of the files; none when the
  // repository is sound.
  Result<std::vector<Problem>> verify();
  Result<std::string> export_key(Armor armor);
  // Sends the publication to a target (pkgcloud(1), PUBLISHING): only what its manifest does
  // not hold as it is, pool files first and the top-level files last.
  Result<PublishReport> publish(const PublishOptions& options);
  // What a client of `target` would miss: each file of its manifest that the target's listing
  // lacks or holds at another size, and each file listed that the manifest does not name.
  Result<std::vector<Problem>> verify_remote(const PublishTarget& target);
  // Remembers `target` as `name` ([a-z0-9._-]+), replacing one saved before; never a secret.
  Result<void> save_target(const std::string& name, const PublishTarget& target);
  Result<PublishTarget> saved_target(const std::string& name);
  Result<Sources> sources(const std::string& url) const;

  const std::string& root() const noexcept { return root_; }
  // The directory to serve or upload: `root`/public.
  const std::string& publication() const noexcept { return public_; }

private:
  Repository(std::string root, State state, RepositoryConfig config, Environment env);
  // The view of this repository that its operations (ops/*.cpp) take.
  ops::Context context();

  std::string root_;
  std::string public_; // the publication; pool paths in records are relative to it
  State state_;
  RepositoryConfig config_; // read once when opened: a command sees one configuration
  Environment env_;
};

// "debian/bookworm" -> {"debian", "bookworm"}; each part must be [a-z0-9.+_-]+.
Result<std::pair<std::string, std::string>> split_dist(const std::string& dist);

} // namespace opskit::repo
