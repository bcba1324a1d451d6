// SPDX-License-Identifier: MIT
// apt repository metadata: Packages indexes and the Release file of a suite.
//
// The format is described on the Debian wiki ("DebianRepository/Format"): dists/<suite>/Release
// is a deb822 paragraph naming the suite and listing, under MD5Sum, SHA1, SHA256 and SHA512,
// " <hash> <size> <path>" for every index below dists/<suite>/; each
// <component>/binary-<arch>/Packages holds one paragraph per package: its control file plus
// Filename, Size and hashes of the .deb.
//
// What is subtle (each seen failing with apt 2.6):
// - the uncompressed Packages must be listed even though apt downloads Packages.xz; listing only
//   compressed files makes apt fetch nothing and exit 0;
// - SHA256 is required (MD5/SHA1 alone are "weak security information");
// - Date must be RFC 2822 in UTC; a date in the future is "not valid yet";
// - "Architecture: all" packages go into every binary-<arch>/Packages;
// - with "Acquire-By-Hash: yes" apt fetches by-hash/SHA256/<hash>, so a client holding an older
//   Release still finds the indexes it names while a new generation is being published. Those
//   copies are therefore written before Release, and the previous generation is kept. apt asks
//   for the strongest hash Release lists, SHA512 here, so copies exist under SHA256 and SHA512.
#include "opskit/repo/index/apt/suite.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "layout/paths.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/version.hpp"

namespace opskit::repo {

std::string rfc2822_utc(std::time_t t) {
  static constexpr const char* k_days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* k_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{}, {:02} {} {} {:02}:{:02}:{:02} UTC", k_days[tm.tm_wday], tm.tm_mday,
                     k_months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

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

Result<AptSuiteIndex> build_apt_suite(const AptSuiteInput& input) {
  std::set<std::string> architectures(input.architectures.begin(), input.architectures.end());
  architectures.erase("all");
  std::set<std::string> components(input.components.begin(), input.components.end());
  for (const auto& r : input.packages) {
    components.insert(r.component);
    if (r.arch != "all")
      architectures.insert(r.arch);
  }
  if (architectures.empty())
    return fail(fmt::format("suite {}: no architectures", input.codename));

  std::vector<const PackageRecord*> sorted;
  for (const auto& r : input.packages)
    sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const PackageRecord* a, const PackageRecord* b) {
    if (a->name != b->name)
      return a->name < b->name;
    if (int c = compare_deb_versions(a->version, b->version); c != 0)
      return c < 0;
    return a->arch < b->arch;
  });

  AptSuiteIndex index;
  std::vector<IndexFile> by_hash;
  std::map<std::string, Digests> listed; // path -> digests, sorted for Release
  for (const auto& component : components) {
    for (const auto& arch : architectures) {
      std::string packages;
      for (const PackageRecord* r : sorted) {
        if (r->component != component || (r->arch != arch && r->arch != "all"))
          continue;
        if (!packages.empty())
          packages.push_back('\n');
        packages += packages_stanza(*r);
      }
      // xz takes most of an index's time: it runs beside gzip on another core.
      auto xz_job = std::async(std::launch::async, [&packages] { return xz_compress(packages); });
      auto gz = gzip_compress(packages);
      auto xz = xz_job.get();
      if (!gz)
        return fail(gz.error());
      if (!xz)
        return fail(xz.error());
      std::string dir = fmt::format("{}/binary-{}", component, arch);
      for (auto [name, data] : {std::pair{"Packages", &packages}, std::pair{"Packages.gz", &*gz},
                                std::pair{"Packages.xz", &*xz}}) {
        std::string path = fmt::format("{}/{}", dir, name);
        Digests d = digest_all(*data);
        by_hash.push_back({fmt::format("{}/by-hash/SHA256/{}", dir, d.sha256), *data});
        by_hash.push_back({fmt::format("{}/by-hash/SHA512/{}", dir, d.sha512), *data});
        listed.emplace(path, std::move(d));
        index.files.push_back({std::move(path), std::move(*data)});
      }
    }
  }
  // The by-hash copies first: they must exist before any index or Release names them.
  for (auto& f : index.files)
    by_hash.push_back(std::move(f));
  index.files = std::move(by_hash);

  auto join = [](const std::set<std::string>& words) {
    return fmt::format("{}", fmt::join(words, " "));
  };
  std::string& rel = index.release;
  fmt::format_to(std::back_inserter(rel),
                 "Origin: {}\nLabel: {}\nSuite: {}\nCodename: {}\nDate: {}\n", input.origin,
                 input.label, input.codename, input.codename, rfc2822_utc(input.date));
  if (input.valid_until)
    fmt::format_to(std::back_inserter(rel), "Valid-Until: {}\n", rfc2822_utc(*input.valid_until));
  fmt::format_to(std::back_inserter(rel),
                 "Acquire-By-Hash: yes\nArchitectures: {}\nComponents: {}\n", join(architectures),
                 join(components));
  for (auto [title, member] :
       {std::pair{"MD5Sum", &Digests::md5}, std::pair{"SHA1", &Digests::sha1},
        std::pair{"SHA256", &Digests::sha256}, std::pair{"SHA512", &Digests::sha512}}) {
    rel += title;
    rel += ":\n";
    for (const auto& [path, d] : listed)
      fmt::format_to(std::back_inserter(rel), " {} {:>16} {}\n", d.*member, d.size, path);
  }
  return index;
}

} // namespace opskit::repo
