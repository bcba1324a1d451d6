// SPDX-License-Identifier: MIT
// verify: what is published checked as apt and dnf would check it, against the database and the
// signing key: every pool file's size and SHA-256, every apt suite's signatures and the indexes
// its Release lists (by-hash copies too), every dnf repository's signature, the files its
// repomd.xml lists, and the packages its primary.xml lists.
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <unordered_map>

#include <unistd.h>

#include <fmt/format.h>

#include "codec/file_bytes.hpp"
#include "index/apt/release_hashes.hpp"
#include "layout/paths.hpp"
#include "ops/ops.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/index/apt/release.hpp"
#include "opskit/repo/index/apt/suite.hpp"
#include "opskit/repo/index/yum/repomd.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::ops {

using detail::join_path;
using detail::PackageBytes;

namespace {

// primary.xml of the largest public repositories is a few hundred MB.
constexpr std::size_t k_max_primary = std::size_t{2} << 30;

// What verify has found so far.
class Problems {
public:
  void add(std::string file, std::string what, std::string message, std::string expected = {},
           std::string found = {}) {
    add(Problem{std::move(file), std::move(what), std::move(expected), std::move(found),
                std::move(message)});
  }
  void add(Problem problem) { list_.push_back(std::move(problem)); }
  // `file` could not be read: `error` says why.
  void unreadable(std::string file, const Error& error) {
    add(std::move(file), "unreadable", error.message());
  }
  std::vector<Problem> take() { return std::move(list_); }

private:
  std::vector<Problem> list_;
};

// `path` relative to the publication `publication`, which it lies below.
std::string shown(const std::string& publication, const fs::path& path) {
  return path.string().substr(publication.size() + 1);
}

// Pool files against their recorded size and SHA-256, hashed on every CPU, two at a time on
// each; the problems are reported in the records' order.
void verify_pool(const Context& ctx, const std::vector<PackageRecord>& records,
                 Problems& problems) {
  std::vector<std::optional<Problem>> found(records.size());
  auto differs = [&](std::size_t i, std::string what, std::string expected, std::string seen) {
    const PackageRecord& r = records[i];
    found[i] = Problem{r.file, what, std::move(expected), std::move(seen),
                       fmt::format("{}: {} differs from the recorded {} {}", r.file,
                                   what == "size" ? "size" : "SHA-256", r.name, r.version)};
  };
  detail::hash_each(
      records.size(),
      [&](std::size_t i) -> std::optional<PackageBytes> {
        const PackageRecord& r = records[i];
        auto bytes = PackageBytes::open(join_path(ctx.publication, r.file));
        if (!bytes)
          found[i] =
              Problem{r.file, bytes.error().errno_value() == ENOENT ? "missing" : "unreadable", "",
                      "", bytes.error().message()};
        else if (bytes->view().size() != r.size)
          differs(i, "size", std::to_string(r.size), std::to_string(bytes->view().size()));
        else
          return std::move(*bytes);
        return std::nullopt;
      },
      [&](std::size_t i, const Sha256& digest) {
        if (auto seen = hex(digest); seen != records[i].sha256)
          differs(i, "sha256", records[i].sha256, std::move(seen));
      });
  for (auto& problem : found)
    if (problem)
      problems.add(std::move(*problem));
}

// The signing key as verify checks with it: the repository's keyring, and the fingerprints of
// the keys and subkeys published in gpg.gpg (which apt's signed-by takes) and in gpg.key (armored,
// which dnf's gpgkey= and apt's .asc take), the only ones clients have.
struct Checker {
  Keyring& keyring;
  std::vector<std::pair<std::string, std::vector<std::string>>> published; // file, fingerprints

