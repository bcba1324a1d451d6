// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace opskit::repo {

// A package as the index writer sorts and pastes it: name, "[epoch:]version-release", arch,
// what its fragments are made from (its pkgid, pool file and size: equal ones give equal
// fragments), and its fragments, all viewed: they must outlive the build_yum_repo call. The
// fragments may be left empty for YumFill to give when they are needed.
struct YumFragmentViews {
  std::string_view primary, filelists, other;
};
struct YumEntry {
  std::string_view name, evr, arch;
  std::string_view pkgid, file;
  std::uint64_t size = 0;
  YumFragmentViews xml;
  std::size_t source = 0; // the caller's, to find the package again in YumFill
};

// True if `a` comes before `b` in the metadata: by name, rpm version order and arch.
bool yum_before(const YumEntry& a, const YumEntry& b);
// True if a run of packages (below) ends with `e`: its identity hashes to 0 mod 256. That
// depends on the package alone, so adding, changing or removing one changes the run it is in
// (or splits it, or joins it with the next) and leaves the others as they were.
bool yum_run_ends(const YumEntry& e);

// Packages that go into one gzip member of each metadata file: a rewrite copies a run's
// members or compresses them anew, whole. `key` is the SHA-256 of what the run's fragments
// are made of. A run carried from the rewrite before has its key and number of packages and
// no entries; a run made anew has its entries, sorted.
struct YumRun {
  std::string key;
  std::size_t packages = 0;
  std::vector<YumEntry> entries;
};
// `entries` sorted and split into runs: after each that yum_run_ends, and after the last.
std::vector<YumRun> yum_runs(std::vector<YumEntry> entries);

// The key of a run of these entries, in their order (raw SHA-256 bytes): equal for entries of
// equal pkgid, pool file and size, whatever their fragments.
std::string yum_run_key(std::span<const YumEntry> entries);

} // namespace opskit::repo
