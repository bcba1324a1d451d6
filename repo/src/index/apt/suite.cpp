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
//   for the strongest hash Release lists, SHA256 here, so copies exist under SHA256 alone.
//
// Runs. A Packages file is cut into runs of stanzas, each ending after a package whose name,
// version and architecture hash to one in 256 (so that one package added or removed moves no
// boundary but its own run's), and each run is one keyed gzip member of Packages.gz (its key the
// SHA-256 of its text) and one block of Packages.xz, in the same order. A rewrite reads the
// previous Packages.gz and Packages.xz, pairs the n-th member with the n-th block, and copies
// both for every run whose text it would compress again: a push into a suite of 10,000
// packages compresses one run, not five megabytes. The output depends on the text alone, never
// on what was published before. Runs cost Packages.xz about 6% and Packages.gz 2% in size.
#include "opskit/repo/index/apt/suite.hpp"

#include <algorithm>
#include <future>
#include <map>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "layout/paths.hpp"
#include "opskit/parallel.hpp"
#include "opskit/repo/codec/compress.hpp"
#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/version.hpp"

namespace opskit::repo {

bool apt_run_ends(std::string_view name, std::string_view version, std::string_view arch) {
  constexpr std::uint64_t k_run_packages = 256; // on average in a run
  std::uint64_t h = 14695981039346656037u;      // FNV-1a, fixed so that output is too
  for (std::string_view part : {name, version, arch}) {
    for (char c : part)
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211u;
    h *= 1099511628211u; // a NUL between the parts
  }
  return h % k_run_packages == 0;
}

bool apt_before(std::string_view name, std::string_view version, std::string_view arch,
                std::string_view other_name, std::string_view other_version,
                std::string_view other_arch) noexcept {
  if (name != other_name)
    return name < other_name;
  if (int c = compare_deb_versions(version, other_version); c != 0)
    return c < 0;
  if (arch != other_arch)
    return arch < other_arch;
  return version < other_version;
}

void append_packages_stanza(std::string& out, const PackageRecord& r) {
  std::string_view metadata = r.metadata;
  while (metadata.ends_with('\n'))
    metadata.remove_suffix(1);
  out += metadata;
  out.push_back('\n');
  // Filename is relative to the apt archive, deb/<distro>/; the record's file is relative to the
  // publication, deb/<distro>/pool/...
  auto pool = detail::parse_deb_pool_file(r.file);
  std::string_view file = pool ? pool->filename : std::string_view(r.file);
  auto to = std::back_inserter(out);
  fmt::format_to(to, "Filename: {}\nSize: {}\nMD5sum: {}\n", file, r.size, r.md5);
  if (!r.sha1.empty())
    fmt::format_to(to, "SHA1: {}\n", r.sha1);
  fmt::format_to(to, "SHA256: {}\n", r.sha256);
  if (!r.sha512.empty())
    fmt::format_to(to, "SHA512: {}\n", r.sha512);
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
  for (const auto& [dir, stanzas] : input.stanzas) {
    auto slash = dir.find("/binary-");
    if (slash == std::string::npos)
      return fail(fmt::format("suite {}: no Packages file in {}", input.codename, dir));
    fields.components.insert(dir.substr(0, slash));
    fields.architectures.insert(dir.substr(slash + 8));
  }
  if (fields.architectures.empty())
    return fail(fmt::format("suite {}: no architectures", input.codename));
  return fields;
}

// The records in the order of the Packages files.
std::vector<const PackageRecord*> sorted_records(const std::vector<PackageRecord>& records) {
  std::vector<const PackageRecord*> sorted;
  for (const auto& r : records)
    sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const PackageRecord* a, const PackageRecord* b) {
    return apt_before(a->name, a->version, a->arch, b->name, b->version, b->arch);
  });
  return sorted;
}