  // Whether a good signature's (sub)key is in both published keys; else `file`'s problem.
  void published_key(const SignatureCheck& check, const std::string& file,
                     Problems& problems) const {
    for (const auto& [key_file, fingerprints] : published)
      if (std::find(fingerprints.begin(), fingerprints.end(), check.fingerprint) ==
          fingerprints.end())
        return problems.add(file, "signature",
                            fmt::format("{}: signed by {}, which the published {} lacks: "
                                        "clients report NO_PUBKEY (pkgcloud index writes the key "
                                        "again)",
                                        file, check.fingerprint, key_file));
  }
};

// The checker of a repository with a signing key, or nothing; a published key that cannot be
// read is a problem, and no signature is then good.
std::optional<Checker> checker(const Context& ctx, std::optional<Signer>& signer,
                               Problems& problems) {
  if (!signer)
    return std::nullopt;
  Checker checker{signer->keyring, {}};
  for (const char* file : {"gpg.gpg", "gpg.key"}) {
    auto& [name, fingerprints] = checker.published.emplace_back(file, std::vector<std::string>());
    auto key = read_file(join_path(ctx.publication, name));
    if (!key)
      problems.add(name, key.error().errno_value() == ENOENT ? "missing" : "unreadable",
                   key.error().message());
    else if (auto listed = signer->keyring.fingerprints_in(*key); !listed)
      problems.unreadable(name, listed.error());
    else
      fingerprints = std::move(*listed);
  }
  return checker;
}

// InRelease and Release.gpg of the suite in `dir` against its Release text.
void verify_apt_signatures(const std::string& dir, const std::string& suite,
                           const std::string& release, const Checker& checker, Problems& problems) {
  Keyring& keyring = checker.keyring;
  std::string in_release_file = suite + "/InRelease", gpg_file = suite + "/Release.gpg";
  auto in_release = read_file(dir + "/InRelease");
  if (!in_release) {
    problems.unreadable(in_release_file, in_release.error());
  } else if (auto check = keyring.verify_clear_signed(*in_release); !check) {
    problems.unreadable(in_release_file, check.error());
  } else if (!check->good) {
    problems.add(in_release_file, "signature",
                 fmt::format("{}/InRelease: bad signature: {}", suite, check->problem));
  } else if (check->signed_text != release) {
    problems.add(in_release_file, "signature",
                 fmt::format("{}/InRelease: signs another text than Release", suite));
  } else {
    checker.published_key(*check, in_release_file, problems);
  }
  auto detached = read_file(dir + "/Release.gpg");
  if (!detached) {
    problems.unreadable(gpg_file, detached.error());
  } else if (auto check = keyring.verify_detached(*detached, release); !check) {
    problems.unreadable(gpg_file, check.error());
  } else if (!check->good) {
    problems.add(gpg_file, "signature",
                 fmt::format("{}/Release.gpg: bad signature: {}", suite, check->problem));
  } else {
    checker.published_key(*check, gpg_file, problems);
  }
}

// The record of each pool file, by its path in the publication.
using Recorded = std::unordered_map<std::string_view, const PackageRecord*>;

// Every package a Packages file (`file`, its `text`) of the archive in `archive` lists has the
// Size and SHA256 recorded for its Filename, whose pool file verify_pool checks; or, where it
// has no record, is there with that size: what apt would download and check.
void check_filenames(const std::string& archive, const std::string& file, std::string_view text,
                     const Context& ctx, const Recorded& recorded, Problems& problems) {
  auto stanzas = packages_stanzas(text);
  if (!stanzas)
    return problems.add(file, "malformed",
                        fmt::format("{}: a stanza without Package, Version or Architecture", file));
  for (const AptStanza& stanza : *stanzas) {
    std::string_view filename = stanza_field(stanza, "Filename"),
                     size = stanza_field(stanza, "Size"), sha256 = stanza_field(stanza, "SHA256");
    if (filename.empty())
      continue;
    std::string pool = archive + "/" + std::string(filename);
    std::error_code ec;
    if (auto r = recorded.find(pool); r != recorded.end()) {
      if (std::to_string(r->second->size) != size)
        problems.add(
            pool, "size",
            fmt::format("{}: {} gives size {}, recorded {}", pool, file, size, r->second->size),
            std::to_string(r->second->size), std::string(size));
      else if (r->second->sha256 != sha256)
        problems.add(pool, "sha256",
                     fmt::format("{}: {} gives another SHA-256 than recorded", pool, file),
                     r->second->sha256, std::string(sha256));
    } else if (auto found = fs::file_size(join_path(ctx.publication, pool), ec); ec) {
      problems.add(pool, "missing", fmt::format("{}: listed in {} but missing", pool, file));
    } else if (std::to_string(found) != size) {
      problems.add(pool, "size", fmt::format("{}: size {} but {} says {}", pool, found, file, size),
                   std::string(size), std::to_string(found));
    }
  }
}

// One apt suite: signatures, then each listed index's size and SHA-256 (and what each Packages
// file lists against the pool), then the by-hash copies apt fetches instead with Acquire-By-Hash.
void verify_apt_suite(const Context& ctx, const fs::path& path,
                      const std::optional<Checker>& checker, const Recorded& recorded,
                      Problems& problems) {
  std::string dir = path.string(), suite = shown(ctx.publication, path);
  auto release = read_file(dir + "/Release");
  if (!release)
    return problems.unreadable(suite + "/Release", release.error());
  if (checker)
    verify_apt_signatures(dir, suite, *release, *checker, problems);
  // Against the clock, not SOURCE_DATE_EPOCH: what a client would see now.
  if (auto until = release_valid_until(*release); until && *until < std::time(nullptr))
    problems.add(suite + "/Release", "expired",
                 fmt::format("{}/Release: expired {} (Valid-Until), which apt refuses; index "
                             "again to renew it",
                             suite, rfc2822_utc(*until)));
  auto listed = release_hashes(*release, "SHA256");
  if (listed.empty())
    problems.add(suite + "/Release", "malformed", fmt::format("{}/Release: no SHA256 list", suite));
  for (const auto& [name, entry] : listed) {
    std::string file = suite + "/" + name;
    auto bytes = read_file(dir + "/" + name);
    if (!bytes)
      problems.unreadable(file, bytes.error());
    else if (bytes->size() != entry.size)
      problems.add(file, "size",
                   fmt::format("{}: size {} but Release says {}", file, bytes->size(), entry.size),
                   std::to_string(entry.size), std::to_string(bytes->size()));
    else if (auto sha = sha256_hex(*bytes); sha != entry.hash)
      problems.add(file, "sha256", fmt::format("{}: SHA-256 differs from Release", file),
                   entry.hash, sha);
    else if (name.ends_with("/Packages"))
      check_filenames(shown(ctx.publication, path.parent_path().parent_path()), file, *bytes, ctx,
                      recorded, problems);
  }
  if (release->find("\nAcquire-By-Hash: yes\n") == std::string::npos)
    return;
  for (const char* list : {"SHA256", "SHA512"})
    for (const auto& [name, entry] : release_hashes(*release, list)) {
      std::string by_hash =
          fmt::format("{}/by-hash/{}/{}", fs::path(name).parent_path().string(), list, entry.hash);
      if (::access((dir + "/" + by_hash).c_str(), F_OK) != 0)
        problems.add(
            suite + "/" + by_hash, "missing",
            fmt::format("{}/{}: missing, though Release says Acquire-By-Hash", suite, by_hash));
    }
}

// Every package a dnf repository's primary.xml lists is where it says, with its size: what
// dnf would download (a noarch package is a link in each architecture's directory).
void check_locations(const fs::path& dir, const std::string& repository, std::string_view primary,
                     Problems& problems) {
  auto locations = parse_primary_locations(primary);
  if (!locations)
    return problems.add(
        repository + "/repodata", "malformed",
        fmt::format("{}: primary.xml.gz: {}", repository, locations.error().message()));
  for (const auto& l : *locations) {
    std::error_code ec;
    std::string file = repository + "/" + l.href;
    auto size = fs::file_size(dir / l.href, ec);
    if (ec)
      problems.add(file, "missing", fmt::format("{}: listed in primary.xml but missing", file));
    else if (size != l.size)
      problems.add(file, "size",
                   fmt::format("{}: size {} but primary.xml says {}", file, size, l.size),
                   std::to_string(l.size), std::to_string(size));
  }
}

// One file that repomd.xml (`shown`) lists, in the repository `dir`.
void verify_repomd_entry(const Context& ctx, const fs::path& dir, const std::string& shown_repomd,
                         const RepomdEntry& e, Problems& problems) {
  std::string file = shown(ctx.publication, dir / e.location);
  auto bytes = read_file((dir / e.location).string());
  if (!bytes)
    return problems.unreadable(file, bytes.error());
  if (bytes->size() != e.size)
    return problems.add(file, "size",
                        fmt::format("{}: {} has size {} but repomd.xml says {}", shown_repomd,
                                    e.location, bytes->size(), e.size),
                        std::to_string(e.size), std::to_string(bytes->size()));
  if (auto sha = sha256_hex(*bytes); sha != e.checksum)
    return problems.add(
        file, "sha256",
        fmt::format("{}: {} has another SHA-256 than repomd.xml says", shown_repomd, e.location),
        e.checksum, sha);
  auto xml = gzip_decompress(*bytes, k_max_primary);
  if (!xml)
    return problems.add(file, "malformed",
                        fmt::format("{}: {}: {}", shown_repomd, e.location, xml.error().message()));
  if (!e.open_checksum.empty() &&
      (xml->size() != e.open_size || sha256_hex(*xml) != e.open_checksum))
    return problems.add(file, "open-checksum",
                        fmt::format("{}: {} holds other text than its open-checksum and "
                                    "open-size in repomd.xml say",
                                    shown_repomd, e.location),
                        e.open_checksum, "");
  if (e.type == "primary")
    check_locations(dir, shown(ctx.publication, dir), *xml, problems);
}

// One dnf repository: repomd.xml's signature, then each file it lists.
void verify_yum_repo(const Context& ctx, const fs::path& path,
                     const std::optional<Checker>& checker, Problems& problems) {
  fs::path dir = path.parent_path().parent_path();
  std::string repomd_file = shown(ctx.publication, path);
  auto repomd = read_file(path.string());
  if (!repomd)
    return problems.unreadable(repomd_file, repomd.error());
  if (checker) {
    auto asc = read_file(path.string() + ".asc");
    if (!asc)
      problems.unreadable(repomd_file + ".asc", asc.error());
    else if (auto check = checker->keyring.verify_detached(*asc, *repomd); !check)
      problems.unreadable(repomd_file + ".asc", check.error());
    else if (!check->good)
      problems.add(repomd_file + ".asc", "signature",
                   fmt::format("{}.asc: bad signature: {}", repomd_file, check->problem));
    else
      checker->published_key(*check, repomd_file + ".asc", problems);
  }
  auto entries = parse_repomd(*repomd);
  if (!entries)
    return problems.add(repomd_file, "malformed",
                        fmt::format("{}: {}", repomd_file, entries.error().message()));
  for (const auto& e : *entries)
    verify_repomd_entry(ctx, dir, repomd_file, e, problems);
}

} // namespace

