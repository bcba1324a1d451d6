// SPDX-License-Identifier: MIT
// apt repository metadata: the Packages indexes of a suite, their by-hash copies and its Release
// file (release.cpp).
//
// The format is described on the Debian wiki ("DebianRepository/Format"): each
// <component>/binary-<arch>/Packages below dists/<suite>/ holds one paragraph per package: its
// control file plus Filename, Size and hashes of the .deb.
//
// What is subtle (each seen failing with apt 2.6):
// - the uncompressed Packages must be listed even though apt downloads Packages.xz; listing only
//   compressed files makes apt fetch nothing and exit 0;
// - "Architecture: all" packages go into every binary-<arch>/Packages;
// - with "Acquire-By-Hash: yes" apt fetches by-hash/SHA256/<hash>, so a client holding an older
//   Release still finds the indexes it names while a new generation is being published. Those
//   copies are therefore written before Release, and the previous generation is kept. apt asks
//   for the strongest hash Release lists, SHA512 here, so copies exist under SHA256 and SHA512.
#include "opskit/repo/index/apt/suite.hpp"

#include <algorithm>
#include <future>
#include <map>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/version.hpp"

namespace opskit::repo {

std::string packages_stanza(const PackageRecord& r) {
  std::string out = r.metadata;
  while (!out.empty() && out.back() == '\n')
    out.pop_back();
  out.push_back('\n');
  // Filename is relative to the apt archive, deb/<distro>/; the record's file is relative to the
  // publication, deb/<distro>/pool/...
  auto pool = detail::parse_deb_pool_file(r.file);
  std::string_view file = pool ? pool->filename : std::string_view(r.file);
  fmt::format_to(std::back_inserter(out), "Filename: {}\nSize: {}\nMD5sum: {}\n", file, r.size,
                 r.md5);
  if (!r.sha1.empty())
    fmt::format_to(std::back_inserter(out), "SHA1: {}\n", r.sha1);
  fmt::format_to(std::back_inserter(out), "SHA256: {}\n", r.sha256);
  if (!r.sha512.empty())
    fmt::format_to(std::back_inserter(out), "SHA512: {}\n", r.sha512);
  return out;
}

namespace {

// The suite's Release fields: the architectures and components named, with those its packages
// are of ("all" going into each architecture). Fails when there is no architecture.
Result<AptReleaseFields> release_fields(const AptSuiteInput& input) {
  AptReleaseFields fields{.origin = input.origin,
                          .label = input.label,
                          .codename = input.codename,
                          .date = input.date,
                          .valid_until = input.valid_until,
                          .architectures = {input.architectures.begin(), input.architectures.end()},
                          .components = {input.components.begin(), input.components.end()}};
  fields.architectures.erase("all");
  for (const auto& r : input.packages) {
    fields.components.insert(r.component);
    if (r.arch != "all")
      fields.architectures.insert(r.arch);
  }
  if (fields.architectures.empty())
    return fail(fmt::format("suite {}: no architectures", input.codename));
  return fields;
}

// The records in the order of the Packages files: by name, dpkg version order and arch.
std::vector<const PackageRecord*> sorted_records(const std::vector<PackageRecord>& records) {
  std::vector<const PackageRecord*> sorted;
  for (const auto& r : records)
    sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const PackageRecord* a, const PackageRecord* b) {
    if (a->name != b->name)
      return a->name < b->name;
    if (int c = compare_deb_versions(a->version, b->version); c != 0)
      return c < 0;
    return a->arch < b->arch;
  });
  return sorted;
}

// The text of <component>/binary-<arch>/Packages: the stanzas of its records, "all" among them.
std::string packages_text(const std::vector<const PackageRecord*>& sorted,
                          std::string_view component, std::string_view arch) {
  std::string packages;
  for (const PackageRecord* r : sorted) {
    if (r->component != component || (r->arch != arch && r->arch != "all"))
      continue;
    if (!packages.empty())
      packages.push_back('\n');
    packages += packages_stanza(*r);
  }
  return packages;
}

// The suite's files as they are made: the by-hash copies, the indexes, and the digests Release
// lists of each index, by path.
struct SuiteFiles {
  std::vector<IndexFile> by_hash, indexes;
  std::map<std::string, Digests> listed;
};

// Adds <dir>/Packages, Packages.gz and Packages.xz and their by-hash copies to `files`.
Result<void> add_packages(SuiteFiles& files, const std::string& dir, std::string packages) {
  // xz takes most of an index's time: it runs beside gzip on another core.
  auto xz_job = std::async(std::launch::async, [&packages] { return xz_compress(packages); });
  auto gz = gzip_compress(packages);
  auto xz = xz_job.get();
  if (!gz)
    return fail(gz.error());
  if (!xz)
    return fail(xz.error());
  for (auto [name, data] : {std::pair{"Packages", &packages}, std::pair{"Packages.gz", &*gz},
                            std::pair{"Packages.xz", &*xz}}) {
    std::string path = fmt::format("{}/{}", dir, name);
    Digests d = digest_all(*data);
    files.by_hash.push_back({fmt::format("{}/by-hash/SHA256/{}", dir, d.sha256), *data});
    files.by_hash.push_back({fmt::format("{}/by-hash/SHA512/{}", dir, d.sha512), *data});
    files.listed.emplace(path, std::move(d));
    files.indexes.push_back({std::move(path), std::move(*data)});
  }
  return {};
}

} // namespace

Result<AptSuiteIndex> build_apt_suite(const AptSuiteInput& input) {
  OPSKIT_TRY_ASSIGN(auto fields, release_fields(input));
  auto sorted = sorted_records(input.packages);
  SuiteFiles files;
  for (const auto& component : fields.components)
    for (const auto& arch : fields.architectures)
      OPSKIT_TRY(add_packages(files, fmt::format("{}/binary-{}", component, arch),
                              packages_text(sorted, component, arch)));
  AptSuiteIndex index;
  // The by-hash copies first: they must exist before any index or Release names them.
  index.files = std::move(files.by_hash);
  for (auto& f : files.indexes)
    index.files.push_back(std::move(f));
  index.release = apt_release(fields, files.listed);
  return index;
}

} // namespace opskit::repo