// A Packages file: its text, and its runs as they lie in it. The views survive a move of the
// whole: the text is reserved on the heap whenever it holds a stanza.
struct Runs {
  struct Run {
    std::string_view text; // into Runs::text
    std::string key;       // SHA-256 of the text, raw
  };
  std::string text;
  std::vector<Run> runs;
};

// The runs of `out.text`, each ending at one of `ends` (ascending) or at the end of the text.
void cut_runs(Runs& out, std::vector<std::size_t> ends) {
  if (ends.empty() || ends.back() != out.text.size())
    ends.push_back(out.text.size());
  std::string_view text = out.text;
  std::size_t begin = 0;
  for (std::size_t end : ends) {
    auto run = text.substr(begin, end - begin);
    out.runs.push_back({run, Sha256Stream().update(run).raw()});
    begin = end;
  }
}

// The runs of <component>/binary-<arch>/Packages: the stanzas of its records, "all" among them,
// a blank line between two; a run after the first starts with that blank line. The stanzas are
// written into one text, which is the file.
Runs packages_runs(const std::vector<const PackageRecord*>& sorted, std::string_view component,
                   std::string_view arch) {
  Runs out;
  std::vector<const PackageRecord*> ours;
  std::size_t size = 0;
  for (const PackageRecord* r : sorted)
    if (r->component == component && (r->arch == arch || r->arch == "all")) {
      ours.push_back(r);
      size += r->metadata.size() + r->file.size() + r->md5.size() + r->sha1.size() +
              r->sha256.size() + r->sha512.size() + 64; // the field names, Size and a blank line
    }
  out.text.reserve(size);
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    if (i > 0)
      out.text.push_back('\n');
    append_packages_stanza(out.text, *ours[i]);
    if (apt_run_ends(*ours[i]))
      ends.push_back(out.text.size());
  }
  cut_runs(out, std::move(ends));
  return out;
}

// The same of a Packages file given as its stanzas, in order.
Runs stanza_runs(const std::vector<AptStanza>& stanzas) {
  Runs out;
  std::size_t size = 0;
  for (const auto& s : stanzas)
    size += s.text.size() + 1;
  out.text.reserve(size);
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < stanzas.size(); ++i) {
    if (i > 0)
      out.text.push_back('\n');
    out.text += stanzas[i].text;
    if (apt_run_ends(stanzas[i].name, stanzas[i].version, stanzas[i].arch))
      ends.push_back(out.text.size());
  }
  cut_runs(out, std::move(ends));
  return out;
}

// The suite's files as they are made: the indexes, their by-hash copies, and the digests
// Release lists of each index, by path.
struct SuiteFiles {
  std::vector<IndexFile> indexes;
  std::vector<AptSuiteIndex::Copy> by_hash;
  std::map<std::string, Digests> listed;
};

// The compressed runs of the previous Packages.gz and Packages.xz, by key: the n-th keyed member
// and the n-th block, when both files hold as many and each pair holds as many bytes.
struct Previous {
  std::string gz, xz; // the files' bytes, which the views point into
  std::map<std::string_view, std::pair<std::string_view, XzBlock>> runs;
};

void read_previous(const AptSuiteInput& input, const std::string& dir, Previous& out) {
  if (!input.previous)
    return;
  auto gz = input.previous(dir + "/Packages.gz");
  auto xz = input.previous(dir + "/Packages.xz");
  if (!gz || !xz)
    return;
  out.gz = std::move(*gz);
  out.xz = std::move(*xz);
  auto members = keyed_gzip_members(out.gz);
  auto blocks = xz_blocks(out.xz);
  if (members.size() != blocks.size())
    return;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (members[i].isize == static_cast<std::uint32_t>(blocks[i].uncompressed))
      out.runs.emplace(members[i].key, std::pair{members[i].bytes, blocks[i]});
}