Result<std::vector<Problem>> verify(const Context& ctx) {
  Problems problems;
  // Shared: no push or index swaps a suite between the reads of its Release and its indexes.
  OPSKIT_TRY_ASSIGN(auto lock, lock_repository(ctx, FileLock::Mode::shared));
  OPSKIT_TRY_ASSIGN(auto signer, open_signer(ctx, SignRequest::if_key));
  auto signing = checker(ctx, signer, problems);
  OPSKIT_TRY_ASSIGN(auto records, ctx.state.packages());
  verify_pool(ctx, records, problems);
  Recorded recorded;
  for (const auto& r : records)
    recorded.emplace(r.file, &r);
  std::error_code ec;
  std::vector<fs::path> suites;
  for (const auto& distro : fs::directory_iterator(join_path(ctx.publication, "deb"), ec))
    for (const auto& suite : fs::directory_iterator(distro.path() / "dists", ec))
      if (!suite.path().filename().string().starts_with('.')) // a suite being built
        suites.push_back(suite.path());
  std::sort(suites.begin(), suites.end());
  // The default dists are always written: without them, clients set up by the README fail.
  auto [distro, codename] = *split_dist(ctx.config.deb_dist);
  std::string default_suite = detail::deb_suite(distro, codename);
  if (!std::binary_search(suites.begin(), suites.end(),
                          fs::path(join_path(ctx.publication, default_suite))))
    problems.add(default_suite + "/Release", "missing",
                 fmt::format("{}/Release: missing (pkgcloud index writes it)", default_suite));
  for (const auto& suite : suites)
    verify_apt_suite(ctx, suite, signing, recorded, problems);
  std::vector<fs::path> repomds;
  for (const auto& e : fs::recursive_directory_iterator(join_path(ctx.publication, "rpm"), ec))
    if (e.path().filename() == "repomd.xml" && e.path().parent_path().filename() == "repodata")
      repomds.push_back(e.path());
  std::sort(repomds.begin(), repomds.end());
  std::string default_dist = join_path(ctx.publication, detail::rpm_dist_dir(ctx.config.rpm_dist));
  if (std::none_of(repomds.begin(), repomds.end(),
                   [&](const fs::path& p) { return p.string().starts_with(default_dist + "/"); }))
    problems.add(detail::rpm_dist_dir(ctx.config.rpm_dist), "missing",
                 fmt::format("{}: no repodata/repomd.xml (pkgcloud index writes it)",
                             detail::rpm_dist_dir(ctx.config.rpm_dist)));
  for (const auto& path : repomds)
    verify_yum_repo(ctx, path, signing, problems);
  return problems.take();
}

} // namespace opskit::repo::ops
