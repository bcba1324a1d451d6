// SPDX-License-Identifier: MIT
// Publishing a repository's metadata: apt suites, dnf repositories and the public key.
//
// Every file is staged (written to a temporary name and fsynced) and renamed in an order that
// keeps the published repository consistent for a reader at every instant, also across a
// kill -9: content-addressed files first (by-hash copies, <sha256>-primary.xml.gz), then the
// indexes, then the top-level files that name them (Release, Release.gpg, InRelease;
// repomd.xml.asc, repomd.xml). Everything is signed in memory before the first rename, so a
// signing failure publishes nothing. The previous generation of content-addressed files is
// kept, for clients that fetched the old top-level file a moment ago; temporary files of a
// killed run are swept away by the next one.
#include <filesystem>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "opskit/atomic_file.hpp"
#include "opskit/repo/apt_index.hpp"
#include "repository_detail.hpp"

namespace fs = std::filesystem;

namespace opskit::repo {

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

} // namespace

using detail::add_yum_fragments;
using detail::join_path;
using detail::read_whole;
using detail::release_hashes;

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
                                                             std::optional<Signer>& signer) {
  auto records = state_.packages();
  if (!records)
    return fail(records.error());

  struct Built {
    std::string dir; // rpm/<distro>/<version>/<arch>
    YumIndex index;
    std::string signature;
    std::size_t packages = 0;
    std::vector<std::pair<std::string, std::string>> links; // noarch file -> place in this repo
  };
  std::vector<Built> built;
  for (const auto& dist : dists) {
    // One repository per architecture; noarch packages belong to each, sources to SRPMS.
    std::set<std::string> arches(config_.rpm_architectures.begin(),
                                 config_.rpm_architectures.end());
    std::vector<const PackageRecord*> mine;
    for (const auto& r : *records)
      if (r.format == PackageFormat::rpm && r.dist == dist) {
        mine.push_back(&r);
        if (r.arch != "noarch")
          arches.insert(r.arch == "src" ? "SRPMS" : r.arch);
      }
    for (const auto& arch : arches) {
      Built b;
      b.dir = fmt::format("rpm/{}/{}", dist, arch);
      std::vector<YumEntry> packages;
      for (const PackageRecord* r : mine) {
        std::string dir = r->arch == "src" ? "SRPMS" : r->arch;
        if (dir != arch && !(r->arch == "noarch" && arch != "SRPMS"))
          continue;
        std::string location = "Packages/" + r->file.substr(r->file.rfind('/') + 1);
        if (dir != arch)
          b.links.emplace_back(r->file, fmt::format("{}/{}", b.dir, location));
        YumEntry entry{r->name,
                       r->version.find(':') == std::string::npos ? "0:" + r->version : r->version,
                       r->arch,
                       {r->xml_primary, r->xml_filelists, r->xml_other}};
        if (entry.xml.primary.empty()) { // recorded without fragments: write them now
          PackageRecord copy = *r;
          auto rpm = rpm_from_json(r->metadata);
          if (auto ok = rpm ? add_yum_fragments(copy, std::move(*rpm)) : fail(rpm.error()); !ok)
            return fail(ok.error().with_context(r->file));
          entry.xml = {std::move(copy.xml_primary), std::move(copy.xml_filelists),
                       std::move(copy.xml_other)};
        }
        packages.push_back(std::move(entry));
      }
      b.packages = packages.size();
      auto index = build_yum_repo(std::move(packages), env_.now);
      if (!index)
        return fail(index.error());
      b.index = std::move(*index);
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
    remove_stale_temporaries(join_path(dir, "repodata"));
    for (const auto& [from, to] : b.links) {
      std::string target = join_path(root_, to);
      if (::access(target.c_str(), F_OK) == 0)
        continue;
      if (auto made = make_directories(fs::path(target).parent_path().string()); !made)
        return fail(made.error());
      if (::link(join_path(root_, from).c_str(), target.c_str()) != 0) {
        auto bytes = read_whole(join_path(root_, from));
        if (!bytes)
          return fail(bytes.error());
        if (auto ok = write_file_atomic(target, *bytes); !ok)
          return fail(ok.error());
      }
    }
    // Files the previous repomd.xml names stay for clients that hold it.
    std::set<std::string> keep;
    if (auto old = read_file(join_path(dir, "repodata/repomd.xml")))
      if (auto entries = parse_repomd(*old))
        for (const auto& e : *entries)
          keep.insert(e.location);
    StagedFiles files;
    for (const auto& f : b.index.files) {
      keep.insert(f.path);
      if (auto ok = files.stage(join_path(dir, f.path), f.data); !ok)
        return fail(ok.error());
    }
    if (signer) {
      if (auto ok = files.stage(join_path(dir, "repodata/repomd.xml.asc"), b.signature); !ok)
        return fail(ok.error());
    }
    if (auto ok = files.stage(join_path(dir, "repodata/repomd.xml"), b.index.repomd); !ok)
      return fail(ok.error());
    if (auto ok = files.commit(); !ok)
      return fail(ok.error());
    if (!signer)
      ::unlink(join_path(dir, "repodata/repomd.xml.asc").c_str());
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(join_path(dir, "repodata"), ec)) {
      std::string name = "repodata/" + entry.path().filename().string();
      if (name.ends_with(".xml.gz") && !keep.contains(name))
        fs::remove(entry.path(), ec);
    }
    report.push_back(fmt::format("{}: {} packages", b.dir, b.packages));
  }
  return report;
}

} // namespace opskit::repo