// Packages.gz and Packages.xz of `runs`: each run's member and block copied from `previous`
// or compressed anew, those on every CPU.
Result<std::pair<std::string, std::string>> compress_runs(const std::vector<Runs::Run>& runs,
                                                          const Previous& previous) {
  std::vector<std::string_view> members(runs.size());
  std::vector<XzBlock> blocks(runs.size());
  std::vector<std::string> made_gz(runs.size()), made_xz(runs.size());
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto it = previous.runs.find(runs[i].key);
    if (it != previous.runs.end() && it->second.second.uncompressed == runs[i].text.size())
      std::tie(members[i], blocks[i]) = it->second;
    else
      missing.push_back(i);
  }
  std::vector<std::optional<Error>> errors(runs.size());
  parallel_for(missing.size(), std::max(1u, std::thread::hardware_concurrency()),
               [&](std::size_t m) {
                 std::size_t i = missing[m];
                 auto gz = gzip_keyed_member(runs[i].text, runs[i].key);
                 if (!gz) {
                   errors[i] = gz.error();
                   return;
                 }
                 made_gz[i] = std::move(*gz);
                 members[i] = made_gz[i];
                 if (runs[i].text.empty())
                   return; // no block: an xz stream of none is an empty file's
                 auto block = xz_block(runs[i].text, made_xz[i]);
                 if (!block)
                   errors[i] = block.error();
                 else
                   blocks[i] = *block;
               });
  for (auto& e : errors)
    if (e)
      return fail(std::move(*e));
  std::string gz;
  for (auto member : members)
    gz += member;
  std::erase_if(blocks, [](const XzBlock& b) { return b.bytes.empty(); });
  OPSKIT_TRY_ASSIGN(auto xz, xz_stream(blocks));
  return std::pair{std::move(gz), std::move(xz)};
}

// Adds <dir>/Packages, Packages.gz and Packages.xz and their by-hash copies to `files`.
Result<void> add_packages(SuiteFiles& files, const std::string& dir, Runs runs,
                          const Previous& previous) {
  // Packages is digested while its runs are compressed: a push compresses a run or two, on one
  // CPU, and the digests of five megabytes take as long.
  auto text_digests =
      std::async(std::launch::async, [&runs] { return digest_all(runs.text, k_release_hashes); });
  OPSKIT_TRY_ASSIGN(auto compressed, compress_runs(runs.runs, previous));
  auto add = [&](std::string_view name, std::string& data, Digests d) {
    std::string path = fmt::format("{}/{}", dir, name);
    std::size_t of = files.indexes.size();
    files.by_hash.push_back({fmt::format("{}/by-hash/SHA256/{}", dir, d.sha256), of});
    files.listed.emplace(path, std::move(d));
    files.indexes.push_back({std::move(path), std::move(data)});
  };
  auto& [gz, xz] = compressed;
  add("Packages", runs.text, text_digests.get());
  add("Packages.gz", gz, digest_all(gz, k_release_hashes));
  add("Packages.xz", xz, digest_all(xz, k_release_hashes));
  return {};
}

} // namespace

Result<AptSuiteIndex> build_apt_suite(const AptSuiteInput& input) {
  OPSKIT_TRY_ASSIGN(auto fields, release_fields(input));
  auto sorted = sorted_records(input.packages);
  SuiteFiles files;
  for (const auto& component : fields.components)
    for (const auto& arch : fields.architectures) {
      std::string dir = fmt::format("{}/binary-{}", component, arch);
      Previous previous;
      read_previous(input, dir, previous);
      auto given = input.stanzas.find(dir);
      Runs runs = input.stanzas.empty()          ? packages_runs(sorted, component, arch)
                  : given != input.stanzas.end() ? stanza_runs(given->second)
                                                 : stanza_runs({});
      OPSKIT_TRY(add_packages(files, dir, std::move(runs), previous));
    }
  AptSuiteIndex index;
  index.files = std::move(files.indexes);
  index.by_hash = std::move(files.by_hash);
  index.release = apt_release(fields, files.listed);
  return index;
}

} // namespace opskit::repo
