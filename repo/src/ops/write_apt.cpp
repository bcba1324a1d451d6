// SPDX-License-Identifier: MIT
// Writing apt suites: each built and signed in memory, then its files (its tree::Generation)
// written into a new generation of the suite's directory, beside links to the current files it
// keeps, and the two directories exchanged at once (tree::replace_directory): no reader, and no
// kill -9, sees a Release that Release.gpg or InRelease does not sign. The previous
// generation's by-hash files stay for clients that hold the old Release.
//
// A push, rm or prune (build_deb_rewrite) reads no record but those it changed where it can:
// the state keeps the SHA-256 of each Packages text the last rewrite wrote, and triggers note
// every deb record changed since (as for the dnf runs, store/state.cpp); the rewrite reads the
// files, checks them against those digests, and takes out and puts in the changed packages'
// stanzas. Where anything is amiss it writes the suite from all its records instead, which is
// also what `index` does. Both give the same bytes.
#include <algorithm>
#include <ctime>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <unistd.h>

#include <fmt/format.h>

#include "index/apt/release_hashes.hpp"
#include "layout/paths.hpp"
#include "ops/config.hpp"
#include "ops/write.hpp"
#include "opskit/atomic_file.hpp"
#include "opskit/file.hpp"
#include "opskit/repo/codec/digest.hpp"
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

// The architectures and components the suite lists: those configured and those its Release in
// `suite_dir` lists now. One a package brought stays when its last package goes, so that its
// clients keep the suite's "all" packages (an architecture), and find the component they name
// in their sources, empty; as a dnf repository made for an architecture stays.
void add_listed(const Context& ctx, const std::string& suite_dir, AptSuiteInput& input) {
  input.architectures = ctx.config.architectures;
  input.components = {ctx.config.component};
  auto release = read_file(join_path(suite_dir, "Release"));
  if (!release)
    return;
  auto add = [](std::vector<std::string>& to, std::vector<std::string> listed) {
    for (auto& name : listed) // each a directory's name: none a hand could make a path of
      if (dist_part_ok(name) && std::find(to.begin(), to.end(), name) == to.end())
        to.push_back(std::move(name));
  };
  add(input.architectures, release_architectures(*release));
  add(input.components, release_components(*release));
}

// The suite's input but its packages: its Release fields from the configuration, and its
// current files to copy compressed runs from.
AptSuiteInput suite_input(const Context& ctx, const std::string& codename,
                          const std::string& suite_dir) {
  const RepositoryConfig& config = ctx.config;
  AptSuiteInput input;
  input.codename = codename;
  input.origin = config.origin;
  input.label = config.label;
  add_listed(ctx, suite_dir, input);
  input.date = ctx.env.now;
  if (config.valid_for_days > 0)
    input.valid_until = ctx.env.now + static_cast<std::time_t>(config.valid_for_days) * 86400;
  input.previous = [suite_dir](const std::string& path) -> std::optional<std::string> {
    auto bytes = read_file(join_path(suite_dir, path));
    return bytes ? std::optional(std::move(*bytes)) : std::nullopt;
  };
  return input;
}

// Takes the records of `dist` out of `records`.
std::vector<PackageRecord> take_records(std::vector<PackageRecord>& records,
                                        const std::string& dist) {
  auto other = [&](const PackageRecord& r) {
    return r.format != PackageFormat::deb || r.dist != dist;
  };
  std::vector<PackageRecord> ours;
  if (std::none_of(records.begin(), records.end(), other)) { // one suite: all of them
    ours = std::move(records);
    records.clear();
  } else {
    auto first = std::stable_partition(records.begin(), records.end(), other);
    ours.assign(std::make_move_iterator(first), std::make_move_iterator(records.end()));
    records.erase(first, records.end());
  }
  return ours;
}

