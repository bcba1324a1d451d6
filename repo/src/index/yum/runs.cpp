// SPDX-License-Identifier: MIT
// The runs of packages a dnf repository's metadata files are cut into.
//
// Each of primary.xml, filelists.xml and other.xml is written as gzip members, one per run of
// packages in metadata order, so that a rewrite copies the members of the runs that did not
// change instead of compressing the whole file again. Where a run ends is decided by each
// package alone (its name, EVR and arch hashed, about one in 256 ending a run), not by counting,
// so that one package added or removed moves no boundary but its own run's.
//
// What is subtle: a run's key is made of what its fragments are made from (each package's pkgid,
// pool file and size), not of the fragments, so that a rewrite knows which runs it can copy
// without reading a single fragment; and the hash that ends runs is fixed, since the output
// depends on where they end.
#include "opskit/repo/index/yum/runs.hpp"

#include <algorithm>
#include <initializer_list>

#include "opskit/repo/codec/digest.hpp"
#include "opskit/repo/format/version.hpp"

namespace opskit::repo {

bool yum_before(const YumEntry& a, const YumEntry& b) {
  if (a.name != b.name)
    return a.name < b.name;
  if (int c = compare_rpm_versions(a.evr, b.evr); c != 0)
    return c < 0;
  if (a.arch != b.arch)
    return a.arch < b.arch;
  return a.evr < b.evr; // "0:1-1" and "1-1" are equal versions
}

bool yum_run_ends(const YumEntry& e) {
  constexpr std::uint64_t k_member_packages = 256; // on average in a run
  std::uint64_t h = 14695981039346656037u;         // FNV-1a, fixed so that output is too
  for (std::string_view part : {e.name, e.evr, e.arch}) {
    for (char c : part)
      h = (h ^ static_cast<unsigned char>(c)) * 1099511628211u;
    h *= 1099511628211u; // a NUL between the parts
  }
  return h % k_member_packages == 0;
}

// What the fragments of a run's packages are made from (each package's pkgid, pool file and
// size), hashed: its members' keys are made of it. A change to how fragments are written must
// change k_run_tag.
std::string yum_run_key(std::span<const YumEntry> entries) {
  constexpr std::string_view k_run_tag = "pkgcloud yum run 1\n";
  std::string text(k_run_tag);
  for (const auto& e : entries) {
    text += e.pkgid;
    text += '\0';
    text += e.file;
    text += '\0';
    text += std::to_string(e.size);
    text += '\n';
  }
  return Sha256Stream().update(text).raw();
}

std::vector<YumRun> yum_runs(std::vector<YumEntry> entries) {
  // Entries that come sorted by name (as the database's index gives them) only need their
  // versions of one name sorted.
  auto by_name = [](const YumEntry& a, const YumEntry& b) { return a.name < b.name; };
  if (std::is_sorted(entries.begin(), entries.end(), by_name)) {
    for (auto first = entries.begin(); first != entries.end();) {
      auto last = std::find_if(first + 1, entries.end(),
                               [&](const YumEntry& e) { return e.name != first->name; });
      std::sort(first, last, yum_before);
      first = last;
    }
  } else {
    std::sort(entries.begin(), entries.end(), yum_before);
  }
  std::vector<YumRun> runs;
  for (std::size_t begin = 0, i = 0; i < entries.size(); ++i)
    if (yum_run_ends(entries[i]) || i + 1 == entries.size()) {
      YumRun& run = runs.emplace_back();
      run.entries.assign(entries.begin() + static_cast<std::ptrdiff_t>(begin),
                         entries.begin() + static_cast<std::ptrdiff_t>(i + 1));
      run.packages = run.entries.size();
      run.key = yum_run_key(run.entries);
      begin = i + 1;
    }
  return runs;
}

} // namespace opskit::repo
