// SPDX-License-Identifier: MIT
// Writing apt suites: each built and signed in memory, then its files (its tree::Generation)
// written into a new generation of the suite's directory, beside links to the current files it
// keeps, and the two directories exchanged at once (tree::replace_directory): no reader, and no
// kill -9, sees a Release that Release.gpg or InRelease does not sign. The previous
// generation's by-hash files stay for clients that hold the old Release.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <set>

#include <unistd.h>

#include <fmt/format.h>

#include "index/apt/release_hashes.hpp"
#include "layout/paths.hpp"
#include "ops/write.hpp"
#include "opskit/atomic_file.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/index/apt/suite.hpp"
#include "tree/generation.hpp"
#include "tree/local.hpp"

namespace fs = std::filesystem;

namespace opskit::repo::ops {

using detail::join_path;

namespace {

// A suite in memory, signed where the repository has a key.
struct Suite {
  std::string dir; // relative to the publication: deb/<distro>/dists/<codename>
  AptSuiteIndex index;
  std::string in_release, release_gpg;
  std::size_t packages = 0;
  bool is_signed = false;
};

// Takes the records of the suite out of `records`.
Result<Suite> build_suite(const Context& ctx, std::vector<PackageRecord>& records,
                          const std::string& distro, const std::string& codename,
                          std::optional<Signer>& signer) {
  const RepositoryConfig& config = ctx.config;
  AptSuiteInput input;
  input.codename = codename;
  input.origin = config.origin;
  input.label = config.label;
  input.architectures = config.architectures;
  input.components = {config.component};
  input.date = ctx.env.now;
  if (config.valid_for_days > 0)
    input.valid_until = ctx.env.now + static_cast<std::time_t>(config.valid_for_days) * 86400;
  std::string suite_dir = join_path(ctx.publication, detail::deb_suite(distro, codename));
  input.previous = [&suite_dir](const std::string& path) -> std::optional<std::string> {
    auto bytes = read_file(join_path(suite_dir, path));
    return bytes ? std::optional(std::move(*bytes)) : std::nullopt;
  };
  std::string dist = fmt::format("{}/{}", distro, codename);
  auto other = [&](const PackageRecord& r) {
    return r.format != PackageFormat::deb || r.dist != dist;
  };
  if (std::none_of(records.begin(), records.end(), other)) { // one suite: all of them
    input.packages = std::move(records);
    records.clear();
  } else {
    auto ours = std::stable_partition(records.begin(), records.end(), other);
    input.packages.assign(std::make_move_iterator(ours), std::make_move_iterator(records.end()));
    records.erase(ours, records.end());
  }
  OPSKIT_TRY_ASSIGN(auto index, build_apt_suite(input));
  Suite suite{detail::deb_suite(distro, codename), std::move(index), "", "", input.packages.size()};
  if (signer) {
    auto clear = signer->keyring.clear_sign(signer->fingerprint, suite.index.release);
    if (!clear)
      return fail(clear.error().with_context(fmt::format("sign {}/InRelease", suite.dir)));
    auto detached = signer->keyring.detach_sign(signer->fingerprint, suite.index.release);
    if (!detached)
      return fail(detached.error().with_context(fmt::format("sign {}/Release.gpg", suite.dir)));
    suite.in_release = std::move(*clear);
    suite.release_gpg = std::move(*detached);
    suite.is_signed = true;
  }
  return suite;
}

// The by-hash names that the Release in `dir` lists: the generation clients may hold.
std::set<std::string> listed_by_hash(const std::string& dir) {
  std::set<std::string> hashes;
  if (auto old = read_file(join_path(dir, "Release")))
    for (const char* list : {"SHA256", "SHA512"})
      for (const auto& [path, entry] : release_hashes(*old, list))
        hashes.insert(entry.hash);
  return hashes;
}

// The files of `suite`, by phase: by-hash copies, indexes, then Release, Release.gpg and
// InRelease; views into `suite`.
tree::Generation generation_of(const Suite& suite) {
  tree::Generation generation;
  for (const auto& copy : suite.index.by_hash)
    generation.add(join_path(suite.dir, copy.path), suite.index.files[copy.of].data);
  for (const auto& f : suite.index.files)
    generation.add(join_path(suite.dir, f.path), f.data);
  generation.add(join_path(suite.dir, "Release"), suite.index.release);
  if (suite.is_signed) {
    generation.add(join_path(suite.dir, "Release.gpg"), suite.release_gpg);
    generation.add(join_path(suite.dir, "InRelease"), suite.in_release);
  }
  return generation;
}

// Writes `suite` into the publication; returns the files written, relative to its directory.
// The suite's directory is replaced whole (tree::replace_directory): the new files, and links
// to the current ones it keeps: the by-hash copies the current Release lists, for clients that
// hold it, and anything else in it but a killed run's temporaries and, when the suite is no
// longer signed, the old signatures.
Result<std::vector<std::string>> place_suite(const Context& ctx, const Suite& suite) {
  std::string dir = join_path(ctx.publication, suite.dir);
  std::set<std::string> hashes = listed_by_hash(dir);
  std::vector<std::pair<std::string, std::string_view>> files;
  std::set<std::string> fresh;
  tree::Generation generation = generation_of(suite);
  for (const auto* f : generation.files()) {
    std::string name = f->path.substr(suite.dir.size() + 1);
    if (f->phase == detail::Phase::content_addressed) {
      hashes.insert(name.substr(name.rfind('/') + 1));
      if (::access(join_path(dir, name).c_str(), F_OK) == 0)
        continue; // content-addressed: already there is already right, and kept
    }
    fresh.insert(name);
    files.emplace_back(std::move(name), f->bytes);
  }
  std::vector<std::string> kept;
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec))
      continue;
    std::string name = fs::relative(e.path(), dir, ec).string();
    std::string base = e.path().filename().string();
    bool stale_copy = name.find("/by-hash/") != std::string::npos && !hashes.contains(base);
    bool stale_signature = !suite.is_signed && (name == "InRelease" || name == "Release.gpg");
    if (!fresh.contains(name) && !is_temporary_name(base) && !stale_copy && !stale_signature)
      kept.push_back(std::move(name));
  }
  std::vector<std::string> written;
  for (const auto& [name, bytes] : files)
    written.push_back(name);
  OPSKIT_TRY(tree::replace_directory(fs::path(dir).parent_path().string(), dir, kept, files,
                                     StagedFiles()));
  return written;
}

} // namespace

Result<std::vector<WrittenIndex>>
write_deb_suites(const Context& ctx, std::vector<PackageRecord> records,
                 const std::vector<std::pair<std::string, std::string>>& suites,
                 std::optional<Signer>& signer) {
  // Everything in memory and signed before the first file is touched.
  std::vector<Suite> built;
  for (const auto& [distro, codename] : suites) {
    OPSKIT_TRY_ASSIGN(auto suite, build_suite(ctx, records, distro, codename, signer));
    built.push_back(std::move(suite));
  }
  std::vector<WrittenIndex> report;
  for (const auto& suite : built) {
    OPSKIT_TRY_ASSIGN(auto files, place_suite(ctx, suite));
    report.push_back({PackageFormat::deb, suite.dir, suite.packages, std::move(files)});
  }
  return report;
}

} // namespace opskit::repo::ops