// Builds the suite `distro`/`codename` from `input` in memory, signed where there is a key.
Result<Suite> build_suite(const std::string& distro, const std::string& codename,
                          const AptSuiteInput& input, std::optional<Signer>& signer) {
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

// A suite's Packages files as the last rewrite left them, with the records changed since
// spliced in: the stanzas of each file, viewing `texts`.
struct Spliced {
  std::deque<std::string> texts; // the files read and the stanzas made
  std::map<std::string, std::vector<AptStanza>> stanzas;
};

// Whether the stanza's package is one of `changed` (sorted as SQLite sorts text: bytewise).
bool is_changed(const AptStanza& s, const std::vector<YumIdentity>& changed) {
  using Key = std::tuple<std::string_view, std::string_view, std::string_view>;
  auto of = [](const YumIdentity& i) { return Key(i.name, i.version, i.arch); };
  Key key(s.name, s.version, s.arch);
  auto it = std::lower_bound(changed.begin(), changed.end(), key,
                             [&](const YumIdentity& i, const Key& k) { return of(i) < k; });
  return it != changed.end() && of(*it) == key;
}

// The Packages directories of the suite a rewrite saved ("main/binary-amd64"), when they are
// every component and architecture the configuration names, crossed.
std::optional<std::set<std::string>> tracked_dirs(const Context& ctx, const AptTracked& tracked) {
  std::set<std::string> dirs, components, architectures;
  for (const auto& [path, sha256] : tracked.sha256) {
    auto slash = path.find("/binary-");
    if (slash == std::string::npos || !path.ends_with("/Packages"))
      return std::nullopt;
    dirs.insert(path.substr(0, path.size() - 9));
    components.insert(path.substr(0, slash));
    architectures.insert(path.substr(slash + 8, path.size() - 9 - slash - 8));
  }
  bool configured =
      components.contains(ctx.config.component) &&
      std::all_of(ctx.config.architectures.begin(), ctx.config.architectures.end(),
                  [&](const std::string& a) { return a == "all" || architectures.contains(a); });
  if (!configured || dirs.size() != components.size() * architectures.size())
    return std::nullopt;
  return dirs;
}

// Whether each component and architecture of `stanzas` is still one the suite lists: one the
// configuration names or the suite listed (`input`'s), or one a package is of ("all" making no
// architecture).
bool still_listed(const AptSuiteInput& input,
                  const std::map<std::string, std::vector<AptStanza>>& stanzas) {
  std::set<std::string> components(input.components.begin(), input.components.end());
  std::set<std::string> architectures(input.architectures.begin(), input.architectures.end());
  for (const auto& [dir, list] : stanzas) {
    auto slash = dir.find("/binary-");
    if (!list.empty())
      components.insert(dir.substr(0, slash));
    if (std::any_of(list.begin(), list.end(), [](const AptStanza& s) { return s.arch != "all"; }))
      architectures.insert(dir.substr(slash + 8));
  }
  return std::all_of(stanzas.begin(), stanzas.end(), [&](const auto& entry) {
    auto slash = entry.first.find("/binary-");
    return components.contains(entry.first.substr(0, slash)) &&
           architectures.contains(entry.first.substr(slash + 8));
  });
}

// The suite `dist` as the last rewrite left its Packages files, with the deb records changed
// since taken out and put in again as recorded now; nothing where that cannot be trusted: no
// texts saved, a file that is not what was saved (a run killed before its commit, a hand's
// edit), a changed package of a component or architecture the suite has no file for, a
// component or architecture left with no package and not configured nor listed (`input`'s,
// add_listed()), or a configuration that names another.
Result<std::optional<Spliced>> splice_suite(const Context& ctx, const std::string& dist,
                                            const std::string& suite_dir,
                                            const AptSuiteInput& input) {
  OPSKIT_TRY_ASSIGN(auto tracked, ctx.state.apt_tracked(dist));
  if (!tracked)
    return std::nullopt;
  auto dirs = tracked_dirs(ctx, *tracked);
  if (!dirs)
    return std::nullopt;
  Spliced out;
  // The changed packages still recorded, each as its stanza, by the directories it goes in.
  std::map<std::string, std::vector<AptStanza>> made;
  for (const auto& id : tracked->changed) {
    OPSKIT_TRY_ASSIGN(auto record,
                      ctx.state.find(PackageFormat::deb, dist, id.name, id.version, id.arch));
    if (!record)
      continue;
    std::string& text = out.texts.emplace_back();
    append_packages_stanza(text, *record);
    auto stanza = packages_stanzas(text);
    if (!stanza || stanza->size() != 1 || stanza->front().name != record->name ||
        stanza->front().version != record->version || stanza->front().arch != record->arch)
      return std::nullopt;
    bool placed = false;
    for (const auto& dir : *dirs)
      if (dir.starts_with(record->component + "/binary-") &&
          (record->arch == "all" || dir.ends_with("/binary-" + record->arch))) {
        made[dir].push_back(stanza->front());
        placed = true;
      }
    if (!placed)
      return std::nullopt;
  }
  for (const auto& dir : *dirs) {
    std::string path = dir + "/Packages";
    auto bytes = read_file(join_path(suite_dir, path));
    if (!bytes || sha256_hex(*bytes) != tracked->sha256.at(path))
      return std::nullopt;
    auto old = packages_stanzas(out.texts.emplace_back(std::move(*bytes)));
    if (!old)
      return std::nullopt;
    std::vector<AptStanza>& stanzas = out.stanzas[dir];
    stanzas.reserve(old->size() + made[dir].size());
    for (const auto& s : *old)
      if (!is_changed(s, tracked->changed))
        stanzas.push_back(s);
    for (const auto& s : made[dir]) {
      auto at = std::upper_bound(
          stanzas.begin(), stanzas.end(), s, [](const AptStanza& a, const AptStanza& b) {
            return apt_before(a.name, a.version, a.arch, b.name, b.version, b.arch);
          });
      stanzas.insert(at, s);
    }
  }
  if (!still_listed(input, out.stanzas))
    return std::nullopt;
  return out;
}

// The SHA-256 of each Packages text the suite's Release lists, by path in the suite.
std::map<std::string, std::string> packages_sha256(const Suite& suite) {
  std::map<std::string, std::string> out;
  for (auto& [path, entry] : release_hashes(suite.index.release, "SHA256"))
    if (path.ends_with("/Packages"))
      out.emplace(path, std::move(entry.hash));
  return out;
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
    auto input =
        suite_input(ctx, codename, join_path(ctx.publication, detail::deb_suite(distro, codename)));
    input.packages = take_records(records, fmt::format("{}/{}", distro, codename));
    OPSKIT_TRY_ASSIGN(auto suite, build_suite(distro, codename, input, signer));
    built.push_back(std::move(suite));
  }
  std::vector<WrittenIndex> report;
  for (const auto& suite : built) {
    OPSKIT_TRY_ASSIGN(auto files, place_suite(ctx, suite));
    report.push_back({PackageFormat::deb, suite.dir, suite.packages, std::move(files)});
  }
  return report;
}

Result<Placing> build_deb_rewrite(const Context& ctx,
                                  const std::vector<std::pair<std::string, std::string>>& suites,
                                  std::optional<Signer>& signer) {
  struct Built {
    std::optional<std::vector<PackageRecord>> records; // read once, if a suite needs them
    std::deque<Spliced> spliced;
    std::vector<std::pair<std::string, Suite>> suites; // by dist
  };
  auto made = std::make_shared<Built>();
  auto& [records, spliced, built] = *made;
  for (const auto& [distro, codename] : suites) {
    std::string dist = fmt::format("{}/{}", distro, codename);
    std::string dir = join_path(ctx.publication, detail::deb_suite(distro, codename));
    auto input = suite_input(ctx, codename, dir);
    OPSKIT_TRY_ASSIGN(auto splice, splice_suite(ctx, dist, dir, input));
    if (splice) {
      input.stanzas = std::move(spliced.emplace_back(std::move(*splice)).stanzas);
    } else {
      if (!records) {
        OPSKIT_TRY_ASSIGN(auto all, ctx.state.packages(PackageFormat::deb));
        records = std::move(all);
      }
      input.packages = take_records(*records, dist);
    }
    OPSKIT_TRY_ASSIGN(auto suite, build_suite(distro, codename, input, signer));
    built.emplace_back(std::move(dist), std::move(suite));
  }
  return [&ctx, made]() -> Result<void> {
    for (const auto& [dist, suite] : made->suites) {
      OPSKIT_TRY(place_suite(ctx, suite));
      OPSKIT_TRY(ctx.state.save_apt_texts(dist, packages_sha256(suite)));
    }
    return {};
  };
}

} // namespace opskit::repo::ops
